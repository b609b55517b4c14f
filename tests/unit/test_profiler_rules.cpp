// The eleven built-in profiler rules on crafted event streams: each fires with SageMaker's
// default parameters where it should, stays quiet on a healthy job, and flips with overridden
// parameters; GPU rules are NotApplicable on CPU-only jobs; ProfilerReport's "<Rule>_<param>"
// values reach the rules. The streams and the driver are in profiler_rule_streams.*.
#include "tests/unit/profiler_rule_streams.h"

#include "tests/support/plain_test.h"

#include <cmath>
#include <map>
#include <string>
#include <vector>

using namespace studio;
using namespace studio::debugger;
using namespace studio::testing;

namespace {

// The rows of the rule table: a rule with parameters over a scenario, the status it must end in
// and its first finding's device ("" not checked).
struct RuleCase {
    std::string tag, rule, params, scenario, status, device;
};

std::vector<RuleCase> ruleCases() {
    std::vector<RuleCase> cases;
    const auto row = [&](const char* tag, const char* rule, const char* params,
                         const char* scenario, const char* status, const char* device = "") {
        cases.push_back({tag, rule, params, scenario, status, device});
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
    return cases;
}

// One row of the rule table: its status, criteria, details and findings.
void checkRuleCase(const RuleCase& c) {
    const Params given = parseParams(c.params);
    const Run r = runRule(c.rule, given, streamOf(c.scenario));

    REQUIRE(std::string(ruleStatusName(r.rule->status())) == c.status);
    const std::string criteria = r.rule->criteria();
    REQUIRE(!criteria.empty());
    for (const auto& [name, value] : given) // the condition names the values it used
        REQUIRE_MESSAGE(criteria.find(value) != std::string::npos, criteria);
    const nlohmann::json details = r.rule->details();
    REQUIRE(details.is_object());
    REQUIRE(!details.dump().empty());

    if (c.status == "IssuesFound") {
        REQUIRE(!r.findings.empty());
        REQUIRE(r.rule->fired() == static_cast<std::int64_t>(r.findings.size()));
        // At most one finding per evaluation: one per scan interval (60 s) of data and the last.
        REQUIRE_MESSAGE(static_cast<double>(r.findings.size()) <= r.duration / 60.0 + 2,
                        r.findings.size());
        const Finding& f = r.findings.front();
        REQUIRE(!f.message.empty());
        REQUIRE(!f.recommendation.empty());
        REQUIRE(f.criteria == criteria);
        REQUIRE(f.time >= kT0);
        if (!c.device.empty()) {
            REQUIRE(f.device == c.device);
            REQUIRE(f.node == 0);
        }
        REQUIRE(r.rule->statusMessage() == r.findings.back().message);
    } else {
        REQUIRE_MESSAGE(r.findings.empty(), (r.findings.empty() ? "" : r.findings.front().message));
        REQUIRE(r.rule->fired() == std::int64_t{0});
    }
    if (c.status == "NotApplicable")
        REQUIRE(!r.rule->statusMessage().empty());
    else
        REQUIRE(r.rule->datapoints() > 0);
}

} // namespace

TEST_CASE("rules") {
    for (const RuleCase& c : ruleCases()) {
        INFO("row: ", c.tag);
        checkRuleCase(c);
    }
}

TEST_CASE("gpuRulesNotApplicableOnCpuOnly") {
    for (const std::string& rule : kGpuRules) {
        // Even a rule that would fire at the first chance stays NotApplicable.
        const std::string eager =
            std::string("patience=1") +
            (rule == "BatchSize" || rule == "LowGPUUtilization" ? ",window=2" : "");
        for (const std::string& params : {std::string(), eager}) {
            INFO("row: ", rule, params.empty() ? "" : " eager");
            const Run r = runRule(rule, parseParams(params), streamOf("cpu_only"));
            REQUIRE(r.rule->status() == RuleStatus::NotApplicable);
            REQUIRE(r.findings.empty());
            REQUIRE(r.rule->statusMessage() ==
                    "no GPU utilization was recorded: the job ran on CPUs only");
        }
    }
}

TEST_CASE("overallSystemUsagePercentiles") {
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
    REQUIRE(r.rule->status() == RuleStatus::NoIssuesFound);
    REQUIRE(r.findings.empty());
    REQUIRE(r.rule->datapoints() == std::int64_t{200});
    const nlohmann::json d = r.rule->details();
    std::map<std::pair<int, std::string>, nlohmann::json> rows;
    for (const auto& row : d.at("usage"))
        rows[{row.at("node").get<int>(), row.at("metric").get<std::string>()}] = row;
    const auto cpu = rows.at({0, "CPU"});
    REQUIRE(cpu.at("unit").get<std::string>() == std::string("%"));
    REQUIRE(cpu.at("datapoints").get<int>() == 100);
    REQUIRE(cpu.at("p95").get<double>() == nearly(95.05));
    REQUIRE(cpu.at("p50").get<double>() == nearly(50.5));
    REQUIRE(cpu.at("max").get<double>() == nearly(100.0));
    REQUIRE(cpu.at("min").get<double>() == nearly(1.0));
    REQUIRE(rows.at({1, "CPU"}).at("p99").get<double>() == nearly(7.0));
    REQUIRE(rows.at({0, "GPU"}).at("max").get<double>() == nearly(20.0));
    REQUIRE(rows.at({0, "GPU"}).at("min").get<double>() == nearly(15.0));
    REQUIRE(rows.at({0, "GPU memory"}).at("p50").get<double>() == nearly(50.0));
    REQUIRE(rows.at({0, "Memory"}).at("p95").get<double>() == nearly(50.0));
    REQUIRE(rows.at({0, "Network"}).at("unit").get<std::string>() == std::string("bytes/s"));
    REQUIRE(rows.at({0, "Network"}).at("max").get<double>() == nearly(1500.0));
    REQUIRE(rows.at({0, "CPU per core"}).at("datapoints").get<int>() == 400);
    REQUIRE(rows.at({0, "I/O wait"}).at("p50").get<double>() == nearly(1.0));
}

TEST_CASE("overallFrameworkMetricsShares") {
    const Run r = runRule("OverallFrameworkMetrics", {}, frameworkStream());
    REQUIRE(r.rule->status() == RuleStatus::NoIssuesFound);
    const nlohmann::json d = r.rule->details();
    REQUIRE(d.at("steps").get<int>() == 520);
    // Every step splits 10 / 30 / 50 / 0 / 10 %.
    REQUIRE(std::round(d.at("phase_percent").at("forward").get<double>() * 1000) / 1000 ==
            nearly(30.0));
    REQUIRE(std::round(d.at("phase_percent").at("backward").get<double>() * 1000) / 1000 ==
            nearly(50.0));
    REQUIRE(std::round(d.at("forward_backward").at("ratio").get<double>() * 1000) / 1000 ==
            nearly(0.6));
    // TRAIN: 400 x 100 ms; EVAL: 120 x ~51 ms; the ranks' steps are back to back.
    REQUIRE(d.at("mode_percent").at("TRAIN").get<double>() > 80);
    REQUIRE(d.at("mode_percent").at("EVAL").get<double>() > 5);
    // Framework events: forward 500 ms, backward 1000 ms, comm 5 ms (0.3 %: dropped).
    const auto& top = d.at("top_events");
    REQUIRE(top.size() == std::size_t{2});
    REQUIRE(top[0].at("name").get<std::string>() == std::string("Linear-1.backward"));
    REQUIRE(top[0].at("calls").get<int>() == 50);
    REQUIRE(top[1].at("total_ms").get<double>() == nearly(500.0));
    REQUIRE(std::abs(top[0].at("percent").get<double>() - 100.0 * 1000 / 1505) < 1e-9);
    REQUIRE(d.at("framework_events").get<int>() == 150);
}

TEST_CASE("maxInitializationTimeWhileWaiting") {
    auto rule = makeBuiltinRule("MaxInitializationTime");
    JobFacts facts;
    facts.submitTime = kT0;
    rule->start(facts);
    rule->onEvent(at(kT0 + 2, 0, -1, wire::StatusEvent{"started", "", "h", 4, 0, -1, -1, {}}));
    rule->onTick(kT0 + 19 * 60);
    REQUIRE(rule->status() == RuleStatus::InProgress);
    rule->onTick(kT0 + 21 * 60);
    REQUIRE(rule->status() == RuleStatus::IssuesFound);
    rule->onTick(kT0 + 22 * 60); // one finding, not one per tick
    rule->onEvent(at(kT0 + 23 * 60, 0, 0, step(0, 100)));
    rule->finish(kT0 + 24 * 60);
    REQUIRE(rule->takeNewFindings().size() == std::size_t{1});
    const nlohmann::json d = rule->details();
    REQUIRE(std::round(d.at("initialization_seconds").get<double>() * 10) / 10 ==
            nearly(23 * 60 - 0.1));

    // A job that ends quickly before its first step has nothing to judge.
    auto early = makeBuiltinRule("MaxInitializationTime");
    early->start(facts);
    early->onEvent(at(kT0 + 2, 0, -1, wire::StatusEvent{"started", "", "h", 4, 0, -1, -1, {}}));
    early->finish(kT0 + 30);
    REQUIRE(early->status() == RuleStatus::NotApplicable);
}

TEST_CASE("stepOutlierDetails") {
    const Run r = runRule("StepOutlier", {}, streamOf("step_outliers"));
    const nlohmann::json d = r.rule->details();
    REQUIRE(d.at("ranks").size() == std::size_t{3}); // rank 0 TRAIN, rank 0 EVAL, rank 1 TRAIN
    for (const auto& row : d.at("ranks")) {
        if (row.at("phase") == "EVAL") {
            REQUIRE(row.at("outliers").get<int>() == 0);
            continue;
        }
        REQUIRE(row.at("steps").get<int>() == 200);
        REQUIRE(row.at("outliers").get<int>() == 15);
        REQUIRE(row.at("outlier_steps")[0].get<int>() == 5);
        REQUIRE(row.at("max_ms").get<double>() == nearly(500.0));
    }
    REQUIRE(r.findings.front().step == std::int64_t{5});
}

TEST_CASE("badParametersAreRejected") {
    const struct {
        const char* row;
        std::string rule, params;
    } rows[] = {
        {"mode", "StepOutlier", "mode=PREDICTING"},
        {"window 0", "LowGPUUtilization", "window=0"},
        {"patience -1", "CPUBottleneck", "patience=-1"},
        {"scan 0", "BatchSize", "scan_interval_us=0"},
        {"not a number", "Dataloader", "min_threshold=many"},
    };
    for (const auto& row : rows) {
        INFO("row: ", row.row);
        REQUIRE_THROWS_AS(makeBuiltinRule(row.rule, parseParams(row.params)), RuleConfigError);
    }
}

TEST_CASE("profilerReportParameters") {
    const auto runSession = [](const Params& reportParams) {
        spec::JobSpec spec;
        spec.rules.push_back(spec::RuleConfig{"ProfilerReport", reportParams, {}});
        JobFacts facts;
        facts.submitTime = kT0;
        auto session = std::make_unique<DebuggerSession>(spec, facts, nullptr, 0);
        const Stream& s = streamOf("steps_spread");
        for (const auto& e : s)
            session->onEvent(e);
        session->finish(s.back().t + 1);
        return session;
    };
    const auto plain = runSession({});
    REQUIRE(plain->rules().size() == std::size_t{11});
    REQUIRE(ruleNamed(*plain, "StepOutlier")->status() == RuleStatus::NoIssuesFound);

    const auto tuned = runSession({{"StepOutlier_stddev", "1"}, {"Dataloader_patience", "3"}});
    const Rule* outlier = ruleNamed(*tuned, "StepOutlier");
    REQUIRE(outlier);
    REQUIRE(outlier->status() == RuleStatus::IssuesFound);
    REQUIRE(outlier->criteria().find("mean + 1 x") != std::string::npos);
    REQUIRE(ruleNamed(*tuned, "Dataloader")->details().at("patience").get<double>() == nearly(3.0));
    // GPU rules saw no GPU and the other rules are unaffected.
    for (const auto& name : kGpuRules)
        REQUIRE(ruleNamed(*tuned, name)->status() == RuleStatus::NotApplicable);
    REQUIRE(ruleNamed(*tuned, "MaxInitializationTime")->status() == RuleStatus::NoIssuesFound);
}
