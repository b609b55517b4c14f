// The eleven built-in profiler rules on crafted event streams: each fires with SageMaker's
// default parameters where it should, stays quiet on a healthy job, and flips with overridden
// parameters; GPU rules are NotApplicable on CPU-only jobs; ProfilerReport's "<Rule>_<param>"
// values reach the rules.
#include "engine/debugger/debugger_session.h"
#include "engine/debugger/rule_registry.h"

#include <QtTest>

#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

using namespace studio;
using namespace studio::debugger;

namespace {

using Stream = std::vector<wire::Event>;
using Params = std::map<std::string, std::string>;

constexpr double kT0 = 1'700'000'000.0; // the streams' first timestamp
constexpr double kInterval = 0.5;       // the launcher's default monitor interval
constexpr int kLong = 1200;             // snapshots: more than the default patience (1000)
constexpr int kShort = 300;             // fewer than the default patience

wire::Event at(double t, int node, int rank, wire::Payload p) {
    return wire::Event{t, node, rank, std::move(p)};
}

// One system snapshot of a node, as the launcher sends it.
struct Snapshot {
    double cpu = 50;
    std::vector<double> cores = {50, 50, 50, 50};
    double iowait = 1;
    double memory = 40;
    std::vector<double> gpuUtil;   // empty: a CPU-only node
    std::vector<double> gpuMemory; // one per GPU
};

void addSnapshot(Stream& s, double t, int node, const Snapshot& snap) {
    const auto sys = [&](const std::string& device, const std::string& metric, double v) {
        s.push_back(at(t, node, -1, wire::SysEvent{device, metric, v}));
    };
    sys("cpu", "util", snap.cpu);
    sys("cpu", "iowait", snap.iowait);
    for (std::size_t i = 0; i < snap.cores.size(); ++i)
        sys("cpu" + std::to_string(i), "util", snap.cores[i]);
    sys("mem", "used", snap.memory);
    sys("net", "rx", 1000);
    sys("net", "tx", 500);
    sys("disk", "read", 2000);
    sys("disk", "write", 0);
    for (std::size_t i = 0; i < snap.gpuUtil.size(); ++i) {
        sys("gpu" + std::to_string(i), "util", snap.gpuUtil[i]);
        sys("gpu" + std::to_string(i), "mem", snap.gpuMemory[i]);
    }
}

// `count` snapshots of node 0, each made by `make(i)`.
Stream systemStream(int count, const std::function<Snapshot(int)>& make) {
    Stream s;
    s.push_back(at(kT0, 0, -1, wire::StatusEvent{"started", "", "localhost", 4, 2, -1, -1, {}}));
    for (int i = 0; i < count; ++i)
        addSnapshot(s, kT0 + 1 + i * kInterval, 0, make(i));
    return s;
}

Snapshot busyGpus(int i) {
    // Healthy: both GPUs busy with identical patterns, steady memory, CPU below saturation.
    Snapshot s;
    const double u = 85 + i % 10;
    s.cpu = 70 + i % 15;
    s.cores = {70.0 + i % 15, 75, 80, 72};
    s.gpuUtil = {u, u};
    s.gpuMemory = {60.0 + i % 3, 61};
    return s;
}

Snapshot idleGpus(int i) {
    Snapshot s;
    s.cpu = 30 + i % 5;
    s.cores = {30, 32, 28, 31};
    s.gpuUtil = {20.0 + i % 10, 22.0 + i % 8};
    s.gpuMemory = {20, 21};
    return s;
}

Snapshot fluctuatingGpus(int i) {
    Snapshot s = busyGpus(i);
    const double u = i % 4 == 0 ? 0 : 95;
    s.gpuUtil = {u, u};
    return s;
}

// The GPUs starve while one core is saturated (every snapshot for cpu_bound; 40 % of them for
// cpu_partly_bound).
Snapshot cpuBound(int i, int every) {
    Snapshot s = busyGpus(i);
    if (i % every < (every == 1 ? 1 : 2)) {
        s.cores = {98, 40, 40, 40};
        s.gpuUtil = {5, 4};
    }
    return s;
}

Snapshot ioBound(int i) {
    Snapshot s = busyGpus(i);
    s.iowait = 60;
    s.gpuUtil = {3, 5};
    return s;
}

// GPU memory steady at 10 %, then a jump by 30 points at snapshot `jumpAt`.
Snapshot memoryJump(int i, int jumpAt) {
    Snapshot s = busyGpus(i);
    const double m = i >= jumpAt ? 40 : 10;
    s.gpuMemory = {m, 11};
    return s;
}

Snapshot unbalanced(int i) {
    Snapshot s = busyGpus(i);
    s.gpuUtil = {90.0 + i % 5, 10.0 + i % 5};
    return s;
}

Snapshot singleGpu(int i) {
    Snapshot s = busyGpus(i);
    s.gpuUtil = {s.gpuUtil[0]};
    s.gpuMemory = {s.gpuMemory[0]};
    return s;
}

Snapshot cpuOnly(int i) {
    Snapshot s;
    s.cpu = 95; // saturated CPU and I/O: nothing for a GPU rule to blame without GPUs
    s.cores = {99, 97, 95, 96};
    s.iowait = 70 + i % 3;
    return s;
}

wire::StepEvent step(std::int64_t n, double ms, wire::Phase phase = wire::Phase::Train) {
    wire::StepEvent s;
    s.step = n;
    s.phase = phase;
    s.dataMs = ms * 0.1;
    s.forwardMs = ms * 0.3;
    s.backwardMs = ms * 0.5;
    s.optimizerMs = ms * 0.1;
    return s;
}

// 200 TRAIN steps per rank (2 ranks) and 120 EVAL steps on rank 0; `duration(i)` in ms.
Stream stepStream(const std::function<double(int)>& duration) {
    Stream s;
    double t = kT0 + 30;
    for (int i = 0; i < 200; ++i) {
        const double ms = duration(i);
        t += ms / 1000.0;
        for (int rank = 0; rank < 2; ++rank)
            s.push_back(at(t, 0, rank, step(i, ms)));
    }
    for (int i = 0; i < 120; ++i) {
        t += 0.05;
        s.push_back(at(t, 0, 0, step(i, 50 + i % 3, wire::Phase::Eval)));
    }
    return s;
}

// Steps of 0.25 s for `seconds`, each rank loading one batch per step from `pids` processes.
// Cores come from the launcher's "started" event.
Stream dataloaderStream(int pids, double seconds, bool withEvents = true) {
    Stream s;
    s.push_back(at(kT0, 0, -1, wire::StatusEvent{"started", "", "localhost", 8, 0, -1, -1, {}}));
    std::int64_t n = 0;
    for (double t = kT0 + 1; t < kT0 + 1 + seconds; t += 0.25, ++n) {
        for (int p = 0; p < pids && withEvents; ++p) {
            wire::ProfileEvent e;
            e.name = "DataLoaderIter.__next__";
            e.category = "dataloader";
            e.step = n;
            e.start = t + 0.01 * p;
            e.durationMs = 20 + p;
            e.pid = 1000 + p;
            s.push_back(at(t + 0.1, 0, p % 2, e));
        }
        s.push_back(at(t + 0.25, 0, 0, step(n, 250)));
    }
    return s;
}

// The first step `delay` seconds after submission (kT0), then 20 steps.
Stream initStream(double delay) {
    Stream s;
    s.push_back(
        at(kT0 + 1, 0, -1, wire::StatusEvent{"started", "", "localhost", 4, 0, -1, -1, {}}));
    for (int i = 0; i < 20; ++i)
        s.push_back(at(kT0 + delay + 0.1 * (i + 1), 0, 0, step(i, 100)));
    return s;
}

Stream frameworkStream() {
    Stream s = stepStream([](int) { return 100.0; });
    const std::vector<std::pair<std::string, std::string>> names = {
        {"Linear-1", "forward"}, {"Linear-1.backward", "backward"}, {"bucket0", "comm"}};
    for (int i = 0; i < 50; ++i) {
        for (const auto& [name, category] : names) {
            wire::ProfileEvent e;
            e.name = name;
            e.category = category;
            e.step = i;
            e.start = kT0 + 40 + i;
            e.durationMs = category == "forward" ? 10 : category == "backward" ? 20 : 0.1;
            e.pid = 42;
            s.push_back(at(e.start + 0.1, 0, 0, e));
        }
    }
    return s;
}

const std::map<QString, std::function<Stream()>>& scenarios() {
    static const std::map<QString, std::function<Stream()>> all = {
        {"busy",
         [] {
             return systemStream(kLong, busyGpus);
         }},
        {"idle",
         [] {
             return systemStream(kLong, idleGpus);
         }},
        {"idle_short",
         [] {
             return systemStream(kShort, idleGpus);
         }},
        {"fluctuating",
         [] {
             return systemStream(kLong, fluctuatingGpus);
         }},
        {"cpu_bound",
         [] {
             return systemStream(kLong, [](int i) { return cpuBound(i, 1); });
         }},
        {"cpu_bound_short",
         [] {
             return systemStream(kShort, [](int i) { return cpuBound(i, 1); });
         }},
        {"cpu_partly_bound",
         [] {
             return systemStream(kLong, [](int i) { return cpuBound(i, 5); });
         }},
        {"io_bound",
         [] {
             return systemStream(kLong, ioBound);
         }},
        {"io_bound_short",
         [] {
             return systemStream(kShort, ioBound);
         }},
        {"memory_jump",
         [] {
             return systemStream(kLong, [](int i) { return memoryJump(i, 1100); });
         }},
        {"memory_jump_short",
         [] {
             return systemStream(kShort, [](int i) { return memoryJump(i, 250); });
         }},
        {"unbalanced",
         [] {
             return systemStream(kLong, unbalanced);
         }},
        {"unbalanced_short",
         [] {
             return systemStream(kShort, unbalanced);
         }},
        {"single_gpu",
         [] {
             return systemStream(kLong, singleGpu);
         }},
        {"cpu_only",
         [] {
             return systemStream(kLong, cpuOnly);
         }},
        // 15 of 200 steps take five times as long.
        {"step_outliers",
         [] {
             return stepStream([](int i) { return i % 13 == 5 ? 500.0 : 100.0 + i % 3; });
         }},
        {"steps_even",
         [] {
             return stepStream([](int i) { return 100.0 + i % 5; });
         }},
        {"steps_spread",
         [] {
             return stepStream([](int i) { return 80.0 + i % 41; });
         }},
        {"loaders_2",
         [] {
             return dataloaderStream(2, 60);
         }},
        {"loaders_6",
         [] {
             return dataloaderStream(6, 60);
         }},
        {"loaders_20",
         [] {
             return dataloaderStream(20, 60);
         }},
        {"loaders_none",
         [] {
             return dataloaderStream(2, 60, false);
         }},
        {"init_25min",
         [] {
             return initStream(25 * 60);
         }},
        {"init_60s",
         [] {
             return initStream(60);
         }},
        {"framework", frameworkStream},
    };
    return all;
}

// Streams are built once per scenario: several rows share them.
const Stream& streamOf(const QString& name) {
    static std::map<QString, Stream> cache;
    auto it = cache.find(name);
    if (it == cache.end())
        it = cache.emplace(name, scenarios().at(name)()).first;
    return it->second;
}

Params parseParams(const QString& text) {
    Params out;
    for (const QString& item : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const auto kv = item.split(QLatin1Char('='));
        out[kv.value(0).trimmed().toStdString()] = kv.value(1).trimmed().toStdString();
    }
    return out;
}

struct Run {
    std::unique_ptr<Rule> rule;
    std::vector<Finding> findings;
    double duration = 0;
};

Run runRule(const std::string& name, const Params& params, const Stream& stream) {
    Run r;
    r.rule = makeBuiltinRule(name, params);
    JobFacts facts;
    facts.submitTime = kT0;
    r.rule->start(facts);
    double last = kT0;
    for (const auto& e : stream) {
        r.rule->onEvent(e);
        last = std::max(last, e.t);
        for (auto& f : r.rule->takeNewFindings())
            r.findings.push_back(std::move(f));
    }
    r.rule->finish(last + 1);
    for (auto& f : r.rule->takeNewFindings())
        r.findings.push_back(std::move(f));
    r.duration = last - kT0;
    return r;
}

const Rule* ruleNamed(const DebuggerSession& session, const std::string& name) {
    for (const Rule* r : session.rules())
        if (r->name() == name)
            return r;
    return nullptr;
}

const std::vector<std::string> kGpuRules = {"LowGPUUtilization", "CPUBottleneck", "IOBottleneck",
                                            "GPUMemoryIncrease", "BatchSize",     "LoadBalancing"};

} // namespace

