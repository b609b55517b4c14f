// The tuning searches: scalings (data-driven rows), grids, value texts, the median rule,
// Hyperband's brackets and decisions, and the Random, Grid and Bayesian searchers.
#include "engine/tune/bayesian_search.h"
#include "engine/tune/early_stopping.h"
#include "engine/tune/search.h"

#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace studio::tune;

Q_DECLARE_METATYPE(std::vector<double>)
Q_DECLARE_METATYPE(std::vector<std::vector<double>>)
Q_DECLARE_METATYPE(studio::tune::ParameterRange)
Q_DECLARE_METATYPE(studio::tune::Scaling)

namespace {

ParameterRange continuous(double lo, double hi, Scaling s = Scaling::Linear) {
    ParameterRange r;
    r.name = "x";
    r.minValue = lo;
    r.maxValue = hi;
    r.scaling = s;
    return r;
}

ParameterRange integer(double lo, double hi, Scaling s = Scaling::Linear) {
    ParameterRange r = continuous(lo, hi, s);
    r.type = ParameterType::Integer;
    return r;
}

ParameterRange categorical(std::vector<std::string> values) {
    ParameterRange r;
    r.name = "c";
    r.type = ParameterType::Categorical;
    r.values = std::move(values);
    return r;
}

// Runs a sequential search for evals evaluations and returns the best value found (minimised).
double bestFound(SearchStrategy strategy, const std::vector<ParameterRange>& ranges,
                 const std::function<double(const Point&)>& f, std::uint64_t seed, int evals) {
    auto searcher = makeSearcher({ranges, strategy, false, seed});
    std::vector<TrialRecord> trials;
    double best = INFINITY;
    for (int i = 0; i < evals; ++i) {
        const Point p = *searcher->propose(trials);
        const double v = f(p);
        best = std::min(best, v);
        trials.push_back({p, TrialState::Completed, v});
    }
    return best;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

} // namespace

class TuneSearchTest : public QObject {
    Q_OBJECT
private slots:
    void scaling_data();
    void scaling();
    void autoChoosesLogForWideRanges_data();
    void autoChoosesLogForWideRanges();
    void integersGetEqualShares();
    void badScalingsAreRefused();
    void valueText_data();
    void valueText();
    void parseValue_data();
    void parseValue();
    void gridSizes();
    void gridRunsInOrderAndSkipsRunPoints();
    void medianRule_data();
    void medianRule();
    void hyperbandBrackets_data();
    void hyperbandBrackets();
    void bracketsShareConfigurationsByN();
    void hyperbandDecisions_data();
    void hyperbandDecisions();
    void randomIsReproducible();
    void bayesianIsReproducible();
    void bayesianBeatsRandomOnAQuadratic();
    void constantLiarSpreadsPendingProposals();
    void bayesianHandlesCategoricalsAndIntegers();
    void bayesianIgnoresFailedTrials();
};

void TuneSearchTest::scaling_data() {
    QTest::addColumn<ParameterRange>("range");
    QTest::addColumn<double>("value");
    QTest::addColumn<double>("unit");
    const double rev = 1.0 - std::sqrt(0.001); // halfway between 1 - 0 and 1 - 0.999 in log
    QTest::newRow("linear") << continuous(0, 10) << 2.5 << 0.25;
    QTest::newRow("linear min") << continuous(-3, 5) << -3.0 << 0.0;
    QTest::newRow("linear max") << continuous(-3, 5) << 5.0 << 1.0;
    QTest::newRow("log") << continuous(1e-4, 1, Scaling::Logarithmic) << 1e-2 << 0.5;
    QTest::newRow("log max") << continuous(1e-4, 1, Scaling::Logarithmic) << 1.0 << 1.0;
    QTest::newRow("reverse log") << continuous(0, 0.999, Scaling::ReverseLogarithmic) << rev << 0.5;
    QTest::newRow("reverse log min")
        << continuous(0, 0.999, Scaling::ReverseLogarithmic) << 0.0 << 0.0;
    QTest::newRow("reverse log max")
        << continuous(0, 0.999, Scaling::ReverseLogarithmic) << 0.999 << 1.0;
    QTest::newRow("auto wide is log") << continuous(1e-5, 1, Scaling::Auto) << 1e-3 << 0.4;
    QTest::newRow("auto narrow is linear") << continuous(1, 100, Scaling::Auto) << 50.5 << 0.5;
    QTest::newRow("integer first") << integer(1, 4) << 1.0 << 0.125;
    QTest::newRow("integer last") << integer(1, 4) << 4.0 << 0.875;
    QTest::newRow("integer log") << integer(1, 1000, Scaling::Logarithmic) << 1.0
                                 << std::log(2.0) / std::log(2001.0);
    QTest::newRow("categorical") << categorical({"a", "b", "c"}) << 1.0 << 0.5;
    QTest::newRow("categorical last") << categorical({"a", "b", "c"}) << 2.0 << 5.0 / 6.0;
}

void TuneSearchTest::scaling() {
    QFETCH(ParameterRange, range);
    QFETCH(double, value);
    QFETCH(double, unit);
    QVERIFY2(std::abs(toUnit(range, value) - unit) < 1e-12,
             qPrintable(QString::number(toUnit(range, value), 'g', 17)));
    QVERIFY(std::abs(fromUnit(range, unit) - value) <= 1e-12 * std::max(1.0, std::abs(value)));
    // The ends of the unit interval are the ends of the range, and the map round-trips.
    const double last = range.type == ParameterType::Categorical
                            ? static_cast<double>(range.values.size() - 1)
                            : range.maxValue;
    QCOMPARE(fromUnit(range, 0.0), range.type == ParameterType::Categorical ? 0.0 : range.minValue);
    QCOMPARE(fromUnit(range, 1.0), last);
    if (range.type == ParameterType::Continuous)
        for (double u : {0.0, 0.1, 0.37, 0.5, 0.93, 1.0})
            QVERIFY(std::abs(toUnit(range, fromUnit(range, u)) - u) < 1e-9);
}

void TuneSearchTest::autoChoosesLogForWideRanges_data() {
    QTest::addColumn<ParameterRange>("range");
    QTest::addColumn<Scaling>("expected");
    QTest::newRow("1e-5..1") << continuous(1e-5, 1, Scaling::Auto) << Scaling::Logarithmic;
    QTest::newRow("1..100 (two orders exactly)")
        << continuous(1, 100, Scaling::Auto) << Scaling::Linear;
    QTest::newRow("1..101") << continuous(1, 101, Scaling::Auto) << Scaling::Logarithmic;
    QTest::newRow("0..1000 (not positive)")
        << continuous(0, 1000, Scaling::Auto) << Scaling::Linear;
    QTest::newRow("integer 1..1024") << integer(1, 1024, Scaling::Auto) << Scaling::Logarithmic;
    QTest::newRow("explicit linear") << continuous(1e-5, 1, Scaling::Linear) << Scaling::Linear;
    QTest::newRow("categorical") << categorical({"a"}) << Scaling::Linear;
}

void TuneSearchTest::autoChoosesLogForWideRanges() {
    QFETCH(ParameterRange, range);
    QFETCH(Scaling, expected);
    QCOMPARE(effectiveScaling(range), expected);
}

void TuneSearchTest::integersGetEqualShares() {
    const ParameterRange r = integer(1, 4);
    std::map<double, int> counts;
    const int n = 4000;
    for (int i = 0; i < n; ++i)
        ++counts[fromUnit(r, (i + 0.5) / n)];
    QCOMPARE(counts.size(), std::size_t(4));
    for (const auto& [value, count] : counts)
        QCOMPARE(count, 1000);
}

void TuneSearchTest::badScalingsAreRefused() {
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             toUnit(continuous(0, 1, Scaling::Logarithmic), 0.5));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             toUnit(continuous(0, 1, Scaling::ReverseLogarithmic), 0.5));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             toUnit(integer(0, 0.5, Scaling::ReverseLogarithmic), 0));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             makeSearcher({{continuous(0, 1)}, SearchStrategy::Grid, true, 0}));
}

