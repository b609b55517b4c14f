// The curve charts' plain math (models/charts/chart_math.h): decimation, TensorBoard smoothing,
// x mapping, tick labels and colour blending. The plot library's tick steps and padded ranges
// are tested in test_plot, the Compare view's parallel coordinates and derivations in
// test_compare_math.
#include "models/charts/chart_math.h"
#include "tests/support/same_number.h"

#include <QtTest>

#include <cmath>
#include <limits>
#include <stdexcept>

using namespace studio::models;
using namespace Qt::StringLiterals;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// TensorBoard's resmoothDataset, transcribed literally (Math.pow each step).
std::vector<double> tensorBoardSmooth(const std::vector<double>& values, double weight) {
    std::vector<double> out(values.size());
    bool constant = true;
    for (double v : values)
        constant = constant && v == values.front();
    double last = values.empty() ? kNaN : 0;
    int numAccum = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
        const double next = values[i];
        if (constant || !std::isfinite(next)) {
            out[i] = next;
            continue;
        }
        last = last * weight + (1 - weight) * next;
        ++numAccum;
        double debias = 1;
        if (weight != 1)
            debias = 1 - std::pow(weight, numAccum);
        out[i] = last / debias;
    }
    return out;
}

std::vector<double> iota(int n) {
    std::vector<double> v(n);
    for (int i = 0; i < n; ++i)
        v[i] = i;
    return v;
}

} // namespace

