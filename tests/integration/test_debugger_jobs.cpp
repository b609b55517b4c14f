// The Debugger on real jobs: a healthy built-in run whose model rules find nothing, a run with
// lr=10 that ExplodingTensor or LossNotDecreasing stops, a script whose printed loss feeds the
// loss rules and their Notify action, raw tensors NumPy loads, framework profiling in its window
// and the profiler report written when the job ends.
#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/process/process.h"
#include "engine/spec/spec_parser.h"
#include "engine/store/store_reader.h"
#include "tests/support/process_check.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>

using namespace studio;
namespace fs = std::filesystem;

namespace {

struct NotificationLog : control::JobObserver {
    std::mutex mutex;
    std::vector<control::JobNotification> seen;
    void jobNotification(const control::JobNotification& n) override {
        std::lock_guard lock(mutex);
        seen.push_back(n);
    }
};

const store::RuleStatusRow* findRule(const std::vector<store::RuleStatusRow>& rules,
                                     const std::string& name) {
    for (const auto& r : rules)
        if (r.rule == name)
            return &r;
    return nullptr;
}

// Every model rule ran and found nothing.
void checkHealthyRules(const store::ComponentDetail& d) {
    int model = 0;
    for (const auto& r : d.rules) {
        if (r.kind != "model")
            continue;
        ++model;
        QVERIFY2(r.status == "NoIssuesFound", (r.rule + ": " + r.status + " " + r.message).c_str());
        QVERIFY2(r.datapoints > 0, r.rule.c_str());
        QVERIFY(!r.criteria.empty());
    }
    QCOMPARE(model, 5);
    // Every profiler rule ran under ProfilerReport; its StepOutlier_stddev reached the rule.
    const auto* outlier = findRule(d.rules, "StepOutlier");
    QVERIFY(outlier);
    QVERIFY2(outlier->parameters.find("stddev=5") != std::string::npos,
             outlier->parameters.c_str());
    QCOMPARE(findRule(d.rules, "LowGPUUtilization")->status, std::string("NotApplicable"));
    QVERIFY(findRule(d.rules, "OverallSystemUsage")->details.find("usage") != std::string::npos);
}

// The hook saved what the spec and the rules asked for, from rank 0 only.
void checkSavedTensors(store::StoreReader& r, store::ComponentId id) {
    std::set<std::string> collections, reductions;
    std::set<int> ranks;
    for (const auto& t : r.tensorReductions(id)) {
        collections.insert(t.collection);
        reductions.insert(t.reduction);
        ranks.insert(t.rank);
    }
    for (const char* c : {"losses", "weights", "gradients", "relu_output"})
        QVERIFY2(collections.count(c), c);
    for (const char* x :
         {"abs_mean", "l2_norm", "update_l2_norm", "inactive_units_percent", "nonfinite", "value"})
        QVERIFY2(reductions.count(x), x);
    QCOMPARE(ranks, (std::set<int>{0}));
    // Steps are SageMaker's, from 0: losses every 5, weights every 25.
    std::set<std::int64_t> weightSteps, lossSteps;
    for (const auto& t : r.tensorReductions(id, "fc1.fc.weight"))
        weightSteps.insert(t.step);
    for (const auto& t : r.tensorReductions(id, "loss"))
        if (t.phase == "train")
            lossSteps.insert(t.step);
    QCOMPARE(weightSteps, (std::set<std::int64_t>{0, 25, 50}));
    QCOMPARE(lossSteps.size(), std::size_t(12));
    QVERIFY(lossSteps.count(0) && lossSteps.count(55));
}

// Framework profiling covered steps 5..24 on both ranks, block by block.
void checkFrameworkProfile(store::StoreReader& r, store::ComponentId id) {
    std::set<std::int64_t> profiled;
    std::set<std::string> categories, blocks;
    std::set<int> profiledRanks;
    for (const auto& f : r.frameworkEvents(id)) {
        profiled.insert(f.step);
        categories.insert(f.category);
        profiledRanks.insert(f.rank);
        if (f.category == "backward")
            blocks.insert(f.name);
        QVERIFY(f.durationMs >= 0);
    }
    QCOMPARE(*profiled.begin(), std::int64_t(5));
    QCOMPARE(*profiled.rbegin(), std::int64_t(24));
    QCOMPARE(profiledRanks, (std::set<int>{0, 1}));
    for (const char* c : {"forward", "backward", "dataloader", "comm", "optimizer", "step"})
        QVERIFY2(categories.count(c), c);
    QCOMPARE(blocks, (std::set<std::string>{"conv1", "conv2", "fc1", "fc2"}));
}

// The profiler report was written when the job ended, and is listed as an artifact.
void checkProfilerReport(const store::ComponentDetail& d) {
    const fs::path report = fs::path(d.row.jobDir) / "profiler-output" / "profiler-report.html";
    QVERIFY(fs::exists(report));
    QVERIFY(fs::exists(report.parent_path() / "profiler-reports" / "report.json"));
    std::ifstream in(report);
    std::stringstream html;
    html << in.rdbuf();
    QVERIFY(html.str().find("Rules summary") != std::string::npos);
    QVERIFY(html.str().find(d.row.name) != std::string::npos);
    bool artifact = false;
    for (const auto& a : d.artifacts)
        artifact = artifact || (a.name == "profiler-report" && a.value == report.string());
    QVERIFY(artifact);
}

} // namespace