void TuneSearchTest::valueText_data() {
    QTest::addColumn<ParameterRange>("range");
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("text");
    QTest::newRow("short") << continuous(0, 1) << 0.0031 << QStringLiteral("0.0031");
    QTest::newRow("tenth") << continuous(0, 1) << 0.1 << QStringLiteral("0.1");
    QTest::newRow("tiny") << continuous(0, 1) << 1e-5 << QStringLiteral("1e-05");
    QTest::newRow("third") << continuous(0, 1) << 1.0 / 3 << QStringLiteral("0.3333333333333333");
    QTest::newRow("whole") << continuous(0, 1e6) << 250000.0 << QStringLiteral("250000");
    QTest::newRow("integer") << integer(1, 512) << 64.0 << QStringLiteral("64");
    QTest::newRow("categorical") << categorical({"sgd", "adam"}) << 1.0 << QStringLiteral("adam");
}

void TuneSearchTest::valueText() {
    QFETCH(ParameterRange, range);
    QFETCH(double, value);
    QFETCH(QString, text);
    const std::string t = studio::tune::valueText(range, value);
    QCOMPARE(QString::fromStdString(t), text);
    QCOMPARE(studio::tune::parseValue(range, t), std::optional<double>(value));
}

void TuneSearchTest::parseValue_data() {
    QTest::addColumn<ParameterRange>("range");
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<double>("value");
    QTest::newRow("number") << continuous(0, 1) << QStringLiteral("0.25") << true << 0.25;
    QTest::newRow("exponent") << continuous(0, 1) << QStringLiteral("1e-3") << true << 0.001;
    QTest::newRow("not a number") << continuous(0, 1) << QStringLiteral("abc") << false << 0.0;
    QTest::newRow("trailing text") << continuous(0, 1) << QStringLiteral("0.5x") << false << 0.0;
    QTest::newRow("empty") << continuous(0, 1) << QString() << false << 0.0;
    QTest::newRow("above the range") << continuous(0, 1) << QStringLiteral("1.5") << false << 0.0;
    QTest::newRow("integer") << integer(1, 8) << QStringLiteral("3") << true << 3.0;
    QTest::newRow("fractional integer") << integer(1, 8) << QStringLiteral("2.5") << false << 0.0;
    QTest::newRow("value") << categorical({"sgd", "adam"}) << QStringLiteral("sgd") << true << 0.0;
    QTest::newRow("unknown value")
        << categorical({"sgd"}) << QStringLiteral("rmsprop") << false << 0.0;
}

