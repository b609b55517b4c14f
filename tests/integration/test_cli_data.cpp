// The commands the Python SDK's data side uses, run as the SDK runs them against a studio home
// of the test's own: `record` (a run written live from JSON lines on stdin; Failed when stdin
// ends without "end"; refusals and usage errors naming what is wrong), `analytics` (the
// experiment table with artifact columns, components and a tuning job's table), `tensors`,
// `samples` and `steps` (their JSON shapes, filters and errors naming the job).
#include "engine/control/studio_home.h"
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"
#include "tests/support/mlstudio_cli.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

using nlohmann::json;
namespace store = studio::store;

namespace {

// A running `mlstudio record`: lines in, its JSON replies out.
class Recorder {
public:
    Recorder(const MlstudioCli& cli, const QStringList& args) {
        QStringList all{QStringLiteral("record")};
        all += args;
        QVERIFY(cli.start(m_process, all));
    }
    ~Recorder() {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished();
        }
    }
    void send(const json& line) {
        m_process.write(QByteArray::fromStdString(line.dump() + "\n"));
        m_process.waitForBytesWritten();
    }
    void sendText(const char* text) { m_process.write(text); }
    json reply() {
        while (!m_process.canReadLine())
            if (!m_process.waitForReadyRead(30000))
                return json();
        return json::parse(m_process.readLine().toStdString(), nullptr, false);
    }
    // Closes stdin and waits for the exit code.
    int finish() {
        m_process.closeWriteChannel();
        m_process.waitForFinished(30000);
        return m_process.exitCode();
    }
    QString errors() { return QString::fromUtf8(m_process.readAllStandardError()); }

private:
    QProcess m_process;
};

} // namespace

class TestCliData : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    MlstudioCli m_cli{m_home.path()};

    std::string dbPath() const {
        return studio::control::databasePath(m_home.path().toStdString());
    }

    json runJson(const QStringList& args) {
        const CliResult r = m_cli.run(args);
        if (r.code != 0)
            qWarning() << args << r.err;
        return json::parse(r.out.toStdString(), nullptr, false);
    }

    // An ended job of this test's home, with a job folder.
    store::ComponentId endedJob(store::StoreWriter& w, const std::string& name,
                                const std::string& experiment = {}) {
        store::NewComponent c;
        c.name = name;
        c.experiment = experiment;
        c.created = 1000;
        c.jobDir = m_home.filePath(QString::fromStdString("jobs/" + name)).toStdString();
        const auto id = w.createComponent(c);
        w.setStatus(id, "Completed", "Completed", "", 1100);
        w.setEnded(id, 1100);
        return id;
    }

