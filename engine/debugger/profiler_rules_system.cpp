// The profiler rules over system metrics: LowGPUUtilization, CPUBottleneck, IOBottleneck,
// GPUMemoryIncrease, BatchSize, LoadBalancing, OverallSystemUsage. Each follows the logic of
// smdebug's rule of the same name, applied to the snapshots the launchers stream.
#include "engine/debugger/profiler_rules.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <utility>

namespace studio::debugger {

namespace {

double meanOf(const std::deque<double>& values, std::size_t from, std::size_t to) {
    double sum = 0;
    for (std::size_t i = from; i < to; ++i)
        sum += values[i];
    return sum / static_cast<double>(to - from);
}

class LowGpuUtilization final : public SystemSnapshotRule {
public:
    explicit LowGpuUtilization(const RuleParams& p)
        : SystemSnapshotRule(p, true)
        , m_thresholdP95(p.number("threshold_p95"))
        , m_thresholdP5(p.number("threshold_p5"))
        , m_window(integerAtLeast(p, "window", 1))
        , m_patience(integerAtLeast(p, "patience", 0)) {}

    std::string criteria() const override {
        return "For each GPU with more than " + std::to_string(m_patience) +
               " utilization samples: the p95 of its last " + std::to_string(m_window) +
               " samples is below " + formatNumber(m_thresholdP95) + "% (under-used), or above " +
               formatNumber(m_thresholdP95) + "% while the p5 is below " +
               formatNumber(m_thresholdP5) + "% (fluctuating).";
    }

    nlohmann::json details() const override {
        nlohmann::json d = parameterDetails();
        d["violations"] = m_violations;
        d["evaluations"] = evaluations();
        d["gpus"] = nlohmann::json::array();
        for (const auto& [key, g] : m_gpus) {
            nlohmann::json row = gpuDetails(key.first, key.second, g.series.all);
            row["p95_window"] = g.series.recent.percentile(95);
            row["p5_window"] = g.series.recent.percentile(5);
            row["issue"] = g.issue;
            d["gpus"].push_back(std::move(row));
        }
        return d;
    }

private:
    struct Gpu {
        WindowedSeries series;
        std::string issue = "waiting";
    };

    void onSnapshot(const SystemSnapshot& s) override {
        forEachGpu(s, "util", [&](int gpu, double value) {
            const auto window = static_cast<std::size_t>(m_window);
            m_gpus.try_emplace({s.node, gpu}, Gpu{WindowedSeries(window)})
                .first->second.series.add(value);
            countDatapoints();
        });
    }

    void evaluate(double time) override {
        std::vector<Finding> found;
        for (auto& [key, g] : m_gpus) {
            if (g.series.all.count() <= m_patience)
                continue;
            const double p95 = g.series.recent.percentile(95);
            const double p5 = g.series.recent.percentile(5);
            const std::string over =
                " over its last " + std::to_string(g.series.recent.size()) + " samples";
            Finding f = gpuFinding(key);
            if (p95 < m_thresholdP95) {
                g.issue = "under-used";
                f.message = gpuWhere(key) + " is under-used: p95 utilization " + formatNumber(p95) +
                            "%" + over + " is below " + formatNumber(m_thresholdP95) + "%" +
                            (g.series.all.max() == 0 ? " (the GPU was never used)" : "");
                f.recommendation =
                    "The GPU has spare capacity: increase the batch size (scaling the learning "
                    "rate with it), or choose an instance with fewer or smaller GPUs. If a "
                    "bottleneck starves the GPU, the CPUBottleneck and IOBottleneck rules tell "
                    "which.";
            } else if (p95 > m_thresholdP95 && p5 < m_thresholdP5) {
                g.issue = "fluctuating";
                f.message = gpuWhere(key) + " fluctuates: p95 utilization " + formatNumber(p95) +
                            "% but p5 " + formatNumber(p5) + "%" + over + " is below " +
                            formatNumber(m_thresholdP5) + "%";
                f.recommendation =
                    "The GPU alternates between busy and idle, which usually means it waits for "
                    "input: use more data-loader workers with pre-fetching and pinned memory, "
                    "and look for blocking work (logging, checkpoints, host synchronisation) in "
                    "the training loop.";
            } else {
                g.issue.clear();
                continue;
            }
            ++m_violations;
            found.push_back(std::move(f));
        }
        fireFirst(std::move(found), time, "GPU(s)");
    }

