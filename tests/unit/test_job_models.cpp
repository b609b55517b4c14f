// The tables of a job's tab and of the Findings panel as models: ranks (devices, exit codes and
// signals), status transitions (durations, "current" or "-" once the job ended), parameters,
// checkpoints, artifacts, rules (issues, status icons) and findings in both scopes (columns, where
// a finding was, tooltips, the job of a row), each under QAbstractItemModelTester; reloads with as
// many rows keep them and repaint in place; the What ran page's summary, packages and operators.
#include "models/common/status_style.h"
#include "models/jobs/findings_model.h"
#include "models/jobs/job_detail_models.h"
#include "models/jobs/job_ranks_model.h"
#include "models/jobs/job_rules_model.h"
#include "models/jobs/what_ran_models.h"

#include <QAbstractItemModelTester>
#include <QIcon>
#include <QSignalSpy>
#include <QtTest>

#include <nlohmann/json.hpp>

using namespace studio;
using namespace studio::models;

namespace {

QStringList headers(const QAbstractItemModel& m) {
    QStringList out;
    for (int c = 0; c < m.columnCount(); ++c)
        out << m.headerData(c, Qt::Horizontal).toString();
    return out;
}

QString text(const QAbstractItemModel& m, int row, int column) {
    return m.index(row, column).data().toString();
}

bool hasIcon(const QAbstractItemModel& m, int row, int column) {
    return !m.index(row, column).data(Qt::DecorationRole).value<QIcon>().isNull();
}

store::FindingRow finding(const std::string& rule, int node, const std::string& device) {
    store::FindingRow f;
    f.rule = rule;
    f.time = 1'700'000'000;
    f.step = node >= 0 ? 40 : -1;
    f.node = node;
    f.device = device;
    f.message = "loss rose";
    f.recommendation = "lower the learning rate";
    return f;
}

} // namespace