private slots:
    void recordWritesARunWhileItIsOpen() {
        const QString file = m_home.filePath(QStringLiteral("labels.csv"));
        std::ofstream(file.toStdString()) << "label\n1\n";
        Recorder r(m_cli,
                   {QStringLiteral("--experiment"), QStringLiteral("exp"), QStringLiteral("--run"),
                    QStringLiteral("r1"), QStringLiteral("--tag"), QStringLiteral("team=vision")});
        const json ready = r.reply();
        QCOMPARE(ready["run"], "exp-r1");
        QCOMPARE(ready["trial"], "Default-Run-Group-exp");
        QCOMPARE(ready["created"], true);
        QCOMPARE(ready["status"], "InProgress");
        r.send({{"kind", "param"}, {"name", "lr"}, {"value", 0.1}});
        r.send({{"kind", "param"}, {"name", "optimizer"}, {"value", "sgd"}});
        for (int i = 0; i < 5; ++i)
            r.send({{"kind", "metric"}, {"name", "loss"}, {"value", 1.0 / (i + 1)}});
        r.send({{"kind", "metric"}, {"name", "loss"}, {"value", "NaN"}, {"step", 20}});
        r.send({{"kind", "file"},
                {"name", "labels"},
                {"path", file.toStdString()},
                {"media_type", "text/csv"},
                {"is_output", false}});
        r.send(
            {{"kind", "graph"}, {"name", "cm"}, {"data", {{"confusionMatrix", {{1, 0}, {0, 1}}}}}});
        // Visible before the run ends.
        QTRY_COMPARE_WITH_TIMEOUT(m_cli.show(QStringLiteral("exp-r1"))["metrics"]["loss"]["count"],
                                  json(6), 10000);
        json shown = m_cli.show(QStringLiteral("exp-r1"));
        QCOMPARE(shown["status"], "InProgress");
        QCOMPARE(shown["parameters"], json({{"lr", 0.1}, {"optimizer", "sgd"}}));
        QCOMPARE(shown["tags"]["team"], "vision");
        r.send({{"kind", "end"}, {"status", "Completed"}});
        const json ended = r.reply();
        QCOMPARE(ended["status"], "Completed");
        QCOMPARE(ended["lines"], 11);
        QCOMPARE(ended["errors"], json::array());
        QCOMPARE(r.finish(), 0);

        shown = m_cli.show(QStringLiteral("exp-r1"));
        QCOMPARE(shown["status"], "Completed");
        QCOMPARE(shown["entry_point"], "mlstudio.experiments.Run");
        QCOMPARE(shown["metrics"]["loss"]["last"], "NaN");
        std::map<std::string, json> artifacts;
        for (const auto& a : shown["artifacts"])
            artifacts[a["name"]] = a;
        QCOMPARE(artifacts["labels"]["kind"], "input");
        std::ifstream copy(artifacts["labels"]["value"].get<std::string>());
        QCOMPARE(std::string(std::istreambuf_iterator<char>(copy), {}), std::string("label\n1\n"));
        QCOMPARE(artifacts["cm"]["media_type"], "application/json");
        std::ifstream graph(artifacts["cm"]["value"].get<std::string>());
        QCOMPARE(json::parse(graph)["confusionMatrix"], json({{1, 0}, {0, 1}}));
    }

    void recordWithoutAnEndLineFailsTheRun() {
        Recorder r(m_cli, {QStringLiteral("--experiment"), QStringLiteral("exp"),
                           QStringLiteral("--run"), QStringLiteral("cut")});
        QCOMPARE(r.reply()["created"], true);
        r.send({{"kind", "metric"}, {"name", "loss"}, {"value", 1.0}});
        r.sendText("not json\n{\"kind\": \"metric\", \"name\": \"loss\"}\n{\"kind\": \"tea\"}\n");
        QCOMPARE(r.finish(), 1);
        const json ended = r.reply();
        QCOMPARE(ended["status"], "Failed");
        QCOMPARE(
            ended["errors"],
            json({"line 2: not JSON", "line 3: field \"value\" must be a number, got nothing",
                  "line 4: unknown kind \"tea\" (param, metric, artifact, file, graph, end)"}));
        const json shown = m_cli.show(QStringLiteral("exp-cut"));
        QCOMPARE(shown["status"], "Failed");
        QCOMPARE(shown["failure_reason"],
                 "the process that opened the run exited before closing it");
        QCOMPARE(shown["metrics"]["loss"]["count"], 1);
    }

    void recordRefusesWhatItMustNotWrite() {
        {
            store::StoreWriter w(dbPath());
            endedJob(w, "exp-trained", "exp");
        }
        CliResult r =
            m_cli.run({QStringLiteral("record"), QStringLiteral("--experiment"),
                       QStringLiteral("exp"), QStringLiteral("--run"), QStringLiteral("trained")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("exp-trained is a training job, not a run")),
                 qPrintable(r.err));
        // With --load it is logged to and keeps its status.
        QProcess p;
        QVERIFY(m_cli.start(p, {QStringLiteral("record"), QStringLiteral("--load"),
                                QStringLiteral("--experiment"), QStringLiteral("exp"),
                                QStringLiteral("--run"), QStringLiteral("trained")}));
        p.write("{\"kind\": \"metric\", \"name\": \"test:acc\", \"value\": 0.9}\n"
                "{\"kind\": \"end\", \"status\": \"Failed\"}\n");
        p.closeWriteChannel();
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        const json job = m_cli.show(QStringLiteral("exp-trained"));
        QCOMPARE(job["status"], "Completed");
        QCOMPARE(job["metrics"]["test:acc"]["last"], 0.9);

        Recorder open(m_cli, {QStringLiteral("--experiment"), QStringLiteral("exp"),
                              QStringLiteral("--run"), QStringLiteral("busy")});
        QCOMPARE(open.reply()["status"], "InProgress");
        r = m_cli.run({QStringLiteral("record"), QStringLiteral("--experiment"),
                       QStringLiteral("exp"), QStringLiteral("--run"), QStringLiteral("busy")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("run exp-busy is open in another process")),
                 qPrintable(r.err));
        open.send({{"kind", "end"}});
        QCOMPARE(open.reply()["status"], "Completed");

        r = m_cli.run({QStringLiteral("record"), QStringLiteral("--experiment"),
                       QStringLiteral("my exp"), QStringLiteral("--run"), QStringLiteral("r")});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains(QStringLiteral("--experiment: \"my exp\" must be letters")));
        r = m_cli.run({QStringLiteral("record"), QStringLiteral("--experiment"),
                       QStringLiteral("e"), QStringLiteral("--run"), QStringLiteral("r"),
                       QStringLiteral("--tag"), QStringLiteral("novalue")});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains(QStringLiteral("--tag novalue: give KEY=VALUE")));
    }

    void analyticsPrintsTheTableWithArtifactsAndComponents() {
        {
            store::StoreWriter w(dbPath());
            const auto a = endedJob(w, "tab-a", "tab");
            w.setParameter(a, {"lr", "0.1", 0.1});
            w.addMetric(a, "loss", {0, 1000, 0.5});
            w.addMetric(a, "loss", {1, 1001, 0.25});
            w.setArtifact(a, {"data", "input", "/data/train", "text/csv"});
            w.setArtifact(a, {"model", "output", "/models/a.pt", ""});
            w.setTag(a, "sagemaker:trial-component-source", "run");
            const auto b = endedJob(w, "tab-b", "tab");
            w.setParameter(b, {"lr", "0.01", 0.01});
            w.flush();
        }
        const json t = runJson({QStringLiteral("analytics"), QStringLiteral("--experiment"),
                                QStringLiteral("tab"), QStringLiteral("--json")});
        QCOMPARE(
            t["columns"],
            json({"TrialComponentName", "DisplayName", "lr", "loss - Min", "loss - Max",
                  "loss - Avg", "loss - StdDev", "loss - Last", "loss - Count", "data - MediaType",
                  "data - Value", "model - MediaType", "model - Value", "Trials", "Experiments"}));
        QCOMPARE(t["rows"][0],
                 json({"tab-a", "tab-a", 0.1, 0.25, 0.5, 0.375, 0.1767766952966369, 0.25, 2.0,
                       "text/csv", "/data/train", nullptr, "/models/a.pt", "tab-a", "tab"}));
        QCOMPARE(t["rows"][1][9], nullptr);
        QCOMPARE(t["components"][0]["is_run"], true);
        QCOMPARE(t["components"][1]["is_run"], false);
        QCOMPARE(t["components"][1]["status"], "Completed");

        const json filtered = runJson(
            {QStringLiteral("analytics"), QStringLiteral("--experiment"), QStringLiteral("tab"),
             QStringLiteral("--parameter"), QStringLiteral("lr"), QStringLiteral("--metric"),
             QStringLiteral("loss"), QStringLiteral("--output-artifact"), QStringLiteral("none"),
             QStringLiteral("--input-artifact"), QStringLiteral("data"), QStringLiteral("--json")});
        QCOMPARE(filtered["columns"].size(), std::size_t(13));
        const CliResult csv = m_cli.run(
            {QStringLiteral("analytics"), QStringLiteral("--experiment"), QStringLiteral("tab")});
        QVERIFY(csv.out.startsWith(QStringLiteral("TrialComponentName,DisplayName,lr,")));
        const CliResult missing = m_cli.run(
            {QStringLiteral("analytics"), QStringLiteral("--experiment"), QStringLiteral("nope")});
        QCOMPARE(missing.code, 1);
        QVERIFY(missing.err.contains(QStringLiteral("no experiment named \"nope\"")));
    }

    void analyticsOfATuningJob() {
        {
            store::StoreWriter w(dbPath());
            store::NewTuningJob nt;
            nt.name = "tune-1";
            nt.strategy = "Random";
            nt.objectiveName = "eval:accuracy";
            nt.objectiveType = "Maximize";
            nt.maxJobs = 1;
            nt.specJson = R"({"tuning": {"hyperparameter_ranges": {"lr": {"type": "Continuous",
                          "min_value": 0.001, "max_value": 0.1}}}})";
            nt.created = 1000;
            const auto id = w.createTuningJob(nt);
            store::TuningTrainingJobRow row;
            row.component = endedJob(w, "tune-1-001");
            row.job = "tune-1-001";
            row.hyperparameters = {{"lr", "0.01"}};
            row.state = "Completed";
            row.objective = 0.75;
            w.putTuningTrainingJob(id, row);
            w.setTuningStatus(id, "Completed", "max_jobs", 1200);
            w.flush();
        }
        const json t = runJson({QStringLiteral("analytics"), QStringLiteral("--tuning-job"),
                                QStringLiteral("tune-1"), QStringLiteral("--json")});
        QCOMPARE(t["tuning_job"], "tune-1");
        QCOMPARE(t["columns"][0], "lr");
        QCOMPARE(t["columns"][1], "TrainingJobName");
        QCOMPARE(t["rows"][0][0], 0.01);
        QCOMPARE(t["rows"][0][1], "tune-1-001");
        QCOMPARE(t["rows"][0][3], 0.75);
        const CliResult missing = m_cli.run(
            {QStringLiteral("analytics"), QStringLiteral("--tuning-job"), QStringLiteral("zzz")});
        QCOMPARE(missing.code, 1);
        QVERIFY(missing.err.contains(QStringLiteral("no tuning job named \"zzz\"")));
    }

    void tensorsGroupsReductionsByTensorStepAndRank() {
        std::string jobDir;
        {
            store::StoreWriter w(dbPath());
            const auto id = endedJob(w, "dbg");
            jobDir = m_home.filePath(QStringLiteral("jobs/dbg")).toStdString();
            w.addTensorReduction(id, {0, "weights", "fc.weight", "mean", 0.5, 0, 0, "train"});
            w.addTensorReduction(id, {0, "weights", "fc.weight", "l2_norm", 2.0, 0, 0, "train"});
            w.addTensorReduction(id, {0, "default", "fc.weight", "mean", 0.5, 0, 0, "train"});
            w.addTensorReduction(id, {0, "weights", "fc.weight", "mean", 0.75, 1, 1, "train"});
            w.addTensorReduction(id, {5, "losses", "loss", "value", 1.25, 0, 0, "eval"});
            endedJob(w, "quiet");
            w.flush();
        }
        json t =
            runJson({QStringLiteral("tensors"), QStringLiteral("dbg"), QStringLiteral("--json")});
        QCOMPARE(t["job"], "dbg");
        QCOMPARE(t["debug_output"], nullptr); // no debug-output folder
        QCOMPARE(t["tensors"].size(), std::size_t(2));
        const json& weight = t["tensors"][0];
        QCOMPARE(weight["name"], "fc.weight");
        QCOMPARE(weight["collections"], json({"default", "weights"}));
        QCOMPARE(weight["values"][0], json({{"step", 0},
                                            {"phase", "train"},
                                            {"node", 0},
                                            {"rank", 0},
                                            {"reductions", {{"mean", 0.5}, {"l2_norm", 2.0}}}}));
        QCOMPARE(weight["values"][1]["rank"], 1);
        QCOMPARE(weight["values"][1]["node"], 1);

        std::filesystem::create_directories(jobDir + "/debug-output");
        t = runJson({QStringLiteral("tensors"), QStringLiteral("dbg"), QStringLiteral("--name"),
                     QStringLiteral("loss"), QStringLiteral("--json")});
        QCOMPARE(t["debug_output"], jobDir + "/debug-output");
        QCOMPARE(t["tensors"].size(), std::size_t(1));
        QCOMPARE(t["tensors"][0]["values"][0]["phase"], "eval");

        const CliResult unknown = m_cli.run({QStringLiteral("tensors"), QStringLiteral("dbg"),
                                             QStringLiteral("--name"), QStringLiteral("conv9")});
        QCOMPARE(unknown.code, 1);
        QVERIFY2(unknown.err.contains(QStringLiteral(
                     "job dbg saved no tensor \"conv9\"; it saved: fc.weight, loss")),
                 qPrintable(unknown.err));
        QCOMPARE(runJson({QStringLiteral("tensors"), QStringLiteral("quiet"),
                          QStringLiteral("--json")})["tensors"],
                 json::array());
        const CliResult text = m_cli.run({QStringLiteral("tensors"), QStringLiteral("dbg")});
        QVERIFY(text.out.contains(QStringLiteral("fc.weight")));
        const CliResult noJob = m_cli.run({QStringLiteral("tensors"), QStringLiteral("nojob")});
        QCOMPARE(noJob.code, 1);
        QVERIFY(noJob.err.contains(QStringLiteral("no job named \"nojob\"")));
    }

    void samplesAndStepsOfAJob() {
        {
            store::StoreWriter w(dbPath());
            const auto id = endedJob(w, "prof");
            w.upsertNode(id, {0, "algo-1", 42, 4, 0, 1000, 1100, 0});
            w.addSystemSample(id, 0, "cpu", "util", 1001, 50);
            w.addSystemSample(id, 0, "cpu", "util", 1002, 70);
            w.addSystemSample(id, 0, "gpu0", "util", 1002, 90);
            w.addStepTiming(id, {0, 1, 3, "train", 1001.5, 1, 2, 3, 4, 5});
            w.addFrameworkEvent(id, {0, 1, 3, "train", "conv1", "forward", 1001.2, 2.5, 77});
            w.flush();
        }
        json s =
            runJson({QStringLiteral("samples"), QStringLiteral("prof"), QStringLiteral("--json")});
        QCOMPARE(s["nodes"][0]["host"], "algo-1");
        QCOMPARE(s["series"].size(), std::size_t(2));
        QCOMPARE(s["series"][0], json({{"node", 0},
                                       {"device", "cpu"},
                                       {"metric", "util"},
                                       {"samples", {{1001.0, 50.0}, {1002.0, 70.0}}}}));
        s = runJson({QStringLiteral("samples"), QStringLiteral("prof"), QStringLiteral("--since"),
                     QStringLiteral("1001.5"), QStringLiteral("--json")});
        QCOMPARE(s["series"][0]["samples"].size(), std::size_t(1));

        const json st =
            runJson({QStringLiteral("steps"), QStringLiteral("prof"), QStringLiteral("--json")});
        QCOMPARE(st["steps"][0], json({{"node", 0},
                                       {"rank", 1},
                                       {"step", 3},
                                       {"phase", "train"},
                                       {"time", 1001.5},
                                       {"data_ms", 1.0},
                                       {"forward_ms", 2.0},
                                       {"backward_ms", 3.0},
                                       {"comm_ms", 4.0},
                                       {"optimizer_ms", 5.0}}));
        QCOMPARE(st["events"][0]["name"], "conv1");
        QCOMPARE(st["events"][0]["duration_ms"], 2.5);
        QCOMPARE(st["events"][0]["pid"], 77);
        const CliResult text = m_cli.run({QStringLiteral("steps"), QStringLiteral("prof")});
        QVERIFY(text.out.contains(QStringLiteral("1 framework event(s)")));
        const CliResult samples = m_cli.run({QStringLiteral("samples"), QStringLiteral("prof")});
        QVERIFY(samples.out.contains(QStringLiteral("gpu0")));
    }
};

QTEST_GUILESS_MAIN(TestCliData)
#include "test_cli_data.moc"
