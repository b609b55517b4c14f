// Tuning views over a real store holding synthetic tuning jobs (tuning_fixture.h): the Tuning
// list and training-jobs models under QAbstractItemModelTester (reloads in place, live
// progress), the plot axes, and a 40-job tuning job's tab: header counters and best job, the
// jobs table (sorting, activation opens the training job), slices on log and categorical axes,
// failed jobs along the history's bottom, importance, Stop while it runs. Saves screenshots of
// the tab (synthetic data) to STUDIO_SCREENSHOT_DIR.
#include "models/data/data_service.h"
#include "models/tuning/tuning_job_list_model.h"
#include "models/tuning/tuning_trials_model.h"
#include "tests/gui/tuning_fixture.h"
#include "tests/support/screenshot.h"
#include "widgets/charts/parallel_coordinates_plot.h"
#include "widgets/tuning/importance_chart.h"
#include "widgets/tuning/tuning_header.h"
#include "widgets/tuning/tuning_plot.h"
#include "widgets/tuning/tuning_view.h"

#include <QAbstractItemModelTester>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace studio;
using namespace studio::models;
using namespace studio::widgets;

class TestTuningViews : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    QString m_db;
    tuning_fixture::Expected m_done;
    tuning_fixture::Expected m_running;

private Q_SLOTS:
    void initTestCase() {
        m_db = m_home.filePath(QStringLiteral("studio.db"));
        store::StoreWriter w(m_db.toStdString());
        m_done = tuning_fixture::writeTuningJob(w, "tune-fmnist", 40);
        m_running = tuning_fixture::writeTuningJob(w, "tune-live", 6, 10, 2, 1795400000);
        QCOMPARE(m_done.completed + m_done.stoppedEarly + m_done.failed, 40);
        QVERIFY(m_done.stoppedEarly > 0 && m_done.failed > 0);
    }

    void listModel() {
        DataService service(m_db);
        TuningJobListModel model(&service);
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QTRY_COMPARE(model.rowCount(), 2);
        QCOMPARE(model.row(0).name, std::string("tune-live")); // newest first
        const int done = model.rowOf(QStringLiteral("tune-fmnist"));
        QCOMPARE(model.index(done, TuningJobListModel::JobsColumn).data().toString(),
                 QStringLiteral("40 / 40"));
        QCOMPARE(model.index(done, TuningJobListModel::StatusColumn).data().toString(),
                 QStringLiteral("Completed"));
        QCOMPARE(model.index(done, TuningJobListModel::BestColumn).data().toString(),
                 objectiveText(m_done.best));
        QCOMPARE(model.index(0, TuningJobListModel::JobsColumn).data().toString(),
                 QStringLiteral("6 / 8 (+2)"));

        store::TuningCounters c = model.row(0).counters;
        ++c.completed;
        --c.inProgress;
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.applyProgress(QStringLiteral("tune-live"), QStringLiteral("InProgress"), c, 0.95,
                            QStringLiteral("tune-live-7"));
        QCOMPARE(changed.size(), 1);
        QCOMPARE(model.index(0, TuningJobListModel::JobsColumn).data().toString(),
                 QStringLiteral("7 / 8 (+1)"));
        QCOMPARE(model.index(0, TuningJobListModel::BestColumn).data().toString(),
                 QStringLiteral("0.95"));
        // A reload of the same tuning jobs changes rows in place (no reset).
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        QSignalSpy loaded(&model, &TuningJobListModel::loaded);
        model.refresh();
        QVERIFY(loaded.wait(5000));
        QCOMPARE(reset.size(), 0);
        QCOMPARE(model.index(0, TuningJobListModel::JobsColumn).data().toString(),
                 QStringLiteral("6 / 8 (+2)"));
    }

    void trialsModel() {
        TuningJobData data = loadTuningJob(m_db, QStringLiteral("tune-fmnist"));
        TuningTrialsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        TuningJobData first = data;
        first.trials.resize(30);
        model.setJobData(first);
        QCOMPARE(model.rowCount(), 30);
        QCOMPARE(model.columnCount(), 2 + 3 + 4);
        QCOMPARE(model.headerData(2, Qt::Horizontal, Qt::DisplayRole).toString(),
                 QStringLiteral("lr"));
        QVERIFY(model.headerData(2, Qt::Horizontal, Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("log scale")));
        QCOMPARE(
            model.headerData(model.objectiveColumn(), Qt::Horizontal, Qt::DisplayRole).toString(),
            QStringLiteral("eval:accuracy"));
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        model.setJobData(data); // grows: rows appended
        QCOMPARE(model.rowCount(), 40);
        QCOMPARE(inserted.size(), 1);
        QCOMPARE(reset.size(), 0);
        const int early = 3; // ordinal 3 is stopped early
        QCOMPARE(model.index(early, model.stoppedEarlyColumn()).data().toString(),
                 QStringLiteral("yes"));
        QCOMPARE(model.index(early, model.reasonColumn()).data().toString(),
                 QStringLiteral("median rule at epoch 4"));
        QCOMPARE(model.index(5, model.objectiveColumn()).data().toString(), QStringLiteral("-"));
        QCOMPARE(model.index(5, model.statusColumn()).data().toString(), QStringLiteral("Failed"));

        QSortFilterProxyModel sorted;
        sorted.setSourceModel(&model);
        sorted.setSortRole(TuningTrialsModel::SortRole);
        QAbstractItemModelTester proxyTester(
            &sorted, QAbstractItemModelTester::FailureReportingMode::QtTest);
        sorted.sort(model.objectiveColumn(), Qt::DescendingOrder);
        QCOMPARE(sorted.index(0, 1).data().toString(), QString::fromStdString(m_done.bestJob));
        sorted.sort(model.rangeColumn(1), Qt::AscendingOrder); // batch-size as numbers
        double previous = -1;
        for (int r = 0; r < sorted.rowCount(); ++r) {
            const double v = sorted.index(r, model.rangeColumn(1)).data().toString().toDouble();
            QVERIFY(v >= previous);
            previous = v;
        }

        TuningJobData fewer = data;
        fewer.ranges.pop_back();
        model.setJobData(fewer); // other ranges: reset
        QCOMPARE(reset.size(), 1);
        QCOMPARE(model.columnCount(), 2 + 2 + 4);
    }

    void plotAxes() {
        const double values[] = {0.001, 0.05};
        const PlotAxis log = PlotAxis::fit(QStringLiteral("lr"), values, true);
        QCOMPARE(log.scale, PlotAxis::Scale::Log);
        QVERIFY(log.min <= 0.001 && log.max >= 0.05);
        QVERIFY(std::isnan(log.fraction(-1)));
        QVERIFY(log.fraction(0.001) < log.fraction(0.01));
        QVERIFY(!log.ticks(6).isEmpty());
        const PlotAxis cat =
            PlotAxis::category(QStringLiteral("opt"), {QStringLiteral("a"), QStringLiteral("b")});
        QCOMPARE(cat.fraction(0), 0.25);
        QCOMPARE(cat.fraction(1), 0.75);
        QCOMPARE(cat.ticks(10).size(), 2);
    }

    void tab() {
        DataService service(m_db);
        TuningView view(&service, QStringLiteral("tune-fmnist"));
        view.resize(1400, 900);
        QSignalSpy loaded(&view, &TuningView::dataLoaded);
        QVERIFY(loaded.wait(5000));
        QCOMPARE(view.status(), QStringLiteral("Completed"));
        TuningHeader* h = view.header();
        QCOMPARE(h->text(QStringLiteral("completed")), QString::number(m_done.completed));
        QCOMPARE(h->text(QStringLiteral("stoppedEarly")), QString::number(m_done.stoppedEarly));
        QCOMPARE(h->text(QStringLiteral("failed")), QString::number(m_done.failed));
        QCOMPARE(h->text(QStringLiteral("inProgress")), QStringLiteral("0"));
        QVERIFY(h->text(QStringLiteral("best")).contains(QString::fromStdString(m_done.bestJob)));
        QVERIFY(h->text(QStringLiteral("bestHyperparameters"))
                    .contains(QStringLiteral("optimizer = ")));
        QVERIFY(!h->stopButton()->isEnabled());
        view.setStoppable(true);
        QVERIFY(!h->stopButton()->isEnabled()); // it has ended

        QCOMPARE(view.table()->model()->rowCount(), 40);
        QCOMPARE(view.slices().size(), 3);
        QCOMPARE(view.slices()[0]->plotData().x.scale, PlotAxis::Scale::Log);
        QCOMPARE(view.slices()[1]->plotData().x.scale, PlotAxis::Scale::Linear);
        QCOMPARE(view.slices()[2]->plotData().x.scale, PlotAxis::Scale::Category);
        QCOMPARE(view.slices()[2]->plotData().x.categories.size(), 3);
        const PlotData history = view.history()->plotData();
        int rug = 0, markers = 0;
        for (const PlotLayer& l : history.layers) {
            if (l.kind == PlotLayer::Kind::Rug)
                rug += int(l.points.size());
            else if (l.kind == PlotLayer::Kind::Markers)
                markers += int(l.points.size());
        }
        QCOMPARE(rug, m_done.failed);
        QCOMPARE(markers, m_done.completed + m_done.stoppedEarly);
        int crosses = 0;
        for (const PlotLayer& l : view.intermediate()->plotData().layers)
            crosses += l.endMarker && !l.points.isEmpty();
        QCOMPARE(crosses, m_done.stoppedEarly + m_done.failed);
        QCOMPARE(view.importance()->importances().size(), 3);
        QCOMPARE(view.importance()->importances().front().name, QStringLiteral("lr"));
        QVERIFY(view.importance()->toolTip().contains(QStringLiteral("ANOVA")));
        QCOMPARE(view.parallel()->plotData().axes.size(), 4);
        QCOMPARE(view.parallel()->plotData().lines.size(), m_done.completed);
        QCOMPARE(view.topSlice()->plotData().x.scale, PlotAxis::Scale::Log); // lr's slice

        QSignalSpy open(&view, &TuningView::openJobRequested);
        view.tabs()->setCurrentIndex(1);
        const QModelIndex cell = view.table()->model()->index(2, 1);
        view.table()->setCurrentIndex(cell);
        Q_EMIT view.table()->activated(cell);
        QCOMPARE(open.size(), 1);
        QCOMPARE(open.at(0).at(0).toString(), cell.data().toString());

        view.tabs()->setCurrentIndex(0);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        shoot(&view, "tuning-job.png");
        view.tabs()->setCurrentIndex(2);
        shoot(&view, "tuning-job-parallel.png");
        view.tabs()->setCurrentIndex(3);
        shoot(&view, "tuning-job-slices.png");
        view.tabs()->setCurrentIndex(1);
        shoot(&view, "tuning-job-table.png");
    }

    void runningTab() {
        DataService service(m_db);
        TuningView view(&service, QStringLiteral("tune-live"));
        QSignalSpy loaded(&view, &TuningView::dataLoaded);
        QVERIFY(loaded.wait(5000));
        QCOMPARE(view.status(), QStringLiteral("InProgress"));
        QCOMPARE(view.header()->text(QStringLiteral("inProgress")), QStringLiteral("2"));
        QVERIFY(!view.header()->stopButton()->isEnabled());
        view.setStoppable(true);
        QVERIFY(view.header()->stopButton()->isEnabled());
        QSignalSpy stop(&view, &TuningView::stopRequested);
        view.header()->stopButton()->click();
        QCOMPARE(stop.size(), 1);
        QCOMPARE(stop.at(0).at(0).toString(), QStringLiteral("tune-live"));
        // A running tuning job is read again on its own (every 2 s).
        QVERIFY(loaded.wait(4000));
    }
};

QTEST_MAIN(TestTuningViews)
#include "test_tuning_views.moc"