    double m_thresholdP95, m_thresholdP5;
    std::int64_t m_window, m_patience;
    std::map<GpuKey, Gpu> m_gpus;
    std::int64_t m_violations = 0;
};

// CPUBottleneck and IOBottleneck: the share of system snapshots in which a GPU idles while the
// CPU (a core above cpu_threshold) or storage (I/O wait above io_threshold) is saturated.
class GpuStarvation final : public SystemSnapshotRule {
public:
    enum class Cause { Cpu, Io };

    GpuStarvation(const RuleParams& p, Cause cause)
        : SystemSnapshotRule(p, true)
        , m_cause(cause)
        , m_threshold(p.number("threshold"))
        , m_gpuThreshold(p.number("gpu_threshold"))
        , m_pressureThreshold(p.number(cause == Cause::Cpu ? "cpu_threshold" : "io_threshold"))
        , m_patience(integerAtLeast(p, "patience", 0)) {}

    std::string criteria() const override {
        return "After more than " + std::to_string(m_patience) +
               " system snapshots: in more than " + formatNumber(m_threshold) +
               "% of them a GPU is below " + formatNumber(m_gpuThreshold) + "% utilization while " +
               pressure("is") + ".";
    }

    nlohmann::json details() const override {
        nlohmann::json d = parameterDetails();
        d["datapoints"] = m_total.snapshots;
        d["bottlenecks"] = m_total.bottlenecks;
        d["bottleneck_percent"] = percent();
        d["low_gpu_utilization"] = m_total.lowGpu;
        d["violations"] = m_violations;
        d["nodes"] = nlohmann::json::array();
        for (const auto& [node, n] : m_nodes)
            d["nodes"].push_back({{"node", node},
                                  {"datapoints", n.snapshots},
                                  {"bottlenecks", n.bottlenecks},
                                  {"low_gpu_utilization", n.lowGpu}});
        return d;
    }

private:
    struct Counts {
        std::int64_t snapshots = 0, lowGpu = 0, bottlenecks = 0;
    };

    std::string pressure(const char* verb) const {
        return (m_cause == Cause::Cpu ? "a CPU core " : "I/O wait ") + std::string(verb) +
               " above " + formatNumber(m_pressureThreshold) + "%";
    }

    double percent() const {
        return m_total.snapshots ? 100.0 * static_cast<double>(m_total.bottlenecks) /
                                       static_cast<double>(m_total.snapshots)
                                 : 0.0;
    }

    bool pressured(const SystemSnapshot& s) const {
        if (m_cause == Cause::Io) {
            const auto wait = s.value("cpu", "iowait");
            return wait && *wait > m_pressureThreshold;
        }
        // SageMaker reads per-core utilization; the total stands in where no core is sampled.
        bool perCore = false;
        for (const auto& sample : s.samples) {
            if (sample.metric != "util" || !deviceIndex(sample.device, "cpu"))
                continue;
            perCore = true;
            if (sample.value > m_pressureThreshold)
                return true;
        }
        const auto total = s.value("cpu", "util");
        return !perCore && total && *total > m_pressureThreshold;
    }

    void onSnapshot(const SystemSnapshot& s) override {
        countDatapoints();
        bool lowGpu = false;
        forEachGpu(s, "util", [&](int, double v) { lowGpu = lowGpu || v < m_gpuThreshold; });
        const bool bottleneck = lowGpu && pressured(s);
        for (Counts* c : {&m_nodes[s.node], &m_total}) {
            ++c->snapshots;
            c->lowGpu += lowGpu;
            c->bottlenecks += bottleneck;
        }
    }

