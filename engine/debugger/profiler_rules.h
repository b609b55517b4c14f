// The eleven built-in Debugger profiler rules (SageMaker's, after smdebug's
// profiler/analysis/rules): the pieces profiler_rules*.cpp share, and the keys of each rule's
// details() that the profiler report shows. Not thread-safe, like every Rule.
//
// details() keys (every rule also lists its parameters under their SageMaker names):
// - LowGPUUtilization: violations, evaluations, gpus[] {node, gpu, datapoints, max, p95_window,
//   p5_window, p25, p50, p75, p95, lower, upper, issue ("under-used" | "fluctuating" | "" |
//   "waiting": fewer than patience samples)}.
// - CPUBottleneck / IOBottleneck: datapoints (system snapshots), bottlenecks, bottleneck_percent,
//   low_gpu_utilization (snapshots with a GPU under gpu_threshold), violations, nodes[] {node,
//   datapoints, bottlenecks, low_gpu_utilization}.
// - GPUMemoryIncrease: violations, gpus[] {node, gpu, datapoints, last, max_increase, max, p05,
//   p25, p50, p75, p95, lower, upper}.
// - BatchSize: violations, nodes[] {node, datapoints, cpu_p95_window, cpu {p25, p50, p75, p95,
//   lower, upper, max}}, gpus[] {node, gpu, datapoints, gpu_p95_window, memory_p95_window,
//   utilization {box}, memory {box}, issue}.
// - LoadBalancing: violations, nodes[] {node, gpus[], workloads {gpuN: 50 counts of 2 % bins},
//   distances[] {gpu_a, gpu_b, distance}}.
// - OverallSystemUsage: datapoints (snapshots), usage[] {node, metric ("CPU", "CPU per core",
//   "GPU", "GPU memory", "Memory", "I/O wait", "Network", "Disk"), unit ("%" | "bytes/s"),
//   datapoints, max, p99, p95, p50, min}.
// - StepOutlier: min_steps (100), violations, ranks[] {node, rank, phase, steps, mean_ms, std_ms,
//   threshold_ms, max_ms, p99_ms, p95_ms, p50_ms, min_ms, outliers, outlier_steps (first 50)}.
// - Dataloader: violations, dataloader_events, nodes[] {node, cores, seconds (one-second buckets
//   with data-loading events), median_parallel_dataloaders, min_dataloaders, max_dataloaders,
//   dataloading_time_ms {p25, p50, p95, max}, issue ("too few" | "too many" | "")}.
// - MaxInitializationTime: threshold_minutes, submit_time, first_step_time (null before the first
//   step), initialization_seconds (null before the first step), waited_seconds (without a step).
// - OverallFrameworkMetrics: steps, phase_time_ms / phase_percent {data, forward, backward, comm,
//   optimizer}, mode_time_ms / mode_percent {TRAIN, EVAL, others}, forward_backward
//   {forward_percent, backward_percent, ratio}, framework_events, category_time_ms,
//   category_percent, top_events[] {name, category, calls, total_ms, percent} (2 % and more).
#pragma once

