// Job views over a real store: the Jobs list and Slurm jobs models
// (QAbstractItemModelTester), the status timeline's layout, metric families, a failed job's tab
// with its failure reason, ranks and their devices, rules and charts, a Slurm job's tab with its
// Slurm jobs and batch script, the What ran page, and the Findings panel.
#include "engine/control/studio_home.h"
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"
#include "models/data/data_service.h"
#include "models/jobs/job_list_model.h"
#include "models/jobs/job_ranks_model.h"
#include "models/jobs/job_rules_model.h"
#include "models/jobs/slurm_jobs_model.h"
#include "tests/support/screenshot.h"
#include "widgets/jobs/findings_panel.h"
#include "widgets/jobs/job_view.h"
#include "widgets/jobs/metrics_grid.h"
#include "widgets/jobs/slurm_job_panel.h"
#include "widgets/jobs/status_timeline.h"
#include "widgets/jobs/what_ran_view.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

using namespace studio;
using namespace studio::models;
using namespace studio::widgets;

namespace {

const double kT0 = 1795300000;

// The batch script as the studio writes it (engine/control/slurm_script.cpp), shortened.
std::string batchScript(int attempt) {
    std::string s = R"(#!/bin/bash
# ML Studio job job-slurm on Slurm cluster hpc: 2 node(s) x 2 rank(s).
# Written by the studio; every value in it is shell-quoted.
set -u
attempt=$(( ${SLURM_RESTART_COUNT:-0} + @ ))
first=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)
port=$(( 20000 + (SLURM_JOB_ID * 16 + ${SLURM_RESTART_COUNT:-0}) % 20000 ))
exec srun --nodes=2 --ntasks=2 --ntasks-per-node=1 --kill-on-bad-exit=1 \
    studio-launcher --slurm --job job-slurm --attempt @
)";
    for (auto at = s.find('@'); at != std::string::npos; at = s.find('@'))
        s.replace(at, 1, std::to_string(attempt));
    return s;
}

// A job's Slurm jobs: the first lost a node (its script exited 1), the resubmitted one waits
// for resources.
std::vector<store::SlurmJobRow> resubmittedJobs(double submitted) {
    store::SlurmJobRow lost;
    lost.jobId = 4100;
    lost.cluster = "hpc";
    lost.partition = "gpu";
    lost.state = "NODE_FAIL";
    lost.reason = "None";
    lost.nodes = "h[1-2]";
    lost.exitCode = 1;
    lost.submitted = submitted;
    lost.started = submitted + 19;
    lost.ended = lost.updated = submitted + 98;
    lost.script = batchScript(1);
    store::SlurmJobRow waiting = lost;
    waiting.jobId = 4101;
    waiting.attempt = 2;
    waiting.state = "PENDING";
    waiting.reason = "Resources";
    waiting.nodes.clear();
    waiting.exitCode.reset();
    waiting.submitted = submitted + 99;
    waiting.started = waiting.ended = 0;
    waiting.updated = submitted + 109;
    waiting.script = batchScript(2);
    return {lost, waiting};
}