    void evaluate(double time) override {
        if (m_total.snapshots <= m_patience || percent() <= m_threshold)
            return;
        ++m_violations;
        const auto worst = std::max_element(m_nodes.begin(), m_nodes.end(), [](auto& a, auto& b) {
            return a.second.bottlenecks < b.second.bottlenecks;
        });
        Finding f;
        f.time = time;
        f.node = m_nodes.size() == 1 ? worst->first : -1;
        f.device = m_cause == Cause::Cpu ? "cpu" : "disk";
        f.message = std::string(m_cause == Cause::Cpu ? "CPU" : "I/O") + " bottleneck in " +
                    formatNumber(percent()) + "% of " + std::to_string(m_total.snapshots) +
                    " system snapshots (" + std::to_string(m_total.bottlenecks) +
                    "): a GPU was below " + formatNumber(m_gpuThreshold) + "% utilization while " +
                    pressure("was") + ", more often than the " + formatNumber(m_threshold) +
                    "% threshold";
        if (m_nodes.size() > 1)
            f.message += "; most on node " + std::to_string(worst->first) + " (" +
                         std::to_string(worst->second.bottlenecks) + ")";
        f.recommendation =
            m_cause == Cause::Cpu
                ? "The GPUs wait for the CPU: use more data-loader workers with pre-fetching and "
                  "pinned memory, move augmentation to the GPU or do it once ahead of training, "
                  "or pick an instance type with more CPU cores per GPU."
                : "The GPUs wait for storage: pre-fetch and cache the data set on local disk, "
                  "read it as a few large sequential files (sharded records) instead of many "
                  "small ones, and use more data-loader workers with pre-fetching.";
        fire(std::move(f));
    }

    Cause m_cause;
    double m_threshold, m_gpuThreshold, m_pressureThreshold;
    std::int64_t m_patience;
    std::map<int, Counts> m_nodes;
    Counts m_total;
    std::int64_t m_violations = 0;
};

class GpuMemoryIncrease final : public SystemSnapshotRule {
public:
    explicit GpuMemoryIncrease(const RuleParams& p)
        : SystemSnapshotRule(p, true)
        , m_increase(p.number("increase"))
        , m_patience(integerAtLeast(p, "patience", 0))
        , m_window(integerAtLeast(p, "window", 2)) {}

    std::string criteria() const override {
        return "For each GPU with more than " + std::to_string(m_patience) +
               " memory samples: the mean of its last " + std::to_string(m_window) +
               " samples exceeds the mean of the " + std::to_string(m_window - 1) +
               " samples ending two samples earlier by more than " + formatNumber(m_increase) +
               " percentage points.";
    }

    nlohmann::json details() const override {
        nlohmann::json d = parameterDetails();
        d["violations"] = m_violations;
        d["gpus"] = nlohmann::json::array();
        for (const auto& [key, g] : m_gpus) {
            nlohmann::json row = gpuDetails(key.first, key.second, g.series.all);
            row["last"] = g.series.recent.values().back();
            row["max_increase"] = g.maxIncrease;
            row["p05"] = g.series.all.percentile(5);
            d["gpus"].push_back(std::move(row));
        }
        return d;
    }

private:
    struct Gpu {
        WindowedSeries series;
        double maxIncrease = 0; // the largest rise that counted as a violation
        double pending = 0;     // the largest rise since the last evaluation; 0: none
    };

    void onSnapshot(const SystemSnapshot& s) override {
        forEachGpu(s, "mem", [&](int gpu, double value) {
            const auto w = static_cast<std::size_t>(m_window);
            Gpu& g = m_gpus.try_emplace({s.node, gpu}, Gpu{WindowedSeries(w + 1)}).first->second;
            g.series.add(value);
            countDatapoints();
            const std::int64_t n = g.series.all.count();
            if (n <= m_window + 1)
                return;
            // smdebug compares mean(values[-window:]) with mean(values[-window-1:-2]).
            const auto& v = g.series.recent.values();
            const double rise = meanOf(v, 1, w + 1) - meanOf(v, 0, w - 1);
            if (rise > m_increase && n > m_patience) {
                ++m_violations;
                g.maxIncrease = std::max(g.maxIncrease, rise);
                g.pending = std::max(g.pending, rise);
            }
        });
    }

    void evaluate(double time) override {
        std::vector<Finding> found;
        for (auto& [key, g] : m_gpus) {
            if (g.pending <= 0)
                continue;
            Finding f = gpuFinding(key);
            f.message = "GPU memory use of " + gpuWhere(key) + " rose: its moving average over " +
                        std::to_string(m_window) + " samples grew by " + formatNumber(g.pending) +
                        " percentage points (more than " + formatNumber(m_increase) + "); now at " +
                        formatNumber(g.series.recent.values().back()) + "%";
            f.recommendation =
                "Memory that keeps growing ends in an out-of-memory error: look for tensors kept "
                "across steps (a running loss summed without .item() or detach(), outputs "
                "appended to a list), growing input sizes, or caches; a smaller batch only "
                "delays it.";
            found.push_back(std::move(f));
            g.pending = 0;
        }
        fireFirst(std::move(found), time, "GPU(s)");
    }

