// Built-in trainer jobs through the controller: the Fashion-MNIST data-parallel examples
// (1 node x 2 ranks, 2 nodes x 1 rank) on a shortened schedule, the pipeline and hybrid
// language-model examples (per-stage checkpoints and resume, a gathered model file), and the
// accuracy bar (fmnist-cnn, 2 ranks, 2 epochs: test accuracy >= 0.88).
#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/process/process.h"
#include "engine/spec/spec_parser.h"
#include "engine/store/store_reader.h"
#include "tests/support/process_check.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

using namespace studio;

class TestBuiltinJobs : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    std::unique_ptr<control::Controller> m_controller;

    store::ComponentDetail runExample(const std::string& file,
                                      const std::vector<std::string>& sets) {
        auto parsed = spec::parseSpecFile(
            std::string(STUDIO_SOURCE_DIR) + "/resources/examples/" + file, sets);
        if (!parsed.ok())
            throw std::runtime_error(parsed.errors.front().text());
        auto job = m_controller->submit(*parsed.spec);
        m_controller->wait(job.name);
        store::StoreReader reader(control::databasePath(m_home.path().toStdString()));
        return *reader.detail(job.name);
    }

    std::string rank0Log(const store::ComponentDetail& d) {
        std::ifstream in(d.row.jobDir + "/logs/rank-0.log");
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }

