// The profiler rules over whole nodes' system metrics: CPUBottleneck, IOBottleneck,
// LoadBalancing, OverallSystemUsage. Each follows the logic of smdebug's rule of the same name,
// applied to the snapshots the launchers stream.
#include "engine/debugger/profiler_rules.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <utility>

namespace studio::debugger {

namespace {

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
    if (name == "CPUBottleneck")
        return std::make_unique<GpuStarvation>(params, GpuStarvation::Cause::Cpu);
    if (name == "IOBottleneck")
        return std::make_unique<GpuStarvation>(params, GpuStarvation::Cause::Io);
    if (name == "LoadBalancing")
        return std::make_unique<LoadBalancing>(params);
    if (name == "OverallSystemUsage")
        return std::make_unique<OverallSystemUsage>(params);
    return nullptr;
}

} // namespace studio::debugger
