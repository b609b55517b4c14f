// The studio window as a user drives it: a job launched from the launch dialog runs on the
// embedded controller and its row reaches Completed with live logs and charts; Compare opens on
// three runs; closing with a job running asks first and stops it, or keeps it running for a
// studio that takes it over later; layout and tabs come back.
#include "engine/control/controller.h"
#include "engine/store/store_reader.h"
#include "models/jobs/job_list_model.h"
#include "models/jobs/job_nodes_model.h"
#include "tests/support/process_check.h"
#include "tests/support/screenshot.h"
#include "tests/support/test_controller.h"
#include "widgets/billing/experiment_billing_view.h"
#include "widgets/charts/compare_view.h"
#include "widgets/console/console_panel.h"
#include "widgets/insights/insights_view.h"
#include "widgets/jobs/findings_panel.h"
#include "widgets/jobs/job_view.h"
#include "widgets/jobs/metrics_grid.h"
#include "widgets/launch/launch_dialog.h"
#include "widgets/shell/explorer.h"
#include "widgets/shell/main_window.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDir>
#include <QLineEdit>
#include <QPushButton>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

#include <nlohmann/json.hpp>

using namespace studio;
using namespace studio::models;
using namespace studio::widgets;

namespace {

nlohmann::json builtinSpec(const std::string& name, double lr) {
    return {{"name", name},
            {"entry_point", "builtin:fmnist-cnn"},
            {"hyperparameters",
             {{"lr", lr},
              {"max-steps", 30},
              {"batch-size", 32},
              {"eval-interval", 10},
              {"eval-samples", 256},
              {"log-interval", 2}}},
            {"inputs", {{"train", "/usr/share/datasets/fashion-mnist"}}},
            {"distribution",
             {{"pytorchddp", {{"enabled", true}}},
              {"mpi", {{"enabled", true}, {"processes_per_host", 2}}}}},
            {"experiment_config", {{"ExperimentName", "window-tests"}, {"TrialName", name}}}};
}

nlohmann::json scriptSpec(const std::string& name, double lr) {
    return {{"name", name},
            {"entry_point",
             {"/bin/sh", "-c",
              "for i in $(seq 1 40); do echo \"loss=$(awk -v i=$i -v lr=" + std::to_string(lr) +
                  " 'BEGIN{printf \"%.4f\", 2/i+lr}')\"; done"}},
            {"hyperparameters", {{"lr", lr}, {"batch-size", 64}}},
            {"metric_definitions", {{{"Name", "train:loss"}, {"Regex", "loss=([0-9.]+)"}}}},
            {"experiment_config", {{"ExperimentName", "window-tests"}, {"TrialName", name}}}};
}

} // namespace

class TestStudioWindow : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    std::unique_ptr<control::Controller> m_controller;

    control::ControllerOptions options() const { return testControllerOptions(m_home.path()); }