private Q_SLOTS:
    void initTestCase() {
        control::ControllerOptions o;
        o.home = m_home.path().toStdString();
        o.launcherPath = std::string(STUDIO_BIN_DIR) + "/studio-launcher";
        o.trainerPath = std::string(STUDIO_BIN_DIR) + "/studio-train";
        m_controller = std::make_unique<control::Controller>(o);
    }
    void cleanupTestCase() { m_controller.reset(); }

    void oneNodeTwoRanks() {
        auto d = runExample("fmnist-dp-1x2.json",
                            {"hyperparameters.max-steps=40", "hyperparameters.eval-samples=1000",
                             "hyperparameters.checkpoint-interval=20"});
        QVERIFY2(d.row.status == "Completed", d.row.failureReason.c_str());
        for (const char* m : {"train:loss", "train:throughput", "eval:loss", "eval:accuracy"})
            QVERIFY2(d.metrics.count(m), m);
        QCOMPARE(d.metrics.at("train:loss").count, std::int64_t(2)); // log-interval 20
        QVERIFY(d.metrics.at("eval:accuracy").last > 0.5);
        QCOMPARE(d.ranks.size(), std::size_t(2));
        QVERIFY(d.checkpoints.size() >= 2);
        QVERIFY(std::filesystem::exists(d.checkpoints.back().path));
        bool model = false;
        for (const auto& a : d.artifacts)
            model = model || a.name == "model/model.pt";
        QVERIFY(model);
        store::StoreReader reader(control::databasePath(m_home.path().toStdString()));
        QCOMPARE(reader.stepTimings(d.row.id).size(), std::size_t(80)); // 40 steps x 2 ranks
        QVERIFY(rank0Log(d).find("all-reduced through shared memory") != std::string::npos);
    }

    void twoNodesOneRankEach() {
        auto d = runExample("fmnist-dp-2x1.json",
                            {"hyperparameters.max-steps=30", "hyperparameters.eval-samples=1000"});
        QVERIFY2(d.row.status == "Completed", d.row.failureReason.c_str());
        QCOMPARE(d.nodes.size(), std::size_t(2));
        QCOMPARE(d.ranks.size(), std::size_t(2));
        // Separate nodes share no memory: their gradients travel over Gloo (TCP).
        QVERIFY(rank0Log(d).find("all-reduced through Gloo") != std::string::npos);
        QCOMPARE(d.metrics.at("train:loss").lastStep, std::int64_t(30));
    }

    void pipelineTwoStages() {
        QTemporaryDir checkpoints;
        const std::string ck = "checkpoint_local_path=\"" + checkpoints.path().toStdString() + "\"";
        auto d = runExample("lm-pipeline.json", {"hyperparameters.max-steps=10",
                                                 "hyperparameters.checkpoint-interval=5",
                                                 "hyperparameters.eval-samples=64", ck});
        QVERIFY2(d.row.status == "Completed", d.row.failureReason.c_str());
        std::string partition;
        bool model = false;
        for (const auto& a : d.artifacts) {
            if (a.name == "pipeline_partition")
                partition = a.value;
            model = model || a.name == "model/model.pt";
        }
        QVERIFY2(partition.find("stage 0: embed") == 0 &&
                     partition.find("| stage 1:") != std::string::npos,
                 partition.c_str());
        QVERIFY(model);
        // Each stage checkpoints its own blocks.
        std::set<int> stages;
        for (const auto& c : d.checkpoints)
            if (c.step == 10)
                stages.insert(c.rank);
        QCOMPARE(stages, (std::set<int>{0, 1}));
        QVERIFY(d.metrics.count("pipeline:busy_fraction"));
        QVERIFY(d.metrics.count("pipeline:peak_activation_mb"));
        QVERIFY(d.metrics.at("train:loss").last < d.metrics.at("train:loss").max);

        // The gathered model file holds every block (54 parameters, 4 mask buffers) and loads in
        // Python.
        process::SpawnOptions o;
        o.argv = {STUDIO_PYTHON, "-c",
                  "import sys, torch; d = torch.load(sys.argv[1], weights_only=True); print(len(d), "
                  "sorted({k.split('.')[0] for k in d}))",
                  d.row.jobDir + "/model/model.pt"};
        o.env = process::currentEnvironment();
        process::Process p = process::Process::spawn(o);
        const std::string out = readToEnd(p.stdoutFd());
        QVERIFY(p.wait().success());
        QVERIFY2(out.find("58 ['block0', 'block1', 'block2', 'block3', 'embed', 'head']") == 0,
                 out.c_str());

        // A second run on the same checkpoints resumes both stages from step 10.
        auto again = runExample("lm-pipeline.json", {"hyperparameters.max-steps=15",
                                                     "hyperparameters.checkpoint-interval=5",
                                                     "hyperparameters.eval-samples=64", ck});
        QVERIFY2(again.row.status == "Completed", again.row.failureReason.c_str());
        QVERIFY(rank0Log(again).find("resumed from the checkpoint at step 10") !=
                std::string::npos);
        QCOMPARE(again.metrics.at("train:loss").lastStep, std::int64_t(15));
    }

    void hybridTwoByTwo() {
        auto d = runExample("lm-hybrid-2x2.json",
                            {"hyperparameters.max-steps=10", "hyperparameters.eval-samples=64"});
        QVERIFY2(d.row.status == "Completed", d.row.failureReason.c_str());
        QCOMPARE(d.ranks.size(), std::size_t(4));
        QCOMPARE(d.nodes.size(), std::size_t(2));
        const std::string log = rank0Log(d);
        QVERIFY2(log.find("data-parallel rank 0 of 2 (data-parallel group [0, 2])") !=
                     std::string::npos,
                 log.c_str());
        QVERIFY(log.find("2 stages x 2 replicas") != std::string::npos);
    }

    void reachesTheAccuracyBar() {
        auto d = runExample("fmnist-dp-1x2.json", {});
        QVERIFY2(d.row.status == "Completed", d.row.failureReason.c_str());
        const double accuracy = d.metrics.at("eval:accuracy").last;
        QVERIFY2(accuracy >= 0.88, std::to_string(accuracy).c_str());
        qInfo("fmnist-cnn, 2 ranks, 2 epochs: test accuracy %.4f", accuracy);
    }
};

QTEST_GUILESS_MAIN(TestBuiltinJobs)
#include "test_builtin_jobs.moc"
