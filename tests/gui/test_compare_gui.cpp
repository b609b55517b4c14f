// The Compare view on a real store of three jobs (different lr and batch size, train:loss and
// eval:accuracy curves): background load, overlaid series, the parameter diff model (under
// QAbstractItemModelTester), smoothing, x axis modes, metric switch, parallel coordinates,
// CurveChart's batching and zoom, errors. Saves screenshots of each part (light and dark).
#include "engine/store/store_writer.h"
#include "models/charts/parameter_diff_model.h"
#include "models/data/data_service.h"
#include "tests/support/screenshot.h"
#include "widgets/charts/compare_view.h"
#include "widgets/charts/curve_chart.h"
#include "widgets/charts/parallel_coordinates_plot.h"
#include "widgets/common/theme.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QSlider>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace studio::models;
using namespace studio::widgets;
using namespace Qt::StringLiterals;
namespace store = studio::store;

namespace {

constexpr double kStart = 1700000000;
constexpr int kLossPoints = 300;
constexpr int kEvalPoints = 30;

store::ParameterRow numberParameter(const std::string& name, double v, const std::string& text) {
    return store::ParameterRow{name, text, v};
}

store::ParameterRow textParameter(const std::string& name, const std::string& text) {
    return store::ParameterRow{name, text, std::nullopt};
}

} // namespace

class TestCompareGui : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_db;
    QList<qint64> m_ids;

    QApplication& app() { return *static_cast<QApplication*>(QCoreApplication::instance()); }

    // Opens a CompareView on the three jobs and waits for the curves.
    void open(CompareView& view) {
        QSignalSpy curves(&view, &CompareView::curvesLoaded);
        view.resize(1280, 860);
        view.setJobs(m_ids);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(curves.wait(15000));
        QVERIFY(!view.isLoading());
        view.curveChart()->redrawNow();
    }