class TestProfilerRules : public QObject {
    Q_OBJECT

private slots:
    void rules_data();
    void rules();
    void gpuRulesNotApplicableOnCpuOnly_data();
    void gpuRulesNotApplicableOnCpuOnly();
    void overallSystemUsagePercentiles();
    void overallFrameworkMetricsShares();
    void maxInitializationTimeWhileWaiting();
    void stepOutlierDetails();
    void badParametersAreRejected_data();
    void badParametersAreRejected();
    void profilerReportParameters();
};

void TestProfilerRules::rules_data() {
    QTest::addColumn<QString>("rule");
    QTest::addColumn<QString>("params");
    QTest::addColumn<QString>("scenario");
    QTest::addColumn<QString>("status");
    QTest::addColumn<QString>("device"); // of the first finding; "" not checked

    const auto row = [](const char* tag, const char* rule, const char* params, const char* scenario,
                        const char* status, const char* device = "") {
        QTest::newRow(tag) << QString::fromLatin1(rule) << QString::fromLatin1(params)
                           << QString::fromLatin1(scenario) << QString::fromLatin1(status)
                           << QString::fromLatin1(device);
    };
    const char* fires = "IssuesFound";
    const char* quiet = "NoIssuesFound";
    const char* na = "NotApplicable";

    row("LowGPU under-used", "LowGPUUtilization", "", "idle", fires, "gpu0");
    row("LowGPU fluctuating", "LowGPUUtilization", "", "fluctuating", fires, "gpu0");
    row("LowGPU healthy", "LowGPUUtilization", "", "busy", quiet);
    row("LowGPU short: patience", "LowGPUUtilization", "", "idle_short", quiet);
    row("LowGPU short, patience 100", "LowGPUUtilization", "patience=100,window=100", "idle_short",
        fires, "gpu0");
    row("LowGPU idle, threshold_p95 20", "LowGPUUtilization", "threshold_p95=20", "idle", quiet);

    row("CPUBottleneck", "CPUBottleneck", "", "cpu_bound", fires, "cpu");
    row("CPUBottleneck healthy", "CPUBottleneck", "", "busy", quiet);
    row("CPUBottleneck 40%", "CPUBottleneck", "", "cpu_partly_bound", quiet);
    row("CPUBottleneck 40%, threshold 30", "CPUBottleneck", "threshold=30", "cpu_partly_bound",
        fires, "cpu");
    row("CPUBottleneck short", "CPUBottleneck", "", "cpu_bound_short", quiet);
    row("CPUBottleneck short, patience 100", "CPUBottleneck", "patience=100", "cpu_bound_short",
        fires, "cpu");
    row("CPUBottleneck, cpu_threshold 99", "CPUBottleneck", "cpu_threshold=99", "cpu_bound", quiet);

    row("IOBottleneck", "IOBottleneck", "", "io_bound", fires, "disk");
    row("IOBottleneck healthy", "IOBottleneck", "", "busy", quiet);
    row("IOBottleneck on CPU bottleneck", "IOBottleneck", "", "cpu_bound", quiet);
    row("IOBottleneck short", "IOBottleneck", "", "io_bound_short", quiet);
    row("IOBottleneck short, patience 100", "IOBottleneck", "patience=100", "io_bound_short", fires,
        "disk");
    row("IOBottleneck, io_threshold 65", "IOBottleneck", "io_threshold=65", "io_bound", quiet);

    row("GPUMemoryIncrease", "GPUMemoryIncrease", "", "memory_jump", fires, "gpu0");
    row("GPUMemoryIncrease healthy", "GPUMemoryIncrease", "", "busy", quiet);
    row("GPUMemoryIncrease, increase 10", "GPUMemoryIncrease", "increase=10", "memory_jump", quiet);
    row("GPUMemoryIncrease short", "GPUMemoryIncrease", "", "memory_jump_short", quiet);
    row("GPUMemoryIncrease short, patience 100", "GPUMemoryIncrease", "patience=100",
        "memory_jump_short", fires, "gpu0");

    row("BatchSize", "BatchSize", "", "idle", fires, "gpu0");
    row("BatchSize healthy", "BatchSize", "", "busy", quiet);
    row("BatchSize, gpu_threshold_p95 15", "BatchSize", "gpu_threshold_p95=15", "idle", quiet);
    row("BatchSize short", "BatchSize", "", "idle_short", quiet);
    row("BatchSize short, patience 100", "BatchSize", "patience=100,window=100", "idle_short",
        fires, "gpu0");

    row("LoadBalancing", "LoadBalancing", "", "unbalanced", fires, "gpu0,gpu1");
    row("LoadBalancing healthy", "LoadBalancing", "", "busy", quiet);
    row("LoadBalancing, threshold 0.9", "LoadBalancing", "threshold=0.9", "unbalanced", quiet);
    row("LoadBalancing short", "LoadBalancing", "", "unbalanced_short", quiet);
    row("LoadBalancing short, patience 100", "LoadBalancing", "patience=100", "unbalanced_short",
        fires, "gpu0,gpu1");
    row("LoadBalancing one GPU", "LoadBalancing", "patience=10", "single_gpu", na);

    row("OverallSystemUsage busy", "OverallSystemUsage", "", "busy", quiet);
    row("OverallSystemUsage cpu_bound", "OverallSystemUsage", "", "cpu_bound", quiet);
    row("OverallSystemUsage CPU only", "OverallSystemUsage", "", "cpu_only", quiet);
    row("OverallSystemUsage no samples", "OverallSystemUsage", "", "step_outliers", na);

    row("StepOutlier", "StepOutlier", "", "step_outliers", fires, "rank 0");
    row("StepOutlier even", "StepOutlier", "", "steps_even", quiet);
    row("StepOutlier spread", "StepOutlier", "", "steps_spread", quiet);
    row("StepOutlier spread, stddev 1", "StepOutlier", "stddev=1", "steps_spread", fires, "rank 0");
    row("StepOutlier, n_outliers 20", "StepOutlier", "n_outliers=20", "step_outliers", quiet);
    row("StepOutlier, mode EVAL", "StepOutlier", "mode=EVAL", "step_outliers", quiet);
    row("StepOutlier, mode TRAIN", "StepOutlier", "mode=TRAIN", "step_outliers", fires, "rank 0");
    row("StepOutlier no steps", "StepOutlier", "", "busy", na);

    row("Dataloader too few", "Dataloader", "", "loaders_2", fires, "cpu");
    row("Dataloader fits", "Dataloader", "", "loaders_6", quiet);
    row("Dataloader too many", "Dataloader", "", "loaders_20", fires, "cpu");
    row("Dataloader, min_threshold 20", "Dataloader", "min_threshold=20", "loaders_2", quiet);
    row("Dataloader, max_threshold 300", "Dataloader", "max_threshold=300", "loaders_20", quiet);
    row("Dataloader, patience 100", "Dataloader", "patience=100", "loaders_2", quiet);
    row("Dataloader without events", "Dataloader", "", "loaders_none", na);

    row("MaxInitializationTime", "MaxInitializationTime", "", "init_25min", fires);
    row("MaxInitializationTime quick", "MaxInitializationTime", "", "init_60s", quiet);
    row("MaxInitializationTime, threshold 30", "MaxInitializationTime", "threshold=30",
        "init_25min", quiet);
    row("MaxInitializationTime, threshold 0.5", "MaxInitializationTime", "threshold=0.5",
        "init_60s", fires);

    row("OverallFrameworkMetrics", "OverallFrameworkMetrics", "", "framework", quiet);
    row("OverallFrameworkMetrics outliers", "OverallFrameworkMetrics", "", "step_outliers", quiet);
    row("OverallFrameworkMetrics no data", "OverallFrameworkMetrics", "", "busy", na);
}