void TuneSearchTest::parseValue() {
    QFETCH(ParameterRange, range);
    QFETCH(QString, text);
    QFETCH(bool, valid);
    QFETCH(double, value);
    const auto parsed = studio::tune::parseValue(range, text.toStdString());
    QCOMPARE(parsed.has_value(), valid);
    if (valid)
        QCOMPARE(*parsed, value);
}

void TuneSearchTest::gridSizes() {
    QCOMPARE(gridSize({categorical({"a", "b", "c"})}), std::int64_t(3));
    QCOMPARE(gridSize({categorical({"a", "b"}), integer(1, 3)}), std::int64_t(6));
    QCOMPARE(gridSize({integer(-2, 2), integer(10, 10)}), std::int64_t(5));
    QCOMPARE(gridSize({categorical({"a"}), continuous(0, 1)}), std::int64_t(0));
    QCOMPARE(gridSize({}), std::int64_t(0));
}

void TuneSearchTest::gridRunsInOrderAndSkipsRunPoints() {
    const std::vector<ParameterRange> ranges{categorical({"a", "b"}), integer(1, 3)};
    auto grid = makeSearcher({ranges, SearchStrategy::Grid, true, 0});
    const std::vector<Point> expected{{0, 1}, {0, 2}, {0, 3}, {1, 1}, {1, 2}, {1, 3}};
    std::vector<TrialRecord> trials{{{0, 2}, TrialState::Failed, std::nullopt}};
    std::vector<Point> order;
    while (auto p = grid->propose(trials)) {
        order.push_back(*p);
        trials.push_back({*p, TrialState::Pending, std::nullopt});
    }
    QCOMPARE(order, (std::vector<Point>{{0, 1}, {0, 3}, {1, 1}, {1, 2}, {1, 3}}));
    for (std::int64_t i = 0; i < 6; ++i)
        QCOMPARE(gridPoint(ranges, i), expected[static_cast<std::size_t>(i)]);
}

