// The Insights dashboard's figures (models/insights/insights_data): the resource summary per
// node (percentiles: plot::sortedPercentile, tested in test_plot), incremental merging of live
// samples, and the step selections (last N steps of the lead rank, steps in a time window).
#include "models/insights/insights_data.h"

#include <QtTest>

#include <cmath>

using namespace studio::models;
namespace store = studio::store;

namespace {

store::SystemSeries series(int node, const std::string& device, const std::string& metric,
                           std::vector<std::pair<double, double>> points) {
    store::SystemSeries s{node, device, metric, {}};
    for (auto [t, v] : points)
        s.samples.push_back({t, v});
    return s;
}

store::StepTiming step(int node, int rank, std::int64_t n, double time,
                       const std::string& phase = "train") {
    store::StepTiming t;
    t.node = node;
    t.rank = rank;
    t.step = n;
    t.time = time;
    t.phase = phase;
    t.dataMs = 100;
    t.forwardMs = 200;
    t.backwardMs = 200; // 0.5 s per step
    return t;
}

} // namespace

class TestInsightsData : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void resources() {
        std::vector<store::SystemSeries> all{
            series(0, "cpu", "util", {{1, 10}, {2, 30}}),
            series(0, "cpu0", "util", {{1, 99}}), // per core: not in the summary
            series(0, "gpu0", "util", {{1, 80}, {2, 90}}),
            series(0, "gpu1", "util", {{1, 20}, {2, 30}}),
            series(0, "net", "rx", {{1, 2e6}, {2, 4e6}}),
            series(0, "net", "tx", {{1, 1e6}, {2, 1e6}}),
            series(1, "cpu", "iowait", {{1, 5}}),
        };
        const auto rows = resourceSummary(all);
        QCOMPARE(rows.size(), std::size_t(4));
        QCOMPARE(rows[0].resource, std::string("CPU"));
        QCOMPARE(rows[0].max, 30.0);
        QCOMPARE(rows[0].p50, 20.0);
        QCOMPARE(rows[1].resource, std::string("GPU")); // every GPU's samples together
        QCOMPARE(rows[1].count, std::size_t(4));
        QCOMPARE(rows[1].min, 20.0);
        QCOMPARE(rows[1].max, 90.0);
        QCOMPARE(rows[2].resource, std::string("Network")); // received + sent
        QCOMPARE(rows[2].unit, std::string("MB/s"));
        QCOMPARE(rows[2].min, 3.0);
        QCOMPARE(rows[2].max, 5.0);
        QCOMPARE(rows[3].node, 1);
        QCOMPARE(rows[3].resource, std::string("I/O wait"));
    }

    void merge() {
        std::vector<store::SystemSeries> have{series(0, "cpu", "util", {{1, 10}, {2, 20}}),
                                              series(1, "cpu", "util", {{1, 5}})};
        // A re-read from the older series' last time overlaps what is there.
        const std::vector<store::SystemSeries> fresh{series(0, "cpu", "util", {{2, 20}, {3, 30}}),
                                                     series(1, "cpu", "util", {{1, 5}, {1.5, 6}}),
                                                     series(1, "gpu0", "util", {{1.5, 70}})};
        const auto added = mergeSamples(have, fresh);
        QCOMPARE(added.size(), std::size_t(3));
        QCOMPARE(added[0].samples.size(), std::size_t(1));
        QCOMPARE(added[0].samples[0].time, 3.0);
        QCOMPARE(added[1].samples.size(), std::size_t(1));
        QCOMPARE(added[2].device, std::string("gpu0"));
        QCOMPARE(have.size(), std::size_t(3));
        QCOMPARE(have[0].samples.size(), std::size_t(3));
        QCOMPARE(have[1].samples.size(), std::size_t(2));
        QVERIFY(mergeSamples(have, fresh).empty()); // nothing new the second time
    }

    void steps_data() {
        QTest::addColumn<int>("count");
        QTest::addColumn<int>("expected");
        QTest::addColumn<qint64>("firstStep");
        QTest::newRow("last 3") << 3 << 3 << qint64(8);
        QTest::newRow("more than there are") << 30 << 10 << qint64(1);
        QTest::newRow("none") << 0 << 0 << qint64(-1);
    }
    void steps() {
        QFETCH(int, count);
        QFETCH(int, expected);
        QFETCH(qint64, firstStep);
        std::vector<store::StepTiming> all;
        for (int n = 1; n <= 10; ++n) {
            all.push_back(step(1, 2, n, 100 + n));
            all.push_back(step(0, 1, n, 100 + n));
            all.push_back(step(0, 0, n, 100 + n, "eval")); // eval steps of rank 0 are left out
        }
        const auto last = lastSteps(all, count);
        QCOMPARE(int(last.size()), expected);
        for (const auto& t : last)
            QCOMPARE(t.rank, 1); // the lowest rank with train steps
        if (!last.empty())
            QCOMPARE(last.front().step, firstStep);
    }

    void window_data() {
        QTest::addColumn<double>("from");
        QTest::addColumn<double>("to");
        QTest::addColumn<QList<qint64>>("expected");
        // step n ran from 100 + n - 0.5 to 100 + n
        QTest::newRow("inside one") << 103.6 << 103.9 << QList<qint64>{4};
        QTest::newRow("between steps") << 103.1 << 103.4 << QList<qint64>{};
        QTest::newRow("partly") << 103.9 << 104.6 << QList<qint64>{4, 5};
        QTest::newRow("all") << 0.0 << 1e9 << QList<qint64>{1, 2, 3, 4, 5};
    }
    void window() {
        QFETCH(double, from);
        QFETCH(double, to);
        QFETCH(QList<qint64>, expected);
        std::vector<store::StepTiming> all;
        for (int n = 1; n <= 5; ++n)
            all.push_back(step(0, 0, n, 100 + n));
        QList<qint64> got;
        for (const auto& t : stepsInWindow(all, from, to))
            got << t.step;
        QCOMPARE(got, expected);
    }
};

QTEST_GUILESS_MAIN(TestInsightsData)
#include "test_insights_data.moc"