void TestProfilerRules::rules() {
    QFETCH(QString, rule);
    QFETCH(QString, params);
    QFETCH(QString, scenario);
    QFETCH(QString, status);
    QFETCH(QString, device);

    const Params given = parseParams(params);
    const Run r = runRule(rule.toStdString(), given, streamOf(scenario));

    QCOMPARE(QString::fromLatin1(ruleStatusName(r.rule->status())), status);
    const std::string criteria = r.rule->criteria();
    QVERIFY(!criteria.empty());
    for (const auto& [name, value] : given) // the condition names the values it used
        QVERIFY2(criteria.find(value) != std::string::npos, criteria.c_str());
    const nlohmann::json details = r.rule->details();
    QVERIFY(details.is_object());
    QVERIFY(!details.dump().empty());

    if (status == QLatin1String("IssuesFound")) {
        QVERIFY(!r.findings.empty());
        QCOMPARE(r.rule->fired(), static_cast<std::int64_t>(r.findings.size()));
        // At most one finding per evaluation: one per scan interval (60 s) of data and the last.
        QVERIFY2(static_cast<double>(r.findings.size()) <= r.duration / 60.0 + 2,
                 std::to_string(r.findings.size()).c_str());
        const Finding& f = r.findings.front();
        QVERIFY(!f.message.empty());
        QVERIFY(!f.recommendation.empty());
        QCOMPARE(f.criteria, criteria);
        QVERIFY(f.time >= kT0);
        if (!device.isEmpty()) {
            QCOMPARE(QString::fromStdString(f.device), device);
            QCOMPARE(f.node, 0);
        }
        QCOMPARE(QString::fromStdString(r.rule->statusMessage()),
                 QString::fromStdString(r.findings.back().message));
    } else {
        QVERIFY2(r.findings.empty(), r.findings.empty() ? "" : r.findings.front().message.c_str());
        QCOMPARE(r.rule->fired(), std::int64_t{0});
    }
    if (status == QLatin1String("NotApplicable"))
        QVERIFY(!r.rule->statusMessage().empty());
    else
        QVERIFY(r.rule->datapoints() > 0);
}