void TuneSearchTest::medianRule_data() {
    using Curves = std::vector<std::vector<double>>;
    QTest::addColumn<std::vector<double>>("job");
    QTest::addColumn<Curves>("earlier");
    QTest::addColumn<bool>("maximize");
    QTest::addColumn<bool>("stop");
    QTest::addColumn<double>("average");
    QTest::addColumn<double>("median");
    QTest::addColumn<int>("compared");
    const Curves three{{0.9, 0.8, 0.1}, {0.7, 0.7}, {0.2, 0.3}};
    // Running averages after 2 epochs: 0.85, 0.7, 0.25 -> median 0.7; the job's is 0.55.
    QTest::newRow("worse, maximize")
        << std::vector<double>{0.5, 0.6} << three << true << true << 0.55 << 0.7 << 3;
    QTest::newRow("better, minimize")
        << std::vector<double>{0.5, 0.6} << three << false << false << 0.55 << 0.7 << 3;
    // After 3 epochs only one earlier job got that far: no decision.
    QTest::newRow("too few at epoch 3")
        << std::vector<double>{0.1, 0.1, 0.1} << three << true << false << 0.1 << 0.6 << 1;
    const Curves four{{1}, {2}, {3}, {4}};
    QTest::newRow("even count, worse")
        << std::vector<double>{2.4} << four << true << true << 2.4 << 2.5 << 4;
    QTest::newRow("equal is not worse")
        << std::vector<double>{2.5} << four << true << false << 2.5 << 2.5 << 4;
    QTest::newRow("minimize, worse")
        << std::vector<double>{3.0} << four << false << true << 3.0 << 2.5 << 4;
}

void TuneSearchTest::medianRule() {
    using Curves = std::vector<std::vector<double>>;
    QFETCH(std::vector<double>, job);
    QFETCH(Curves, earlier);
    QFETCH(bool, maximize);
    QFETCH(bool, stop);
    QFETCH(double, average);
    QFETCH(double, median);
    QFETCH(int, compared);
    const MedianRuleDecision d = studio::tune::medianRule(job, earlier, maximize);
    QCOMPARE(d.stop, stop);
    QVERIFY(std::abs(d.runningAverage - average) < 1e-12);
    QVERIFY(std::abs(d.median - median) < 1e-12);
    QCOMPARE(d.compared, compared);
}

void TuneSearchTest::hyperbandBrackets_data() {
    using Rungs = std::vector<std::vector<double>>;
    QTest::addColumn<int>("minResource");
    QTest::addColumn<int>("maxResource");
    QTest::addColumn<int>("eta");
    QTest::addColumn<std::vector<double>>("n");
    QTest::addColumn<Rungs>("rungs");
    QTest::newRow("1..81") << 1 << 81 << 3 << std::vector<double>{81, 34, 15, 8, 5}
                           << Rungs{{1, 3, 9, 27, 81}, {3, 9, 27, 81}, {9, 27, 81}, {27, 81}, {81}};
    QTest::newRow("1..20") << 1 << 20 << 3 << std::vector<double>{9, 5, 3}
                           << Rungs{{2, 7, 20}, {7, 20}, {20}};
    QTest::newRow("2..18") << 2 << 18 << 3 << std::vector<double>{9, 5, 3}
                           << Rungs{{2, 6, 18}, {6, 18}, {18}};
    QTest::newRow("1..2") << 1 << 2 << 3 << std::vector<double>{1} << Rungs{{2}};
    QTest::newRow("5..5") << 5 << 5 << 3 << std::vector<double>{1} << Rungs{{5}};
    QTest::newRow("1..8, eta 2") << 1 << 8 << 2 << std::vector<double>{8, 6, 4, 4}
                                 << Rungs{{1, 2, 4, 8}, {2, 4, 8}, {4, 8}, {8}};
}

void TuneSearchTest::hyperbandBrackets() {
    using Rungs = std::vector<std::vector<double>>;
    QFETCH(int, minResource);
    QFETCH(int, maxResource);
    QFETCH(int, eta);
    QFETCH(std::vector<double>, n);
    QFETCH(Rungs, rungs);
    const HyperbandPlan plan = planHyperband(minResource, maxResource, eta);
    QCOMPARE(plan.brackets.size(), n.size());
    for (std::size_t b = 0; b < n.size(); ++b) {
        QCOMPARE(plan.brackets[b].index, static_cast<int>(b));
        QCOMPARE(static_cast<double>(plan.brackets[b].n), n[b]);
        std::vector<double> got(plan.brackets[b].rungs.begin(), plan.brackets[b].rungs.end());
        QCOMPARE(got, rungs[b]);
    }
}

void TuneSearchTest::bracketsShareConfigurationsByN() {
    const HyperbandPlan plan = planHyperband(1, 81, 3);
    std::vector<int> counts(plan.brackets.size(), 0);
    for (int i = 0; i < 143; ++i)
        ++counts[static_cast<std::size_t>(plan.bracketOf(i))];
    QCOMPARE(counts, (std::vector<int>{81, 34, 15, 8, 5}));
    QCOMPARE(plan.bracketOf(0), 0);
    for (int i = 0; i < 50; ++i)
        QCOMPARE(plan.bracketOf(i + 143), plan.bracketOf(i));
    // Interleaved, not in blocks: the least-used bracket shows up within the first 30.
    bool seen = false;
    for (int i = 0; i < 30; ++i)
        seen = seen || plan.bracketOf(i) == 4;
    QVERIFY(seen);
}

