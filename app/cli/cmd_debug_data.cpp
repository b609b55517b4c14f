// mlstudio tensors / samples / steps: a job's Debugger and profiler data as the SDK's trials
// (mlstudio.debugger.trials, smdebug's reading API) read it: the reductions the hook saved per
// tensor, step and rank, with the folder of its raw tensors; the system samples per node,
// device and metric; each rank's step timings per phase and its framework events.
#include "app/cli/cli.h"
#include "app/cli/data_commands.h"
#include "app/present/json_views.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

namespace studio::cli {

namespace {

using nlohmann::ordered_json;

void printJson(const ordered_json& j) {
    std::printf("%s\n", j.dump().c_str());
}

ordered_json jobHeader(const store::ComponentRow& row) {
    return {{"job", row.name}, {"status", row.status}};
}

// One tensor's saved values: its collections and, per (step, phase, rank), every reduction.
struct TensorValues {
    std::set<std::string> collections;
    std::map<std::tuple<std::int64_t, std::string, int>, ordered_json> points;
    std::map<std::tuple<std::int64_t, std::string, int>, int> nodes;
};

ordered_json tensorsJson(const std::map<std::string, TensorValues>& tensors) {
    ordered_json out = ordered_json::array();
    for (const auto& [name, t] : tensors) {
        ordered_json values = ordered_json::array();
        for (const auto& [key, reductions] : t.points)
            values.push_back({{"step", std::get<0>(key)},
                              {"phase", std::get<1>(key)},
                              {"node", t.nodes.at(key)},
                              {"rank", std::get<2>(key)},
                              {"reductions", reductions}});
        out.push_back(
            {{"name", name}, {"collections", t.collections}, {"values", std::move(values)}});
    }
    return out;
}

void printTensorTable(const std::map<std::string, TensorValues>& tensors) {
    std::printf("%-44s %-28s %7s %9s  %s\n", "TENSOR", "COLLECTIONS", "STEPS", "LAST STEP",
                "REDUCTIONS");
    for (const auto& [name, t] : tensors) {
        std::set<std::int64_t> steps;
        std::set<std::string> reductions;
        for (const auto& [key, r] : t.points) {
            steps.insert(std::get<0>(key));
            for (const auto& [red, v] : r.items())
                reductions.insert(red);
        }
        std::string collections, names;
        for (const auto& c : t.collections)
            collections += (collections.empty() ? "" : ",") + c;
        for (const auto& r : reductions)
            names += (names.empty() ? "" : ",") + r;
        std::printf("%-44s %-28s %7zu %9lld  %s\n", name.c_str(), collections.c_str(), steps.size(),
                    steps.empty() ? -1LL : static_cast<long long>(*steps.rbegin()), names.c_str());
    }
}

// Mean, min and max of a series' values.
struct SeriesStats {
    double min = 0, max = 0, mean = 0;
};

SeriesStats statsOf(const std::vector<store::SystemSample>& samples) {
    SeriesStats s;
    if (samples.empty())
        return s;
    s.min = s.max = samples.front().value;
    double sum = 0;
    for (const auto& p : samples) {
        s.min = std::min(s.min, p.value);
        s.max = std::max(s.max, p.value);
        sum += p.value;
    }
    s.mean = sum / static_cast<double>(samples.size());
    return s;
}

ordered_json nodesJson(store::StoreReader& reader, store::ComponentId id) {
    ordered_json nodes = ordered_json::array();
    for (const auto& n : reader.nodes(id))
        nodes.push_back({{"node", n.node}, {"host", n.host}, {"cores", n.cores}, {"gpus", n.gpus}});
    return nodes;
}

ordered_json stepTimingsJson(const std::vector<store::StepTiming>& timings) {
    ordered_json out = ordered_json::array();
    for (const auto& t : timings)
        out.push_back({{"node", t.node},
                       {"rank", t.rank},
                       {"step", t.step},
                       {"phase", t.phase},
                       {"time", t.time},
                       {"data_ms", t.dataMs},
                       {"forward_ms", t.forwardMs},
                       {"backward_ms", t.backwardMs},
                       {"comm_ms", t.commMs},
                       {"optimizer_ms", t.optimizerMs}});
    return out;
}

ordered_json frameworkEventsJson(const std::vector<store::FrameworkEventRow>& events) {
    ordered_json out = ordered_json::array();
    for (const auto& e : events)
        out.push_back({{"node", e.node},
                       {"rank", e.rank},
                       {"step", e.step},
                       {"phase", e.phase},
                       {"name", e.name},
                       {"category", e.category},
                       {"start", e.start},
                       {"duration_ms", e.durationMs},
                       {"pid", e.pid}});
    return out;
}

// Per phase of the step timings: steps and the mean of each part, in milliseconds.
void printStepTable(const std::vector<store::StepTiming>& timings, std::size_t events) {
    struct Sums {
        std::int64_t steps = 0;
        double data = 0, forward = 0, backward = 0, comm = 0, optimizer = 0;
    };
    std::map<std::string, Sums> byPhase;
    for (const auto& t : timings) {
        Sums& s = byPhase[t.phase];
        ++s.steps;
        s.data += t.dataMs;
        s.forward += t.forwardMs;
        s.backward += t.backwardMs;
        s.comm += t.commMs;
        s.optimizer += t.optimizerMs;
    }
    std::printf("%-8s %8s %10s %10s %10s %10s %10s   (mean ms per step and rank)\n", "PHASE",
                "STEPS", "data", "forward", "backward", "comm", "optimizer");
    for (const auto& [phase, s] : byPhase) {
        const double n = static_cast<double>(s.steps);
        std::printf("%-8s %8lld %10.2f %10.2f %10.2f %10.2f %10.2f\n", phase.c_str(),
                    static_cast<long long>(s.steps), s.data / n, s.forward / n, s.backward / n,
                    s.comm / n, s.optimizer / n);
    }
    std::printf("%zu framework event(s)\n", events);
}

} // namespace

int cmdTensors(const std::string& job, const std::string& name, bool json) {
    auto reader = openReader();
    const store::ComponentRow row = reader.resolveJob(job);
    std::map<std::string, TensorValues> tensors;
    for (const auto& r : reader.tensorReductions(row.id, name)) {
        TensorValues& t = tensors[r.tensor];
        t.collections.insert(r.collection);
        const auto key = std::make_tuple(r.step, r.phase, r.rank);
        t.points[key][r.reduction] = present::numberJson(r.value);
        t.nodes[key] = r.node;
    }
    if (!name.empty() && tensors.empty()) {
        std::string known;
        std::set<std::string> names;
        for (const auto& r : reader.tensorReductions(row.id))
            names.insert(r.tensor);
        for (const auto& n : names)
            known += (known.empty() ? "" : ", ") + n;
        std::fprintf(stderr, "mlstudio: job %s saved no tensor \"%s\"%s%s\n", row.name.c_str(),
                     name.c_str(), names.empty() ? "" : "; it saved: ", known.c_str());
        return kExitFailed;
    }
    const std::filesystem::path raw = std::filesystem::path(row.jobDir) / "debug-output";
    const bool hasRaw = !row.jobDir.empty() && std::filesystem::is_directory(raw);
    if (json) {
        ordered_json out = jobHeader(row);
        out["debug_output"] = hasRaw ? ordered_json(raw.string()) : ordered_json();
        out["tensors"] = tensorsJson(tensors);
        printJson(out);
        return kExitOk;
    }
    if (tensors.empty())
        std::printf("Job %s saved no tensor reductions (its spec has no debugger_hook_config, "
                    "or no step was saved yet)\n",
                    row.name.c_str());
    else
        printTensorTable(tensors);
    if (hasRaw)
        std::printf("Raw tensors: %s\n", raw.string().c_str());
    return kExitOk;
}

int cmdSamples(const std::string& job, double since, bool json) {
    auto reader = openReader();
    const store::ComponentRow row = reader.resolveJob(job);
    const auto series = reader.systemSeries(row.id, since);
    if (json) {
        ordered_json out = jobHeader(row);
        out["nodes"] = nodesJson(reader, row.id);
        ordered_json all = ordered_json::array();
        for (const auto& s : series) {
            ordered_json samples = ordered_json::array();
            for (const auto& p : s.samples)
                samples.push_back({p.time, present::numberJson(p.value)});
            all.push_back({{"node", s.node},
                           {"device", s.device},
                           {"metric", s.metric},
                           {"samples", std::move(samples)}});
        }
        out["series"] = std::move(all);
        printJson(out);
        return kExitOk;
    }
    if (series.empty()) {
        std::printf("Job %s has no system samples (the profiler was disabled, or it has not "
                    "sampled yet)\n",
                    row.name.c_str());
        return kExitOk;
    }
    std::printf("%-5s %-8s %-8s %8s %12s %12s %12s\n", "NODE", "DEVICE", "METRIC", "SAMPLES", "min",
                "mean", "max");
    for (const auto& s : series) {
        const SeriesStats st = statsOf(s.samples);
        std::printf("%-5d %-8s %-8s %8zu %12.2f %12.2f %12.2f\n", s.node, s.device.c_str(),
                    s.metric.c_str(), s.samples.size(), st.min, st.mean, st.max);
    }
    return kExitOk;
}

int cmdSteps(const std::string& job, bool json) {
    auto reader = openReader();
    const store::ComponentRow row = reader.resolveJob(job);
    const auto timings = reader.stepTimings(row.id);
    const auto events = reader.frameworkEvents(row.id);
    if (json) {
        ordered_json out = jobHeader(row);
        out["nodes"] = nodesJson(reader, row.id);
        out["steps"] = stepTimingsJson(timings);
        out["events"] = frameworkEventsJson(events);
        printJson(out);
        return kExitOk;
    }
    if (timings.empty() && events.empty()) {
        std::printf("Job %s has no step timings (its trainer reports none, or no step ended "
                    "yet)\n",
                    row.name.c_str());
        return kExitOk;
    }
    printStepTable(timings, events.size());
    return kExitOk;
}

} // namespace studio::cli