class TestJobModels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void jobRanksModel() {
        JobRanksModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.headerData(JobRanksModel::DeviceColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Device"));
        store::RankRow running{0, 0, 0, 10, 1795300002, 0, std::nullopt, 0, "cpu"};
        store::RankRow killed{1, 0, 1, 11, 1795300002, 1795300060, std::nullopt, 9, ""};
        model.setRanks({running, killed});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(0, JobRanksModel::DeviceColumn).data().toString(),
                 QStringLiteral("cpu"));
        QCOMPARE(model.index(0, JobRanksModel::ExitColumn).data().toString(),
                 QStringLiteral("running"));
        QCOMPARE(model.index(0, 0).data(JobRanksModel::StatusRole).toString(),
                 QStringLiteral("InProgress"));
        QCOMPARE(model.index(1, JobRanksModel::DeviceColumn).data().toString(),
                 QStringLiteral("-"));
        QCOMPARE(model.index(1, JobRanksModel::ExitColumn).data().toString(),
                 QStringLiteral("signal 9"));
        QCOMPARE(model.index(1, 0).data(JobRanksModel::StatusRole).toString(),
                 QStringLiteral("Failed"));
        // A live reload that only changes values (the device reported after the start).
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        killed.device = "cuda:0 (NVIDIA H100 80GB HBM3, 79.6 GiB)";
        model.setRanks({running, killed});
        QCOMPARE(changed.count(), 1);
        QCOMPARE(model.index(1, JobRanksModel::DeviceColumn).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("cuda:0 (NVIDIA H100 80GB HBM3, 79.6 GiB)"));
        model.setRanks({running});
        QCOMPARE(model.rowCount(), 1);
        model.setRanks({});
        QCOMPARE(model.rowCount(), 0);
    }

    void transitions() {
        JobTransitionsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(headers(model),
                 (QStringList{QStringLiteral("Status"), QStringLiteral("Secondary status"),
                              QStringLiteral("Start"), QStringLiteral("Duration"),
                              QStringLiteral("Message")}));
        const std::vector<store::StatusTransition> t = {
            {"InProgress", "Starting", 100, 112.5, ""},
            {"InProgress", "Training", 112.5, 0, "epoch 1"}};
        model.setTransitions(t, false);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(text(model, 0, JobTransitionsModel::DurationColumn), formatDuration(12.5));
        QCOMPARE(text(model, 1, JobTransitionsModel::DurationColumn), QStringLiteral("current"));
        QCOMPARE(text(model, 1, JobTransitionsModel::MessageColumn), QStringLiteral("epoch 1"));
        QCOMPARE(text(model, 1, JobTransitionsModel::StartColumn), formatTime(112.5));
        QCOMPARE(model.index(0, 0).data(JobTransitionsModel::StatusRole).toString(),
                 QStringLiteral("InProgress"));
        QVERIFY(hasIcon(model, 0, JobTransitionsModel::StatusColumn));
        QVERIFY(!hasIcon(model, 0, JobTransitionsModel::SecondaryColumn));

        // The job ended with a transition left open: the same rows, repainted.
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setTransitions(t, true);
        QCOMPARE(reset.count(), 0);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(text(model, 1, JobTransitionsModel::DurationColumn), QStringLiteral("-"));
        model.setTransitions({}, true);
        QCOMPARE(reset.count(), 1);
        QCOMPARE(model.rowCount(), 0);
    }

    void parametersCheckpointsArtifacts() {
        JobParametersModel parameters;
        JobCheckpointsModel checkpoints;
        JobArtifactsModel artifacts;
        QAbstractItemModelTester t1(&parameters,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(&checkpoints,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t3(&artifacts,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        parameters.setParameters({{"lr", "0.01", 0.01}, {"optimizer", "sgd", std::nullopt}});
        QCOMPARE(headers(parameters),
                 (QStringList{QStringLiteral("Parameter"), QStringLiteral("Value")}));
        QCOMPARE(text(parameters, 1, JobParametersModel::NameColumn), QStringLiteral("optimizer"));
        QCOMPARE(text(parameters, 1, JobParametersModel::ValueColumn), QStringLiteral("sgd"));

        store::CheckpointRow c;
        c.step = 300;
        c.rank = 1;
        c.time = 1'700'000'000;
        c.bytes = 4096;
        c.sha256 = "0123456789abcdef0123";
        c.path = "/jobs/a/checkpoints/step-300.pt";
        checkpoints.setCheckpoints({c});
        QCOMPARE(checkpoints.columnCount(), 6);
        QCOMPARE(text(checkpoints, 0, JobCheckpointsModel::StepColumn), QStringLiteral("300"));
        QCOMPARE(text(checkpoints, 0, JobCheckpointsModel::RankColumn), QStringLiteral("1"));
        QCOMPARE(text(checkpoints, 0, JobCheckpointsModel::SizeColumn),
                 QLocale().formattedDataSize(4096));
        QCOMPARE(text(checkpoints, 0, JobCheckpointsModel::DigestColumn),
                 QStringLiteral("0123456789ab"));
        QCOMPARE(text(checkpoints, 0, JobCheckpointsModel::PathColumn),
                 QStringLiteral("/jobs/a/checkpoints/step-300.pt"));

        artifacts.setArtifacts({{"model", "output", "/jobs/a/model/model.pt", ""}});
        QCOMPARE(headers(artifacts), (QStringList{QStringLiteral("Name"), QStringLiteral("Kind"),
                                                  QStringLiteral("Value")}));
        QCOMPARE(text(artifacts, 0, JobArtifactsModel::KindColumn), QStringLiteral("output"));
        QVERIFY(!parameters.index(0, 0).data(Qt::DecorationRole).isValid());
    }

    void rules() {
        JobRulesModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        store::RuleStatusRow loss;
        loss.rule = "LossNotDecreasing";
        loss.kind = "model";
        loss.status = "IssuesFound";
        loss.fired = 3;
        loss.datapoints = 120;
        loss.actions = "StopTraining";
        loss.message = "loss rose 3 times";
        store::RuleStatusRow cpu = loss;
        cpu.rule = "LowGPUUtilization";
        cpu.kind = "profiler";
        cpu.status = "NoIssuesFound";
        cpu.fired = 0;
        model.setRules({loss, cpu});
        QCOMPARE(model.columnCount(), 7);
        QCOMPARE(headers(model).at(JobRulesModel::DataPointsColumn), QStringLiteral("Data points"));
        QCOMPARE(model.issueCount(), 1);
        QCOMPARE(text(model, 0, JobRulesModel::StatusColumn), QStringLiteral("IssuesFound"));
        QCOMPARE(text(model, 0, JobRulesModel::FiredColumn), QStringLiteral("3"));
        QCOMPARE(text(model, 0, JobRulesModel::DataPointsColumn), QStringLiteral("120"));
        QCOMPARE(text(model, 0, JobRulesModel::NoteColumn), QStringLiteral("loss rose 3 times"));
        QCOMPARE(model.index(1, JobRulesModel::KindColumn).data(JobRulesModel::StatusRole),
                 QVariant(QStringLiteral("NoIssuesFound")));
        QVERIFY(hasIcon(model, 1, JobRulesModel::RuleColumn));
        QVERIFY(!hasIcon(model, 1, JobRulesModel::StatusColumn));
        model.setRules({cpu});
        QCOMPARE(model.issueCount(), 0);
    }

    void findingWhere_data() {
        QTest::addColumn<int>("node");
        QTest::addColumn<QString>("device");
        QTest::addColumn<QString>("where");
        QTest::newRow("node and device")
            << 1 << QStringLiteral("cuda:0") << QStringLiteral("node 1, cuda:0");
        QTest::newRow("node") << 0 << QString() << QStringLiteral("node 0");
        QTest::newRow("device") << -1 << QStringLiteral("cpu") << QStringLiteral("cpu");
        QTest::newRow("whole job") << -1 << QString() << QString();
    }
    void findingWhere() {
        QFETCH(int, node);
        QFETCH(QString, device);
        QFETCH(QString, where);
        QCOMPARE(FindingsModel::whereText(finding("r", node, device.toStdString())), where);
    }

    void oneJobFindings() {
        FindingsModel model(FindingsModel::Scope::OneJob);
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(headers(model),
                 (QStringList{QStringLiteral("Time"), QStringLiteral("Rule"),
                              QStringLiteral("Step"), QStringLiteral("Where"),
                              QStringLiteral("Finding"), QStringLiteral("Advice")}));
        QCOMPARE(model.columnOf(FindingsModel::JobField), -1);
        model.setJobFindings(
            {finding("LossNotDecreasing", 1, "cuda:0"), finding("Overfit", -1, "")});
        QCOMPARE(model.rowCount(), 2);
        const int where = model.columnOf(FindingsModel::WhereField);
        QCOMPARE(text(model, 0, where), QStringLiteral("node 1, cuda:0"));
        QCOMPARE(text(model, 0, model.columnOf(FindingsModel::StepField)), QStringLiteral("40"));
        QCOMPARE(text(model, 1, model.columnOf(FindingsModel::StepField)), QString());
        QCOMPARE(text(model, 0, 0), formatTime(1'700'000'000));
        // A job's tab shows neither icons nor tooltips.
        const int rule = model.columnOf(FindingsModel::RuleField);
        QVERIFY(!hasIcon(model, 0, rule));
        QVERIFY(!model.index(0, model.columnOf(FindingsModel::FindingField))
                     .data(Qt::ToolTipRole)
                     .isValid());
    }

    void recentFindings() {
        FindingsModel model(FindingsModel::Scope::RecentJobs);
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(headers(model),
                 (QStringList{QStringLiteral("Time"), QStringLiteral("Job"), QStringLiteral("Rule"),
                              QStringLiteral("Step"), QStringLiteral("Finding"),
                              QStringLiteral("Advice")}));
        QCOMPARE(model.columnOf(FindingsModel::WhereField), -1);
        model.setFindings({{QStringLiteral("job-4"), QStringLiteral("Failed"),
                            finding("LossNotDecreasing", 0, ""), true},
                           {QStringLiteral("job-5"), QStringLiteral("Completed"),
                            finding("Overfit", 0, ""), false}});
        const int job = model.columnOf(FindingsModel::JobField);
        QCOMPARE(job, 1);
        QCOMPARE(text(model, 1, job), QStringLiteral("job-5"));
        QCOMPARE(model.index(0, 0).data(FindingsModel::JobRole).toString(),
                 QStringLiteral("job-4"));
        QVERIFY(hasIcon(model, 0, model.columnOf(FindingsModel::RuleField)));
        QVERIFY(!hasIcon(model, 0, job));
        const int advice = model.columnOf(FindingsModel::AdviceField);
        QCOMPARE(model.index(0, advice).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("lower the learning rate"));
        QVERIFY(!model.index(0, job).data(Qt::ToolTipRole).isValid());
        QVERIFY(model.records().front().notified);
    }

    // What ran: the summary of the code and each rank, the first rank's packages and the top
    // operators of the profiled window, from the job's facts.
    void whatRan() {
        using nlohmann::json;
        const json ops = {{"start_step", 5},
                          {"num_steps", 3},
                          {"trace", "t.json"},
                          {"ops",
                           {{{"name", "aten::addmm"},
                             {"calls", 12},
                             {"self_cpu_ms", 1.5},
                             {"cpu_total_ms", 2.25},
                             {"cpu_memory_bytes", 2048}}}}};
        const json rank0 = {{"python", "3.11.2"},
                            {"torch", "1.13.1"},
                            {"cuda", nullptr},
                            {"host", "vm"},
                            {"packages", {{"numpy", "1.24.2"}, {"torch", "1.13.1"}}}};
        const json rank1 = {{"python", "3.11.2"}, {"packages", json::object()}};
        const json source = {{"entry_point", "train.py"},
                             {"tree_hash", "ab"},
                             {"git",
                              {{"branch", "main"},
                               {"commit", "0123456789abcdef"},
                               {"dirty", true},
                               {"diff", "+lr = 0.2\n"}}}};
        const std::vector<store::FactsRow> facts = {{"operators", 0, 0, 5, ops.dump()},
                                                    {"provenance", 0, 0, 4, rank0.dump()},
                                                    {"provenance", 0, 1, 4, rank1.dump()},
                                                    {"source", -1, -1, 3, source.dump()}};
        const WhatRanSummary s = WhatRanSummary::fromFacts(facts);
        QStringList lines;
        for (const auto& [label, value] : s.lines)
            lines << label + QStringLiteral(": ") + value;
        QVERIFY2(lines.contains(QStringLiteral("Entry point: train.py")),
                 qPrintable(lines.join(QLatin1Char('|'))));
        QVERIFY(
            lines.contains(QStringLiteral("Git: main @ 0123456789ab, with uncommitted changes")));
        QVERIFY(lines.contains(QStringLiteral("Rank 0: Python 3.11.2, torch 1.13.1 on vm")));
        QVERIFY(lines.contains(QStringLiteral("Rank 1: Python 3.11.2")));
        QCOMPARE(s.gitDiff, QStringLiteral("+lr = 0.2\n"));
        QCOMPARE(s.traceFile, QStringLiteral("t.json"));

        PackagesModel packages;
        QAbstractItemModelTester t1(&packages,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        packages.setFacts(facts);
        QCOMPARE(headers(packages),
                 (QStringList{QStringLiteral("Package"), QStringLiteral("Version")}));
        QCOMPARE(packages.rowCount(), 2);
        QCOMPARE(text(packages, 0, 0), QStringLiteral("numpy"));
        QCOMPARE(text(packages, 1, 1), QStringLiteral("1.13.1"));

        OperatorsModel operators;
        QAbstractItemModelTester t2(&operators,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        operators.setFacts(facts);
        QCOMPARE(operators.rowCount(), 1);
        QCOMPARE(text(operators, 0, OperatorsModel::NameColumn), QStringLiteral("aten::addmm"));
        QCOMPARE(text(operators, 0, OperatorsModel::CallsColumn), QStringLiteral("12"));
        QCOMPARE(text(operators, 0, OperatorsModel::SelfCpuColumn), QStringLiteral("1.500"));
        QCOMPARE(operators.window(), QStringLiteral("steps 5 to 7"));
        operators.setFacts({});
        QCOMPARE(operators.rowCount(), 0);
        QVERIFY(operators.window().isEmpty());
    }
};

QTEST_MAIN(TestJobModels)
#include "test_job_models.moc"
