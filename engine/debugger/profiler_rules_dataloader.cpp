// The Dataloader profiler rule: how many data loaders run in parallel per node against its
// cores, and how long data loading takes, after smdebug's rule of the same name, applied to the
// ProfileEvents of the profiled window.
#include "engine/debugger/profiler_rules.h"

#include <cmath>
#include <set>

namespace studio::debugger {

namespace {

class Dataloader final : public ScanningRule {
public:
    // A second's data-loading events are counted once data two seconds newer has arrived.
    static constexpr double kSecondGrace = 2.0;

    explicit Dataloader(const RuleParams& p)
        : ScanningRule(p)
        , m_min(numberAtLeast(p, "min_threshold", 0))
        , m_max(numberAtLeast(p, "max_threshold", 0))
        , m_patience(integerAtLeast(p, "patience", 0)) {}

    std::string criteria() const override {
        return "For each node with more than " + std::to_string(m_patience) +
               " seconds of data-loading events: the median number of processes loading data in "
               "the same second is below " +
               formatNumber(m_min) + "% or above " + formatNumber(m_max) +
               "% of the node's CPU cores.";
    }

    nlohmann::json details() const override {
        nlohmann::json d = parameterDetails();
        d["violations"] = m_violations;
        d["dataloader_events"] = datapoints();
        nlohmann::json nodes = nlohmann::json::array();
        for (const auto& [node, n] : m_nodes) {
            const int cores = coresOf(n);
            nodes.push_back(
                {{"node", node},
                 {"cores", cores},
                 {"seconds", n.seconds},
                 {"median_parallel_dataloaders", n.seconds ? nlohmann::json(median(n)) : nullptr},
                 {"min_dataloaders", cores * m_min / 100},
                 {"max_dataloaders", cores * m_max / 100},
                 {"dataloading_time_ms",
                  {{"p25", n.loadMs.percentile(25)},
                   {"p50", n.loadMs.percentile(50)},
                   {"p95", n.loadMs.percentile(95)},
                   {"max", n.loadMs.max()}}},
                 {"issue", n.issue}});
        }
        d["nodes"] = std::move(nodes);
        return d;
    }

protected:
    std::string noDataReason() const override {
        return "no data-loading events were recorded: enable framework profiling "
               "(profiler_config.framework_profile_params, e.g. a DataloaderProfilingConfig) so "
               "the rule can count the data-loading processes";
    }

    std::string notApplicableReason() const override {
        if (m_nodes.empty())
            return {};
        for (const auto& [node, n] : m_nodes)
            if (coresOf(n) > 0)
                return {};
        return "the number of CPU cores is unknown: no per-core CPU samples and no launcher "
               "start event were recorded";
    }

private:
    struct Node {
        std::set<int> cores;
        int startedCores = 0;
        std::map<std::int64_t, std::set<std::int64_t>> open; // second -> loading pids
        std::map<std::int64_t, std::int64_t> parallel;       // processes in a second -> seconds
        std::int64_t seconds = 0;
        SampleSeries loadMs;
        std::string issue;
    };

    static int coresOf(const Node& n) {
        return n.cores.empty() ? n.startedCores : static_cast<int>(n.cores.size());
    }

    // np.median of the per-second counts, truncated to an integer as smdebug does.
    static std::int64_t median(const Node& n) {
        const auto at = [&](std::int64_t index) {
            std::int64_t seen = 0;
            for (const auto& [processes, seconds] : n.parallel) {
                seen += seconds;
                if (index < seen)
                    return processes;
            }
            return std::int64_t{0};
        };
        return (at((n.seconds - 1) / 2) + at(n.seconds / 2)) / 2;
    }

    bool take(const wire::Event& e) override {
        if (const auto* sys = e.as<wire::SysEvent>()) {
            if (const auto core = deviceIndex(sys->device, "cpu"); core && sys->metric == "util")
                m_nodes[e.node].cores.insert(*core);
            return false;
        }
        if (const auto* status = e.as<wire::StatusEvent>()) {
            if (e.rank < 0 && status->state == "started" && status->cores > 0)
                m_nodes[e.node].startedCores = status->cores;
            return false;
        }
        const auto* pe = e.as<wire::ProfileEvent>();
        if (!pe || pe->category != "dataloader")
            return false;
        Node& n = m_nodes[e.node];
        n.open[static_cast<std::int64_t>(std::floor(pe->start))].insert(pe->pid);
        n.loadMs.add(pe->durationMs);
        countDatapoints();
        return true;
    }

    void settle(double before) override {
        for (auto& [node, n] : m_nodes) {
            for (auto it = n.open.begin(); it != n.open.end();) {
                if (static_cast<double>(it->first) + 1 + kSecondGrace > before)
                    break;
                ++n.parallel[static_cast<std::int64_t>(it->second.size())];
                ++n.seconds;
                it = n.open.erase(it);
            }
        }
    }

    void evaluate(double time) override {
        std::vector<Finding> found;
        for (auto& [node, n] : m_nodes) {
            const int cores = coresOf(n);
            if (n.seconds <= m_patience || cores <= 0)
                continue;
            const std::int64_t med = median(n);
            const double low = cores * m_min / 100, high = cores * m_max / 100;
            const auto parallel = static_cast<double>(med);
            n.issue = parallel < low ? "too few" : parallel > high ? "too many" : "";
            if (n.issue.empty())
                continue;
            ++m_violations;
            Finding f;
            f.node = node;
            f.device = "cpu";
            const std::string base = "Node " + std::to_string(node) + " has " +
                                     std::to_string(cores) + " CPU cores, but a median of " +
                                     std::to_string(med) + " processes loaded data in parallel";
            if (n.issue == "too few") {
                f.message = base + " (fewer than " + formatNumber(m_min) +
                            "% of the cores: " + formatNumber(low) + ")";
                f.recommendation =
                    "Data loading leaves cores idle: raise the data loader's worker count "
                    "(PyTorch DataLoader num_workers) towards the number of cores, enable "
                    "pin_memory and prefetching so batches are ready before the step needs them.";
            } else {
                f.message = base + " (more than " + formatNumber(m_max) +
                            "% of the cores: " + formatNumber(high) + ")";
                f.recommendation =
                    "More loading processes than cores compete for CPU and memory: lower the "
                    "data loader's worker count (num_workers) to about the number of cores.";
            }
            found.push_back(std::move(f));
        }
        fireFirst(std::move(found), time, "node(s)");
    }

    double m_min, m_max;
    std::int64_t m_patience;
    std::map<int, Node> m_nodes;
    std::int64_t m_violations = 0;
};

} // namespace

std::unique_ptr<Rule> makeDataloaderRule(const RuleParams& params) {
    if (params.info().name == "Dataloader")
        return std::make_unique<Dataloader>(params);
    return nullptr;
}

} // namespace studio::debugger