void TestProfilerRules::gpuRulesNotApplicableOnCpuOnly_data() {
    QTest::addColumn<QString>("rule");
    QTest::addColumn<QString>("params");
    for (const auto& name : kGpuRules) {
        const QString rule = QString::fromStdString(name);
        QTest::newRow(name.c_str()) << rule << QString();
        // Even a rule that would fire at the first chance stays NotApplicable.
        QTest::newRow((name + " eager").c_str())
            << rule
            << QStringLiteral("patience=1") + (name == "BatchSize" || name == "LowGPUUtilization"
                                                   ? QStringLiteral(",window=2")
                                                   : QString());
    }
}

void TestProfilerRules::gpuRulesNotApplicableOnCpuOnly() {
    QFETCH(QString, rule);
    QFETCH(QString, params);
    const Run r =
        runRule(rule.toStdString(), parseParams(params), streamOf(QStringLiteral("cpu_only")));
    QCOMPARE(r.rule->status(), RuleStatus::NotApplicable);
    QVERIFY(r.findings.empty());
    QCOMPARE(QString::fromStdString(r.rule->statusMessage()),
             QStringLiteral("no GPU utilization was recorded: the job ran on CPUs only"));
}

void TestProfilerRules::overallSystemUsagePercentiles() {
    // CPU totals 1, 2, ..., 100 on node 0; NumPy's p95 of them is 1 + 0.95 * 99 = 95.05.
    Stream s;
    for (int i = 0; i < 100; ++i) {
        Snapshot snap;
        snap.cpu = i + 1;
        snap.memory = 50;
        snap.gpuUtil = {10.0 * (i % 2), 30}; // the node's GPU figure is the mean: 15 or 20
        snap.gpuMemory = {40, 60};
        addSnapshot(s, kT0 + i * kInterval, 0, snap);
        snap.cpu = 7;
        addSnapshot(s, kT0 + i * kInterval + 0.003, 1, snap);
    }
    const Run r = runRule("OverallSystemUsage", {}, s);
    QCOMPARE(r.rule->status(), RuleStatus::NoIssuesFound);
    QVERIFY(r.findings.empty());
    QCOMPARE(r.rule->datapoints(), std::int64_t{200});
    const nlohmann::json d = r.rule->details();
    std::map<std::pair<int, std::string>, nlohmann::json> rows;
    for (const auto& row : d.at("usage"))
        rows[{row.at("node").get<int>(), row.at("metric").get<std::string>()}] = row;
    const auto cpu = rows.at({0, "CPU"});
    QCOMPARE(cpu.at("unit").get<std::string>(), std::string("%"));
    QCOMPARE(cpu.at("datapoints").get<int>(), 100);
    QCOMPARE(cpu.at("p95").get<double>(), 95.05);
    QCOMPARE(cpu.at("p50").get<double>(), 50.5);
    QCOMPARE(cpu.at("max").get<double>(), 100.0);
    QCOMPARE(cpu.at("min").get<double>(), 1.0);
    QCOMPARE(rows.at({1, "CPU"}).at("p99").get<double>(), 7.0);
    QCOMPARE(rows.at({0, "GPU"}).at("max").get<double>(), 20.0);
    QCOMPARE(rows.at({0, "GPU"}).at("min").get<double>(), 15.0);
    QCOMPARE(rows.at({0, "GPU memory"}).at("p50").get<double>(), 50.0);
    QCOMPARE(rows.at({0, "Memory"}).at("p95").get<double>(), 50.0);
    QCOMPARE(rows.at({0, "Network"}).at("unit").get<std::string>(), std::string("bytes/s"));
    QCOMPARE(rows.at({0, "Network"}).at("max").get<double>(), 1500.0);
    QCOMPARE(rows.at({0, "CPU per core"}).at("datapoints").get<int>(), 400);
    QCOMPARE(rows.at({0, "I/O wait"}).at("p50").get<double>(), 1.0);
}