#include "engine/debugger/rule.h"

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace studio::debugger {

// nullptr when params.info() is not one of the file's rules.
std::unique_ptr<Rule> makeGpuProfilerRule(const RuleParams& params);    // profiler_rules_gpu.cpp
std::unique_ptr<Rule> makeSystemProfilerRule(const RuleParams& params); // profiler_rules_system.cpp
std::unique_ptr<Rule> makeFrameworkProfilerRule(const RuleParams& params); // ..._framework.cpp
std::unique_ptr<Rule> makeDataloaderRule(const RuleParams& params);        // ..._dataloader.cpp

inline constexpr const char* kNoGpuReason =
    "no GPU utilization was recorded: the job ran on CPUs only";

// "12.35", "70", "0.5": at most two decimals, no trailing zeros.
std::string formatNumber(double v);
// The index in a device name such as "gpu3" (prefix "gpu") or "cpu12"; nullopt for "cpu".
std::optional<int> deviceIndex(std::string_view device, std::string_view prefix);
// A parameter that must be at least `min`; RuleConfigError naming the rule and parameter.
std::int64_t integerAtLeast(const RuleParams& params, const std::string& name, std::int64_t min);
double numberAtLeast(const RuleParams& params, const std::string& name, double min);
// The parameters by SageMaker name as JSON numbers or text (null for None), for details().
nlohmann::json parameterDetails(const RuleParams& params);

// One series' samples for percentiles: every sample up to kCap, then an evenly thinned subset
// (every 2nd, 4th, ... sample) so a long job's memory stays bounded. count, min, max are exact.
class SampleSeries {
public:
    static constexpr std::size_t kCap = std::size_t{1} << 20;
    void add(double v);
    std::int64_t count() const { return m_count; }
    double min() const;
    double max() const;
    double percentile(double q) const;
    // {p25, p50, p75, p95, lower, upper, max}: a box plot as smdebug draws it (whiskers at
    // 1.5 IQR, clipped to the data).
    nlohmann::json boxStats() const;

private:
    std::vector<double> m_kept;
    std::int64_t m_count = 0;
    std::int64_t m_stride = 1;
    double m_min = 0;
    double m_max = 0;
};

// The last `size` values of a series.
class RecentWindow {
public:
    explicit RecentWindow(std::size_t size = 1)
        : m_size(size) {}
    void add(double v);
    std::size_t size() const { return m_values.size(); }
    double percentile(double q) const;
    const std::deque<double>& values() const { return m_values; }

private:
    std::size_t m_size;
    std::deque<double> m_values;
};

// A series checked over its last `window` values and summarised over all of them.
struct WindowedSeries {
    explicit WindowedSeries(std::size_t window = 1)
        : recent(window) {}
    void add(double v) {
        all.add(v);
        recent.add(v);
    }
    SampleSeries all;
    RecentWindow recent;
};

// A rule evaluated the way smdebug invokes it: once per scan_interval_us of data time (windows
// aligned to the first datum), again when a tick finds data waiting longer than that, and a
// last time at finish. Subclasses take in events, settle partial groups, and evaluate.
class ScanningRule : public Rule {
public:
    explicit ScanningRule(const RuleParams& params);

    void onEvent(const wire::Event& e) final;
    void onTick(double now) override;
    void finish(double now) override;

protected:
    // True when e is data the rule evaluates.
    virtual bool take(const wire::Event& e) = 0;
    // Data stamped before `before` is complete (flush groups still open).
    virtual void settle(double before) { (void)before; }
    // One evaluation over everything taken; fires at most once. time: the newest datum.
    virtual void evaluate(double time) = 0;
    // Non-empty: the rule reports NotApplicable at finish although data came.
    virtual std::string notApplicableReason() const { return {}; }

    // Fires the first of one evaluation's findings (at most one per evaluation); its message
    // counts the others, e.g. "; 2 more GPU(s) show the same".
    void fireFirst(std::vector<Finding> found, double time, const std::string& others);

    const RuleParams& params() const { return m_params; }
    double scanSeconds() const { return m_scanSeconds; }
    std::int64_t evaluations() const { return m_evaluations; }
    nlohmann::json parameterDetails() const { return debugger::parameterDetails(m_params); }

private:
    void runEvaluation(double settleBefore);

    RuleParams m_params;
    double m_scanSeconds;
    bool m_started = false;
    double m_windowEnd = 0;
    bool m_pending = false;
    double m_lastData = 0;
    std::int64_t m_evaluations = 0;
};

// The samples of one system snapshot of a node (all share one timestamp).
struct SystemSnapshot {
    int node = 0;
    double t = 0;
    std::vector<wire::SysEvent> samples;

    std::optional<double> value(std::string_view device, std::string_view metric) const;
    // "cpu" total utilization, else the mean of the per-core "cpuN" samples.
    std::optional<double> cpuUtilization() const;
};

// Calls f(gpuIndex, value) for each "gpuN" sample of `metric` in the snapshot.
template <typename F>
void forEachGpu(const SystemSnapshot& s, std::string_view metric, F&& f) {
    for (const auto& sample : s.samples)
        if (sample.metric == metric)
            if (const auto index = deviceIndex(sample.device, "gpu"))
                f(*index, sample.value);
}

using GpuKey = std::pair<int, int>;      // node, GPU index
std::string gpuName(int index);          // "gpu3"
std::string gpuWhere(const GpuKey& key); // "gpu3 of node 1"
Finding gpuFinding(const GpuKey& key);   // node and device set

// The Jensen-Shannon distance (natural log) between two histograms of counts, each normalised
// to sum 1, as sqrt of the mean of scipy.stats.entropy(p, m) and entropy(q, m).
double jensenShannonDistance(const std::vector<double>& a, const std::vector<double>& b);

// {node, gpu, datapoints} and the box statistics of a GPU's series, for details().
nlohmann::json gpuDetails(int node, int gpu, const SampleSeries& all);

// A rule over system snapshots, grouped per node. needsGpu: NotApplicable without GPU samples.
class SystemSnapshotRule : public ScanningRule {
public:
    SystemSnapshotRule(const RuleParams& params, bool needsGpu);

protected:
    bool take(const wire::Event& e) override;
    void settle(double before) override;
    std::string notApplicableReason() const override;
    std::string noDataReason() const override;
    virtual void onSnapshot(const SystemSnapshot& s) = 0;

    bool sawGpu() const { return m_sawGpu; }

private:
    bool m_needsGpu;
    bool m_sawGpu = false;
    std::map<int, SystemSnapshot> m_open;
};

} // namespace studio::debugger
