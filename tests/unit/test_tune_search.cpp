// The tuning searches: scalings (data-driven rows), grids, value texts, the median rule,
// Hyperband's brackets and decisions, and the Random, Grid and Bayesian searchers.
#include "engine/tune/bayesian_search.h"
#include "engine/tune/early_stopping.h"
#include "engine/tune/search.h"

#include "tests/support/plain_test.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>

using namespace studio::tune;
using studio::testing::nearly;

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

TEST_CASE("scaling") {
    const double rev = 1.0 - std::sqrt(0.001); // halfway between 1 - 0 and 1 - 0.999 in log
    const struct {
        const char* row;
        ParameterRange range;
        double value, unit;
    } rows[] = {
        {"linear", continuous(0, 10), 2.5, 0.25},
        {"linear min", continuous(-3, 5), -3.0, 0.0},
        {"linear max", continuous(-3, 5), 5.0, 1.0},
        {"log", continuous(1e-4, 1, Scaling::Logarithmic), 1e-2, 0.5},
        {"log max", continuous(1e-4, 1, Scaling::Logarithmic), 1.0, 1.0},
        {"reverse log", continuous(0, 0.999, Scaling::ReverseLogarithmic), rev, 0.5},
        {"reverse log min", continuous(0, 0.999, Scaling::ReverseLogarithmic), 0.0, 0.0},
        {"reverse log max", continuous(0, 0.999, Scaling::ReverseLogarithmic), 0.999, 1.0},
        {"auto wide is log", continuous(1e-5, 1, Scaling::Auto), 1e-3, 0.4},
        {"auto narrow is linear", continuous(1, 100, Scaling::Auto), 50.5, 0.5},
        {"integer first", integer(1, 4), 1.0, 0.125},
        {"integer last", integer(1, 4), 4.0, 0.875},
        {"integer log", integer(1, 1000, Scaling::Logarithmic), 1.0,
         std::log(2.0) / std::log(2001.0)},
        {"categorical", categorical({"a", "b", "c"}), 1.0, 0.5},
        {"categorical last", categorical({"a", "b", "c"}), 2.0, 5.0 / 6.0},
    };
    for (const auto& row : rows) {
        INFO("row: ", row.row);
        const ParameterRange& range = row.range;
        const double value = row.value, unit = row.unit;
        REQUIRE_MESSAGE(std::abs(toUnit(range, value) - unit) < 1e-12, toUnit(range, value));
        REQUIRE(std::abs(fromUnit(range, unit) - value) <= 1e-12 * std::max(1.0, std::abs(value)));
        // The ends of the unit interval are the ends of the range, and the map round-trips.
        const double last = range.type == ParameterType::Categorical
                                ? static_cast<double>(range.values.size() - 1)
                                : range.maxValue;
        REQUIRE(fromUnit(range, 0.0) ==
                nearly(range.type == ParameterType::Categorical ? 0.0 : range.minValue));
        REQUIRE(fromUnit(range, 1.0) == nearly(last));
        if (range.type == ParameterType::Continuous)
            for (double u : {0.0, 0.1, 0.37, 0.5, 0.93, 1.0})
                REQUIRE(std::abs(toUnit(range, fromUnit(range, u)) - u) < 1e-9);
    }
}

TEST_CASE("autoChoosesLogForWideRanges") {
    const struct {
        const char* row;
        ParameterRange range;
        Scaling expected;
    } rows[] = {
        {"1e-5..1", continuous(1e-5, 1, Scaling::Auto), Scaling::Logarithmic},
        {"1..100 (two orders exactly)", continuous(1, 100, Scaling::Auto), Scaling::Linear},
        {"1..101", continuous(1, 101, Scaling::Auto), Scaling::Logarithmic},
        {"0..1000 (not positive)", continuous(0, 1000, Scaling::Auto), Scaling::Linear},
        {"integer 1..1024", integer(1, 1024, Scaling::Auto), Scaling::Logarithmic},
        {"explicit linear", continuous(1e-5, 1, Scaling::Linear), Scaling::Linear},
        {"categorical", categorical({"a"}), Scaling::Linear},
    };
    for (const auto& row : rows) {
        INFO("row: ", row.row);
        REQUIRE(effectiveScaling(row.range) == row.expected);
    }
}

TEST_CASE("integersGetEqualShares") {
    const ParameterRange r = integer(1, 4);
    std::map<double, int> counts;
    const int n = 4000;
    for (int i = 0; i < n; ++i)
        ++counts[fromUnit(r, (i + 0.5) / n)];
    REQUIRE(counts.size() == std::size_t(4));
    for (const auto& [value, count] : counts)
        REQUIRE(count == 1000);
}