void TestProfilerRules::overallFrameworkMetricsShares() {
    const Run r = runRule("OverallFrameworkMetrics", {}, frameworkStream());
    QCOMPARE(r.rule->status(), RuleStatus::NoIssuesFound);
    const nlohmann::json d = r.rule->details();
    QCOMPARE(d.at("steps").get<int>(), 520);
    // Every step splits 10 / 30 / 50 / 0 / 10 %.
    QCOMPARE(std::round(d.at("phase_percent").at("forward").get<double>() * 1000) / 1000, 30.0);
    QCOMPARE(std::round(d.at("phase_percent").at("backward").get<double>() * 1000) / 1000, 50.0);
    QCOMPARE(std::round(d.at("forward_backward").at("ratio").get<double>() * 1000) / 1000, 0.6);
    // TRAIN: 400 x 100 ms; EVAL: 120 x ~51 ms; the ranks' steps are back to back.
    QVERIFY(d.at("mode_percent").at("TRAIN").get<double>() > 80);
    QVERIFY(d.at("mode_percent").at("EVAL").get<double>() > 5);
    // Framework events: forward 500 ms, backward 1000 ms, comm 5 ms (0.3 %: dropped).
    const auto& top = d.at("top_events");
    QCOMPARE(top.size(), std::size_t{2});
    QCOMPARE(top[0].at("name").get<std::string>(), std::string("Linear-1.backward"));
    QCOMPARE(top[0].at("calls").get<int>(), 50);
    QCOMPARE(top[1].at("total_ms").get<double>(), 500.0);
    QVERIFY(std::abs(top[0].at("percent").get<double>() - 100.0 * 1000 / 1505) < 1e-9);
    QCOMPARE(d.at("framework_events").get<int>(), 150);
}