    double m_increase;
    std::int64_t m_patience, m_window;
    std::map<GpuKey, Gpu> m_gpus;
    std::int64_t m_violations = 0;
};

class BatchSize final : public SystemSnapshotRule {
public:
    explicit BatchSize(const RuleParams& p)
        : SystemSnapshotRule(p, true)
        , m_cpuP95(p.number("cpu_threshold_p95"))
        , m_gpuP95(p.number("gpu_threshold_p95"))
        , m_memoryP95(p.number("gpu_memory_threshold_p95"))
        , m_patience(integerAtLeast(p, "patience", 0))
        , m_window(integerAtLeast(p, "window", 1)) {}

    std::string criteria() const override {
        return "For each node with more than " + std::to_string(std::max(m_patience, m_window)) +
               " samples, over the last " + std::to_string(m_window) +
               " samples: p95 CPU utilization below " + formatNumber(m_cpuP95) +
               "%, and for a GPU p95 utilization below " + formatNumber(m_gpuP95) +
               "% and p95 memory use below " + formatNumber(m_memoryP95) + "%.";
    }

    nlohmann::json details() const override {
        nlohmann::json d = parameterDetails();
        d["violations"] = m_violations;
        d["nodes"] = nlohmann::json::array();
        for (const auto& [node, cpu] : m_cpu)
            d["nodes"].push_back({{"node", node},
                                  {"datapoints", cpu.all.count()},
                                  {"cpu_p95_window", cpu.recent.percentile(95)},
                                  {"cpu", cpu.all.boxStats()}});
        d["gpus"] = nlohmann::json::array();
        for (const auto& [key, g] : m_gpus)
            d["gpus"].push_back({{"node", key.first},
                                 {"gpu", gpuName(key.second)},
                                 {"datapoints", g.util.all.count()},
                                 {"gpu_p95_window", g.util.recent.percentile(95)},
                                 {"memory_p95_window", g.memory.recent.percentile(95)},
                                 {"utilization", g.util.all.boxStats()},
                                 {"memory", g.memory.all.boxStats()},
                                 {"issue", g.issue}});
        return d;
    }

private:
    struct Gpu {
        WindowedSeries util, memory;
        std::string issue;
    };

    void onSnapshot(const SystemSnapshot& s) override {
        const auto window = static_cast<std::size_t>(m_window);
        if (const auto cpu = s.cpuUtilization()) {
            m_cpu.try_emplace(s.node, WindowedSeries(window)).first->second.add(*cpu);
            countDatapoints();
        }
        const auto gpu = [&](int index) -> Gpu& {
            const Gpu empty{WindowedSeries(window), WindowedSeries(window), {}};
            return m_gpus.try_emplace({s.node, index}, empty).first->second;
        };
        forEachGpu(s, "util", [&](int index, double v) { gpu(index).util.add(v); });
        forEachGpu(s, "mem", [&](int index, double v) { gpu(index).memory.add(v); });
    }

    void evaluate(double time) override {
        std::vector<Finding> found;
        for (const auto& [node, series] : m_cpu) {
            if (series.all.count() <= m_window || series.all.count() <= m_patience)
                continue;
            const double cpu = series.recent.percentile(95);
            if (cpu >= m_cpuP95)
                continue;
            for (auto it = m_gpus.lower_bound({node, 0});
                 it != m_gpus.end() && it->first.first == node; ++it) {
                Gpu& g = it->second;
                if (g.util.all.count() <= m_window || g.memory.all.count() == 0)
                    continue;
                const double util = g.util.recent.percentile(95);
                const double memory = g.memory.recent.percentile(95);
                g.issue = util < m_gpuP95 && memory < m_memoryP95 ? "small batch" : "";
                if (g.issue.empty())
                    continue;
                ++m_violations;
                Finding f = gpuFinding(it->first);
                f.message = gpuWhere(it->first) + " is lightly loaded: p95 utilization " +
                            formatNumber(util) + "% (below " + formatNumber(m_gpuP95) +
                            "%), p95 memory " + formatNumber(memory) + "% (below " +
                            formatNumber(m_memoryP95) + "%), node p95 CPU " + formatNumber(cpu) +
                            "% (below " + formatNumber(m_cpuP95) + "%) over the last " +
                            std::to_string(m_window) + " samples";
                f.recommendation =
                    "The batch is small for this instance: raise the batch size (and the "
                    "learning rate with it) to use the GPU, or train on a smaller, cheaper "
                    "instance type. Frameworks that reserve GPU memory up front make the memory "
                    "figure unreliable.";
                found.push_back(std::move(f));
            }
        }
        fireFirst(std::move(found), time, "GPU(s)");
    }