TEST_CASE("badScalingsAreRefused") {
    REQUIRE_THROWS_AS(toUnit(continuous(0, 1, Scaling::Logarithmic), 0.5), std::invalid_argument);
    REQUIRE_THROWS_AS(toUnit(continuous(0, 1, Scaling::ReverseLogarithmic), 0.5),
                      std::invalid_argument);
    REQUIRE_THROWS_AS(toUnit(integer(0, 0.5, Scaling::ReverseLogarithmic), 0),
                      std::invalid_argument);
    REQUIRE_THROWS_AS(makeSearcher({{continuous(0, 1)}, SearchStrategy::Grid, true, 0}),
                      std::invalid_argument);
}

TEST_CASE("valueText") {
    const struct {
        const char* row;
        ParameterRange range;
        double value;
        std::string text;
    } rows[] = {
        {"short", continuous(0, 1), 0.0031, "0.0031"},
        {"tenth", continuous(0, 1), 0.1, "0.1"},
        {"tiny", continuous(0, 1), 1e-5, "1e-05"},
        {"third", continuous(0, 1), 1.0 / 3, "0.3333333333333333"},
        {"whole", continuous(0, 1e6), 250000.0, "250000"},
        {"integer", integer(1, 512), 64.0, "64"},
        {"categorical", categorical({"sgd", "adam"}), 1.0, "adam"},
    };
    for (const auto& row : rows) {
        INFO("row: ", row.row);
        const std::string t = studio::tune::valueText(row.range, row.value);
        REQUIRE(t == row.text);
        REQUIRE(studio::tune::parseValue(row.range, t) == std::optional<double>(row.value));
    }
}

TEST_CASE("parseValue") {
    const struct {
        const char* row;
        ParameterRange range;
        std::string text;
        bool valid;
        double value;
    } rows[] = {
        {"number", continuous(0, 1), "0.25", true, 0.25},
        {"exponent", continuous(0, 1), "1e-3", true, 0.001},
        {"not a number", continuous(0, 1), "abc", false, 0.0},
        {"trailing text", continuous(0, 1), "0.5x", false, 0.0},
        {"empty", continuous(0, 1), "", false, 0.0},
        {"above the range", continuous(0, 1), "1.5", false, 0.0},
        {"integer", integer(1, 8), "3", true, 3.0},
        {"fractional integer", integer(1, 8), "2.5", false, 0.0},
        {"value", categorical({"sgd", "adam"}), "sgd", true, 0.0},
        {"unknown value", categorical({"sgd"}), "rmsprop", false, 0.0},
    };
    for (const auto& row : rows) {
        INFO("row: ", row.row);
        const auto parsed = studio::tune::parseValue(row.range, row.text);
        REQUIRE(parsed.has_value() == row.valid);
        if (row.valid)
            REQUIRE(*parsed == nearly(row.value));
    }
}

TEST_CASE("gridSizes") {
    REQUIRE(gridSize({categorical({"a", "b", "c"})}) == std::int64_t(3));
    REQUIRE(gridSize({categorical({"a", "b"}), integer(1, 3)}) == std::int64_t(6));
    REQUIRE(gridSize({integer(-2, 2), integer(10, 10)}) == std::int64_t(5));
    REQUIRE(gridSize({categorical({"a"}), continuous(0, 1)}) == std::int64_t(0));
    REQUIRE(gridSize({}) == std::int64_t(0));
}

TEST_CASE("gridRunsInOrderAndSkipsRunPoints") {
    const std::vector<ParameterRange> ranges{categorical({"a", "b"}), integer(1, 3)};
    auto grid = makeSearcher({ranges, SearchStrategy::Grid, true, 0});
    const std::vector<Point> expected{{0, 1}, {0, 2}, {0, 3}, {1, 1}, {1, 2}, {1, 3}};
    std::vector<TrialRecord> trials{{{0, 2}, TrialState::Failed, std::nullopt}};
    std::vector<Point> order;
    while (auto p = grid->propose(trials)) {
        order.push_back(*p);
        trials.push_back({*p, TrialState::Pending, std::nullopt});
    }
    REQUIRE(order == (std::vector<Point>{{0, 1}, {0, 3}, {1, 1}, {1, 2}, {1, 3}}));
    for (std::int64_t i = 0; i < 6; ++i)
        REQUIRE(gridPoint(ranges, i) == expected[static_cast<std::size_t>(i)]);
}