void TestProfilerRules::maxInitializationTimeWhileWaiting() {
    auto rule = makeBuiltinRule("MaxInitializationTime");
    JobFacts facts;
    facts.submitTime = kT0;
    rule->start(facts);
    rule->onEvent(at(kT0 + 2, 0, -1, wire::StatusEvent{"started", "", "h", 4, 0, -1, -1, {}}));
    rule->onTick(kT0 + 19 * 60);
    QCOMPARE(rule->status(), RuleStatus::InProgress);
    rule->onTick(kT0 + 21 * 60);
    QCOMPARE(rule->status(), RuleStatus::IssuesFound);
    rule->onTick(kT0 + 22 * 60); // one finding, not one per tick
    rule->onEvent(at(kT0 + 23 * 60, 0, 0, step(0, 100)));
    rule->finish(kT0 + 24 * 60);
    QCOMPARE(rule->takeNewFindings().size(), std::size_t{1});
    const nlohmann::json d = rule->details();
    QCOMPARE(std::round(d.at("initialization_seconds").get<double>() * 10) / 10, 23 * 60 - 0.1);

    // A job that ends quickly before its first step has nothing to judge.
    auto early = makeBuiltinRule("MaxInitializationTime");
    early->start(facts);
    early->onEvent(at(kT0 + 2, 0, -1, wire::StatusEvent{"started", "", "h", 4, 0, -1, -1, {}}));
    early->finish(kT0 + 30);
    QCOMPARE(early->status(), RuleStatus::NotApplicable);
}