    double m_cpuP95, m_gpuP95, m_memoryP95;
    std::int64_t m_patience, m_window;
    std::map<int, WindowedSeries> m_cpu;
    std::map<GpuKey, Gpu> m_gpus;
    std::int64_t m_violations = 0;
};

class LoadBalancing final : public SystemSnapshotRule {
public:
    static constexpr std::size_t kBins = 50; // 2 % wide over 0..100 %

    explicit LoadBalancing(const RuleParams& p)
        : SystemSnapshotRule(p, true)
        , m_threshold(p.number("threshold"))
        , m_patience(integerAtLeast(p, "patience", 0)) {}

    std::string criteria() const override {
        return "For each pair of GPUs of one node, each with more than " +
               std::to_string(m_patience) +
               " utilization samples: the Jensen-Shannon distance between their utilization "
               "histograms (2% bins) exceeds " +
               formatNumber(m_threshold) + ".";
    }

    nlohmann::json details() const override {
        nlohmann::json d = parameterDetails();
        d["violations"] = m_violations;
        d["nodes"] = nlohmann::json::array();
        for (const auto& [node, gpus] : m_nodes) {
            nlohmann::json row = {{"node", node},
                                  {"gpus", nlohmann::json::array()},
                                  {"workloads", nlohmann::json::object()},
                                  {"distances", nlohmann::json::array()}};
            for (const auto& [index, g] : gpus) {
                row["gpus"].push_back(gpuName(index));
                row["workloads"][gpuName(index)] = g.histogram;
            }
            if (const auto it = m_distances.find(node); it != m_distances.end())
                for (const auto& [pair, distance] : it->second)
                    row["distances"].push_back({{"gpu_a", gpuName(pair.first)},
                                                {"gpu_b", gpuName(pair.second)},
                                                {"distance", distance}});
            d["nodes"].push_back(std::move(row));
        }
        return d;
    }

protected:
    std::string notApplicableReason() const override {
        if (!sawGpu())
            return kNoGpuReason;
        for (const auto& [node, gpus] : m_nodes)
            if (gpus.size() >= 2)
                return {};
        return "LoadBalancing compares the GPUs of one node: no node had two or more GPUs";
    }

private:
    struct Gpu {
        std::vector<double> histogram = std::vector<double>(kBins);
        std::int64_t count = 0;
    };

    void onSnapshot(const SystemSnapshot& s) override {
        forEachGpu(s, "util", [&](int index, double v) {
            Gpu& g = m_nodes[s.node][index];
            const double clamped = std::isnan(v) ? 0.0 : std::clamp(v / 2.0, 0.0, kBins - 1.0);
            const auto bin = static_cast<std::size_t>(clamped);
            ++g.histogram[bin];
            ++g.count;
            countDatapoints();
        });
    }

    void evaluate(double time) override {
        std::vector<Finding> found;
        std::vector<double> distances;
        for (const auto& [node, gpus] : m_nodes) {
            const bool ready = gpus.size() >= 2 &&
                               std::all_of(gpus.begin(), gpus.end(),
                                           [&](auto& g) { return g.second.count > m_patience; });
            for (auto a = gpus.begin(); ready && a != gpus.end(); ++a) {
                for (auto b = std::next(a); b != gpus.end(); ++b) {
                    const double d =
                        jensenShannonDistance(a->second.histogram, b->second.histogram);
                    m_distances[node][{a->first, b->first}] = d;
                    if (d <= m_threshold)
                        continue;
                    ++m_violations;
                    Finding f;
                    f.node = node;
                    f.device = gpuName(a->first) + "," + gpuName(b->first);
                    f.message = "Unbalanced load on node " + std::to_string(node) +
                                ": the utilization histograms of " + gpuName(a->first) + " and " +
                                gpuName(b->first) + " are " + formatNumber(d) +
                                " apart (Jensen-Shannon distance, threshold " +
                                formatNumber(m_threshold) + ")";
                    f.recommendation =
                        "The GPUs do unequal work: check that every GPU runs a training process "
                        "(processes_per_host), that the data is sharded evenly across ranks, and "
                        "for model or pipeline parallelism that the partitions cost about the "
                        "same.";
                    found.push_back(std::move(f));
                    distances.push_back(d);
                }
            }
        }
        if (!found.empty()) // the most unequal pair leads
            std::swap(
                found.front(),
                found[static_cast<std::size_t>(
                    std::max_element(distances.begin(), distances.end()) - distances.begin())]);
        fireFirst(std::move(found), time, "GPU pair(s)");
    }