TEST_CASE("medianRule") {
    using Curves = std::vector<std::vector<double>>;
    const Curves three{{0.9, 0.8, 0.1}, {0.7, 0.7}, {0.2, 0.3}};
    const Curves four{{1}, {2}, {3}, {4}};
    const struct {
        const char* row;
        std::vector<double> job;
        Curves earlier;
        bool maximize, stop;
        double average, median;
        int compared;
    } rows[] = {
        // Running averages after 2 epochs: 0.85, 0.7, 0.25 -> median 0.7; the job's is 0.55.
        {"worse, maximize", {0.5, 0.6}, three, true, true, 0.55, 0.7, 3},
        {"better, minimize", {0.5, 0.6}, three, false, false, 0.55, 0.7, 3},
        // After 3 epochs only one earlier job got that far: no decision.
        {"too few at epoch 3", {0.1, 0.1, 0.1}, three, true, false, 0.1, 0.6, 1},
        {"even count, worse", {2.4}, four, true, true, 2.4, 2.5, 4},
        {"equal is not worse", {2.5}, four, true, false, 2.5, 2.5, 4},
        {"minimize, worse", {3.0}, four, false, true, 3.0, 2.5, 4},
    };
    for (const auto& row : rows) {
        INFO("row: ", row.row);
        const MedianRuleDecision d = studio::tune::medianRule(row.job, row.earlier, row.maximize);
        REQUIRE(d.stop == row.stop);
        REQUIRE(std::abs(d.runningAverage - row.average) < 1e-12);
        REQUIRE(std::abs(d.median - row.median) < 1e-12);
        REQUIRE(d.compared == row.compared);
    }
}

TEST_CASE("hyperbandBrackets") {
    using Rungs = std::vector<std::vector<double>>;
    const struct {
        const char* row;
        int minResource, maxResource, eta;
        std::vector<double> n;
        Rungs rungs;
    } rows[] = {
        {"1..81",
         1,
         81,
         3,
         {81, 34, 15, 8, 5},
         {{1, 3, 9, 27, 81}, {3, 9, 27, 81}, {9, 27, 81}, {27, 81}, {81}}},
        {"1..20", 1, 20, 3, {9, 5, 3}, {{2, 7, 20}, {7, 20}, {20}}},
        {"2..18", 2, 18, 3, {9, 5, 3}, {{2, 6, 18}, {6, 18}, {18}}},
        {"1..2", 1, 2, 3, {1}, {{2}}},
        {"5..5", 5, 5, 3, {1}, {{5}}},
        {"1..8, eta 2", 1, 8, 2, {8, 6, 4, 4}, {{1, 2, 4, 8}, {2, 4, 8}, {4, 8}, {8}}},
    };
    for (const auto& row : rows) {
        INFO("row: ", row.row);
        const HyperbandPlan plan = planHyperband(row.minResource, row.maxResource, row.eta);
        REQUIRE(plan.brackets.size() == row.n.size());
        for (std::size_t b = 0; b < row.n.size(); ++b) {
            REQUIRE(plan.brackets[b].index == static_cast<int>(b));
            REQUIRE(static_cast<double>(plan.brackets[b].n) == nearly(row.n[b]));
            std::vector<double> got(plan.brackets[b].rungs.begin(), plan.brackets[b].rungs.end());
            REQUIRE(got == row.rungs[b]);
        }
    }
}

TEST_CASE("bracketsShareConfigurationsByN") {
    const HyperbandPlan plan = planHyperband(1, 81, 3);
    std::vector<int> counts(plan.brackets.size(), 0);
    for (int i = 0; i < 143; ++i)
        ++counts[static_cast<std::size_t>(plan.bracketOf(i))];
    REQUIRE(counts == (std::vector<int>{81, 34, 15, 8, 5}));
    REQUIRE(plan.bracketOf(0) == 0);
    for (int i = 0; i < 50; ++i)
        REQUIRE(plan.bracketOf(i + 143) == plan.bracketOf(i));
    // Interleaved, not in blocks: the least-used bracket shows up within the first 30.
    bool seen = false;
    for (int i = 0; i < 30; ++i)
        seen = seen || plan.bracketOf(i) == 4;
    REQUIRE(seen);
}

