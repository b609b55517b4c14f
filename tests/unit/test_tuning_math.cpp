// The tuning tab's math, table-driven: ranges read from tuning specs (types, scaling, log axes),
// the best objective so far, grouping values into slice bins and the one-way ANOVA importance
// (checked against values worked out by hand).
#include "models/tuning/tuning_math.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace studio::models;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

using Doubles = std::vector<double>;
using Ints = std::vector<int>;

bool same(const Doubles& a, const Doubles& b) {
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!(std::isnan(a[i]) && std::isnan(b[i])) && std::fabs(a[i] - b[i]) > 1e-12)
            return false;
    return true;
}

} // namespace

Q_DECLARE_METATYPE(Doubles)
Q_DECLARE_METATYPE(Ints)

class TestTuningMath : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void ranges() {
        const auto r = tuningRanges(R"({"tuning": {"hyperparameter_ranges": {
            "lr": {"type": "Continuous", "min_value": 0.0001, "max_value": 0.1,
                   "scaling_type": "Logarithmic"},
            "momentum": {"type": "Continuous", "min_value": "0.5", "max_value": "0.99"},
            "wd": {"type": "Continuous", "min_value": 1e-6, "max_value": 1e-2},
            "batch-size": {"type": "Integer", "min_value": 16, "max_value": 256},
            "optimizer": {"type": "Categorical", "values": ["sgd", "adam", 3]}}}})");
        QCOMPARE(r.size(), std::size_t(5));
        QCOMPARE(r[0].name, QStringLiteral("lr")); // the spec's order, not sorted
        QVERIFY(r[0].logScale());
        QCOMPARE(r[1].min, 0.5); // a number written as a string, as SageMaker writes them
        QVERIFY(!r[1].logScale());
        QVERIFY(r[2].logScale()); // Auto over four decades
        QCOMPARE(r[3].type, TuningRange::Type::Integer);
        QVERIFY(!r[3].logScale()); // Auto over 16x
        QCOMPARE(r[4].type, TuningRange::Type::Categorical);
        QCOMPARE(r[4].values,
                 (QStringList{QStringLiteral("sgd"), QStringLiteral("adam"), QStringLiteral("3")}));
        QVERIFY(tuningRanges("not json").empty());
        QVERIFY(tuningRanges(R"({"training": {}})").empty());
    }

    void bestSoFar_data() {
        QTest::addColumn<Doubles>("objectives");
        QTest::addColumn<bool>("maximize");
        QTest::addColumn<Doubles>("best");
        QTest::newRow("empty") << Doubles{} << true << Doubles{};
        QTest::newRow("max") << Doubles{0.5, 0.4, 0.7, 0.6} << true << Doubles{0.5, 0.5, 0.7, 0.7};
        QTest::newRow("min") << Doubles{0.5, 0.4, 0.7, 0.3} << false << Doubles{0.5, 0.4, 0.4, 0.3};
        QTest::newRow("leading NaN") << Doubles{kNaN, 2, kNaN, 1} << true << Doubles{kNaN, 2, 2, 2};
        QTest::newRow("all NaN") << Doubles{kNaN, kNaN} << false << Doubles{kNaN, kNaN};
        QTest::newRow("ties") << Doubles{1, 1, 1} << true << Doubles{1, 1, 1};
    }
    void bestSoFar() {
        QFETCH(Doubles, objectives);
        QFETCH(bool, maximize);
        QFETCH(Doubles, best);
        QVERIFY(same(studio::models::bestSoFar(objectives, maximize), best));
    }

    void groupNumbers_data() {
        QTest::addColumn<Doubles>("values");
        QTest::addColumn<int>("maxGroups");
        QTest::addColumn<Ints>("groups");
        QTest::addColumn<QStringList>("labels");
        QTest::addColumn<Doubles>("centers");
        QTest::newRow("few distinct values: one group each")
            << Doubles{3, 1, 3, 2} << 4 << Ints{2, 0, 2, 1}
            << QStringList{QStringLiteral("1"), QStringLiteral("2"), QStringLiteral("3")}
            << Doubles{1, 2, 3};
        QTest::newRow("equal counts")
            << Doubles{1, 2, 3, 4, 5, 6} << 3 << Ints{0, 0, 1, 1, 2, 2}
            << QStringList{QStringLiteral("1 – 2"), QStringLiteral("3 – 4"),
                           QStringLiteral("5 – 6")}
            << Doubles{1.5, 3.5, 5.5};
        QTest::newRow("ties stay together")
            << Doubles{1, 1, 1, 1, 2, 3} << 2 << Ints{0, 0, 0, 0, 1, 1}
            << QStringList{QStringLiteral("1"), QStringLiteral("2 – 3")} << Doubles{1, 2.5};
        QTest::newRow("missing values") << Doubles{kNaN, 5, kNaN} << 2 << Ints{-1, 0, -1}
                                        << QStringList{QStringLiteral("5")} << Doubles{5};
        QTest::newRow("nothing") << Doubles{kNaN} << 3 << Ints{-1} << QStringList{} << Doubles{};
    }
    void groupNumbers() {
        QFETCH(Doubles, values);
        QFETCH(int, maxGroups);
        QFETCH(Ints, groups);
        QFETCH(QStringList, labels);
        QFETCH(Doubles, centers);
        const ValueGroups g = studio::models::groupNumbers(values, maxGroups);
        QCOMPARE(g.group, groups);
        QCOMPARE(g.labels, labels);
        QVERIFY(same(g.center, centers));
    }

    void groupCategories() {
        const ValueGroups g = studio::models::groupCategories(
            {QStringLiteral("adam"), QString(), QStringLiteral("sgd"), QStringLiteral("lion")},
            {QStringLiteral("sgd"), QStringLiteral("adam")});
        QCOMPARE(g.group, (Ints{1, -1, 0, 2}));
        QCOMPARE(g.labels.size(), 3); // a value the range does not list gets a group
        QVERIFY(same(g.center, Doubles{0, 1, 2}));
        const auto means = groupMeans(g, Doubles{0.8, 0.1, 0.6, kNaN});
        QCOMPARE(means[0].mean, 0.6);
        QCOMPARE(means[1].mean, 0.8);
        QCOMPARE(means[2].count, 0);
        QVERIFY(std::isnan(means[2].mean));
    }

    void importance_data() {
        QTest::addColumn<Ints>("groups");
        QTest::addColumn<Doubles>("objectives");
        QTest::addColumn<double>("eta");
        QTest::addColumn<double>("omega");
        QTest::addColumn<int>("jobs");
        // Groups {1, 3} and {5, 7}: grand mean 4, SSb = 2*(2-4)^2 + 2*(6-4)^2 = 16, SSw = 4,
        // MSw = 4/2 = 2: eta^2 = 16/20, omega^2 = (16 - 1*2) / (20 + 2).
        QTest::newRow("two groups")
            << Ints{0, 0, 1, 1} << Doubles{1, 3, 5, 7} << 0.8 << 14.0 / 22.0 << 4;
        QTest::newRow("no effect") << Ints{0, 1, 0, 1} << Doubles{1, 1, 3, 3} << 0.0 << 0.0 << 4;
        // Chance alone: eta^2 is positive, the corrected share clamps to 0.
        QTest::newRow("weak effect clamps")
            << Ints{0, 1, 0, 1, 0, 1} << Doubles{1, 1.2, 3, 3, 2, 2} << 0.0 << 0.0 << 6;
        QTest::newRow("one group") << Ints{0, 0, 0} << Doubles{1, 2, 3} << 0.0 << 0.0 << 3;
        QTest::newRow("missing left out")
            << Ints{0, 0, 1, 1, -1, 1} << Doubles{1, 3, 5, 7, 100, kNaN} << 0.8 << 14.0 / 22.0 << 4;
        QTest::newRow("perfect") << Ints{0, 0, 1, 1} << Doubles{2, 2, 5, 5} << 1.0 << 1.0 << 4;
    }
    void importance() {
        QFETCH(Ints, groups);
        QFETCH(Doubles, objectives);
        QFETCH(double, eta);
        QFETCH(double, omega);
        QFETCH(int, jobs);
        ValueGroups g;
        g.group = groups;
        int k = 0;
        for (int i : groups)
            k = std::max(k, i + 1);
        for (int i = 0; i < k; ++i) {
            g.labels.append(QString::number(i));
            g.center.push_back(i);
        }
        const Importance result = importanceOf(g, objectives);
        QCOMPARE(result.jobs, jobs);
        QVERIFY2(std::fabs(result.omegaSquared - omega) < 1e-9,
                 qPrintable(QString::number(result.omegaSquared)));
        if (QByteArray(QTest::currentDataTag()) != "weak effect clamps")
            QVERIFY2(std::fabs(result.etaSquared - eta) < 1e-9,
                     qPrintable(QString::number(result.etaSquared)));
        else
            QVERIFY(result.etaSquared > 0 && result.etaSquared < 0.1);
    }

    void groupCount_data() {
        QTest::addColumn<int>("jobs");
        QTest::addColumn<int>("groups");
        QTest::newRow("0") << 0 << 2;
        QTest::newRow("9") << 9 << 3;
        QTest::newRow("40") << 40 << 6;
        QTest::newRow("500") << 500 << 8;
    }
    void groupCount() {
        QFETCH(int, jobs);
        QFETCH(int, groups);
        QCOMPARE(groupCountFor(jobs), groups);
    }
};

QTEST_GUILESS_MAIN(TestTuningMath)
#include "test_tuning_math.moc"
