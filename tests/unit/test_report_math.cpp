// The profiler report's arithmetic and formats (engine/report/report_math.h), the figures it
// derives from store rows (report_data.h), and the SVG charts' contract (svg_chart.h).
#include "engine/report/report_data.h"
#include "engine/report/report_math.h"
#include "engine/report/svg_chart.h"

#include <QtTest>

#include <cmath>
#include <cstdlib>
#include <numbers>

using namespace studio::report;
namespace store = studio::store;

class TestReportMath : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        qputenv("TZ", "UTC");
        tzset();
    }

    void niceNumber_data() {
        QTest::addColumn<double>("x");
        QTest::addColumn<bool>("round");
        QTest::addColumn<double>("expected");
        QTest::newRow("1.2 round") << 1.2 << true << 1.0;
        QTest::newRow("2.5 round") << 2.5 << true << 2.0;
        QTest::newRow("4 round") << 4.0 << true << 5.0;
        QTest::newRow("8 round") << 8.0 << true << 10.0;
        QTest::newRow("0.034 round") << 0.034 << true << 0.05;
        QTest::newRow("1.2 ceil") << 1.2 << false << 2.0;
        QTest::newRow("19 ceil") << 19.0 << false << 20.0;
        QTest::newRow("97.3 ceil") << 97.3 << false << 100.0;
        QTest::newRow("300 ceil") << 300.0 << false << 500.0;
        QTest::newRow("zero") << 0.0 << true << 1.0;
    }
    void niceNumber() {
        QFETCH(double, x);
        QFETCH(bool, round);
        QFETCH(double, expected);
        QCOMPARE(studio::report::niceNumber(x, round), expected);
    }

    void niceTicks_data() {
        QTest::addColumn<double>("lo");
        QTest::addColumn<double>("hi");
        QTest::addColumn<int>("maxTicks");
        QTest::addColumn<double>("first");
        QTest::addColumn<double>("last");
        QTest::addColumn<double>("step");
        QTest::addColumn<int>("count");
        QTest::newRow("percent") << 0.0 << 100.0 << 6 << 0.0 << 100.0 << 20.0 << 6;
        QTest::newRow("97.3") << 0.0 << 97.3 << 5 << 0.0 << 100.0 << 20.0 << 6;
        QTest::newRow("negative") << -7.0 << 12.0 << 5 << -10.0 << 15.0 << 5.0 << 6;
        QTest::newRow("small") << 0.013 << 0.087 << 5 << 0.0 << 0.1 << 0.02 << 6;
        QTest::newRow("flat") << 3.0 << 3.0 << 5 << 2.6 << 3.4 << 0.2 << 5;
        QTest::newRow("zero") << 0.0 << 0.0 << 5 << 0.0 << 1.0 << 0.2 << 6;
        QTest::newRow("reversed") << 100.0 << 0.0 << 6 << 0.0 << 100.0 << 20.0 << 6;
        QTest::newRow("nan") << double(NAN) << 5.0 << 5 << 0.0 << 1.0 << 0.2 << 6;
    }
    void niceTicks() {
        QFETCH(double, lo);
        QFETCH(double, hi);
        QFETCH(int, maxTicks);
        QFETCH(double, first);
        QFETCH(double, last);
        QFETCH(double, step);
        QFETCH(int, count);
        const TickSet t = studio::report::niceTicks(lo, hi, maxTicks);
        QVERIFY(std::abs(t.lo - first) < 1e-9);
        QVERIFY(std::abs(t.hi - last) < 1e-9);
        QVERIFY(std::abs(t.step - step) < 1e-12);
        QCOMPARE(static_cast<int>(t.ticks.size()), count);
        QVERIFY(std::abs(t.ticks.front() - t.lo) < 1e-9);
        QVERIFY(std::abs(t.ticks.back() - t.hi) < 1e-9);
    }

    void tickDecimals_data() {
        QTest::addColumn<double>("step");
        QTest::addColumn<int>("decimals");
        QTest::newRow("20") << 20.0 << 0;
        QTest::newRow("1") << 1.0 << 0;
        QTest::newRow("0.5") << 0.5 << 1;
        QTest::newRow("0.2") << 0.2 << 1;
        QTest::newRow("0.02") << 0.02 << 2;
        QTest::newRow("0.001") << 0.001 << 3;
    }
    void tickDecimals() {
        QFETCH(double, step);
        QFETCH(int, decimals);
        QCOMPARE(studio::report::tickDecimals(step), decimals);
    }

    void linearScale_data() {
        QTest::addColumn<double>("d0");
        QTest::addColumn<double>("d1");
        QTest::addColumn<double>("r0");
        QTest::addColumn<double>("r1");
        QTest::addColumn<double>("v");
        QTest::addColumn<double>("expected");
        QTest::newRow("middle") << 0.0 << 100.0 << 0.0 << 500.0 << 50.0 << 250.0;
        QTest::newRow("offset") << 10.0 << 20.0 << 60.0 << 160.0 << 12.5 << 85.0;
        QTest::newRow("inverted y") << 0.0 << 100.0 << 200.0 << 0.0 << 25.0 << 150.0;
        QTest::newRow("outside") << 0.0 << 10.0 << 0.0 << 100.0 << 15.0 << 150.0;
        QTest::newRow("zero-width domain") << 5.0 << 5.0 << 0.0 << 100.0 << 7.0 << 50.0;
    }
    void linearScale() {
        QFETCH(double, d0);
        QFETCH(double, d1);
        QFETCH(double, r0);
        QFETCH(double, r1);
        QFETCH(double, v);
        QFETCH(double, expected);
        const LinearScale s{d0, d1, r0, r1};
        QVERIFY(std::abs(s(v) - expected) < 1e-9);
    }

    void binEdges_data() {
        QTest::addColumn<double>("lo");
        QTest::addColumn<double>("hi");
        QTest::addColumn<int>("target");
        QTest::addColumn<QList<double>>("edges");
        QTest::newRow("exact") << 0.0 << 10.0 << 5 << QList<double>{0, 2, 4, 6, 8, 10};
        QTest::newRow("rounded out") << 0.5 << 9.7 << 4 << QList<double>{0, 2, 4, 6, 8, 10};
        QTest::newRow("offset") << 103.0 << 118.0 << 3 << QList<double>{100, 105, 110, 115, 120};
        QTest::newRow("single value") << 5.0 << 5.0 << 10 << QList<double>{4.75, 5.25};
        QTest::newRow("zero") << 0.0 << 0.0 << 10 << QList<double>{-0.5, 0.5};
    }
    void binEdges() {
        QFETCH(double, lo);
        QFETCH(double, hi);
        QFETCH(int, target);
        QFETCH(QList<double>, edges);
        const auto got = studio::report::binEdges(lo, hi, target);
        QCOMPARE(static_cast<qsizetype>(got.size()), edges.size());
        for (qsizetype i = 0; i < edges.size(); ++i)
            QVERIFY2(std::abs(got[static_cast<std::size_t>(i)] - edges[i]) < 1e-9,
                     qPrintable(QString::number(i)));
    }

    void histogramRange_data() {
        QTest::addColumn<QList<double>>("values");
        QTest::addColumn<double>("lo");
        QTest::addColumn<double>("hi");
        QTest::addColumn<int>("beyond");
        QList<double> steps;
        for (int i = 0; i < 100; ++i)
            steps << 100 + i % 10;
        QTest::newRow("no outliers") << QList<double>{3, 1, 2, 5, 4} << 1.0 << 5.0 << 0;
        QTest::newRow("outliers cut")
            << (QList<double>(steps) << 1000 << 2000) << 100.0 << 109.0 << 2;
        QTest::newRow("no spread keeps all") << QList<double>{5, 5, 5, 5, 100} << 5.0 << 100.0 << 0;
        QTest::newRow("empty") << QList<double>{} << 0.0 << 1.0 << 0;
    }
    void histogramRange() {
        QFETCH(QList<double>, values);
        QFETCH(double, lo);
        QFETCH(double, hi);
        QFETCH(int, beyond);
        const DisplayRange r = studio::report::histogramRange({values.begin(), values.end()});
        QCOMPARE(r.lo, lo);
        QCOMPARE(r.hi, hi);
        QCOMPARE(static_cast<int>(r.beyond), beyond);
    }

    void histogram_data() {
        QTest::addColumn<QList<double>>("values");
        QTest::addColumn<QList<double>>("edges");
        QTest::addColumn<QList<qint64>>("counts");
        QTest::addColumn<qint64>("outside");
        QTest::newRow("two bins") << QList<double>{0, 1, 2, 3, 10} << QList<double>{0, 5, 10}
                                  << QList<qint64>{4, 1} << qint64(0);
        QTest::newRow("interior edge goes up")
            << QList<double>{5} << QList<double>{0, 5, 10} << QList<qint64>{0, 1} << qint64(0);
        QTest::newRow("last edge closed")
            << QList<double>{10, 10} << QList<double>{0, 5, 10} << QList<qint64>{0, 2} << qint64(0);
        QTest::newRow("outside and nan") << QList<double>{-1, 11, NAN, 4} << QList<double>{0, 5, 10}
                                         << QList<qint64>{1, 0} << qint64(3);
        QTest::newRow("empty") << QList<double>{} << QList<double>{0, 1} << QList<qint64>{0}
                               << qint64(0);
    }
    void histogram() {
        QFETCH(QList<double>, values);
        QFETCH(QList<double>, edges);
        QFETCH(QList<qint64>, counts);
        QFETCH(qint64, outside);
        const Histogram h =
            studio::report::histogram({values.begin(), values.end()}, {edges.begin(), edges.end()});
        QCOMPARE(QList<qint64>(h.counts.begin(), h.counts.end()), counts);
        QCOMPARE(h.outside, outside);
    }

    void summarize() {
        const SampleStats s = studio::report::summarize({5, 1, 4, 2, 3, NAN});
        QCOMPARE(s.count, std::size_t(5));
        QCOMPARE(s.min, 1.0);
        QCOMPARE(s.max, 5.0);
        QCOMPARE(s.mean, 3.0);
        QVERIFY(std::abs(s.stddev - std::sqrt(2.0)) < 1e-12);
        QCOMPARE(s.p25, 2.0);
        QCOMPARE(s.p50, 3.0);
        QCOMPARE(s.p75, 4.0);
        QVERIFY(std::abs(s.p5 - 1.2) < 1e-12); // NumPy: 1 + 0.05 * 4 * (2 - 1)
        QVERIFY(std::abs(s.p95 - 4.8) < 1e-12);
        QVERIFY(std::abs(s.p99 - 4.96) < 1e-12);
        const SampleStats e = studio::report::summarize({});
        QCOMPARE(e.count, std::size_t(0));
        QVERIFY(std::isnan(e.p50) && std::isnan(e.mean) && std::isnan(e.max));
    }

    void pieSlices_data() {
        QTest::addColumn<QList<double>>("values");
        QTest::addColumn<QList<double>>("fractions");
        QTest::newRow("quarter quarter half")
            << QList<double>{1, 1, 2} << QList<double>{0.25, 0.25, 0.5};
        QTest::newRow("negative is zero") << QList<double>{-1, 3} << QList<double>{0, 1};
        QTest::newRow("all zero") << QList<double>{0, 0} << QList<double>{0, 0};
        QTest::newRow("nan is zero") << QList<double>{NAN, 2, 2} << QList<double>{0, 0.5, 0.5};
    }
    void pieSlices() {
        QFETCH(QList<double>, values);
        QFETCH(QList<double>, fractions);
        const auto slices = studio::report::pieSlices({values.begin(), values.end()});
        QCOMPARE(static_cast<qsizetype>(slices.size()), fractions.size());
        double angle = 0;
        for (std::size_t i = 0; i < slices.size(); ++i) {
            QVERIFY(std::abs(slices[i].fraction - fractions[static_cast<qsizetype>(i)]) < 1e-12);
            QVERIFY(std::abs(slices[i].startAngle - angle) < 1e-12);
            angle += fractions[static_cast<qsizetype>(i)] * 2 * std::numbers::pi;
            QVERIFY(std::abs(slices[i].endAngle - angle) < 1e-12);
        }
    }

    void polarPoint() {
        const XY top = studio::report::polarPoint(100, 100, 50, 0);
        QVERIFY(std::abs(top.x - 100) < 1e-9 && std::abs(top.y - 50) < 1e-9);
        const XY right = studio::report::polarPoint(100, 100, 50, std::numbers::pi / 2);
        QVERIFY(std::abs(right.x - 150) < 1e-9 && std::abs(right.y - 100) < 1e-9);
        const XY bottom = studio::report::polarPoint(100, 100, 50, std::numbers::pi);
        QVERIFY(std::abs(bottom.x - 100) < 1e-9 && std::abs(bottom.y - 150) < 1e-9);
    }

    void decimateMinMax() {
        std::vector<XY> points;
        for (int i = 0; i < 10000; ++i)
            points.push_back({static_cast<double>(i), std::sin(i * 0.01) * (i == 7777 ? 5 : 1)});
        const auto out = studio::report::decimateMinMax(points, 100);
        QVERIFY(out.size() <= 200);
        QVERIFY(out.size() >= 100);
        auto hasPeak = std::any_of(out.begin(), out.end(), [](const XY& p) { return p.x == 7777; });
        QVERIFY2(hasPeak, "the spike survives decimation");
        QVERIFY(std::is_sorted(out.begin(), out.end(),
                               [](const XY& a, const XY& b) { return a.x < b.x; }));
        const std::vector<XY> few = {{0, 1}, {1, 2}, {2, 3}};
        QCOMPARE(studio::report::decimateMinMax(few, 100).size(), few.size());
    }

    void timeUnitFor_data() {
        QTest::addColumn<double>("range");
        QTest::addColumn<QString>("label");
        QTest::addColumn<double>("seconds");
        QTest::newRow("short") << 120.0 << "s" << 1.0;
        QTest::newRow("ten minutes") << 600.0 << "s" << 1.0;
        QTest::newRow("an hour") << 3600.0 << "min" << 60.0;
        QTest::newRow("a day") << 86400.0 << "h" << 3600.0;
        QTest::newRow("nan") << double(NAN) << "s" << 1.0;
    }
    void timeUnitFor() {
        QFETCH(double, range);
        QFETCH(QString, label);
        QFETCH(double, seconds);
        const TimeUnit u = studio::report::timeUnitFor(range);
        QCOMPARE(QString::fromStdString(u.label), label);
        QCOMPARE(u.seconds, seconds);
    }

    void byteRateUnit_data() {
        QTest::addColumn<double>("max");
        QTest::addColumn<QString>("unit");
        QTest::addColumn<double>("divisor");
        QTest::newRow("bytes") << 512.0 << "B/s" << 1.0;
        QTest::newRow("kilo") << 2.5e4 << "KB/s" << 1e3;
        QTest::newRow("mega") << 1.2e8 << "MB/s" << 1e6;
        QTest::newRow("giga") << 3e9 << "GB/s" << 1e9;
        QTest::newRow("zero") << 0.0 << "B/s" << 1.0;
    }
    void byteRateUnit() {
        QFETCH(double, max);
        QFETCH(QString, unit);
        QFETCH(double, divisor);
        const ScaledUnit u = studio::report::byteRateUnit(max);
        QCOMPARE(QString::fromStdString(u.unit), unit);
        QCOMPARE(u.divisor, divisor);
    }

    void formatNumber_data() {
        QTest::addColumn<double>("v");
        QTest::addColumn<int>("decimals");
        QTest::addColumn<QString>("text");
        QTest::newRow("pi") << 3.14159 << 2 << "3.14";
        QTest::newRow("round up") << 1234.56 << 0 << "1235";
        QTest::newRow("negative zero") << -0.001 << 2 << "0.00";
        QTest::newRow("negative") << -2.5 << 1 << "-2.5";
        QTest::newRow("nan") << double(NAN) << 2 << "n/a";
        QTest::newRow("inf") << double(INFINITY) << 2 << "inf";
    }
    void formatNumber() {
        QFETCH(double, v);
        QFETCH(int, decimals);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(studio::report::formatNumber(v, decimals)), text);
    }

    void formatPercent() {
        QCOMPARE(studio::report::formatPercent(0.1234), std::string("12.3%"));
        QCOMPARE(studio::report::formatPercent(1.0, 0), std::string("100%"));
        QCOMPARE(studio::report::formatPercent(NAN), std::string("n/a"));
    }

    void formatDuration_data() {
        QTest::addColumn<double>("seconds");
        QTest::addColumn<QString>("text");
        QTest::newRow("zero") << 0.0 << "0 ms";
        QTest::newRow("ms") << 0.85 << "850 ms";
        QTest::newRow("seconds") << 42.5 << "42.5 s";
        QTest::newRow("rounds into a minute") << 59.97 << "1 min 00 s";
        QTest::newRow("minutes") << 725.0 << "12 min 05 s";
        QTest::newRow("hours") << 11220.0 << "3 h 07 min";
        QTest::newRow("negative") << -1.0 << "n/a";
        QTest::newRow("nan") << double(NAN) << "n/a";
    }
    void formatDuration() {
        QFETCH(double, seconds);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(studio::report::formatDuration(seconds)), text);
    }

    void formatTimestamp() {
        QCOMPARE(studio::report::formatTimestamp(1700000000.6), std::string("2023-11-14 22:13:20"));
        QCOMPARE(studio::report::formatTimestamp(0), std::string("n/a"));
    }

    void htmlEscape_data() {
        QTest::addColumn<QString>("in");
        QTest::addColumn<QString>("out");
        QTest::newRow("plain") << "loss 0.25"
                               << "loss 0.25";
        QTest::newRow("tags") << "<script>x</script>"
                              << "&lt;script&gt;x&lt;/script&gt;";
        QTest::newRow("amp first") << "a&lt;b"
                                   << "a&amp;lt;b";
        QTest::newRow("quotes") << "say \"hi\" it's"
                                << "say &quot;hi&quot; it&#39;s";
        QTest::newRow("utf8 kept") << QString::fromUtf8("é … µs") << QString::fromUtf8("é … µs");
    }
    void htmlEscape() {
        QFETCH(QString, in);
        QFETCH(QString, out);
        QCOMPARE(QString::fromStdString(studio::report::htmlEscape(in.toStdString())), out);
    }

    // ---- figures derived from store rows ----

    void summarizeJob() {
        store::ComponentRow row;
        row.created = 1000;
        row.started = 1010;
        row.ended = 1100;
        std::vector<store::StepTiming> steps;
        for (int i = 0; i < 10; ++i) {
            store::StepTiming t;
            t.step = i;
            t.time = 1030 + 5 * i; // ends of steps: 1030 .. 1075
            t.forwardMs = 2000;    // each step lasts 2 s: the first starts at 1028
            steps.push_back(t);
        }
        const JobSummary s = studio::report::summarizeJob(row, steps, 0);
        QCOMPARE(s.start, 1010.0);
        QCOMPARE(s.end, 1100.0);
        QCOMPARE(s.jobDuration, 90.0);
        QVERIFY(s.hasSteps && !s.running);
        QCOMPARE(s.loopStart, 1028.0);
        QCOMPARE(s.loopEnd, 1075.0);
        QCOMPARE(s.loopDuration, 47.0);
        QCOMPARE(s.initialization, 18.0);
        QCOMPARE(s.finalization, 25.0);
        QCOMPARE(s.initialization + s.loopDuration + s.finalization, s.jobDuration);

        row.ended = 0; // still running: the end is the last data
        const JobSummary r = studio::report::summarizeJob(row, {}, 1050);
        QVERIFY(r.running && !r.hasSteps);
        QCOMPARE(r.end, 1050.0);
        QCOMPARE(r.initialization, 40.0);
    }

    void stepStatistics() {
        std::vector<store::StepTiming> steps;
        for (int rank = 0; rank < 2; ++rank)
            for (int i = 4; i >= 0; --i) { // out of order: sorted by step
                store::StepTiming t;
                t.rank = rank;
                t.node = rank;
                t.step = i;
                t.dataMs = 1;
                t.forwardMs = 10.0 * (i + 1);
                steps.push_back(t);
            }
        store::StepTiming eval;
        eval.phase = "eval";
        eval.forwardMs = 1000;
        steps.push_back(eval); // eval steps stay out when train steps exist
        const auto rows = studio::report::stepStatistics(steps);
        QCOMPARE(rows.size(), std::size_t(2));
        QCOMPARE(rows[0].rank, 0);
        QCOMPARE(rows[1].node, 1);
        QCOMPARE(rows[0].stats.count, std::size_t(5));
        QCOMPARE(rows[0].stats.max, 51.0);
        QCOMPARE(rows[0].durationsMs.front(), 11.0);
        QCOMPARE(rows[0].byStep.back().x, 4.0);

        const PhaseTotals p = studio::report::phaseTotals(steps);
        QCOMPARE(p.trainSteps, std::int64_t(10));
        QCOMPARE(p.evalSteps, std::int64_t(1));
        QCOMPARE(p.dataMs, 10.0);
        QCOMPARE(p.evalMs, 1000.0);
    }

    void eventStatistics() {
        std::vector<store::FrameworkEventRow> events;
        auto add = [&](const char* name, const char* cat, double ms) {
            store::FrameworkEventRow e;
            e.name = name;
            e.category = cat;
            e.durationMs = ms;
            events.push_back(e);
        };
        add("conv1", "forward", 10);
        add("conv1", "forward", 30);
        add("allreduce", "comm", 60);
        const auto rows = studio::report::eventStatistics(events);
        QCOMPARE(rows.size(), std::size_t(2));
        QCOMPARE(rows[0].name, std::string("allreduce"));
        QCOMPARE(rows[1].count, std::int64_t(2));
        QCOMPARE(rows[1].meanMs, 20.0);
        QCOMPARE(rows[1].maxMs, 30.0);
        QCOMPARE(rows[1].share, 0.4);
    }

    void systemStatistics() {
        std::vector<store::SystemSeries> series;
        series.push_back({0, "net", "rx", {{1, 2e6}, {2, 4e6}}});
        series.push_back({0, "cpu1", "util", {{1, 10}, {2, 30}}});
        series.push_back({0, "cpu0", "util", {{1, 50}, {2, 70}}});
        series.push_back({0, "cpu", "util", {{1, 40}, {2, 50}}});
        series.push_back({0, "gpu1", "util", {{1, 0}}});
        series.push_back({0, "gpu0", "mem", {{1, 20}}});
        series.push_back({0, "gpu0", "util", {{1, 90}}});
        series.push_back({1, "cpu", "util", {{1, 5}}});
        const auto rows = studio::report::systemStatistics(series);
        QStringList metrics;
        for (const auto& r : rows)
            metrics << QString::number(r.node) + ":" + QString::fromStdString(r.metric);
        QCOMPARE(metrics,
                 QStringList({"0:CPU total", "0:CPU per core", "0:Network received", "0:GPU gpu0",
                              "0:GPU gpu1", "0:GPU memory gpu0", "1:CPU total"}));
        QCOMPARE(rows[1].stats.count, std::size_t(4)); // every core's samples pooled
        QCOMPARE(rows[1].stats.max, 70.0);
        QCOMPARE(rows[2].unit, std::string("MB/s"));
        QCOMPARE(rows[2].stats.max, 4.0);
    }

    void parseRuleParameters() {
        const auto p = studio::report::parseRuleParameters(
            "threshold=50, gpu_threshold=10, regex=a, b|c, mode=None");
        QCOMPARE(p.size(), std::size_t(4));
        QCOMPARE(p.at("threshold"), std::string("50"));
        QCOMPARE(p.at("regex"), std::string("a, b|c"));
        QCOMPARE(p.at("mode"), std::string("None"));
        QVERIFY(studio::report::parseRuleParameters("").empty());
    }

    void flattenDetails() {
        const auto j = nlohmann::json::parse(R"({"p95": 12.5, "node": {"0": {"gpu0": 3}},
            "ranks": [1, 2, 3], "outliers": [{"step": 7, "ms": 80}], "name": "a<b", "ok": true,
            "empty": {}})");
        const auto rows = studio::report::flattenDetails(j);
        std::map<std::string, std::string> m(rows.begin(), rows.end());
        QCOMPARE(m.at("p95"), std::string("12.5"));
        QCOMPARE(m.at("node.0.gpu0"), std::string("3"));
        QCOMPARE(m.at("ranks"), std::string("[1, 2, 3]"));
        QCOMPARE(m.at("outliers[0].step"), std::string("7"));
        QCOMPARE(m.at("name"), std::string("a<b")); // escaped when rendered, not here
        QCOMPARE(m.at("ok"), std::string("true"));
        QCOMPARE(m.at("empty"), std::string("{}"));
        nlohmann::json many = nlohmann::json::array();
        for (int i = 0; i < 30; ++i)
            many.push_back(i);
        const auto longRow = studio::report::flattenDetails({{"v", many}});
        QVERIFY(longRow.at(0).second.find("(30 values)]") != std::string::npos);
    }

    void coincidence() {
        const std::vector<store::SystemSample> cpu = {{0, 95}, {1, 95}, {2, 20}, {3, 99}, {9, 99}};
        const std::vector<store::SystemSample> gpu = {{0.05, 2}, {1, 50}, {2, 1}, {3.2, 5}};
        const Coincidence c = studio::report::coincidence(cpu, 90, gpu, 10, 0.5);
        QCOMPARE(c.matched, std::size_t(4)); // t=9 has no GPU sample near it
        QCOMPARE(c.both, std::size_t(2));    // t=0 and t=3
        const auto merged = studio::report::maxByTime({&cpu, &gpu});
        QCOMPARE(merged.size(), std::size_t(7)); // 0, 0.05, 1, 2, 3, 3.2, 9
        QCOMPARE(merged[2].value, 95.0);         // t=1: max(95, 50)
    }

    void statusOrder() {
        QVERIFY(studio::report::statusOrder("IssuesFound") < studio::report::statusOrder("Error"));
        QVERIFY(studio::report::statusOrder("NoIssuesFound") <
                studio::report::statusOrder("NotApplicable"));
        QVERIFY(studio::report::statusOrder("NotApplicable") <
                studio::report::statusOrder("SomethingNew"));
    }

    // ---- the SVG charts' contract ----

    void charts_data() {
        QTest::addColumn<QString>("svg");
        const ChartFrame f{"a <title> & more", "time (s)", "util (%)", 400, 200};
        QTest::newRow("line") << QString::fromStdString(
            lineChart(f, {{"s<1>", "#123456", {{0, 1}, {10, 50}, {20, 30}}}}));
        QTest::newRow("line empty") << QString::fromStdString(lineChart(f, {}));
        QTest::newRow("histogram") << QString::fromStdString(
            histogramChart(f, studio::report::histogram({1, 2, 2, 3}, {0, 1, 2, 3, 4}), "#123456",
                           {{"p<95>", 2.5}}));
        QTest::newRow("box") << QString::fromStdString(boxPlotChart(
            f, {{"cpu", studio::report::summarize({1, 50, 99}), "#123456"}}, 0.0, 100.0));
        QTest::newRow("bar") << QString::fromStdString(
            barChart(f, {{"r0", 10, "#123456"}, {"r1", 12, "#654321"}}));
        QTest::newRow("pie") << QString::fromStdString(
            pieChart(f, {{"a", 1, "#123456"}, {"b", 3, "#654321"}}, "ms"));
        QTest::newRow("pie one slice") << QString::fromStdString(
            pieChart(f, {{"a", 1, "#123456"}, {"b", 0, "#654321"}}, "ms"));
        QTest::newRow("stacked") << QString::fromStdString(
            stackedBar({{"init", 1, "#123456"}, {"loop", 3, "#654321"}}, "s", 600));
    }
    void charts() {
        QFETCH(QString, svg);
        QVERIFY(svg.startsWith(QLatin1String("<svg ")));
        QVERIFY(svg.endsWith(QLatin1String("</svg>")));
        QVERIFY(!svg.contains(QLatin1String("http")));
        QVERIFY(!svg.contains(QLatin1String("<script")));
        QVERIFY(!svg.contains(QLatin1String("nan")) && !svg.contains(QLatin1String("inf")));
        QVERIFY(!svg.contains(QLatin1String("<title>")) && !svg.contains(QLatin1String("s<1>")));
        QCOMPARE(svg.count(QLatin1String("<svg")), 1);
    }

    void lineChartAxes() {
        const std::string svg = lineChart({"t", "time (s)", "utilization (%)", 400, 200},
                                          {{"cpu", "#123456", {{0, 10}, {60, 90}}}}, 0.0, 100.0);
        for (const char* label :
             {">0<", ">20<", ">100<", ">60<", ">time (s)<", ">utilization (%)<"})
            QVERIFY2(svg.find(label) != std::string::npos, label);
    }
};

QTEST_GUILESS_MAIN(TestReportMath)
#include "test_report_math.moc"