TEST_CASE("hyperbandDecisions") {
    using Curves = std::vector<std::vector<double>>;
    // k = 6, keep 2: second best goes on, third stops.
    const Curves five{
        {0.9, 0.9, 0.9}, {0.1, 0.1, 0.1}, {0.2, 0.2, 0.2}, {0.3, 0.3, 0.3}, {0.4, 0.4, 0.4}};
    const struct {
        const char* row;
        std::vector<double> job;
        Curves others;
        bool maximize, stop;
        int rung;
    } rows[] = {
        {"first at rung 1 goes on", {0.1}, {}, true, false, 1},
        // k = 3, keep max(1, floor(3/3)) = 1.
        {"third of three stops", {0.5}, {{0.9}, {0.8, 0.1}}, true, true, 1},
        {"best of three goes on", {0.95}, {{0.9}, {0.8}}, true, false, 1},
        {"minimize, best goes on", {0.5}, {{0.9}, {0.8}}, false, false, 1},
        {"second of six at rung 3", {0, 0, 0.5}, five, true, false, 3},
        {"third of six at rung 3", {0, 0, 0.35}, five, true, true, 3},
        {"between rungs", {0, 0}, five, true, false, -1},
        {"others short of the rung", {0, 0, 0.0}, {{1}, {1, 1}}, true, false, 3},
    };
    const HyperbandPlan plan = planHyperband(1, 81, 3);
    for (const auto& row : rows) {
        INFO("row: ", row.row);
        const HyperbandDecision d = hyperbandDecision(plan, 0, row.job, row.others, row.maximize);
        REQUIRE(d.stop == row.stop);
        REQUIRE(d.rung == std::int64_t(row.rung));
        // The last rung is the end: no decision there.
        const HyperbandDecision end =
            hyperbandDecision(plan, 4, Curve(81, 0.0), {Curve(81, 1.0)}, true);
        REQUIRE(end.rung == std::int64_t(-1));
        REQUIRE(!end.stop);
    }
}

TEST_CASE("randomIsReproducible") {
    const std::vector<ParameterRange> ranges{continuous(1e-5, 1, Scaling::Auto), integer(1, 64),
                                             categorical({"a", "b", "c"})};
    auto a = makeSearcher({ranges, SearchStrategy::Random, true, 42});
    auto b = makeSearcher({ranges, SearchStrategy::Random, true, 42});
    auto c = makeSearcher({ranges, SearchStrategy::Random, true, 43});
    std::vector<TrialRecord> trials;
    for (int i = 0; i < 20; ++i) {
        const Point p = *a->propose(trials);
        REQUIRE(*b->propose(trials) == p);
        REQUIRE(*c->propose(trials) != p);
        REQUIRE(p[1] == nearly(std::round(p[1])));
        REQUIRE((p[2] == 0 || p[2] == 1 || p[2] == 2));
        trials.push_back({p, TrialState::Completed, 1.0});
        REQUIRE(*a->propose(trials) != p);
    }
}

TEST_CASE("bayesianIsReproducible") {
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
    REQUIRE(*b->propose(trials) == p);
    REQUIRE(*a->propose(trials) == p);
}

TEST_CASE("bayesianBeatsRandomOnAQuadratic") {
    const std::vector<ParameterRange> ranges{continuous(-1, 1), continuous(-1, 1)};
    const auto f = [](const Point& p) {
        return (p[0] - 0.3) * (p[0] - 0.3) + 2 * (p[1] + 0.2) * (p[1] + 0.2);
    };
    std::vector<double> bayes, random;
    for (std::uint64_t seed = 0; seed < 5; ++seed) {
        bayes.push_back(bestFound(SearchStrategy::Bayesian, ranges, f, seed, 30));
        random.push_back(bestFound(SearchStrategy::Random, ranges, f, seed, 30));
    }
    INFO("Bayesian ", median(bayes), ", Random ", median(random));
    REQUIRE(median(bayes) < 0.1 * median(random));
}

TEST_CASE("constantLiarSpreadsPendingProposals") {
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
            REQUIRE(std::hypot(p[0] - q[0], p[1] - q[1]) > 1e-3);
        proposed.push_back(p);
        trials.push_back({p, TrialState::Pending, std::nullopt});
    }
}

TEST_CASE("bayesianHandlesCategoricalsAndIntegers") {
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
        REQUIRE((p[0] == 0 || p[0] == 1 || p[0] == 2));
        REQUIRE(p[2] == nearly(std::round(p[2])));
        REQUIRE((p[2] >= 1 && p[2] <= 10));
        if (i >= 15)
            picksC += p[0] == 2 ? 1 : 0;
        trials.push_back({p, TrialState::Completed, f(p)});
    }
    REQUIRE_MESSAGE(picksC >= 7, picksC);
}

TEST_CASE("bayesianIgnoresFailedTrials") {
    const std::vector<ParameterRange> ranges{continuous(0, 1)};
    std::vector<TrialRecord> trials;
    for (std::size_t i = 0; i < 10; ++i) {
        const Point p = randomPoint(ranges, 8, i);
        trials.push_back({p, TrialState::Completed, p[0]});
        trials.push_back({randomPoint(ranges, 9, i), TrialState::Failed, std::nullopt});
    }
    trials.push_back({{0.5}, TrialState::Stopped, 0.5});
    const auto p = makeSearcher({ranges, SearchStrategy::Bayesian, true, 2})->propose(trials);
    REQUIRE((p && (*p)[0] >= 0 && (*p)[0] <= 1));
    REQUIRE(bayesianStartupTrials(ranges) == 5);
    REQUIRE(bayesianStartupTrials(std::vector<ParameterRange>(20, continuous(0, 1))) == 10);
}