class TestChartMath : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // --- decimation -------------------------------------------------------------------------

    void decimationPassThrough_data() {
        QTest::addColumn<int>("points");
        QTest::addColumn<int>("buckets");
        QTest::addColumn<bool>("passedThrough");
        QTest::newRow("empty") << 0 << 100 << true;
        QTest::newRow("one") << 1 << 100 << true;
        QTest::newRow("below 2x buckets") << 199 << 100 << true;
        QTest::newRow("at 2x buckets") << 200 << 100 << false;
        QTest::newRow("many") << 100000 << 100 << false;
    }
    void decimationPassThrough() {
        QFETCH(int, points);
        QFETCH(int, buckets);
        QFETCH(bool, passedThrough);
        const std::vector<double> x = iota(points);
        std::vector<double> y(points);
        for (int i = 0; i < points; ++i)
            y[i] = std::sin(i * 0.1);
        const Decimation d = decimateMinMaxLast(x, y, 0, std::max(0, points - 1), buckets);
        QCOMPARE(d.passedThrough, passedThrough);
        QCOMPARE(d.inRange, points);
        if (passedThrough) {
            QCOMPARE(d.points.size(), points);
            for (int i = 0; i < points; ++i)
                QCOMPARE(d.points[i], QPointF(x[i], y[i]));
        }
    }

    void decimationBound_data() {
        QTest::addColumn<int>("points");
        QTest::addColumn<int>("buckets");
        QTest::newRow("1k in 100") << 1000 << 100;
        QTest::newRow("10k in 1") << 10000 << 1;
        QTest::newRow("100k in 1200") << 100000 << 1200;
        QTest::newRow("1M in 1200") << 1000000 << 1200;
        QTest::newRow("uneven 12345 in 77") << 12345 << 77;
    }
    void decimationBound() {
        QFETCH(int, points);
        QFETCH(int, buckets);
        const std::vector<double> x = iota(points);
        std::vector<double> y(points);
        quint32 seed = 12345;
        for (int i = 0; i < points; ++i) {
            seed = seed * 1664525u + 1013904223u;
            y[i] = (seed >> 8) / double(1 << 24);
        }
        const Decimation d = decimateMinMaxLast(x, y, 0, points - 1, buckets);
        QVERIFY(!d.passedThrough);
        QVERIFY2(d.points.size() <= 3 * buckets + 2, qPrintable(QString::number(d.points.size())));
        QVERIFY(d.points.size() >= std::min(points, buckets));
        for (qsizetype i = 1; i < d.points.size(); ++i)
            QVERIFY(d.points[i - 1].x() < d.points[i].x());
        // Every bucket's minimum and maximum survive, and the very last point.
        // Bucket edges as the decimation defines them.
        const double width = double(points - 1) / buckets;
        std::vector<double> edges;
        for (int b = 1; b < buckets; ++b)
            edges.push_back(b * width);
        QList<double> mins(buckets, kInf), maxs(buckets, -kInf);
        for (int i = 0; i < points; ++i) {
            const int b = int(std::upper_bound(edges.begin(), edges.end(), x[i]) - edges.begin());
            mins[b] = std::min(mins[b], y[i]);
            maxs[b] = std::max(maxs[b], y[i]);
        }
        QSet<double> drawn;
        for (const QPointF& p : d.points)
            drawn.insert(p.y());
        for (int b = 0; b < buckets; ++b) {
            QVERIFY(drawn.contains(mins[b]));
            QVERIFY(drawn.contains(maxs[b]));
        }
        QCOMPARE(d.points.back(), QPointF(x.back(), y.back()));
        QCOMPARE(d.yMin, *std::min_element(y.begin(), y.end()));
        QCOMPARE(d.yMax, *std::max_element(y.begin(), y.end()));
    }

    void decimationKeepsSpikes_data() {
        QTest::addColumn<int>("at");
        QTest::addColumn<double>("spike");
        QTest::newRow("up in the middle") << 5000 << 100.0;
        QTest::newRow("down in the middle") << 7777 << -50.0;
        QTest::newRow("first point") << 0 << 42.0;
        QTest::newRow("last point") << 99999 << -42.0;
    }
    void decimationKeepsSpikes() {
        QFETCH(int, at);
        QFETCH(double, spike);
        const int n = 100000;
        const std::vector<double> x = iota(n);
        std::vector<double> y(n, 1.0);
        y[at] = spike;
        const Decimation d = decimateMinMaxLast(x, y, 0, n - 1, 200);
        QVERIFY(d.points.contains(QPointF(at, spike)));
        QVERIFY(d.points.size() <= 3 * 200 + 2);
    }

    void decimationNonFinite_data() {
        QTest::addColumn<int>("points");
        QTest::addColumn<int>("buckets");
        QTest::newRow("pass-through") << 50 << 100;
        QTest::newRow("decimated") << 5000 << 100;
    }
    void decimationNonFinite() {
        QFETCH(int, points);
        QFETCH(int, buckets);
        const std::vector<double> x = iota(points);
        std::vector<double> y(points, 2.0);
        y[3] = kNaN;
        y[10] = kInf;
        y[20] = -kInf;
        const Decimation d = decimateMinMaxLast(x, y, 0, points - 1, buckets);
        QCOMPARE(d.nonFinite, 3);
        for (const QPointF& p : d.points)
            QVERIFY(std::isfinite(p.y()));
        QCOMPARE(d.yMin, 2.0);
        QCOMPARE(d.yMax, 2.0);
    }

    void decimationAllNaN() {
        const std::vector<double> x = iota(10);
        const std::vector<double> y(10, kNaN);
        const Decimation d = decimateMinMaxLast(x, y, 0, 9, 4);
        QVERIFY(d.points.isEmpty());
        QCOMPARE(d.nonFinite, 10);
        QVERIFY(std::isnan(d.yMin) && std::isnan(d.yMax));
    }

    void decimationEdges_data() {
        QTest::addColumn<double>("xMin");
        QTest::addColumn<double>("xMax");
        QTest::addColumn<int>("nanAt"); // -1: none
        QTest::addColumn<double>("firstX");
        QTest::addColumn<double>("lastX");
        QTest::addColumn<int>("inRange");
        QTest::newRow("inside") << 40.0 << 60.0 << -1 << 39.0 << 61.0 << 21;
        QTest::newRow("between points") << 40.5 << 59.5 << -1 << 40.0 << 60.0 << 19;
        QTest::newRow("NaN neighbour skipped") << 40.0 << 60.0 << 39 << 38.0 << 61.0 << 21;
        QTest::newRow("whole series") << 0.0 << 99.0 << -1 << 0.0 << 99.0 << 100;
        QTest::newRow("wider than data") << -10.0 << 200.0 << -1 << 0.0 << 99.0 << 100;
        QTest::newRow("left of data") << -10.0 << -5.0 << -1 << 0.0 << 0.0 << 0;
        QTest::newRow("right of data") << 150.0 << 160.0 << -1 << 99.0 << 99.0 << 0;
        QTest::newRow("gap between points") << 40.2 << 40.8 << -1 << 40.0 << 41.0 << 0;
    }
    void decimationEdges() {
        QFETCH(double, xMin);
        QFETCH(double, xMax);
        QFETCH(int, nanAt);
        QFETCH(double, firstX);
        QFETCH(double, lastX);
        QFETCH(int, inRange);
        const std::vector<double> x = iota(100);
        std::vector<double> y(100);
        for (int i = 0; i < 100; ++i)
            y[i] = i * 0.5;
        if (nanAt >= 0)
            y[nanAt] = kNaN;
        const Decimation d = decimateMinMaxLast(x, y, xMin, xMax, 4);
        QCOMPARE(d.inRange, inRange);
        QVERIFY(!d.points.isEmpty());
        QCOMPARE(d.points.front().x(), firstX);
        QCOMPARE(d.points.back().x(), lastX);
    }

    void decimationPositiveOnly() {
        const std::vector<double> x = iota(6);
        const std::vector<double> y = {1, 0, -2, 3, kNaN, 5};
        const Decimation d = decimateMinMaxLast(x, y, 0, 5, 100, true);
        QCOMPARE(d.nonPositive, 2);
        QCOMPARE(d.nonFinite, 1);
        QCOMPARE(d.points, (QList<QPointF>{{0, 1}, {3, 3}, {5, 5}}));
    }

    void decimationRejectsBadInput() {
        const std::vector<double> x = iota(4);
        const std::vector<double> y(3, 1.0);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, decimateMinMaxLast(x, y, 0, 3, 10));
        const std::vector<double> y4(4, 1.0);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, decimateMinMaxLast(x, y4, 0, 3, 0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, decimateMinMaxLast(x, y4, 3, 0, 10));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, decimateMinMaxLast(x, y4, kNaN, 3, 10));
    }

    // --- smoothing --------------------------------------------------------------------------

    void ema_data() {
        QTest::addColumn<QList<double>>("values");
        QTest::addColumn<double>("weight");
        QTest::addColumn<QList<double>>("expected");
        // By hand: last = last*w + (1-w)*v; smoothed = last / (1 - w^n).
        QTest::newRow("ramp w=0.5")
            << QList<double>{1, 2, 3, 4} << 0.5 << QList<double>{1, 5.0 / 3, 17.0 / 7, 49.0 / 15};
        QTest::newRow("debiased first values w=0.6")
            << QList<double>{10, 0, 10} << 0.6 << QList<double>{10, 3.75, 5.44 / 0.784};
        QTest::newRow("NaN passes through, state kept")
            << QList<double>{1, kNaN, 2} << 0.5 << QList<double>{1, kNaN, 5.0 / 3};
        QTest::newRow("Inf passes through")
            << QList<double>{1, kInf, -kInf, 2} << 0.5 << QList<double>{1, kInf, -kInf, 5.0 / 3};
        QTest::newRow("leading NaN")
            << QList<double>{kNaN, 4, 2} << 0.5 << QList<double>{kNaN, 4, 2.0 / 0.75};
        QTest::newRow("w=0 is identity")
            << QList<double>{3, -1, kNaN, 7} << 0.0 << QList<double>{3, -1, kNaN, 7};
        QTest::newRow("constant stays exact")
            << QList<double>{0.1, 0.1, 0.1} << 0.9 << QList<double>{0.1, 0.1, 0.1};
        QTest::newRow("empty") << QList<double>{} << 0.6 << QList<double>{};
    }
    void ema() {
        QFETCH(QList<double>, values);
        QFETCH(double, weight);
        QFETCH(QList<double>, expected);
        const std::vector<double> v(values.cbegin(), values.cend());
        const std::vector<double> out = smoothEma(v, weight);
        QCOMPARE(static_cast<qsizetype>(out.size()), expected.size());
        for (qsizetype i = 0; i < expected.size(); ++i)
            QVERIFY2(
                sameNumber(out[i], expected[i]),
                qPrintable(QStringLiteral("%1: %2 != %3").arg(i).arg(out[i]).arg(expected[i])));
        // And it is TensorBoard's formula, to the bit where TensorBoard would compute the same.
        const std::vector<double> tb = tensorBoardSmooth(v, weight);
        for (std::size_t i = 0; i < out.size(); ++i)
            QVERIFY(sameNumber(out[i], tb[i]));
    }

    void emaMatchesTensorBoardOnLongSeries_data() {
        QTest::addColumn<double>("weight");
        QTest::newRow("0.6") << 0.6;
        QTest::newRow("0.9") << 0.9;
        QTest::newRow("0.99") << 0.99;
        QTest::newRow("0.999") << 0.999;
    }
    void emaMatchesTensorBoardOnLongSeries() {
        QFETCH(double, weight);
        std::vector<double> v(20000);
        for (std::size_t i = 0; i < v.size(); ++i)
            v[i] = std::exp(-double(i) / 5000) + 0.1 * std::sin(double(i));
        v[100] = kNaN;
        const std::vector<double> out = smoothEma(v, weight);
        const std::vector<double> tb = tensorBoardSmooth(v, weight);
        for (std::size_t i = 0; i < v.size(); ++i)
            QVERIFY2(out[i] == tb[i] || (std::isnan(out[i]) && std::isnan(tb[i])),
                     qPrintable(QString::number(i)));
    }

    void extendEmaMatchesWholeSeries_data() {
        QTest::addColumn<QList<double>>("values");
        QTest::addColumn<QList<int>>("pieces"); // sizes fed per call
        QTest::addColumn<double>("weight");
        QTest::newRow("ramp in three pieces")
            << QList<double>{1, 2, 3, 4, 5, 6} << QList<int>{2, 1, 3} << 0.6;
        QTest::newRow("one at a time with NaN")
            << QList<double>{3, kNaN, 1, kInf, 2} << QList<int>{1, 1, 1, 1, 1} << 0.9;
        QTest::newRow("constant, then not: smoothed from the start")
            << QList<double>{2, 2, 2, 5, 1} << QList<int>{3, 2} << 0.5;
        QTest::newRow("constant, then still constant")
            << QList<double>{2, 2, 2, 2} << QList<int>{2, 2} << 0.5;
        QTest::newRow("leading NaN is not constant")
            << QList<double>{kNaN, kNaN, 1, 2} << QList<int>{2, 2} << 0.5;
        QTest::newRow("w=0") << QList<double>{1, 5, kNaN} << QList<int>{1, 2} << 0.0;
    }
    void extendEmaMatchesWholeSeries() {
        QFETCH(QList<double>, values);
        QFETCH(QList<int>, pieces);
        QFETCH(double, weight);
        const std::vector<double> all(values.cbegin(), values.cend());
        EmaState state;
        std::vector<double> out;
        std::size_t fed = 0;
        for (int piece : pieces) {
            fed += piece;
            extendEma(std::span<const double>(all.data(), fed), weight, state, out);
            QCOMPARE(out.size(), fed);
            const std::vector<double> whole =
                smoothEma(std::span<const double>(all.data(), fed), weight);
            for (std::size_t i = 0; i < fed; ++i)
                QVERIFY2(out[i] == whole[i] || (std::isnan(out[i]) && std::isnan(whole[i])),
                         qPrintable(QStringLiteral("piece end %1, index %2").arg(fed).arg(i)));
        }
    }

    void emaRejectsBadWeight_data() {
        QTest::addColumn<double>("weight");
        QTest::newRow("1") << 1.0;
        QTest::newRow("negative") << -0.1;
        QTest::newRow("NaN") << kNaN;
    }
    void emaRejectsBadWeight() {
        QFETCH(double, weight);
        const std::vector<double> v = {1, 2};
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, smoothEma(v, weight));
    }

    // --- x axis -----------------------------------------------------------------------------

    void mapX_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<qint64>("step");
        QTest::addColumn<double>("time");
        QTest::addColumn<double>("origin");
        QTest::addColumn<double>("expected");
        QTest::newRow("step") << int(XAxisMode::Step) << qint64(1234) << 1.7e9 << 1.6e9 << 1234.0;
        QTest::newRow("relative") << int(XAxisMode::RelativeTime) << qint64(5) << 1700000090.5
                                  << 1700000000.0 << 90.5;
        QTest::newRow("relative at origin")
            << int(XAxisMode::RelativeTime) << qint64(0) << 1.7e9 << 1.7e9 << 0.0;
        QTest::newRow("wall") << int(XAxisMode::WallTime) << qint64(5) << 1700000090.5 << 1.0
                              << 1700000090.5;
    }
    void mapX() {
        QFETCH(int, mode);
        QFETCH(qint64, step);
        QFETCH(double, time);
        QFETCH(double, origin);
        QFETCH(double, expected);
        QCOMPARE(studio::models::mapX(XAxisMode(mode), CurvePoint{step, time, 0}, origin),
                 expected);
    }

    void mapXSeriesStartsAtZero() {
        const QList<CurvePoint> points = {{0, 100, 1}, {10, 130, 2}, {20, 190, 3}};
        const auto x = studio::models::mapX(XAxisMode::RelativeTime, points);
        QCOMPARE(x, (std::vector<double>{0, 30, 90}));
        QVERIFY(studio::models::mapX(XAxisMode::Step, std::span<const CurvePoint>()).empty());
    }

    void relativeTimeUnit_data() {
        QTest::addColumn<double>("span");
        QTest::addColumn<double>("seconds");
        QTest::addColumn<QString>("suffix");
        QTest::newRow("seconds") << 90.0 << 1.0 << QStringLiteral("s");
        QTest::newRow("minutes") << 1800.0 << 60.0 << QStringLiteral("min");
        QTest::newRow("hours") << 36000.0 << 3600.0 << QStringLiteral("h");
        QTest::newRow("nothing") << 0.0 << 1.0 << QStringLiteral("s");
    }
    void relativeTimeUnit() {
        QFETCH(double, span);
        QFETCH(double, seconds);
        QFETCH(QString, suffix);
        const TimeUnit unit = studio::models::relativeTimeUnit(span);
        QCOMPARE(unit.seconds, seconds);
        QCOMPARE(unit.suffix, suffix);
    }

    void nearestIndex_data() {
        QTest::addColumn<double>("target");
        QTest::addColumn<qsizetype>("expected");
        QTest::newRow("before") << -5.0 << qsizetype(0);
        QTest::newRow("exact") << 20.0 << qsizetype(2);
        QTest::newRow("closer to lower") << 21.0 << qsizetype(2);
        QTest::newRow("closer to upper") << 28.0 << qsizetype(3);
        QTest::newRow("tie picks earlier") << 25.0 << qsizetype(2);
        QTest::newRow("after") << 99.0 << qsizetype(3);
    }
    void nearestIndex() {
        QFETCH(double, target);
        QFETCH(qsizetype, expected);
        const std::vector<double> x = {0, 10, 20, 30};
        QCOMPARE(studio::models::nearestIndex(x, target), expected);
        QCOMPARE(studio::models::nearestIndex(std::span<const double>(), target), qsizetype(-1));
    }

    // --- ticks and ranges -------------------------------------------------------------------

    void numberTicks_data() {
        QTest::addColumn<double>("min");
        QTest::addColumn<double>("max");
        QTest::addColumn<int>("maxTicks");
        QTest::addColumn<QStringList>("labels");
        QTest::newRow("unit") << 0.0 << 1.0 << 6 << QStringList{u"0"_s,   u"0.2"_s, u"0.4"_s,
                                                                u"0.6"_s, u"0.8"_s, u"1"_s};
        QTest::newRow("steps") << 0.0 << 1e6 << 6 << QStringList{u"0"_s,    u"200k"_s, u"400k"_s,
                                                                 u"600k"_s, u"800k"_s, u"1M"_s};
        QTest::newRow("offset") << 0.13 << 0.87 << 5
                                << QStringList{u"0.2"_s, u"0.4"_s, u"0.6"_s, u"0.8"_s};
        QTest::newRow("negative") << -1.0 << 1.0 << 5
                                  << QStringList{u"-1"_s, u"-0.5"_s, u"0"_s, u"0.5"_s, u"1"_s};
        QTest::newRow("k with decimals")
            << 1000.0 << 2000.0 << 3 << QStringList{u"1k"_s, u"1.5k"_s, u"2k"_s};
        QTest::newRow("flat") << 3.0 << 3.0 << 5 << QStringList{u"3"_s};
        QTest::newRow("two asked, finer step to show two")
            << 0.13 << 2.6 << 2 << QStringList{u"1"_s, u"2"_s};
        QTest::newRow("narrow range between round numbers")
            << 0.41 << 0.58 << 2 << QStringList{u"0.45"_s, u"0.5"_s, u"0.55"_s};
    }
    void numberTicks() {
        QFETCH(double, min);
        QFETCH(double, max);
        QFETCH(int, maxTicks);
        QFETCH(QStringList, labels);
        QStringList got;
        for (const AxisTick& t : studio::models::numberTicks(min, max, maxTicks)) {
            QVERIFY(t.value >= min - 1e-12 && t.value <= max + 1e-12);
            got.append(t.label);
        }
        QCOMPARE(got, labels);
    }

    void formatTickNumber_data() {
        QTest::addColumn<double>("value");
        QTest::addColumn<double>("step");
        QTest::addColumn<QString>("expected");
        QTest::newRow("zero") << 0.0 << 0.5 << u"0"_s;
        QTest::newRow("quarter") << 0.25 << 0.05 << u"0.25"_s;
        QTest::newRow("k") << 1500.0 << 500.0 << u"1.5k"_s;
        QTest::newRow("M") << 3e6 << 1e6 << u"3M"_s;
        QTest::newRow("G") << 2.5e9 << 5e8 << u"2.5G"_s;
        QTest::newRow("tiny") << 2.5e-5 << 5e-6 << u"2.5e-05"_s;
        QTest::newRow("integer") << 40.0 << 20.0 << u"40"_s;
        QTest::newRow("negative k") << -2000.0 << 1000.0 << u"-2k"_s;
    }
    void formatTickNumber() {
        QFETCH(double, value);
        QFETCH(double, step);
        QFETCH(QString, expected);
        QCOMPARE(studio::models::formatTickNumber(value, step), expected);
    }

    void wallTimeTicks_data() {
        QTest::addColumn<double>("min");
        QTest::addColumn<double>("max");
        QTest::addColumn<int>("offset");
        QTest::addColumn<QStringList>("labels");
        // 1700000000 is 2023-11-14 22:13:20 UTC.
        QTest::newRow("an hour, 10 min apart")
            << 1700000000.0 << 1700003600.0 << 0
            << QStringList{u"22:20"_s, u"22:30"_s, u"22:40"_s, u"22:50"_s, u"23:00"_s, u"23:10"_s};
        QTest::newRow("local offset +1h")
            << 1700000000.0 << 1700003600.0 << 3600
            << QStringList{u"23:20"_s, u"23:30"_s, u"23:40"_s, u"23:50"_s, u"00:00"_s, u"00:10"_s};
        QTest::newRow("a minute, seconds")
            << 1700000000.0 << 1700000060.0 << 0
            << QStringList{u"22:13:20"_s, u"22:13:30"_s, u"22:13:40"_s, u"22:13:50"_s,
                           u"22:14:00"_s, u"22:14:10"_s, u"22:14:20"_s};
        QTest::newRow("days") << 1700000000.0 << 1700000000.0 + 5 * 86400 << 0
                              << QStringList{u"Nov 15"_s, u"Nov 16"_s, u"Nov 17"_s, u"Nov 18"_s,
                                             u"Nov 19"_s};
    }
    void wallTimeTicks() {
        QFETCH(double, min);
        QFETCH(double, max);
        QFETCH(int, offset);
        QFETCH(QStringList, labels);
        QStringList got;
        for (const AxisTick& t : studio::models::wallTimeTicks(min, max, 7, offset)) {
            QVERIFY(t.value >= min && t.value <= max);
            got.append(t.label);
        }
        QCOMPARE(got, labels);
    }

    void blend_data() {
        QTest::addColumn<double>("t");
        QTest::addColumn<QColor>("expected");
        QTest::newRow("from") << 0.0 << QColor(0, 100, 200);
        QTest::newRow("to") << 1.0 << QColor(200, 0, 100);
        QTest::newRow("quarter") << 0.25 << QColor(50, 75, 175);
        QTest::newRow("clamped") << 1.5 << QColor(200, 0, 100);
        QTest::newRow("NaN is the start") << kNaN << QColor(0, 100, 200);
    }
    void blend() {
        QFETCH(double, t);
        QFETCH(QColor, expected);
        QCOMPARE(studio::models::blend(QColor(0, 100, 200), QColor(200, 0, 100), t), expected);
    }
};

QTEST_GUILESS_MAIN(TestChartMath)
#include "test_chart_math.moc"
