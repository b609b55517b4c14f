// The heatmap's math (models/insights/heatmap_math): time <-> pixel column mapping, binning
// into mean/max cells, incremental appends equal to binning everything at once, window growth
// by merging column pairs equal to binning at the wider window, and the colour map.
#include "models/insights/heatmap_math.h"

#include <QtTest>

#include <cmath>
#include <vector>

using namespace studio::models;

class TestHeatmapMath : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void columnOf_data() {
        QTest::addColumn<double>("from");
        QTest::addColumn<double>("to");
        QTest::addColumn<int>("columns");
        QTest::addColumn<double>("t");
        QTest::addColumn<int>("expected");
        QTest::newRow("start") << 0.0 << 10.0 << 10 << 0.0 << 0;
        QTest::newRow("inside") << 0.0 << 10.0 << 10 << 3.5 << 3;
        QTest::newRow("boundary goes right") << 0.0 << 10.0 << 10 << 4.0 << 4;
        QTest::newRow("end is closed") << 0.0 << 10.0 << 10 << 10.0 << 9;
        QTest::newRow("before") << 0.0 << 10.0 << 10 << -0.1 << -1;
        QTest::newRow("after") << 0.0 << 10.0 << 10 << 10.1 << -1;
        QTest::newRow("NaN") << 0.0 << 10.0 << 10 << std::nan("") << -1;
        QTest::newRow("unix times") << 1.7e9 << 1.7e9 + 7200 << 1400 << 1.7e9 + 3600 << 700;
        QTest::newRow("zero-width window") << 5.0 << 5.0 << 4 << 5.0 << 0;
        QTest::newRow("inverted window") << 5.0 << 4.0 << 4 << 4.5 << -1;
        QTest::newRow("no columns") << 0.0 << 10.0 << 0 << 5.0 << -1;
    }
    void columnOf() {
        QFETCH(double, from);
        QFETCH(double, to);
        QFETCH(int, columns);
        QFETCH(double, t);
        QFETCH(int, expected);
        QCOMPARE((TimeColumns{from, to, columns}.columnOf(t)), expected);
    }

    void pixelMapping_data() {
        QTest::addColumn<double>("t");
        QTest::addColumn<double>("x");
        QTest::newRow("from") << 100.0 << 0.0;
        QTest::newRow("middle") << 150.0 << 400.0;
        QTest::newRow("to") << 200.0 << 800.0;
        QTest::newRow("beyond") << 250.0 << 1200.0;
    }
    void pixelMapping() {
        QFETCH(double, t);
        QFETCH(double, x);
        const TimeColumns axis{100, 200, 800};
        QCOMPARE(axis.xOf(t), x);
        QCOMPARE(axis.timeAt(x), t);
        QCOMPARE(axis.columnWidth(), 0.125);
        QCOMPARE((TimeColumns{3, 3, 10}.xOf(3)), 0.0);
        QCOMPARE((TimeColumns{3, 3, 10}.timeAt(7)), 3.0);
    }

    void binning_data() {
        QTest::addColumn<QList<double>>("times");
        QTest::addColumn<QList<double>>("values");
        QTest::addColumn<int>("column");
        QTest::addColumn<double>("mean");
        QTest::addColumn<double>("max");
        QTest::addColumn<int>("count");
        const QList<double> times{0.0, 0.5, 1.0, 1.5, 9.9, 10.0};
        const QList<double> values{10.0, 30.0, 100.0, 0.0, 50.0, 70.0};
        QTest::newRow("two samples averaged") << times << values << 0 << 20.0 << 30.0 << 2;
        QTest::newRow("max kept for tooltips") << times << values << 1 << 50.0 << 100.0 << 2;
        QTest::newRow("empty column is NaN")
            << times << values << 5 << std::nan("") << std::nan("") << 0;
        QTest::newRow("last column closed") << times << values << 9 << 60.0 << 70.0 << 2;
        QTest::newRow("outside and non-finite skipped")
            << QList<double>{-1.0, 2.0, 2.5, 11.0} << QList<double>{99.0, 40.0, std::nan(""), 99.0}
            << 2 << 40.0 << 40.0 << 1;
    }
    void binning() {
        QFETCH(QList<double>, times);
        QFETCH(QList<double>, values);
        QFETCH(int, column);
        QFETCH(double, mean);
        QFETCH(double, max);
        QFETCH(int, count);
        std::vector<HeatmapSample> series;
        for (qsizetype i = 0; i < times.size(); ++i)
            series.push_back({times[i], values[i]});
        HeatmapGrid one(2, {0, 10, 10});
        HeatmapGrid bulk(2, {0, 10, 10});
        for (const auto& s : series)
            one.add(1, s.time, s.value);
        bulk.addSeries(1, series);
        for (const HeatmapGrid* g : {&one, &bulk}) {
            QCOMPARE(int(g->cell(1, column).count), count);
            QCOMPARE(int(g->cell(0, column).count), 0);
            if (count == 0) {
                QVERIFY(std::isnan(g->mean(1, column)));
                QVERIFY(std::isnan(g->max(1, column)));
            } else {
                QCOMPARE(g->mean(1, column), mean);
                QCOMPARE(g->max(1, column), max);
            }
        }
    }

    void rejects() {
        HeatmapGrid g(1, {0, 10, 10});
        QVERIFY(!g.add(1, 5, 1));
        QVERIFY(!g.add(-1, 5, 1));
        QVERIFY(!g.add(0, 11, 1));
        QVERIFY(!g.add(0, 5, std::numeric_limits<double>::infinity()));
        QCOMPARE(g.dirtyColumns(), std::make_pair(-1, -1));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, HeatmapGrid(-1, {0, 1, 1}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, HeatmapGrid(1, {0, 1, 0}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, HeatmapGrid(1, {2, 1, 4}));
    }

    // A live append touches only the column it lands in.
    void dirtyColumns_data() {
        QTest::addColumn<QList<double>>("times");
        QTest::addColumn<int>("first");
        QTest::addColumn<int>("last");
        QTest::newRow("one sample") << QList<double>{9.5} << 9 << 9;
        QTest::newRow("two columns") << QList<double>{7.2, 8.9} << 7 << 8;
        QTest::newRow("out of order") << QList<double>{8.9, 2.0} << 2 << 8;
        QTest::newRow("outside") << QList<double>{12.0} << -1 << -1;
    }
    void dirtyColumns() {
        QFETCH(QList<double>, times);
        QFETCH(int, first);
        QFETCH(int, last);
        HeatmapGrid g(3, {0, 10, 10});
        std::vector<HeatmapSample> history;
        for (int i = 0; i < 19; ++i)
            history.push_back({i * 0.5, double(i)});
        g.addSeries(0, history);
        QCOMPARE(g.dirtyColumns(), std::make_pair(0, 9));
        g.clearDirty();
        for (double t : times)
            g.add(2, t, 50);
        QCOMPARE(g.dirtyColumns(), std::make_pair(first, last));
    }

    // Growing the window by merging column pairs gives what binning at the wide window gives.
    void widen_data() {
        QTest::addColumn<int>("columns");
        QTest::addColumn<int>("samples");
        QTest::newRow("even columns") << 8 << 40;
        QTest::newRow("odd columns") << 7 << 33;
        QTest::newRow("one column") << 1 << 5;
        QTest::newRow("sparse") << 16 << 3;
    }
    void widen() {
        QFETCH(int, columns);
        QFETCH(int, samples);
        std::vector<HeatmapSample> series;
        quint32 seed = 7;
        for (int i = 0; i < samples; ++i) {
            seed = seed * 1664525u + 1013904223u;
            // off the old window's closed end: a sample exactly there stays in its last column
            series.push_back({0.01 + i * 19.9 / samples, double(seed % 101)});
        }
        HeatmapGrid live(1, {0, 10, columns});
        for (const auto& s : series)
            if (!live.add(0, s.time, s.value)) {
                live.widen();
                QVERIFY(live.add(0, s.time, s.value));
            }
        QCOMPARE(live.axis().to, 20.0);
        HeatmapGrid wide(1, {0, 20, columns});
        wide.addSeries(0, series);
        for (int c = 0; c < columns; ++c) {
            QCOMPARE(live.cell(0, c).count, wide.cell(0, c).count);
            QCOMPARE(live.cell(0, c).max, wide.cell(0, c).max);
            QVERIFY(std::abs(live.cell(0, c).sum - wide.cell(0, c).sum) < 1e-9);
        }
    }

    // Columns narrower than the sampling interval hold the previous sample; real gaps stay.
    void heldColumn_data() {
        QTest::addColumn<int>("column");
        QTest::addColumn<int>("maxHold");
        QTest::addColumn<int>("expected");
        QTest::newRow("own sample") << 0 << 3 << 0;
        QTest::newRow("held") << 2 << 3 << 0;
        QTest::newRow("held to the limit") << 3 << 3 << 0;
        QTest::newRow("beyond the limit: gap") << 4 << 3 << -1;
        QTest::newRow("no hold") << 1 << 0 << -1;
        QTest::newRow("next sample") << 10 << 3 << 10;
        QTest::newRow("after the next") << 12 << 3 << 10;
        QTest::newRow("out of range") << 20 << 3 << -1;
    }
    void heldColumn() {
        QFETCH(int, column);
        QFETCH(int, maxHold);
        QFETCH(int, expected);
        HeatmapGrid g(1, {0, 20, 20});
        g.add(0, 0.5, 10);
        g.add(0, 10.5, 20);
        QCOMPARE(g.heldColumn(0, column, maxHold), expected);
    }

    void holdColumns_data() {
        QTest::addColumn<double>("interval");
        QTest::addColumn<double>("width");
        QTest::addColumn<int>("expected");
        QTest::newRow("500 ms samples, 200 ms columns") << 0.5 << 0.2 << 4;
        QTest::newRow("columns wider than samples") << 0.5 << 1.0 << 1;
        QTest::newRow("capped") << 10.0 << 0.01 << 64;
        QTest::newRow("unknown interval") << 0.0 << 0.2 << 0;
        QTest::newRow("no width") << 0.5 << 0.0 << 0;
    }
    void holdColumns() {
        QFETCH(double, interval);
        QFETCH(double, width);
        QFETCH(int, expected);
        QCOMPARE(studio::models::holdColumns(interval, width), expected);
    }

    void colorMap_data() {
        QTest::addColumn<double>("t");
        QTest::addColumn<QRgb>("expected");
        QTest::newRow("zero: dark purple") << 0.0 << qRgb(0x44, 0x01, 0x54);
        QTest::newRow("half: teal") << 0.5 << qRgb(0x21, 0x91, 0x8c);
        QTest::newRow("one: yellow") << 1.0 << qRgb(0xfd, 0xe7, 0x25);
        QTest::newRow("below clamps") << -3.0 << qRgb(0x44, 0x01, 0x54);
        QTest::newRow("above clamps") << 7.0 << qRgb(0xfd, 0xe7, 0x25);
        QTest::newRow("NaN is missing") << std::nan("") << qRgb(0xe0, 0xe0, 0xe0);
    }
    void colorMap() {
        QFETCH(double, t);
        QFETCH(QRgb, expected);
        QCOMPARE(ColorMap::viridis().colorAt(t), expected);
    }

    void colorFor_data() {
        QTest::addColumn<double>("value");
        QTest::addColumn<double>("t");
        QTest::newRow("0 %") << 0.0 << 0.0;
        QTest::newRow("50 %") << 50.0 << 0.5;
        QTest::newRow("100 %") << 100.0 << 1.0;
        QTest::newRow("over 100 %") << 130.0 << 1.0;
    }
    void colorFor() {
        QFETCH(double, value);
        QFETCH(double, t);
        const ColorMap map = ColorMap::viridis();
        QCOMPARE(map.colorFor(value, 0, 100), map.colorAt(t));
        QCOMPARE(map.colorFor(value, 5, 5), map.colorAt(0.5));
    }

    // Perceptual: lightness rises steadily, so equal steps in value read as equal steps.
    void perceptual() {
        const ColorMap map = ColorMap::viridis();
        const auto& table = map.table();
        for (std::size_t i = 1; i < table.size(); ++i) {
            // 8-bit rounding may leave two neighbours level; every 16 entries it must rise
            QVERIFY2(lightness(table[i]) > lightness(table[i - 1]) - 0.5, "lightness falls");
            if (i >= 16)
                QVERIFY2(lightness(table[i]) > lightness(table[i - 16]) + 2, "lightness stalls");
        }
        QVERIFY(lightness(map.colorAt(0)) < 20);
        QVERIFY(lightness(map.colorAt(1)) > 85);
        QCOMPARE(std::lround(lightness(qRgb(255, 255, 255))), 100L);
        QCOMPARE(std::lround(lightness(qRgb(0, 0, 0))), 0L);
    }
};

QTEST_GUILESS_MAIN(TestHeatmapMath)
#include "test_heatmap_math.moc"