private Q_SLOTS:
    void initTestCase() {
        qputenv("STUDIO_NO_DIALOGS", "1");
        m_controller = std::make_unique<control::Controller>(options());
    }

    void launchDialogRunsAJobToCompleted() {
        MainWindow w(*m_controller);
        w.resize(1500, 950);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QAbstractItemModelTester tester(w.explorer()->jobs(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy submitted(&w, &MainWindow::jobSubmitted);
        QSignalSpy failed(&w, &MainWindow::submitFailed);

        w.openLaunchDialog(QString::fromStdString(builtinSpec("draft", 0.05).dump()));
        auto* dialog = w.findChild<LaunchDialog*>(QStringLiteral("launchDialog"));
        QVERIFY(dialog);
        QTRY_VERIFY(dialog->isVisible());
        // The user renames the job in the form and presses Run.
        auto* name = dialog->findChild<QLineEdit*>(QStringLiteral("jobName"));
        QVERIFY(name);
        name->selectAll();
        QTest::keyClicks(name, QStringLiteral("window-cnn"));
        auto* run = dialog->findChild<QPushButton*>(QStringLiteral("runButton"));
        QTRY_VERIFY_WITH_TIMEOUT(!dialog->validationPending() && run->isEnabled(), 10000);
        shoot(dialog, "window-launch-dialog.png");
        run->click();
        QTRY_VERIFY_WITH_TIMEOUT(submitted.count() + failed.count() > 0, 30000);
        QVERIFY2(failed.isEmpty(),
                 failed.isEmpty() ? "" : qPrintable(failed.at(0).at(0).toString()));
        const QString job = submitted.at(0).at(0).toString();
        QVERIFY(job.startsWith(QLatin1String("window-cnn-")));

        // The job's tab opened; its row in the Jobs explorer goes live, then Completed.
        auto* view = qobject_cast<JobView*>(w.tabs()->currentWidget());
        QVERIFY(view);
        QCOMPARE(view->job(), job);
        w.explorer()->showPage(Explorer::JobsPage);
        QTRY_VERIFY_WITH_TIMEOUT(w.explorer()->jobs()->rowOf(job) >= 0, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(w.console()->model()->rowCount() > 0, 60000);
        view->tabs()->setCurrentIndex(1); // Metrics, live
        QTRY_VERIFY_WITH_TIMEOUT(!view->metrics()->families().isEmpty(), 60000);
        shoot(&w, "window-job-running.png");
        auto rowStatus = [&] {
            const int r = w.explorer()->jobs()->rowOf(job);
            return r < 0 ? QString()
                         : w.explorer()
                               ->jobs()
                               ->index(r, 0)
                               .data(JobListModel::StatusRole)
                               .toString();
        };
        QTRY_COMPARE_WITH_TIMEOUT(rowStatus(), QStringLiteral("Completed"), 180000);
        QTRY_COMPARE_WITH_TIMEOUT(view->status(), QStringLiteral("Completed"), 10000);
        QVERIFY(view->metrics()->families().contains(QStringLiteral("loss")));
        QVERIFY(view->metrics()->families().contains(QStringLiteral("accuracy")));
        // Console lines are tagged per rank, as mpirun --tag-output does.
        bool rank0 = false;
        for (int i = 0; i < w.console()->model()->rowCount(); ++i) {
            const auto& line = w.console()->model()->line(i);
            QCOMPARE(line.job, job);
            rank0 = rank0 ||
                    (line.rank == 0 && LogModel::tagged(line).startsWith(QLatin1String("[0,0]<")));
        }
        QVERIFY(rank0);
        shoot(&w, "window-job-completed.png");
        view->tabs()->setCurrentIndex(0);
        shoot(&w, "window-job-overview.png");
        // The job tab opens its Debugger insights in a tab of its own.
        view->findChild<QPushButton*>(QStringLiteral("jobInsights"))->click();
        auto* insights = qobject_cast<InsightsView*>(w.tabs()->currentWidget());
        QVERIFY(insights);
        QCOMPARE(insights->jobName(), job);
        QTRY_VERIFY_WITH_TIMEOUT(insights->isLoaded(), 20000);
        shoot(&w, "window-insights.png");
    }

    void compareThreeRuns() {
        // Two more runs with other learning rates, then Compare on all three.
        for (double lr : {0.1, 0.3}) {
            auto r = spec::parseSpecText(scriptSpec("window-script", lr).dump(),
                                         m_home.path().toStdString());
            QVERIFY(r.ok());
            const auto s = m_controller->submit(*r.spec);
            QCOMPARE(m_controller->wait(s.name), std::string("Completed"));
        }
        MainWindow w(*m_controller);
        w.resize(1500, 950);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        store::StoreReader reader(w.databasePath().toStdString());
        QList<qint64> ids;
        for (const auto& c : reader.components({"window-tests", {}, {}, 0}))
            ids.append(c.id);
        QCOMPARE(ids.size(), 3);
        w.openCompare(ids);
        auto* compare = qobject_cast<CompareView*>(w.tabs()->currentWidget());
        QVERIFY(compare);
        QTRY_VERIFY_WITH_TIMEOUT(!compare->isLoading(), 10000);
        shoot(&w, "window-compare.png");
        // The experiment's bill lists the three jobs (local runs without local_prices: unpriced).
        w.openExperimentBilling(QStringLiteral("window-tests"));
        auto* billing = qobject_cast<ExperimentBillingView*>(w.tabs()->currentWidget());
        QVERIFY(billing);
        QTRY_VERIFY(billing->loaded());
        QCOMPARE(billing->model()->rowCount(), 3);
    }

    void closingAsksThenStopsRunningJobs() {
        auto w = std::make_unique<MainWindow>(*m_controller);
        w->show();
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        int asked = -1;
        int remote = -1;
        CloseChoice answer = CloseChoice::Cancel;
        w->setCloseConfirmation([&](int running, int onClusters) {
            asked = running;
            remote = onClusters;
            return answer;
        });
        w->submitSpec(QString::fromStdString(
            nlohmann::json{{"name", "window-sleeper"},
                           {"entry_point", {"/bin/sh", "-c", "echo ready; exec sleep 60"}}}
                .dump()));
        QTRY_COMPARE_WITH_TIMEOUT(m_controller->runningJobs().size(), std::size_t(1), 20000);
        const std::string job = m_controller->runningJobs().front();
        // A second sleeper, stopped from its tab's Stop button.
        QSignalSpy submitted(w.get(), &MainWindow::jobSubmitted);
        w->submitSpec(QString::fromStdString(
            nlohmann::json{{"name", "window-stop-me"},
                           {"entry_point", {"/bin/sh", "-c", "echo ready; exec sleep 60"}}}
                .dump()));
        auto secondJob = [&] {
            for (const auto& args : std::as_const(submitted))
                if (args.at(0).toString().startsWith(QLatin1String("window-stop-me-")))
                    return args.at(0).toString();
            return QString();
        };
        QTRY_VERIFY_WITH_TIMEOUT(!secondJob().isEmpty(), 20000);
        const QString second = secondJob();
        auto* tab = qobject_cast<JobView*>(w->tabs()->currentWidget());
        QVERIFY(tab && tab->job() == second);
        auto* stop = tab->findChild<QPushButton*>(QStringLiteral("jobStop"));
        QTRY_VERIFY_WITH_TIMEOUT(stop->isEnabled(), 20000);
        stop->click();
        QCOMPARE(m_controller->wait(second.toStdString()), std::string("Stopped"));
        QTRY_COMPARE_WITH_TIMEOUT(tab->status(), QStringLiteral("Stopped"), 10000);
        QVERIFY(!stop->isEnabled());

        QVERIFY(!w->close()); // "Cancel": the window stays and the job runs
        QCOMPARE(asked, 1);
        QCOMPARE(remote, 0);
        QCOMPARE(m_controller->runningJobs().size(), std::size_t(1));
        answer = CloseChoice::Stop;
        QVERIFY(w->close());
        QCOMPARE(m_controller->wait(job), std::string("Stopped"));
    }

    void keepRunningThenTakenOver() {
        auto w = std::make_unique<MainWindow>(*m_controller);
        w->show();
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        int asked = -1;
        w->setCloseConfirmation([&](int running, int) {
            asked = running;
            return CloseChoice::KeepRunning;
        });
        QSignalSpy submitted(w.get(), &MainWindow::jobSubmitted);
        w->submitSpec(QString::fromStdString(
            nlohmann::json{{"name", "window-keeper"},
                           {"entry_point", {"/bin/sh", "-c", "echo ready; sleep 12; echo done"}}}
                .dump()));
        QTRY_VERIFY_WITH_TIMEOUT(!submitted.isEmpty(), 20000);
        const std::string job = submitted.at(0).at(0).toString().toStdString();
        store::StoreReader reader(w->databasePath().toStdString());
        const auto id = reader.component(job)->id;
        auto following = [&] {
            const auto journals = reader.journals(id);
            return !journals.empty() && journals.front().state == "following" &&
                   journals.front().launcherPid > 0;
        };
        QTRY_VERIFY_WITH_TIMEOUT(following(), 20000);
        const std::int64_t launcher = reader.journals(id).front().launcherPid;
        // A detached launcher outlives a failed check: end it (its ranks with it) either way.
        const auto reap = qScopeGuard([launcher] {
            if (!processGone(launcher))
                ::kill(static_cast<pid_t>(launcher), SIGTERM);
        });

        // Keep running: the window closes, the job goes on without an owner.
        QVERIFY(w->close());
        QCOMPARE(asked, 1);
        QVERIFY(m_controller->runningJobs().empty());
        const auto row = reader.component(job);
        QCOMPARE(row->status, std::string("InProgress"));
        QCOMPARE(row->owner, std::string());
        QVERIFY(!processGone(launcher));
        w.reset();

        // The next studio takes it over and follows it to the end.
        m_controller.reset();
        control::ControllerOptions o = options();
        o.takeOver = true;
        m_controller = std::make_unique<control::Controller>(o);
        QCOMPARE(m_controller->wait(job), std::string("Completed"));
        QTRY_VERIFY_WITH_TIMEOUT(processGone(launcher), 10000);

        // Its tab says so in the Nodes table.
        MainWindow again(*m_controller);
        again.resize(1500, 950);
        again.show();
        JobView* view = again.openJob(QString::fromStdString(job));
        QTRY_VERIFY_WITH_TIMEOUT(view->loaded(), 10000);
        auto* nodes = view->findChild<QTableView*>(QStringLiteral("jobNodes"));
        QCOMPARE(nodes->model()->rowCount(), 1);
        QVERIFY(nodes->model()
                    ->index(0, JobNodesModel::FollowedColumn)
                    .data()
                    .toString()
                    .startsWith(QStringLiteral("taken over at ")));
        QCOMPARE(nodes->model()->index(0, JobNodesModel::ConnectionColumn).data().toString(),
                 QStringLiteral("ended"));
        shoot(&again, "window-job-taken-over.png");
        QVERIFY(again.close());
    }

    void layoutAndTabsComeBack() {
        QString jobTab;
        {
            MainWindow w(*m_controller);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            store::StoreReader reader(w.databasePath().toStdString());
            const auto jobs = reader.components();
            QVERIFY(!jobs.empty());
            jobTab = QString::fromStdString(jobs.front().name);
            w.openJob(jobTab);
            w.explorer()->showPage(Explorer::JobsPage);
            QVERIFY(w.close());
        }
        MainWindow again(*m_controller);
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QCOMPARE(again.explorer()->page(), Explorer::JobsPage);
        bool found = false;
        for (int i = 0; i < again.tabs()->count(); ++i)
            if (auto* v = qobject_cast<JobView*>(again.tabs()->widget(i)))
                found = found || v->job() == jobTab;
        QVERIFY(found);
        QVERIFY(again.close());
    }

    void cleanupTestCase() { m_controller.reset(); }
};

QTEST_MAIN(TestStudioWindow)
#include "test_studio_window.moc"
