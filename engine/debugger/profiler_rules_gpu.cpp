// The profiler rules over each GPU's utilization and memory: LowGPUUtilization,
// GPUMemoryIncrease, BatchSize. Each follows the logic of smdebug's rule of the same name,
// applied to the snapshots the launchers stream.
#include "engine/debugger/profiler_rules.h"

#include <algorithm>
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

} // namespace

std::unique_ptr<Rule> makeGpuProfilerRule(const RuleParams& params) {
    const std::string& name = params.info().name;
    if (name == "LowGPUUtilization")
        return std::make_unique<LowGpuUtilization>(params);
    if (name == "GPUMemoryIncrease")
        return std::make_unique<GpuMemoryIncrease>(params);
    if (name == "BatchSize")
        return std::make_unique<BatchSize>(params);
    return nullptr;
}

} // namespace studio::debugger