void TestProfilerRules::stepOutlierDetails() {
    const Run r = runRule("StepOutlier", {}, streamOf(QStringLiteral("step_outliers")));
    const nlohmann::json d = r.rule->details();
    QCOMPARE(d.at("ranks").size(), std::size_t{3}); // rank 0 TRAIN, rank 0 EVAL, rank 1 TRAIN
    for (const auto& row : d.at("ranks")) {
        if (row.at("phase") == "EVAL") {
            QCOMPARE(row.at("outliers").get<int>(), 0);
            continue;
        }
        QCOMPARE(row.at("steps").get<int>(), 200);
        QCOMPARE(row.at("outliers").get<int>(), 15);
        QCOMPARE(row.at("outlier_steps")[0].get<int>(), 5);
        QCOMPARE(row.at("max_ms").get<double>(), 500.0);
    }
    QCOMPARE(r.findings.front().step, std::int64_t{5});
}

void TestProfilerRules::badParametersAreRejected_data() {
    QTest::addColumn<QString>("rule");
    QTest::addColumn<QString>("params");
    QTest::newRow("mode") << QStringLiteral("StepOutlier") << QStringLiteral("mode=PREDICTING");
    QTest::newRow("window 0") << QStringLiteral("LowGPUUtilization") << QStringLiteral("window=0");
    QTest::newRow("patience -1") << QStringLiteral("CPUBottleneck")
                                 << QStringLiteral("patience=-1");
    QTest::newRow("scan 0") << QStringLiteral("BatchSize") << QStringLiteral("scan_interval_us=0");
    QTest::newRow("not a number") << QStringLiteral("Dataloader")
                                  << QStringLiteral("min_threshold=many");
}

