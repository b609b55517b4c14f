// The Compare view's plain math (models/charts/parallel_coordinates_math.h and compare_data.h):
// parallel-coordinates scaling, ticks and layout, colour scales, picking the nearest line, and
// what the view derives from the compared jobs (parameter axes, summaries, default choices).
#include "models/charts/compare_data.h"
#include "models/charts/parallel_coordinates_math.h"
#include "tests/support/same_number.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace studio::models;
using namespace Qt::StringLiterals;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

ParameterValue number(double v) {
    return {QString::number(v), v};
}

ParameterValue text(const QString& v) {
    return {v, std::nullopt};
}

} // namespace

class TestCompareMath : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // --- parallel coordinates ---------------------------------------------------------------

    void parallelNumericAxis_data() {
        QTest::addColumn<QList<double>>("values");
        QTest::addColumn<int>("scale");
        QTest::addColumn<double>("probe");
        QTest::addColumn<double>("position");
        QTest::newRow("linear") << QList<double>{16, 32, 64} << int(ParallelAxis::Scale::Linear)
                                << 32.0 << 1.0 / 3;
        QTest::newRow("linear bottom")
            << QList<double>{16, 32, 64} << int(ParallelAxis::Scale::Linear) << 16.0 << 0.0;
        QTest::newRow("log for decades")
            << QList<double>{1e-4, 1e-3, 1e-2} << int(ParallelAxis::Scale::Log) << 1e-3 << 0.5;
        QTest::newRow("not log with a negative")
            << QList<double>{-1, 1, 1000} << int(ParallelAxis::Scale::Linear) << 1.0 << 2.0 / 1001;
        QTest::newRow("one value in the middle")
            << QList<double>{5, 5} << int(ParallelAxis::Scale::Linear) << 5.0 << 0.5;
        QTest::newRow("missing probe")
            << QList<double>{1, 2} << int(ParallelAxis::Scale::Linear) << kNaN << kNaN;
        QTest::newRow("NaN values ignored")
            << QList<double>{kNaN, 0, 10} << int(ParallelAxis::Scale::Linear) << 5.0 << 0.5;
    }
    void parallelNumericAxis() {
        QFETCH(QList<double>, values);
        QFETCH(int, scale);
        QFETCH(double, probe);
        QFETCH(double, position);
        const std::vector<double> v(values.cbegin(), values.cend());
        const ParallelAxis axis = ParallelAxis::numeric(u"lr"_s, v);
        QCOMPARE(int(axis.scale()), scale);
        QVERIFY(sameNumber(axis.position(probe), position));
    }

    void parallelNumericTicks() {
        const std::vector<double> v = {0.5, 2};
        const auto ticks = ParallelAxis::numeric(u"x"_s, v).ticks();
        QCOMPARE(ticks.size(), 2);
        QCOMPARE(ticks[0].position, 0.0);
        QCOMPARE(ticks[0].label, u"0.5"_s);
        QCOMPARE(ticks[1].position, 1.0);
        QCOMPARE(ticks[1].label, u"2"_s);
        const std::vector<double> flat = {3, 3};
        QCOMPARE(ParallelAxis::numeric(u"x"_s, flat).ticks().size(), 1);
    }

    void parallelCategoricalAxis_data() {
        QTest::addColumn<QStringList>("values");
        QTest::addColumn<QString>("probe");
        QTest::addColumn<double>("position");
        QTest::newRow("sorted, bottom")
            << QStringList{u"sgd"_s, u"adam"_s, u"rmsprop"_s} << u"adam"_s << 0.0;
        QTest::newRow("sorted, middle")
            << QStringList{u"sgd"_s, u"adam"_s, u"rmsprop"_s} << u"rmsprop"_s << 0.5;
        QTest::newRow("sorted, top")
            << QStringList{u"sgd"_s, u"adam"_s, u"rmsprop"_s} << u"sgd"_s << 1.0;
        QTest::newRow("one category") << QStringList{u"a"_s, u"a"_s} << u"a"_s << 0.5;
        QTest::newRow("unknown") << QStringList{u"a"_s, u"b"_s} << u"c"_s << kNaN;
        QTest::newRow("missing ignored") << QStringList{u""_s, u"a"_s, u"b"_s} << u"b"_s << 1.0;
    }
    void parallelCategoricalAxis() {
        QFETCH(QStringList, values);
        QFETCH(QString, probe);
        QFETCH(double, position);
        const ParallelAxis axis = ParallelAxis::categorical(u"optimizer"_s, values);
        QCOMPARE(axis.scale(), ParallelAxis::Scale::Categorical);
        QVERIFY(sameNumber(axis.position(probe), position));
        QCOMPARE(axis.ticks().size(), axis.categories().size());
    }

    void parallelGeometry_data() {
        QTest::addColumn<int>("count");
        QTest::addColumn<int>("axis");
        QTest::addColumn<double>("x");
        QTest::newRow("first on the left") << 3 << 0 << 100.0;
        QTest::newRow("middle") << 3 << 1 << 300.0;
        QTest::newRow("last on the right") << 3 << 2 << 500.0;
        QTest::newRow("single centred") << 1 << 0 << 300.0;
    }
    void parallelGeometry() {
        QFETCH(int, count);
        QFETCH(int, axis);
        QFETCH(double, x);
        const ParallelGeometry g{QRectF(100, 50, 400, 200), count};
        QCOMPARE(g.axisX(axis), x);
        QCOMPARE(g.y(0), 250.0);
        QCOMPARE(g.y(1), 50.0);
        QCOMPARE(g.y(0.25), 200.0);
        QVERIFY(std::isnan(g.point(axis, kNaN).y()));
    }

    void colorScale() {
        QCOMPARE(studio::models::colorScale(0), QColor(0x44, 0x01, 0x54));
        QCOMPARE(studio::models::colorScale(1), QColor(0xfd, 0xe7, 0x25));
        QCOMPARE(studio::models::colorScale(-3), studio::models::colorScale(0));
        QCOMPARE(studio::models::colorScale(7), studio::models::colorScale(1));
        QCOMPARE(studio::models::colorScale(0.5), QColor(0x21, 0x90, 0x8d));
        // Brighter as t grows: the scale reads without hue too.
        QVERIFY(studio::models::colorScale(0.8).lightness() >
                studio::models::colorScale(0.2).lightness());
        QVERIFY(studio::models::colorScale(kNaN).isValid());
    }

    void lineColorScale_data() {
        QTest::addColumn<double>("t");
        QTest::addColumn<bool>("dark");
        QTest::addColumn<double>("scaleAt");
        QTest::newRow("light bottom") << 0.0 << false << 0.0;
        QTest::newRow("light top stops before yellow") << 1.0 << false << 0.78;
        QTest::newRow("dark bottom skips near-black") << 0.0 << true << 0.2;
        QTest::newRow("dark top") << 1.0 << true << 1.0;
        QTest::newRow("dark middle") << 0.5 << true << 0.6;
        QTest::newRow("clamped") << 2.0 << false << 0.78;
    }
    void lineColorScale() {
        QFETCH(double, t);
        QFETCH(bool, dark);
        QFETCH(double, scaleAt);
        QCOMPARE(studio::models::lineColorScale(t, dark), studio::models::colorScale(scaleAt));
    }

    void nearestPolyline_data() {
        QTest::addColumn<QPointF>("at");
        QTest::addColumn<int>("expected");
        QTest::newRow("on the upper line") << QPointF(50, 12) << 0;
        QTest::newRow("on the lower line") << QPointF(50, 98) << 1;
        QTest::newRow("too far from both") << QPointF(50, 55) << -1;
        QTest::newRow("no segment across a gap") << QPointF(150, 100) << -1;
        QTest::newRow("lone point") << QPointF(201, 100) << 1;
    }
    void nearestPolyline() {
        QFETCH(QPointF, at);
        QFETCH(int, expected);
        const QList<QPolygonF> lines = {
            QPolygonF{QPointF(0, 10), QPointF(100, 10)},
            QPolygonF{QPointF(0, 100), QPointF(100, 100), QPointF(kNaN, kNaN), QPointF(200, 100)},
        };
        QCOMPARE(studio::models::nearestPolyline(at, lines, 5), expected);
    }

    // --- compare data -----------------------------------------------------------------------

    void sameParameterValue_data() {
        QTest::addColumn<bool>("aPresent");
        QTest::addColumn<QString>("a");
        QTest::addColumn<bool>("bPresent");
        QTest::addColumn<QString>("b");
        QTest::addColumn<bool>("same");
        QTest::newRow("equal numbers, different text")
            << true << u"0.001"_s << true << u"1e-3"_s << true;
        QTest::newRow("different numbers") << true << u"0.001"_s << true << u"0.01"_s << false;
        QTest::newRow("equal text") << true << u"adam"_s << true << u"adam"_s << true;
        QTest::newRow("different text") << true << u"adam"_s << true << u"sgd"_s << false;
        QTest::newRow("one missing") << true << u"adam"_s << false << u""_s << false;
        QTest::newRow("both missing") << false << u""_s << false << u""_s << true;
    }
    void sameParameterValue() {
        QFETCH(bool, aPresent);
        QFETCH(QString, a);
        QFETCH(bool, bPresent);
        QFETCH(QString, b);
        QFETCH(bool, same);
        const auto value = [](bool present, const QString& s) -> std::optional<ParameterValue> {
            if (!present)
                return std::nullopt;
            bool ok = false;
            const double n = s.toDouble(&ok);
            return ok ? ParameterValue{s, n} : ParameterValue{s, std::nullopt};
        };
        QCOMPARE(studio::models::sameParameterValue(value(aPresent, a), value(bPresent, b)), same);
    }

    void parallelDataFromJobs() {
        QList<CompareJob> jobs(3);
        const double lrs[] = {1e-4, 1e-3, 1e-2};
        const double accuracy[] = {0.7, 0.8, 0.9};
        for (int i = 0; i < 3; ++i) {
            jobs[i].name = QStringLiteral("job-%1").arg(i);
            jobs[i].parameters.insert(u"lr"_s, number(lrs[i]));
            jobs[i].parameters.insert(u"epochs"_s, number(5)); // same everywhere: no axis
            if (i != 1)
                jobs[i].parameters.insert(u"optimizer"_s, text(i == 0 ? u"sgd"_s : u"adam"_s));
            studio::store::MetricSummary s;
            s.add(accuracy[i] - 0.2, 1, 1);
            s.add(accuracy[i], 2, 2);
            jobs[i].summaries.insert(u"eval:accuracy"_s, s);
        }
        QCOMPARE(differingParameters(jobs), (QStringList{u"lr"_s, u"optimizer"_s}));
        const ParallelData d = parallelData(jobs, u"eval:accuracy"_s, SummaryStatistic::Max);
        QCOMPARE(d.axes.size(), 3);
        QCOMPARE(d.axes[0].title(), u"lr"_s);
        QCOMPARE(d.axes[0].scale(), ParallelAxis::Scale::Log);
        QCOMPARE(d.axes[1].scale(), ParallelAxis::Scale::Categorical);
        QCOMPARE(d.axes[2].title(), u"eval:accuracy - Max"_s);
        QCOMPARE(d.metricTitle, u"eval:accuracy - Max"_s);
        QCOMPARE(d.lines.size(), 3);
        QVERIFY(sameNumber(d.lines[1].positions[0], 0.5));
        QVERIFY(std::isnan(d.lines[1].positions[1])); // job-1 has no optimizer
        QCOMPARE(d.lines[1].values[1], QString());
        QVERIFY(sameNumber(d.lines[0].colorPosition, 0.0));
        QVERIFY(sameNumber(d.lines[2].colorPosition, 1.0));
        QCOMPARE(d.lines[2].values[2], u"0.9"_s);
    }

    void summaryValue_data() {
        QTest::addColumn<int>("statistic");
        QTest::addColumn<double>("expected");
        QTest::newRow("min") << int(SummaryStatistic::Min) << 1.0;
        QTest::newRow("max") << int(SummaryStatistic::Max) << 5.0;
        QTest::newRow("last") << int(SummaryStatistic::Last) << 3.0;
        QTest::newRow("average") << int(SummaryStatistic::Average) << 3.0;
    }
    void summaryValue() {
        QFETCH(int, statistic);
        QFETCH(double, expected);
        studio::store::MetricSummary s;
        s.add(1, 0, 0);
        s.add(5, 1, 1);
        s.add(3, 2, 2);
        QCOMPARE(studio::models::summaryValue(s, SummaryStatistic(statistic)), expected);
        QVERIFY(std::isnan(studio::models::summaryValue(studio::store::MetricSummary{},
                                                        SummaryStatistic(statistic))));
    }

    void defaultSummary_data() {
        QTest::addColumn<QStringList>("metrics");
        QTest::addColumn<QString>("metric");
        QTest::addColumn<int>("statistic");
        QTest::newRow("eval accuracy first")
            << QStringList{u"eval:accuracy"_s, u"eval:loss"_s, u"train:loss"_s}
            << u"eval:accuracy"_s << int(SummaryStatistic::Max);
        QTest::newRow("eval loss before train accuracy")
            << QStringList{u"eval:loss"_s, u"train:accuracy"_s} << u"eval:loss"_s
            << int(SummaryStatistic::Min);
        QTest::newRow("train loss") << QStringList{u"lr"_s, u"train:loss"_s} << u"train:loss"_s
                                    << int(SummaryStatistic::Min);
        QTest::newRow("anything") << QStringList{u"throughput"_s} << u"throughput"_s
                                  << int(SummaryStatistic::Last);
        QTest::newRow("nothing") << QStringList{} << QString() << int(SummaryStatistic::Last);
    }
    void defaultSummary() {
        QFETCH(QStringList, metrics);
        QFETCH(QString, metric);
        QFETCH(int, statistic);
        const SummaryChoice choice = studio::models::defaultSummary(metrics);
        QCOMPARE(choice.metric, metric);
        QCOMPARE(int(choice.statistic), statistic);
    }

    void defaultMetricPrefersLoss() {
        QCOMPARE(defaultMetric({u"eval:accuracy"_s, u"train:loss"_s}), u"train:loss"_s);
        QCOMPARE(defaultMetric({u"a"_s, u"b"_s}), u"a"_s);
        QCOMPARE(defaultMetric({}), QString());
    }
};

QTEST_GUILESS_MAIN(TestCompareMath)
#include "test_compare_math.moc"