private Q_SLOTS:
    void initTestCase() {
        applyTheme(app(), ThemeChoice::Light);
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath(u"studio.db"_s);
        store::StoreWriter writer(m_db.toStdString());
        const double lrs[] = {0.001, 0.01, 0.1};
        const int batches[] = {32, 64, 64};
        const char* lrText[] = {"0.001", "0.01", "0.1"};
        const char* batchText[] = {"32", "64", "64"};
        for (int j = 0; j < 3; ++j) {
            store::NewComponent c;
            c.name = "mnist-cnn-lr" + std::string(lrText[j]) + "-bs" + batchText[j];
            c.experiment = "mnist";
            c.trial = "sweep";
            c.created = kStart + j * 600;
            c.parameters = {numberParameter("lr", lrs[j], lrText[j]),
                            numberParameter("batch_size", batches[j], batchText[j]),
                            numberParameter("epochs", 10, "10"), textParameter("optimizer", "adam"),
                            textParameter("model", "mnist-cnn")};
            const store::ComponentId id = writer.createComponent(c);
            m_ids.append(id);
            const double t0 = kStart + j * 600;
            const double rate = 0.004 + 0.006 * j;
            quint32 seed = 17 + j;
            for (int i = 0; i < kLossPoints; ++i) {
                seed = seed * 1664525u + 1013904223u;
                const double noise = ((seed >> 8) / double(1 << 24) - 0.5) * 0.25;
                const double loss = 2.3 * std::exp(-rate * i) + 0.08 * (j + 1) + noise;
                writer.addMetric(id, "train:loss", {i * 10, t0 + i * 2.0, loss, 0, 0});
            }
            for (int i = 0; i < kEvalPoints; ++i) {
                const double acc = 0.98 - 0.2 * j * 0.5 - 0.6 * std::exp(-(rate * 8) * i);
                writer.addMetric(id, "eval:accuracy", {i * 100, t0 + i * 20.0 + 1, acc, 0, 0});
            }
            writer.setStatus(id, j == 2 ? "Failed" : "Completed", "Completed", "", t0 + 700);
            writer.setEnded(id, t0 + 700);
        }
    }

    void loadsAndOverlaysCurves() {
        DataService service(m_db);
        CompareView view(&service);
        open(view);
        QCOMPARE(view.compareData().jobs.size(), 3);
        QCOMPARE(view.compareData().metricNames,
                 (QStringList{u"eval:accuracy"_s, u"train:loss"_s}));
        QCOMPARE(view.metric(), u"train:loss"_s);
        CurveChart* chart = view.curveChart();
        QCOMPARE(chart->seriesCount(), 3);
        QCOMPARE(chart->seriesNames().front(), view.compareData().jobs.front().name);
        QCOMPARE(chart->title(), u"train:loss"_s);
        for (const QString& name : chart->seriesNames())
            QCOMPARE(chart->drawnPoints(name, false).size(), kLossPoints); // below 2x width
        QCOMPARE(view.compareData().jobs[1].color, seriesColor(1));

        // Another metric loads in the background too.
        QSignalSpy curves(&view, &CompareView::curvesLoaded);
        auto* metricBox = view.findChild<QComboBox*>(u"metricChooser"_s);
        QVERIFY(metricBox);
        metricBox->setCurrentText(u"eval:accuracy"_s);
        QVERIFY(curves.wait(10000));
        chart->redrawNow();
        QCOMPARE(chart->seriesCount(), 3);
        QCOMPARE(chart->drawnPoints(chart->seriesNames().front(), false).size(), kEvalPoints);
        shoot(&view, u"compare-accuracy.png"_s);
    }

    void parameterDiff() {
        DataService service(m_db);
        CompareView view(&service);
        open(view);
        ParameterDiffModel* model = view.parameterModel();
        QAbstractItemModelTester tester(model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(
            view.parameterFilter(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model->columnCount(), 4);
        QCOMPARE(model->rowCount(), 5);
        const int lr = model->rowOf(u"lr"_s);
        const int epochs = model->rowOf(u"epochs"_s);
        const int batch = model->rowOf(u"batch_size"_s);
        QVERIFY(lr >= 0 && epochs >= 0 && batch >= 0);
        QVERIFY(model->rowDiffers(lr));
        QVERIFY(model->rowDiffers(batch));
        QVERIFY(!model->rowDiffers(epochs));
        QVERIFY(!model->rowDiffers(model->rowOf(u"optimizer"_s)));
        QCOMPARE(model->index(lr, 0).data(ParameterDiffModel::DiffersRole).toBool(), true);
        QCOMPARE(model->index(epochs, 2).data(ParameterDiffModel::DiffersRole).toBool(), false);
        QVERIFY(model->index(lr, 1).data(Qt::BackgroundRole).isValid());
        QVERIFY(!model->index(epochs, 1).data(Qt::BackgroundRole).isValid());
        QCOMPARE(model->index(lr, 1).data().toString(), u"0.001"_s);
        QCOMPARE(model->index(lr, 3).data().toString(), u"0.1"_s);
        QCOMPARE(model->headerData(2, Qt::Horizontal).toString(), view.compareData().jobs[1].name);
        QCOMPARE(model->differingCount(), 2);

        auto* only = view.findChild<QCheckBox*>(u"onlyDiffering"_s);
        QVERIFY(only);
        view.findChild<QTabWidget*>(u"compareTabs"_s)->setCurrentIndex(0);
        shoot(&view, u"compare-parameters.png"_s);
        only->setChecked(true);
        QCOMPARE(view.parameterFilter()->rowCount(), 2);
        shoot(&view, u"compare-parameters-differing.png"_s);
        only->setChecked(false);
        QCOMPARE(view.parameterFilter()->rowCount(), 5);
    }

    void smoothingChangesDrawnData() {
        DataService service(m_db);
        CompareView view(&service);
        open(view);
        CurveChart* chart = view.curveChart();
        const QString job = chart->seriesNames().front();
        auto* slider = view.findChild<QSlider*>(u"smoothingSlider"_s);
        auto* label = view.findChild<QLabel*>(u"smoothingValue"_s);
        QVERIFY(slider && label);
        QCOMPARE(slider->value(), 60);
        QCOMPARE(label->text(), u"0.60"_s);
        const QList<QPointF> at06 = chart->drawnPoints(job, true);
        const QList<QPointF> raw = chart->drawnPoints(job, false);
        QCOMPARE(at06.size(), raw.size());
        QVERIFY(at06 != raw);

        slider->setValue(95);
        QCOMPARE(label->text(), u"0.95"_s);
        chart->redrawNow();
        const QList<QPointF> at095 = chart->drawnPoints(job, true);
        QVERIFY(!at095.isEmpty());
        QVERIFY(at095 != at06);
        QCOMPARE(chart->drawnPoints(job, false), raw); // the raw line stays
        // Heavier smoothing: the smoothed line moves less between neighbours.
        const auto roughness = [](const QList<QPointF>& p) {
            double sum = 0;
            for (qsizetype i = 1; i < p.size(); ++i)
                sum += std::fabs(p[i].y() - p[i - 1].y());
            return sum;
        };
        QVERIFY(roughness(at095) < roughness(at06));
        QVERIFY(roughness(at06) < roughness(raw));

        slider->setValue(0);
        chart->redrawNow();
        QVERIFY(chart->drawnPoints(job, true).isEmpty()); // no smoothed line at 0
        QCOMPARE(chart->drawnPoints(job, false), raw);
        slider->setValue(60);
    }

    void xAxisModes() {
        DataService service(m_db);
        CompareView view(&service);
        open(view);
        CurveChart* chart = view.curveChart();
        auto* box = view.findChild<QComboBox*>(u"xAxisChooser"_s);
        QVERIFY(box);
        QCOMPARE(chart->xAxisMode(), XAxisMode::Step);
        QCOMPARE(chart->visibleXRange(), QPointF(0, (kLossPoints - 1) * 10));

        box->setCurrentIndex(box->findText(u"Wall time"_s));
        QCOMPARE(chart->xAxisMode(), XAxisMode::WallTime);
        chart->redrawNow();
        QCOMPARE(chart->visibleXRange().x(), kStart);
        QCOMPARE(chart->visibleXRange().y(), kStart + 2 * 600 + (kLossPoints - 1) * 2.0);
        shoot(chart, u"compare-curves-walltime.png"_s);

        box->setCurrentIndex(box->findText(u"Relative time"_s));
        QCOMPARE(chart->xAxisMode(), XAxisMode::RelativeTime);
        chart->redrawNow();
        // 598 s of training: shown in minutes, every job from 0.
        QCOMPARE(chart->relativeTimeUnitInUse().suffix, u"min"_s);
        QCOMPARE(chart->visibleXRange().x(), 0.0);
        QCOMPARE(chart->visibleXRange().y(), (kLossPoints - 1) * 2.0 / 60);
        const QString job = chart->seriesNames().back();
        QCOMPARE(chart->drawnPoints(job, false).front().x(), 0.0);
        shoot(chart, u"compare-curves-relative.png"_s);

        box->setCurrentIndex(box->findText(u"Step"_s));
        chart->redrawNow();
        QCOMPARE(chart->visibleXRange(), QPointF(0, (kLossPoints - 1) * 10));
    }

    void parallelCoordinates() {
        DataService service(m_db);
        CompareView view(&service);
        open(view);
        view.findChild<QTabWidget*>(u"compareTabs"_s)->setCurrentIndex(1);
        ParallelCoordinatesPlot* plot = view.parallelPlot();
        QTRY_VERIFY(plot->isVisible());
        const ParallelData& data = plot->plotData();
        // Differing parameters (batch_size, lr), then the metric summary.
        QCOMPARE(data.axes.size(), 3);
        QCOMPARE(data.axes[0].title(), u"batch_size"_s);
        QCOMPARE(data.axes[1].title(), u"lr"_s);
        QCOMPARE(data.axes[1].scale(), ParallelAxis::Scale::Log);
        QCOMPARE(data.metricTitle, u"eval:accuracy - Max"_s);
        QCOMPARE(data.lines.size(), 3);
        // The best accuracy sits at the top of the colour scale, the worst at the bottom.
        int best = 0, worst = 0;
        const auto maxOf = [&](int j) {
            return view.compareData().jobs[j].summaries.value(u"eval:accuracy"_s).max;
        };
        for (int j = 1; j < 3; ++j) {
            best = maxOf(j) > maxOf(best) ? j : best;
            worst = maxOf(j) < maxOf(worst) ? j : worst;
        }
        QCOMPARE(data.lines[best].colorPosition, 1.0);
        QCOMPARE(data.lines[worst].colorPosition + 1, 1.0);

        const QList<QPolygonF> lines = plot->polylines();
        const QPointF onLine = (lines[1][1] + lines[1][2]) / 2;
        QTest::mouseMove(plot, onLine.toPoint());
        QTRY_COMPARE(plot->hoveredLine(), 1);
        shoot(plot, u"compare-parallel.png"_s);
        shoot(&view, u"compare-parallel-tab.png"_s);

        // Another statistic re-scales the metric axis.
        auto* statistic = view.findChild<QComboBox*>(u"parallelStatistic"_s);
        statistic->setCurrentText(u"Last"_s);
        QCOMPARE(plot->plotData().metricTitle, u"eval:accuracy - Last"_s);
        view.setSummary(u"train:loss"_s, SummaryStatistic::Min);
        QCOMPARE(plot->plotData().metricTitle, u"train:loss - Min"_s);
    }

    void screenshotsLightAndDark() {
        DataService service(m_db);
        CompareView view(&service);
        open(view);
        CurveChart* chart = view.curveChart();
        auto* chartView = chart->findChild<QChartView*>();
        QVERIFY(chartView);
        // Hover readout at the middle of the plot.
        QTest::mouseMove(chartView->viewport(), QPoint(chart->width() / 2, chart->height() / 2));
        QApplication::processEvents();
        shoot(&view, u"compare-view.png"_s);
        shoot(chart, u"compare-curves.png"_s);

        applyTheme(app(), ThemeChoice::Dark);
        QApplication::processEvents();
        chart->redrawNow();
        QTest::mouseMove(chartView->viewport(),
                         QPoint(chart->width() / 3, chart->height() / 2 + 20));
        QApplication::processEvents();
        shoot(&view, u"compare-view-dark.png"_s);
        view.findChild<QTabWidget*>(u"compareTabs"_s)->setCurrentIndex(1);
        QApplication::processEvents();
        shoot(&view, u"compare-parallel-dark.png"_s);
        applyTheme(app(), ThemeChoice::Light);
    }

    void curveChartBatchesLiveAppends() {
        CurveChart chart;
        chart.resize(800, 400);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        QSignalSpy redrawn(&chart, &CurveChart::redrawn);
        const auto appendOneByOne = [&](int from, int to) {
            for (int i = from; i < to; ++i)
                chart.appendPoints(u"live"_s, {CurvePoint{i, kStart + i, std::sin(i * 0.1)}});
        };
        appendOneByOne(0, 200);
        QCOMPARE(redrawn.count(), 0); // nothing per point
        QVERIFY(redrawn.wait(1000));
        // Time must pass: the check is that no further redraws come (the first data may re-lay
        // out the chart, legend and labels, once more).
        QTest::qWait(150);
        QVERIFY(redrawn.count() <= 2);
        QCOMPARE(chart.seriesCount(), 1);
        QCOMPARE(chart.drawnPoints(u"live"_s, false).size(), 200);

        redrawn.clear();
        appendOneByOne(200, 400);
        QCOMPARE(redrawn.count(), 0);
        QVERIFY(redrawn.wait(1000));
        QTest::qWait(150);            // time must pass: no second redraw comes
        QCOMPARE(redrawn.count(), 1); // one redraw for 200 appends
        QCOMPARE(chart.drawnPoints(u"live"_s, false).size(), 400);

        chart.appendPoints(u"live"_s, {CurvePoint{400, kStart + 400, std::nan("")}});
        chart.redrawNow();
        QCOMPARE(chart.hiddenValueCount(), 1);
        QCOMPARE(chart.drawnPoints(u"live"_s, false).size(), 400);
    }

    void curveChartZoom() {
        CurveChart chart;
        chart.resize(800, 400);
        QList<CurvePoint> points;
        for (int i = 0; i < 100000; ++i)
            points.append(CurvePoint{i, kStart + i, std::sin(i * 0.001) + (i == 54321 ? 5 : 0)});
        chart.setSeries({CurveSeries{u"big"_s, QColor(), points}});
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.redrawNow();
        const QList<QPointF> full = chart.drawnPoints(u"big"_s, false);
        QVERIFY(full.size() <= 3 * 800 + 2);
        QVERIFY(full.contains(QPointF(54321, std::sin(54.321) + 5))); // the spike survives

        QSignalSpy zoomed(&chart, &CurveChart::zoomChanged);
        chart.zoomToX(40000, 41000);
        chart.redrawNow();
        QVERIFY(chart.isZoomed());
        QCOMPARE(zoomed.count(), 1);
        const QList<QPointF> zoomedPoints = chart.drawnPoints(u"big"_s, false);
        // 1001 points in range: fewer than 2x the plot width, all drawn, plus one each side.
        QCOMPARE(zoomedPoints.size(), 1003);
        QCOMPARE(zoomedPoints.front().x(), 39999.0);
        QCOMPARE(zoomedPoints.back().x(), 41001.0);

        auto* view = chart.findChild<QChartView*>();
        QTest::mouseDClick(view->viewport(), Qt::LeftButton, {},
                           QPoint(chart.width() / 2, chart.height() / 2));
        QVERIFY(!chart.isZoomed());

        // Rubber band over the middle third of the plot.
        const QRect r = view->chart()->plotArea().toRect();
        const QPoint a(r.left() + r.width() / 3, r.top() + 10);
        const QPoint b(r.left() + 2 * r.width() / 3, r.bottom() - 10);
        QTest::mousePress(view->viewport(), Qt::LeftButton, {}, a);
        QTest::mouseMove(view->viewport(), b);
        QTest::mouseRelease(view->viewport(), Qt::LeftButton, {}, b);
        QVERIFY(chart.isZoomed());
        const QPointF range = chart.visibleXRange();
        QVERIFY2(std::fabs(range.x() - 100000 / 3.0) < 2000,
                 qPrintable(QString::number(range.x())));
        QVERIFY(std::fabs(range.y() - 200000 / 3.0) < 2000);

        // Log y hides values <= 0 and says so.
        chart.setLogY(true);
        chart.redrawNow();
        QVERIFY(chart.hiddenValueCount() > 0);
        for (const QPointF& p : chart.drawnPoints(u"big"_s, false))
            QVERIFY(p.y() > 0);
        shoot(&chart, u"curve-chart-log-zoomed.png"_s);
    }

    void reloadKeepsTheMetric() {
        DataService service(m_db);
        CompareView view(&service);
        open(view);
        QSignalSpy curves(&view, &CompareView::curvesLoaded);
        view.setMetric(u"eval:accuracy"_s);
        QVERIFY(curves.wait(10000));
        QSignalSpy loaded(&view, &CompareView::loaded);
        const qsizetype curvesBefore = curves.count();
        view.reload();
        QVERIFY(view.isLoading());
        QVERIFY(loaded.wait(10000));
        // The reloaded curves may come while `loaded` is awaited: counted, not waited for anew.
        QTRY_VERIFY_WITH_TIMEOUT(curves.count() > curvesBefore, 10000);
        QCOMPARE(view.metric(), u"eval:accuracy"_s);
        QCOMPARE(view.findChild<QComboBox*>(u"metricChooser"_s)->currentText(), u"eval:accuracy"_s);
        QCOMPARE(view.curveChart()->seriesCount(), 3);
    }

    void errors() {
        DataService service(m_db);
        CompareView view(&service);
        QSignalSpy failed(&view, &CompareView::loadFailed);
        view.setJobs({m_ids.front()});
        QVERIFY(failed.wait(10000));
        QVERIFY2(failed.back().front().toString().contains(u"2 to 50"_s),
                 qPrintable(failed.back().front().toString()));
        view.setJobs({m_ids.front(), 987654});
        QVERIFY(failed.wait(10000));
        QVERIFY(failed.back().front().toString().contains(u"987654"_s));
        QVERIFY(view.findChild<QLabel*>(u"compareError"_s)->isVisibleTo(&view));
    }
};

QTEST_MAIN(TestCompareGui)
#include "test_compare_gui.moc"