void TestProfilerRules::badParametersAreRejected() {
    QFETCH(QString, rule);
    QFETCH(QString, params);
    QVERIFY_THROWS_EXCEPTION(RuleConfigError,
                             makeBuiltinRule(rule.toStdString(), parseParams(params)));
}

void TestProfilerRules::profilerReportParameters() {
    const auto runSession = [](const Params& reportParams) {
        spec::JobSpec spec;
        spec.rules.push_back(spec::RuleConfig{"ProfilerReport", reportParams, {}});
        JobFacts facts;
        facts.submitTime = kT0;
        auto session = std::make_unique<DebuggerSession>(spec, facts, nullptr, 0);
        const Stream& s = streamOf(QStringLiteral("steps_spread"));
        for (const auto& e : s)
            session->onEvent(e);
        session->finish(s.back().t + 1);
        return session;
    };
    const auto plain = runSession({});
    QCOMPARE(plain->rules().size(), std::size_t{11});
    QCOMPARE(ruleNamed(*plain, "StepOutlier")->status(), RuleStatus::NoIssuesFound);

    const auto tuned = runSession({{"StepOutlier_stddev", "1"}, {"Dataloader_patience", "3"}});
    const Rule* outlier = ruleNamed(*tuned, "StepOutlier");
    QVERIFY(outlier);
    QCOMPARE(outlier->status(), RuleStatus::IssuesFound);
    QVERIFY(outlier->criteria().find("mean + 1 x") != std::string::npos);
    QCOMPARE(ruleNamed(*tuned, "Dataloader")->details().at("patience").get<double>(), 3.0);
    // GPU rules saw no GPU and the other rules are unaffected.
    for (const auto& name : kGpuRules)
        QCOMPARE(ruleNamed(*tuned, name)->status(), RuleStatus::NotApplicable);
    QCOMPARE(ruleNamed(*tuned, "MaxInitializationTime")->status(), RuleStatus::NoIssuesFound);
}

QTEST_GUILESS_MAIN(TestProfilerRules)
#include "test_profiler_rules.moc"