// Two jobs on Slurm, older than the local ones: one whose first Slurm job lost its node and
// whose resubmission waits for resources, and one running on two nodes.
void writeSlurmJobs(store::StoreWriter& w) {
    store::NewComponent c;
    c.name = "job-slurm";
    c.experiment = "views";
    c.cluster = "hpc";
    c.instanceCount = 2;
    c.processesPerHost = 2;
    c.created = kT0 - 500;
    c.entryPoint = "builtin:fmnist-cnn";
    c.specJson = R"({"name":"job-slurm","cluster":"hpc","slurm":{"partition":"gpu"}})";
    const auto pending = w.createComponent(c);
    w.setStatus(pending, "InProgress", "Pending", "Slurm job 4100 is pending: Priority", kT0 - 498);
    w.setStatus(pending, "InProgress", "Training", "", kT0 - 480);
    const char* requeued = "node h2 failed; Slurm job 4101 is pending: Resources";
    w.setStatus(pending, "InProgress", "Pending", requeued, kT0 - 400);
    for (const auto& j : resubmittedJobs(kT0 - 499))
        w.upsertSlurmJob(pending, j);
    c.name = "job-slurm-running";
    c.created = kT0 - 600;
    const auto running = w.createComponent(c);
    w.setStatus(running, "InProgress", "Training", "", kT0 - 590);
    store::SlurmJobRow onTwoNodes = resubmittedJobs(kT0 - 599).front();
    onTwoNodes.jobId = 4090;
    onTwoNodes.partition = "debug";
    onTwoNodes.state = "RUNNING";
    onTwoNodes.nodes = "h[3-4]";
    onTwoNodes.restarts = 1;
    onTwoNodes.exitCode.reset();
    onTwoNodes.ended = 0;
    w.upsertSlurmJob(running, onTwoNodes);
}

} // namespace

class TestJobViews : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    QString m_db;