class TestDebuggerJobs : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    std::unique_ptr<control::Controller> m_controller;
    NotificationLog m_notifications;

    store::ComponentDetail run(const spec::ParseResult& parsed) {
        if (!parsed.ok())
            throw std::runtime_error(parsed.errors.front().text());
        auto job = m_controller->submit(*parsed.spec);
        m_controller->wait(job.name);
        return *reader().detail(job.name);
    }
    store::ComponentDetail runExample(const std::string& file,
                                      const std::vector<std::string>& sets) {
        return run(spec::parseSpecFile(
            std::string(STUDIO_SOURCE_DIR) + "/resources/examples/" + file, sets));
    }
    store::StoreReader reader() {
        return store::StoreReader(control::databasePath(m_home.path().toStdString()));
    }

private Q_SLOTS:
    void initTestCase() {
        control::ControllerOptions o;
        o.home = m_home.path().toStdString();
        o.launcherPath = std::string(STUDIO_BIN_DIR) + "/studio-launcher";
        o.trainerPath = std::string(STUDIO_BIN_DIR) + "/studio-train";
        m_controller = std::make_unique<control::Controller>(o);
        m_controller->addObserver(&m_notifications);
    }
    void cleanupTestCase() {
        m_controller->removeObserver(&m_notifications);
        m_controller.reset();
    }

    void healthyRunFindsNoIssues() {
        auto d =
            runExample("fmnist-debugger.json",
                       {"hyperparameters.max-steps=60", "hyperparameters.eval-interval=30",
                        "hyperparameters.eval-samples=500", "rules[0].parameters.num_steps=25"});
        QVERIFY2(d.row.status == "Completed", d.row.failureReason.c_str());
        checkHealthyRules(d);
        if (QTest::currentTestFailed())
            return;
        auto r = reader();
        checkSavedTensors(r, d.row.id);
        if (QTest::currentTestFailed())
            return;
        checkFrameworkProfile(r, d.row.id);
        if (QTest::currentTestFailed())
            return;
        checkProfilerReport(d);
    }

    void explodingRunStopsEarly() {
        auto d =
            runExample("fmnist-debugger.json",
                       {"hyperparameters.lr=10", "hyperparameters.max-steps=400",
                        "debugger_hook_config.collection_configs[0].parameters.save_interval=1",
                        "rules[0].parameters.num_steps=5"});
        QCOMPARE(d.row.status, std::string("Stopped"));
        const std::string reason = d.row.failureReason;
        QVERIFY2(reason == "Stopped by rule ExplodingTensor" ||
                     reason == "Stopped by rule LossNotDecreasing",
                 reason.c_str());
        const std::string rule = reason.substr(std::string("Stopped by rule ").size());
        QCOMPARE(findRule(d.rules, rule)->status, std::string("IssuesFound"));
        QVERIFY(findRule(d.rules, rule)->fired >= 1);
        bool finding = false;
        for (const auto& f : d.findings)
            finding = finding || (f.rule == rule && !f.recommendation.empty());
        QVERIFY(finding);
        // It stopped within a few steps of the loss going bad, far from max-steps.
        QVERIFY(d.metrics.count("train:loss"));
        QVERIFY2(d.metrics.at("train:loss").lastStep < 100,
                 std::to_string(d.metrics.at("train:loss").lastStep).c_str());
        // The stop was graceful: the ranks checkpointed and exited 75.
        QVERIFY(!d.checkpoints.empty());
        for (const auto& k : d.ranks)
            QVERIFY(k.exitCode && *k.exitCode == 75);
        for (const auto& k : d.ranks)
            QVERIFY(processGone(k.pid));
    }

    void scriptMetricsFeedLossRules() {
        // A script with no hook: its printed loss rises, which LossNotDecreasing sees through
        // metric_definitions and reports with a notification; the job itself completes.
        const nlohmann::json spec = {
            {"name", "rising-loss"},
            {"entry_point",
             {"/bin/sh", "-c",
              "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo loss=0.$((40 + i)); sleep 0.05; "
              "done"}},
            {"metric_definitions", {{{"Name", "train:loss"}, {"Regex", "loss=([0-9.]+)"}}}},
            {"rules",
             {{{"name", "LossNotDecreasing"},
               {"parameters", {{"num_steps", "3"}}},
               {"actions", {"Notify"}}},
              {{"name", "VanishingGradient"}}}}};
        const std::size_t before = m_notifications.seen.size();
        auto d = run(spec::parseSpecText(spec.dump(), m_home.path().toStdString()));
        QVERIFY2(d.row.status == "Completed", d.row.failureReason.c_str());
        const auto* loss = findRule(d.rules, "LossNotDecreasing");
        QCOMPARE(loss->status, std::string("IssuesFound"));
        // Without gradients a gradient rule has nothing to say: not applicable, with the reason.
        const auto* vanishing = findRule(d.rules, "VanishingGradient");
        QCOMPARE(vanishing->status, std::string("NotApplicable"));
        QVERIFY(vanishing->message.find("gradients") != std::string::npos);
        // One notification, stored and handed to observers.
        auto stored = reader().notifications(d.row.created);
        int mine = 0;
        for (const auto& n : stored)
            mine += n.component == d.row.name && n.rule == "LossNotDecreasing";
        QCOMPARE(mine, 1);
        std::lock_guard lock(m_notifications.mutex);
        QCOMPARE(m_notifications.seen.size(), before + 1);
        QCOMPARE(m_notifications.seen.back().job, d.row.name);
        QVERIFY(m_notifications.seen.back().message.rfind("LossNotDecreasing: ", 0) == 0);
    }

    void rawTensorsLoadInNumpy() {
        auto d = runExample(
            "fmnist-debugger.json",
            {"hyperparameters.max-steps=12", "hyperparameters.eval-samples=200",
             "distribution.mpi.processes_per_host=1",
             "debugger_hook_config.collection_configs[2].parameters.save_raw_tensor=true",
             "debugger_hook_config.collection_configs[2].parameters.save_interval=10",
             "disable_profiler=true"});
        QVERIFY2(d.row.status == "Completed", d.row.failureReason.c_str());
        const fs::path out = fs::path(d.row.jobDir) / "debug-output";
        const fs::path index = out / "index-rank-0.jsonl";
        QVERIFY(fs::exists(index));
        std::ifstream in(index);
        std::string line;
        int entries = 0;
        std::string file;
        while (std::getline(in, line)) {
            auto j = nlohmann::json::parse(line);
            QCOMPARE(j["collection"].get<std::string>(), std::string("gradients"));
            QVERIFY(j["step"] == 0 || j["step"] == 10);
            if (j["tensor"] == "gradient/fc2.fc.weight")
                file = (out / j["file"].get<std::string>()).string();
            ++entries;
        }
        QCOMPARE(entries, 16); // 8 parameters at steps 0 and 10
        QVERIFY(!file.empty());
        // No profiler: no report, no framework events.
        QVERIFY(!fs::exists(fs::path(d.row.jobDir) / "profiler-output" / "profiler-report.html"));
        QVERIFY(reader().frameworkEvents(d.row.id).empty());

        process::SpawnOptions o;
        o.argv = {STUDIO_PYTHON, "-c",
                  "import sys, numpy; a = numpy.load(sys.argv[1]); print(a.dtype, a.shape, "
                  "bool(numpy.isfinite(a).all()))",
                  file};
        o.env = process::currentEnvironment();
        process::Process p = process::Process::spawn(o);
        const std::string printed = readToEnd(p.stdoutFd());
        QVERIFY(p.wait().success());
        QCOMPARE(printed, std::string("float32 (10, 128) True\n"));
    }
};

QTEST_GUILESS_MAIN(TestDebuggerJobs)
#include "test_debugger_jobs.moc"