    double m_threshold;
    std::int64_t m_patience;
    std::map<int, std::map<int, Gpu>> m_nodes;
    std::map<int, std::map<std::pair<int, int>, double>> m_distances;
    std::int64_t m_violations = 0;
};

class OverallSystemUsage final : public SystemSnapshotRule {
public:
    explicit OverallSystemUsage(const RuleParams& p)
        : SystemSnapshotRule(p, false) {}

    std::string criteria() const override {
        return "Never fires: per-node statistics (max, p99, p95, p50, min) of CPU, per-core CPU, "
               "GPU, GPU memory, memory, I/O wait, network and disk use.";
    }

    nlohmann::json details() const override {
        nlohmann::json d = parameterDetails();
        d["datapoints"] = datapoints();
        d["usage"] = nlohmann::json::array();
        for (const auto& [node, metrics] : m_nodes) {
            for (const std::string_view name : kMetrics) {
                const auto it = metrics.find(std::string(name));
                if (it == metrics.end())
                    continue;
                const SampleSeries& s = it->second;
                d["usage"].push_back(
                    {{"node", node},
                     {"metric", name},
                     {"unit", name == "Network" || name == "Disk" ? "bytes/s" : "%"},
                     {"datapoints", s.count()},
                     {"max", s.max()},
                     {"p99", s.percentile(99)},
                     {"p95", s.percentile(95)},
                     {"p50", s.percentile(50)},
                     {"min", s.min()}});
            }
        }
        return d;
    }

private:
    static constexpr std::array<const char*, 8> kMetrics = {
        "CPU", "CPU per core", "GPU", "GPU memory", "Memory", "I/O wait", "Network", "Disk"};

    void onSnapshot(const SystemSnapshot& s) override {
        auto& metrics = m_nodes[s.node];
        countDatapoints();
        if (const auto cpu = s.cpuUtilization())
            metrics["CPU"].add(*cpu);
        // Per snapshot: GPU figures are the mean over the GPUs (as smdebug reports them),
        // network and disk the sum of both directions.
        std::map<std::string, std::pair<double, int>> sums; // metric -> sum, GPUs
        for (const auto& sample : s.samples) {
            if (deviceIndex(sample.device, "cpu") && sample.metric == "util")
                metrics["CPU per core"].add(sample.value);
            else if (sample.device == "mem" && sample.metric == "used")
                metrics["Memory"].add(sample.value);
            else if (sample.device == "cpu" && sample.metric == "iowait")
                metrics["I/O wait"].add(sample.value);
            else if (sample.device == "net" || sample.device == "disk")
                sums[sample.device == "net" ? "Network" : "Disk"].first += sample.value;
        }
        for (const char* metric : {"util", "mem"})
            forEachGpu(s, metric, [&](int, double v) {
                auto& sum = sums[metric == std::string_view("util") ? "GPU" : "GPU memory"];
                sum = {sum.first + v, sum.second + 1};
            });
        for (const auto& [name, sum] : sums)
            metrics[name].add(sum.second > 0 ? sum.first / sum.second : sum.first);
    }

    void evaluate(double) override {}

    std::map<int, std::map<std::string, SampleSeries>> m_nodes;
};

} // namespace

std::unique_ptr<Rule> makeSystemProfilerRule(const RuleParams& params) {
    const std::string& name = params.info().name;
    if (name == "LowGPUUtilization")
        return std::make_unique<LowGpuUtilization>(params);
    if (name == "CPUBottleneck")
        return std::make_unique<GpuStarvation>(params, GpuStarvation::Cause::Cpu);
    if (name == "IOBottleneck")
        return std::make_unique<GpuStarvation>(params, GpuStarvation::Cause::Io);
    if (name == "GPUMemoryIncrease")
        return std::make_unique<GpuMemoryIncrease>(params);
    if (name == "BatchSize")
        return std::make_unique<BatchSize>(params);
    if (name == "LoadBalancing")
        return std::make_unique<LoadBalancing>(params);
    if (name == "OverallSystemUsage")
        return std::make_unique<OverallSystemUsage>(params);
    return nullptr;
}

} // namespace studio::debugger