private Q_SLOTS:
    void initTestCase() {
        m_db = QString::fromStdString(control::databasePath(m_home.path().toStdString()));
        store::StoreWriter w(m_db.toStdString());
        const double t0 = kT0;
        writeSlurmJobs(w);
        for (int j = 0; j < 5; ++j) {
            store::NewComponent c;
            c.name = "job-" + std::to_string(j);
            c.experiment = "views";
            c.created = t0 + j * 100;
            c.processesPerHost = 2;
            c.entryPoint = "builtin:fmnist-cnn";
            c.specJson = R"({"name":"job","entry_point":"builtin:fmnist-cnn"})";
            c.parameters = {{"lr", "0.0" + std::to_string(j + 1), 0.01 * (j + 1)}};
            const auto id = w.createComponent(c);
            w.setStatus(id, "InProgress", "Training", "", t0 + j * 100 + 2);
            w.setStarted(id, t0 + j * 100 + 2);
            for (int s = 0; s < 50; ++s) {
                w.addMetric(id, "train:loss", {s, t0 + j * 100 + 2 + s, 2.0 / (s + 1), 0, 0});
                if (s % 10 == 9)
                    w.addMetric(id, "eval:loss", {s, t0 + j * 100 + 2 + s, 2.2 / (s + 1), 0, 0});
            }
            w.upsertRank(id, {0, 0, 0, 1000 + j, t0 + j * 100 + 2, t0 + j * 100 + 60, 0, 0, ""});
            const bool fails = j == 4;
            w.upsertRank(id, {1, 0, 1, 2000 + j, t0 + j * 100 + 2, t0 + j * 100 + 60,
                              fails ? std::optional<int>(1) : std::optional<int>(0), 0,
                              "cuda:1 (NVIDIA H100 80GB HBM3, 79.6 GiB)"});
            if (fails) {
                w.setFailureReason(id,
                                   "rank 1 exited with code 1\nRuntimeError: CUDA out of memory");
                w.setStatus(id, "Failed", "Failed", "rank 1 failed", t0 + j * 100 + 60);
                w.setRuleStatus(id, {"LossNotDecreasing", "model", "IssuesFound", "", t0 + 500, 2,
                                     9, "num_steps=10", "Notify", "{}", "loss did not decrease"});
                w.addFinding(id, {"LossNotDecreasing", t0 + j * 100 + 40, 40, 0, "loss",
                                  "train loss rose", "lower the learning rate", "criteria"});
            } else {
                w.setStatus(id, "Completed", "Completed", "", t0 + j * 100 + 60);
            }
            w.setEnded(id, t0 + j * 100 + 60);
        }
    }

    void jobListModel() {
        DataService service(m_db);
        JobListModel model(&service);
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy loaded(&model, &JobListModel::loaded);
        QTRY_VERIFY(loaded.count() >= 1);
        QCOMPARE(model.rowCount(), 7);
        // Newest first.
        QCOMPARE(model.index(0, 0).data(JobListModel::JobNameRole).toString(),
                 QStringLiteral("job-4"));
        QCOMPARE(model.index(0, 0).data(JobListModel::StatusRole).toString(),
                 QStringLiteral("Failed"));
        QCOMPARE(model.index(0, JobListModel::DurationColumn).data().toString(),
                 QStringLiteral("58 s"));
        // Live steps show as progress once the total is known.
        model.setTotalSteps(QStringLiteral("job-4"), 100);
        LiveBatch batch;
        batch.steps.append({QStringLiteral("job-4"), 49});
        model.applyBatch(batch);
        QCOMPARE(model.rowOf(QStringLiteral("job-2")), 2);
        model.refresh();
        QTRY_VERIFY(loaded.count() >= 2);
        QCOMPARE(model.rowCount(), 7);

        // Slurm: the newest Slurm job's id, partition, and nodes, or the reason it waits.
        QVERIFY(model.hasSlurmJobs());
        QCOMPARE(
            model.headerData(JobListModel::SlurmColumn, Qt::Horizontal, Qt::DisplayRole).toString(),
            QStringLiteral("Slurm"));
        const int pending = model.rowOf(QStringLiteral("job-slurm"));
        QCOMPARE(pending, 5);
        const QModelIndex p = model.index(pending, JobListModel::SlurmColumn);
        QCOMPARE(p.data().toString(), QStringLiteral("4101 · gpu · (Resources)"));
        QCOMPARE(p.data(JobListModel::SlurmJobIdRole).toLongLong(), 4101);
        QCOMPARE(p.data(JobListModel::SlurmPartitionRole).toString(), QStringLiteral("gpu"));
        QCOMPARE(p.data(JobListModel::SlurmNodesRole).toString(), QString());
        QCOMPARE(p.data(JobListModel::SlurmReasonRole).toString(), QStringLiteral("Resources"));
        QCOMPARE(model.index(pending, JobListModel::StatusColumn).data().toString(),
                 QStringLiteral("InProgress · Pending · hpc"));
        QVERIFY(p.data(Qt::ToolTipRole).toString().contains(QStringLiteral("pending: Resources")));
        const QModelIndex r = model.index(model.rowOf(QStringLiteral("job-slurm-running")),
                                          JobListModel::SlurmColumn);
        QCOMPARE(r.data().toString(), QStringLiteral("4090 · debug · h[3-4]"));
        QCOMPARE(r.data(JobListModel::SlurmReasonRole).toString(), QString());
        QVERIFY(r.data(Qt::ToolTipRole).toString().contains(QStringLiteral("nodes h[3-4]")));
        // Local jobs: nothing.
        const QModelIndex local = model.index(0, JobListModel::SlurmColumn);
        QCOMPARE(local.data().toString(), QString());
        QVERIFY(!local.data(JobListModel::SlurmJobIdRole).isValid());
        QCOMPARE(model.index(0, JobListModel::StatusColumn).data().toString(),
                 QStringLiteral("Failed"));
    }

    void slurmJobsModel() {
        SlurmJobsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto jobs = resubmittedJobs(kT0);
        const store::SlurmJobRow& lost = jobs[0];
        store::SlurmJobRow waiting = jobs[1];
        model.setJobs({lost, waiting});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(0, SlurmJobsModel::JobIdColumn).data().toLongLong(), 4100);
        QCOMPARE(model.index(0, SlurmJobsModel::StateColumn).data().toString(),
                 QStringLiteral("NODE_FAIL"));
        QCOMPARE(model.index(0, 0).data(SlurmJobsModel::StatusRole).toString(),
                 QStringLiteral("Failed"));
        QCOMPARE(model.index(0, SlurmJobsModel::NodesColumn).data().toString(),
                 QStringLiteral("h[1-2]"));
        QCOMPARE(model.index(0, SlurmJobsModel::ExitColumn).data().toString(), QStringLiteral("1"));
        QCOMPARE(model.index(1, SlurmJobsModel::StateColumn).data().toString(),
                 QStringLiteral("PENDING (Resources)"));
        QCOMPARE(model.index(1, 0).data(SlurmJobsModel::StatusRole).toString(),
                 QStringLiteral("Pending"));
        QCOMPARE(model.index(1, SlurmJobsModel::NodesColumn).data().toString(),
                 QStringLiteral("-"));
        QCOMPARE(model.index(1, SlurmJobsModel::ExitColumn).data().toString(), QStringLiteral("-"));
        QCOMPARE(model.index(1, SlurmJobsModel::StartedColumn).data().toString(),
                 QStringLiteral("-"));
        QCOMPARE(model.index(1, 0).data(SlurmJobsModel::ScriptRole).toString(),
                 QString::fromStdString(batchScript(2)));
        QCOMPARE(model.headerData(SlurmJobsModel::ColumnCount - 1, Qt::Horizontal).toString(),
                 QStringLiteral("Ended"));
        // It starts: values change in place.
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        waiting.state = "RUNNING";
        waiting.reason = "None";
        waiting.nodes = "h[1,3]";
        model.setJobs({lost, waiting});
        QCOMPARE(changed.count(), 1);
        QCOMPARE(model.index(1, SlurmJobsModel::StateColumn).data().toString(),
                 QStringLiteral("RUNNING"));
        QCOMPARE(model.index(1, 0).data(SlurmJobsModel::StatusRole).toString(),
                 QStringLiteral("InProgress"));
        model.setJobs({});
        QCOMPARE(model.rowCount(), 0);
    }

    void statusOfSlurmStates_data() {
        QTest::addColumn<QString>("state");
        QTest::addColumn<QString>("status");
        QTest::newRow("pending") << QStringLiteral("PENDING") << QStringLiteral("Pending");
        QTest::newRow("requeued") << QStringLiteral("REQUEUED") << QStringLiteral("Pending");
        QTest::newRow("running") << QStringLiteral("RUNNING") << QStringLiteral("InProgress");
        QTest::newRow("completing") << QStringLiteral("COMPLETING") << QStringLiteral("InProgress");
        QTest::newRow("completed") << QStringLiteral("COMPLETED") << QStringLiteral("Completed");
        QTest::newRow("cancelled") << QStringLiteral("CANCELLED") << QStringLiteral("Stopped");
        QTest::newRow("timeout") << QStringLiteral("TIMEOUT") << QStringLiteral("Failed");
        QTest::newRow("node fail") << QStringLiteral("NODE_FAIL") << QStringLiteral("Failed");
    }
    void statusOfSlurmStates() {
        QFETCH(QString, state);
        QFETCH(QString, status);
        QCOMPARE(SlurmJobsModel::statusOf(state), status);
    }

    void slurmJobTab() {
        DataService service(m_db);
        JobView view(&service, QStringLiteral("job-slurm"));
        view.resize(1300, 900);
        view.show();
        QTRY_VERIFY(view.loaded());
        QCOMPARE(view.findChild<QLabel*>(QStringLiteral("jobStatus"))->text(),
                 QStringLiteral("InProgress · Pending (Resources)"));
        const QString subtitle = view.findChild<QLabel*>(QStringLiteral("jobSubtitle"))->text();
        QVERIFY2(
            subtitle.contains(QStringLiteral("on cluster hpc, Slurm job 4101 (partition gpu)")),
            qPrintable(subtitle));
        auto* panel = view.findChild<SlurmJobPanel*>();
        QVERIFY(panel && panel->isVisible());
        auto* table = view.findChild<QTableView*>(QStringLiteral("jobSlurmJobs"));
        QCOMPARE(table->model()->rowCount(), 2);
        QCOMPARE(table->model()->index(1, SlurmJobsModel::StateColumn).data().toString(),
                 QStringLiteral("PENDING (Resources)"));
        QCOMPARE(table->model()->index(0, SlurmJobsModel::NodesColumn).data().toString(),
                 QStringLiteral("h[1-2]"));
        // The newest script, read-only, in a fixed-width font.
        auto* script = view.findChild<QPlainTextEdit*>(QStringLiteral("jobSlurmScript"));
        QVERIFY(script->isReadOnly());
        QVERIFY(QFontInfo(script->font()).fixedPitch());
        QCOMPARE(panel->shownJob(), std::int64_t(4101));
        QCOMPARE(script->toPlainText(), QString::fromStdString(batchScript(2)));
        QCOMPARE(view.findChild<QLabel*>(QStringLiteral("jobSlurmScriptTitle"))->text(),
                 QStringLiteral("Batch script of Slurm job 4101, as submitted"));
        shoot(&view, "job-slurm-overview.png");
        QVERIFY(!script->verticalScrollBar()->isVisible()); // as tall as the script
        // Picking the first Slurm job shows its script; a reload keeps the pick.
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                          table->visualRect(table->model()->index(0, 1)).center());
        QCOMPARE(panel->shownJob(), std::int64_t(4100));
        QCOMPARE(script->toPlainText(), QString::fromStdString(batchScript(1)));
        QSignalSpy reloaded(&view, &JobView::dataLoaded);
        view.reload();
        QTRY_VERIFY(reloaded.count() >= 1);
        QCOMPARE(panel->shownJob(), std::int64_t(4100));

        // A local job has no Slurm section.
        JobView local(&service, QStringLiteral("job-1"));
        local.show();
        QTRY_VERIFY(local.loaded());
        QVERIFY(!local.findChild<SlurmJobPanel*>()->isVisible());
    }

    void timelineLayout_data() {
        QTest::addColumn<QList<double>>("durations");
        QTest::addColumn<QList<double>>("widths");
        QTest::newRow("even") << QList<double>{10, 10} << QList<double>{0.5, 0.5};
        QTest::newRow("short phase kept visible")
            << QList<double>{0.01, 100}
            << QList<double>{0.06 + 0.88 * 0.0001, 0.06 + 0.88 * 0.9999};
        QTest::newRow("no time yet")
            << QList<double>{0, 0, 0} << QList<double>{1.0 / 3, 1.0 / 3, 1.0 / 3};
    }
    void timelineLayout() {
        QFETCH(QList<double>, durations);
        QFETCH(QList<double>, widths);
        std::vector<store::StatusTransition> t;
        double at = 100;
        for (double d : durations) {
            t.push_back({"InProgress", "Training", at, at + d, ""});
            at += d;
        }
        const auto segments = layoutTimeline(t, at);
        QCOMPARE(segments.size(), std::size_t(widths.size()));
        double x = 0;
        for (std::size_t i = 0; i < segments.size(); ++i) {
            QVERIFY2(std::abs(segments[i].width - widths[static_cast<qsizetype>(i)]) < 1e-6,
                     qPrintable(QString::number(segments[i].width)));
            QVERIFY(std::abs(segments[i].x - x) < 1e-9);
            x += segments[i].width;
        }
        QVERIFY(std::abs(x - 1.0) < 1e-9);
    }

    void metricFamilies_data() {
        QTest::addColumn<QString>("metric");
        QTest::addColumn<QString>("family");
        QTest::newRow("train") << QStringLiteral("train:loss") << QStringLiteral("loss");
        QTest::newRow("eval") << QStringLiteral("eval:accuracy") << QStringLiteral("accuracy");
        QTest::newRow("slash") << QStringLiteral("validation/loss") << QStringLiteral("loss");
        QTest::newRow("plain") << QStringLiteral("throughput") << QStringLiteral("throughput");
    }
    void metricFamilies() {
        QFETCH(QString, metric);
        QFETCH(QString, family);
        QCOMPARE(MetricsGrid::familyOf(metric), family);
    }

    void failedJobTab() {
        DataService service(m_db);
        JobView view(&service, QStringLiteral("job-4"));
        view.resize(1300, 850);
        view.show();
        QTRY_VERIFY(view.loaded());
        QVERIFY2(view.status() == QStringLiteral("Failed"),
                 qPrintable(view.findChild<QLabel*>(QStringLiteral("jobStatus"))->text()));
        auto* failure = view.findChild<QLabel*>(QStringLiteral("jobFailure"));
        QVERIFY(failure->isVisible());
        QVERIFY(failure->text().contains(QStringLiteral("CUDA out of memory")));
        auto* ranks = view.findChild<QTableView*>(QStringLiteral("jobRanks"))->model();
        QCOMPARE(ranks->rowCount(), 2);
        QCOMPARE(ranks->index(1, JobRanksModel::ExitColumn).data().toString(), QStringLiteral("1"));
        QCOMPARE(ranks->index(1, JobRanksModel::DeviceColumn).data().toString(),
                 QStringLiteral("cuda:1 (NVIDIA H100 80GB HBM3, 79.6 GiB)"));
        QCOMPARE(ranks->index(0, JobRanksModel::DeviceColumn).data().toString(),
                 QStringLiteral("-"));
        auto* rules = view.findChild<QTableView*>(QStringLiteral("jobRules"))->model();
        QCOMPARE(rules->rowCount(), 1);
        QCOMPARE(rules->index(0, JobRulesModel::StatusColumn).data().toString(),
                 QStringLiteral("IssuesFound"));
        QCOMPARE(view.metrics()->families(), (QStringList{QStringLiteral("loss")}));
        QVERIFY(view.specJson().contains(QStringLiteral("builtin:fmnist-cnn")));
        shoot(&view, "job-failed-overview.png");
        view.tabs()->setCurrentIndex(1);
        shoot(&view, "job-failed-metrics.png");
        view.tabs()->setCurrentIndex(3);
        shoot(&view, "job-failed-rules.png");
        // Clone and edit hands the spec on.
        QSignalSpy clone(&view, &JobView::cloneRequested);
        view.findChild<QPushButton*>(QStringLiteral("jobClone"))->click();
        QCOMPARE(clone.count(), 1);
    }

    // What ran: the code's record, each rank's runtime, the packages (filterable) and the top
    // operators of the profiled window, from the job's facts.
    void whatRanTab() {
        {
            store::StoreWriter w(m_db.toStdString());
            const auto id = store::StoreReader(m_db.toStdString()).resolveJob("job-3").id;
            const nlohmann::json source = {
                {"entry_point", "train.py"},
                {"source_dir", "/home/ana/fmnist"},
                {"tree_hash", std::string(64, 'b')},
                {"files", {{"train.py", std::string(64, 'c')}}},
                {"git",
                 {{"branch", "main"},
                  {"commit", "4be0a1f0c2d9e8f7a6b5"},
                  {"dirty", true},
                  {"diff",
                   "--- a/train.py\n+++ b/train.py\n@@ -4 +4 @@\n-LR = 0.05\n+LR = 0.5\n"}}},
                {"environment_names", {"WANDB_MODE"}}};
            nlohmann::json packages = nlohmann::json::object();
            for (const char* name : {"numpy", "pandas", "torch", "transformers", "tqdm"})
                packages[name] = std::string(name) == "torch" ? "1.13.1" : "1.0.0";
            const nlohmann::json rank = {
                {"python", "3.11.2"}, {"torch", "1.13.1"}, {"host", "vm"}, {"packages", packages}};
            const nlohmann::json ops = {
                {"start_step", 5},
                {"num_steps", 3},
                {"trace", "framework/pytorch_profiler/rank0-steps5-7.json"},
                {"ops",
                 {{{"name", "aten::convolution_backward"}, {"calls", 6}, {"self_cpu_ms", 41.5}},
                  {{"name", "aten::addmm"}, {"calls", 12}, {"self_cpu_ms", 3.25}}}}};
            w.setFacts(id, {"source", -1, -1, kT0, source.dump()});
            w.setFacts(id, {"provenance", 0, 0, kT0, rank.dump()});
            w.setFacts(id, {"operators", 0, 0, kT0, ops.dump()});
        }
        DataService service(m_db);
        JobView view(&service, QStringLiteral("job-3"));
        view.resize(1300, 850);
        view.show();
        QTRY_VERIFY(view.loaded());
        auto* page = view.whatRan();
        view.tabs()->setCurrentWidget(page);
        QStringList texts;
        for (auto* label : page->findChildren<QLabel*>())
            if (label->isVisible())
                texts << label->text();
        const QString all = texts.join(QLatin1Char('\n'));
        QVERIFY2(all.contains(QStringLiteral("train.py")), qPrintable(all));
        QVERIFY(all.contains(QStringLiteral("main @ 4be0a1f0c2d9, with uncommitted changes")));
        QVERIFY(all.contains(QStringLiteral("Python 3.11.2, torch 1.13.1 on vm")));
        QVERIFY(all.contains(QStringLiteral("Top operators, steps 5 to 7")));
        auto* diff = page->findChild<QPlainTextEdit*>(QStringLiteral("whatRanDiff"));
        QVERIFY(diff->isVisible());
        QVERIFY(diff->toPlainText().contains(QStringLiteral("+LR = 0.5")));
        auto* packagesTable = page->findChild<QTableView*>(QStringLiteral("whatRanPackages"));
        QCOMPARE(packagesTable->model()->rowCount(), 5);
        auto* filter = page->findChild<QLineEdit*>();
        filter->setText(QStringLiteral("TOR"));
        QCOMPARE(packagesTable->model()->rowCount(), 1);
        QCOMPARE(packagesTable->model()->index(0, 1).data().toString(), QStringLiteral("1.13.1"));
        filter->clear();
        auto* operators = page->findChild<QTableView*>(QStringLiteral("whatRanOperators"));
        QVERIFY(operators->isVisible());
        QCOMPARE(operators->model()->index(0, 0).data().toString(),
                 QStringLiteral("aten::convolution_backward"));
        shoot(&view, "job-what-ran.png");
        // A job with no record says so instead of showing empty tables.
        JobView other(&service, QStringLiteral("job-2"));
        other.show();
        QTRY_VERIFY(other.loaded());
        other.tabs()->setCurrentWidget(other.whatRan());
        bool saysNone = false;
        for (auto* label : other.whatRan()->findChildren<QLabel*>())
            saysNone = saysNone ||
                       (label->isVisible() && label->text().contains(QStringLiteral("no record")));
        QVERIFY(saysNone);
    }

    void unknownJobSaysSo() {
        DataService service(m_db);
        JobView view(&service, QStringLiteral("no-such-job"));
        QTRY_VERIFY(view.loaded());
        const QString text = view.findChild<QLabel*>(QStringLiteral("jobStatus"))->text();
        QVERIFY2(text.contains(QStringLiteral("no-such-job")), qPrintable(text));
    }

    void findingsPanel() {
        DataService service(m_db);
        FindingsPanel panel(&service);
        QTRY_COMPARE(panel.count(), 1);
        QSignalSpy open(&panel, &FindingsPanel::openJobRequested);
        auto* table = panel.findChild<QTableView*>(QStringLiteral("findingsTable"));
        QCOMPARE(table->model()->index(0, 1).data().toString(), QStringLiteral("job-4"));
        LiveBatch batch;
        batch.notifications.append({QStringLiteral("job-4"), QStringLiteral("LossNotDecreasing"),
                                    QStringLiteral("rose"), 1});
        QSignalSpy notified(&panel, &FindingsPanel::notified);
        panel.applyBatch(batch);
        QCOMPARE(notified.count(), 1);
        Q_EMIT table->doubleClicked(table->model()->index(0, 0));
        QCOMPARE(open.count(), 1);
        QCOMPARE(open.at(0).at(0).toString(), QStringLiteral("job-4"));
    }
};

QTEST_MAIN(TestJobViews)
#include "test_job_views.moc"
