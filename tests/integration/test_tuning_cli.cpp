// Tuning jobs as users run them from the command line: the example spec on Fashion-MNIST,
// list / show / export, validation, an exact --job-name, a stop from another process, and a
// tuning job whose studio process was killed, resumed with `mlstudio tune --resume`.
#include "engine/control/studio_home.h"
#include "engine/store/store_reader.h"
#include "tests/integration/tuning_fixture.h"
#include "tests/support/mlstudio_cli.h"
#include "tests/support/process_check.h"

#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <fstream>
#include <set>
#include <thread>

using namespace studio;
using nlohmann::json;

class TestTuningCli : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    QTemporaryDir m_specs;
    MlstudioCli m_cli{m_home.path()};

    store::StoreReader reader() {
        return store::StoreReader(control::databasePath(m_home.path().toStdString()));
    }

    QString writeSpec(const char* name, const json& doc) {
        const QString path = m_specs.path() + QLatin1Char('/') + QLatin1String(name);
        std::ofstream(path.toStdString()) << doc.dump(2);
        return path;
    }

    // Waits (bounded) until `ready` holds for the newest tuning job; returns its name.
    std::string waitForTuning(const std::function<bool(const store::TuningJobRow&)>& ready) {
        for (int i = 0; i < 600; ++i) {
            auto r = reader();
            auto all = r.tuningJobs();
            if (!all.empty() && ready(all.front()))
                return all.front().name;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        return {};
    }

    void assertNothingRuns(const store::TuningJobRow& t) {
        auto r = reader();
        const std::string left = leftoverProcess(r, r.tuningTrainingJobs(t.id));
        QVERIFY2(left.empty(), left.c_str());
    }

private Q_SLOTS:
    void exampleSpecOnFashionMnist() {
        const QString spec =
            QStringLiteral(STUDIO_SOURCE_DIR "/resources/examples/fmnist-tuning.json");
        CliResult v = m_cli.run({QStringLiteral("validate"), spec});
        QCOMPARE(v.code, 0);
        QVERIFY(v.out.startsWith(QStringLiteral("ok (tuning spec: Bayesian search")));
        CliResult run = m_cli.run(
            {QStringLiteral("tune"), spec, QStringLiteral("--set"),
             QStringLiteral("tuning.max_jobs=3"), QStringLiteral("--set"),
             QStringLiteral("training.hyperparameters.epochs=2"), QStringLiteral("--set"),
             QStringLiteral("training.hyperparameters.train-samples=640"), QStringLiteral("--set"),
             QStringLiteral("training.hyperparameters.eval-samples=256")},
            240000);
        QVERIFY2(run.code == 0, qPrintable(run.err));
        QVERIFY2(run.err.contains(QStringLiteral("3/3 jobs done")), qPrintable(run.err));
        QVERIFY(run.err.contains(QStringLiteral("Completed: max_jobs (3) training jobs ran")));

        const json d = m_cli.show(QStringLiteral("fmnist-cnn-tuning"));
        QCOMPARE(d["HyperParameterTuningJobStatus"], "Completed");
        QCOMPARE(d["TrainingJobStatusCounters"]["Completed"].get<int>() +
                     d["TrainingJobStatusCounters"]["Stopped"].get<int>(),
                 3);
        QVERIFY(d["BestTrainingJob"].is_object());
        QCOMPARE(d["BestTrainingJob"]["FinalHyperParameterTuningJobObjectiveMetric"]["MetricName"],
                 "eval:accuracy");
        QCOMPARE(d["HyperParameterTuningJobConfig"]["ParameterRanges"]["CategoricalParameterRanges"]
                  [0]["Name"],
                 "batch-size");
        // Each training job trained with its own values, and they show in its accuracy.
        std::set<std::string> lrs;
        std::set<double> objectives;
        for (const auto& j : d["TrainingJobSummaries"]) {
            lrs.insert(j["TunedHyperParameters"]["lr"].get<std::string>());
            objectives.insert(j["FinalObjectiveValue"].get<double>());
        }
        QCOMPARE(lrs.size(), std::size_t(3));
        QVERIFY2(objectives.size() >= 2, "every training job reached the same accuracy");

        CliResult list = m_cli.run({QStringLiteral("list"), QStringLiteral("tuning-jobs")});
        QCOMPARE(list.code, 0);
        QVERIFY(list.out.contains(QString::fromStdString(d["HyperParameterTuningJobName"])));
        const QString csv = m_specs.path() + QStringLiteral("/tuning.csv");
        CliResult exported = m_cli.run({QStringLiteral("export"), QStringLiteral("--tuning-job"),
                                        QString::fromStdString(d["HyperParameterTuningJobName"]),
                                        QStringLiteral("--csv"), csv});
        QCOMPARE(exported.code, 0);
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(f.readAll()).trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 4);
        QVERIFY(lines[0].startsWith(QStringLiteral("batch-size,lr,momentum,TrainingJobName")));
        CliResult text = m_cli.run({QStringLiteral("show"), QStringLiteral("fmnist-cnn-tuning")});
        QVERIFY(text.out.contains(QStringLiteral("*best")));
    }

    void validateNamesTheField() {
        json doc = objectiveTuning({{"max_jobs", 0}});
        doc["tuning"]["hyperparameter_ranges"]["x"]["max_value"] = -1;
        CliResult r = m_cli.run({QStringLiteral("validate"), writeSpec("bad.json", doc)});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("tuning.max_jobs: ")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("tuning.hyperparameter_ranges.x.max_value: ")),
                 qPrintable(r.err));
        CliResult tune = m_cli.run({QStringLiteral("tune"), writeSpec("bad.json", doc)});
        QCOMPARE(tune.code, 2);
    }

    // --job-name: the tuning job's exact name (SageMaker's job_name), its training jobs' base.
    void tuneWithJobName() {
        const QString spec =
            writeSpec("named.json", objectiveTuning({{"max_jobs", 1}, {"max_parallel_jobs", 1}},
                                                    {{"epochs", 1}}));
        CliResult r = m_cli.run({QStringLiteral("tune"), spec, QStringLiteral("--job-name"),
                                 QStringLiteral("exact-tuning-1")},
                                120000);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        auto rd = reader();
        const auto t = rd.tuningJob("exact-tuning-1");
        QVERIFY(t.has_value());
        QCOMPARE(t->name, std::string("exact-tuning-1"));
        const auto jobs = rd.tuningTrainingJobs(t->id);
        QCOMPARE(jobs.size(), std::size_t(1));
        QVERIFY2(jobs[0].job.rfind("exact-tuning-1-001-", 0) == 0, jobs[0].job.c_str());

        CliResult taken = m_cli.run({QStringLiteral("tune"), spec, QStringLiteral("--job-name"),
                                     QStringLiteral("exact-tuning-1")});
        QCOMPARE(taken.code, 1);
        QVERIFY2(taken.err.contains(QStringLiteral("\"exact-tuning-1\" is taken")),
                 qPrintable(taken.err));
        CliResult bad = m_cli.run({QStringLiteral("tune"), spec, QStringLiteral("--job-name"),
                                   QString(33, QLatin1Char('a'))});
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains(QStringLiteral("--job-name: 1 to 32 letters")),
                 qPrintable(bad.err));
    }

    void stopFromAnotherProcess() {
        const QString spec =
            writeSpec("long.json",
                      objectiveTuning({{"name", "stop-me"}, {"max_jobs", 6}}, {{"epochs", 200}}));
        QProcess tuning;
        QVERIFY(m_cli.start(tuning, {QStringLiteral("tune"), spec}));
        const std::string name = waitForTuning([this](const store::TuningJobRow& t) {
            return t.name.rfind("stop-me", 0) == 0 && t.counters.inProgress == 2;
        });
        QVERIFY(!name.empty());
        CliResult stop = m_cli.run({QStringLiteral("stop"), QString::fromStdString(name)});
        QVERIFY2(stop.code == 0, qPrintable(stop.err));
        QVERIFY(tuning.waitForFinished(60000));
        QCOMPARE(tuning.exitCode(), 3); // Stopped
        auto r = reader();
        const auto t = *r.tuningJob(name);
        QCOMPARE(t.status, std::string("Stopped"));
        QCOMPARE(t.counters.stopped, 2);
        assertNothingRuns(t);
    }

    void killedTuningJobResumes() {
        const QString spec =
            writeSpec("resume.json", objectiveTuning({{"name", "resume-me"}, {"max_jobs", 5}},
                                                     {{"epochs", 8}, {"seconds-per-epoch", 0.25}}));
        QProcess tuning;
        QVERIFY(m_cli.start(tuning, {QStringLiteral("tune"), spec}));
        // Killed while two training jobs run, one of them past its first epochs.
        const std::string name = waitForTuning([this](const store::TuningJobRow& t) {
            if (t.name.rfind("resume-me", 0) != 0 || t.counters.inProgress < 2)
                return false;
            auto r = reader();
            for (const auto& [id, points] : r.tuningCurves(t.id))
                if (points.size() >= 2)
                    return true;
            return false;
        });
        QVERIFY(!name.empty());
        ::kill(static_cast<pid_t>(tuning.processId()), SIGKILL);
        QVERIFY(tuning.waitForFinished(10000));
        {
            auto r = reader();
            QCOMPARE(r.tuningJob(name)->status, std::string("InProgress"));
        }
        CliResult resumed = m_cli.run(
            {QStringLiteral("tune"), QStringLiteral("--resume"), QString::fromStdString(name)},
            120000);
        QVERIFY2(resumed.code == 0, qPrintable(resumed.err));
        QVERIFY(resumed.err.contains(QStringLiteral("Resumed tuning job")));
        auto r = reader();
        const auto t = *r.tuningJob(name);
        QCOMPARE(t.status, std::string("Completed"));
        QCOMPARE(t.counters.total, 5);
        // The jobs that ran when the studio was killed went on and were counted.
        QCOMPARE(t.counters.completed, 5);
        for (const auto& row : r.tuningTrainingJobs(t.id)) {
            QCOMPARE(row.state, std::string("Completed"));
            QVERIFY(row.objective);
        }
        assertNothingRuns(t);
        // Nothing left to resume.
        CliResult again = m_cli.run(
            {QStringLiteral("tune"), QStringLiteral("--resume"), QString::fromStdString(name)});
        QVERIFY(again.err.contains(QStringLiteral("has ended")));
    }
};

QTEST_GUILESS_MAIN(TestTuningCli)
#include "test_tuning_cli.moc"