void TuneSearchTest::hyperbandDecisions_data() {
    using Curves = std::vector<std::vector<double>>;
    QTest::addColumn<std::vector<double>>("job");
    QTest::addColumn<Curves>("others");
    QTest::addColumn<bool>("maximize");
    QTest::addColumn<bool>("stop");
    QTest::addColumn<int>("rung");
    QTest::newRow("first at rung 1 goes on")
        << std::vector<double>{0.1} << Curves{} << true << false << 1;
    // k = 3, keep max(1, floor(3/3)) = 1.
    QTest::newRow("third of three stops")
        << std::vector<double>{0.5} << Curves{{0.9}, {0.8, 0.1}} << true << true << 1;
    QTest::newRow("best of three goes on")
        << std::vector<double>{0.95} << Curves{{0.9}, {0.8}} << true << false << 1;
    QTest::newRow("minimize, best goes on")
        << std::vector<double>{0.5} << Curves{{0.9}, {0.8}} << false << false << 1;
    // k = 6, keep 2: second best goes on, third stops.
    const Curves five{
        {0.9, 0.9, 0.9}, {0.1, 0.1, 0.1}, {0.2, 0.2, 0.2}, {0.3, 0.3, 0.3}, {0.4, 0.4, 0.4}};
    QTest::newRow("second of six at rung 3")
        << std::vector<double>{0, 0, 0.5} << five << true << false << 3;
    QTest::newRow("third of six at rung 3")
        << std::vector<double>{0, 0, 0.35} << five << true << true << 3;
    QTest::newRow("between rungs") << std::vector<double>{0, 0} << five << true << false << -1;
    QTest::newRow("others short of the rung")
        << std::vector<double>{0, 0, 0.0} << Curves{{1}, {1, 1}} << true << false << 3;
}

void TuneSearchTest::hyperbandDecisions() {
    using Curves = std::vector<std::vector<double>>;
    QFETCH(std::vector<double>, job);
    QFETCH(Curves, others);
    QFETCH(bool, maximize);
    QFETCH(bool, stop);
    QFETCH(int, rung);
    const HyperbandPlan plan = planHyperband(1, 81, 3);
    const HyperbandDecision d = hyperbandDecision(plan, 0, job, others, maximize);
    QCOMPARE(d.stop, stop);
    QCOMPARE(d.rung, std::int64_t(rung));
    // The last rung is the end: no decision there.
    const HyperbandDecision end =
        hyperbandDecision(plan, 4, Curve(81, 0.0), {Curve(81, 1.0)}, true);
    QCOMPARE(end.rung, std::int64_t(-1));
    QVERIFY(!end.stop);
}

void TuneSearchTest::randomIsReproducible() {
    const std::vector<ParameterRange> ranges{continuous(1e-5, 1, Scaling::Auto), integer(1, 64),
                                             categorical({"a", "b", "c"})};
    auto a = makeSearcher({ranges, SearchStrategy::Random, true, 42});
    auto b = makeSearcher({ranges, SearchStrategy::Random, true, 42});
    auto c = makeSearcher({ranges, SearchStrategy::Random, true, 43});
    std::vector<TrialRecord> trials;
    for (int i = 0; i < 20; ++i) {
        const Point p = *a->propose(trials);
        QCOMPARE(*b->propose(trials), p);
        QVERIFY(*c->propose(trials) != p);
        QCOMPARE(p[1], std::round(p[1]));
        QVERIFY(p[2] == 0 || p[2] == 1 || p[2] == 2);
        trials.push_back({p, TrialState::Completed, 1.0});
        QVERIFY(*a->propose(trials) != p);
    }
}

void TuneSearchTest::bayesianIsReproducible() {
    const std::vector<ParameterRange> ranges{continuous(-1, 1), continuous(-1, 1)};
    const auto f = [](const Point& p) {
        return p[0] * p[0] + std::sin(3 * p[1]);
    };
    std::vector<TrialRecord> trials;
    for (std::size_t i = 0; i < 12; ++i) {
        const Point p = randomPoint(ranges, 5, i);
        trials.push_back({p, TrialState::Completed, f(p)});
    }
    auto a = makeSearcher({ranges, SearchStrategy::Bayesian, false, 9});
    auto b = makeSearcher({ranges, SearchStrategy::Bayesian, false, 9});
    const Point p = *a->propose(trials);
    QCOMPARE(*b->propose(trials), p);
    QCOMPARE(*a->propose(trials), p);
}

void TuneSearchTest::bayesianBeatsRandomOnAQuadratic() {
    const std::vector<ParameterRange> ranges{continuous(-1, 1), continuous(-1, 1)};
    const auto f = [](const Point& p) {
        return (p[0] - 0.3) * (p[0] - 0.3) + 2 * (p[1] + 0.2) * (p[1] + 0.2);
    };
    std::vector<double> bayes, random;
    for (std::uint64_t seed = 0; seed < 5; ++seed) {
        bayes.push_back(bestFound(SearchStrategy::Bayesian, ranges, f, seed, 30));
        random.push_back(bestFound(SearchStrategy::Random, ranges, f, seed, 30));
    }
    QVERIFY2(median(bayes) < 0.1 * median(random),
             qPrintable(
                 QStringLiteral("Bayesian %1, Random %2").arg(median(bayes)).arg(median(random))));
}

void TuneSearchTest::constantLiarSpreadsPendingProposals() {
    const std::vector<ParameterRange> ranges{continuous(0, 1), continuous(0, 1)};
    std::vector<TrialRecord> trials;
    for (std::size_t i = 0; i < 8; ++i) {
        const Point p = randomPoint(ranges, 3, i);
        trials.push_back({p, TrialState::Completed, -(p[0] - 0.5) * (p[0] - 0.5) - p[1]});
    }
    auto searcher = makeSearcher({ranges, SearchStrategy::Bayesian, true, 1});
    std::vector<Point> proposed;
    for (int i = 0; i < 4; ++i) {
        const Point p = *searcher->propose(trials);
        for (const auto& q : proposed)
            QVERIFY(std::hypot(p[0] - q[0], p[1] - q[1]) > 1e-3);
        proposed.push_back(p);
        trials.push_back({p, TrialState::Pending, std::nullopt});
    }
}

void TuneSearchTest::bayesianHandlesCategoricalsAndIntegers() {
    // Only value "c" of the categorical reaches the optimum; the integer's best is 7.
    const std::vector<ParameterRange> ranges{categorical({"a", "b", "c"}), continuous(0, 1),
                                             integer(1, 10)};
    const auto f = [](const Point& p) {
        return (p[0] == 2 ? 0.0 : 1.0) + (p[1] - 0.5) * (p[1] - 0.5) + 0.05 * std::abs(p[2] - 7);
    };
    auto searcher = makeSearcher({ranges, SearchStrategy::Bayesian, false, 4});
    std::vector<TrialRecord> trials;
    int picksC = 0;
    for (int i = 0; i < 25; ++i) {
        const Point p = *searcher->propose(trials);
        QVERIFY(p[0] == 0 || p[0] == 1 || p[0] == 2);
        QCOMPARE(p[2], std::round(p[2]));
        QVERIFY(p[2] >= 1 && p[2] <= 10);
        if (i >= 15)
            picksC += p[0] == 2 ? 1 : 0;
        trials.push_back({p, TrialState::Completed, f(p)});
    }
    QVERIFY2(picksC >= 7, qPrintable(QString::number(picksC)));
}

void TuneSearchTest::bayesianIgnoresFailedTrials() {
    const std::vector<ParameterRange> ranges{continuous(0, 1)};
    std::vector<TrialRecord> trials;
    for (std::size_t i = 0; i < 10; ++i) {
        const Point p = randomPoint(ranges, 8, i);
        trials.push_back({p, TrialState::Completed, p[0]});
        trials.push_back({randomPoint(ranges, 9, i), TrialState::Failed, std::nullopt});
    }
    trials.push_back({{0.5}, TrialState::Stopped, 0.5});
    const auto p = makeSearcher({ranges, SearchStrategy::Bayesian, true, 2})->propose(trials);
    QVERIFY(p && (*p)[0] >= 0 && (*p)[0] <= 1);
    QCOMPARE(bayesianStartupTrials(ranges), 5);
    QCOMPARE(bayesianStartupTrials(std::vector<ParameterRange>(20, continuous(0, 1))), 10);
}

QTEST_GUILESS_MAIN(TuneSearchTest)
#include "test_tune_search.moc"
