// The profiler rules' streams and driver (profiler_rule_streams.h).
#include "tests/unit/profiler_rule_streams.h"

#include <algorithm>
#include <functional>

namespace studio::testing {

using namespace debugger;

namespace {

constexpr int kLong = 1200; // snapshots: more than the default patience (1000)
constexpr int kShort = 300; // fewer than the default patience

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

const std::map<std::string, std::function<Stream()>>& scenarios() {
    static const std::map<std::string, std::function<Stream()>> all = {
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

} // namespace

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

wire::StepEvent step(std::int64_t n, double ms, wire::Phase phase) {
    wire::StepEvent s;
    s.step = n;
    s.phase = phase;
    s.dataMs = ms * 0.1;
    s.forwardMs = ms * 0.3;
    s.backwardMs = ms * 0.5;
    s.optimizerMs = ms * 0.1;
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

const Stream& streamOf(const std::string& name) {
    static std::map<std::string, Stream> cache;
    auto it = cache.find(name);
    if (it == cache.end())
        it = cache.emplace(name, scenarios().at(name)()).first;
    return it->second;
}

Params parseParams(const std::string& text) {
    const auto trimmed = [](const std::string& s) {
        const auto first = s.find_first_not_of(" \t\n\r\f\v");
        return first == std::string::npos
                   ? std::string()
                   : s.substr(first, s.find_last_not_of(" \t\n\r\f\v") - first + 1);
    };
    Params out;
    std::size_t from = 0;
    while (from <= text.size()) {
        const std::size_t end = std::min(text.find(',', from), text.size());
        const std::string item = text.substr(from, end - from);
        from = end + 1;
        if (item.empty())
            continue;
        const auto eq = item.find('=');
        const auto next = eq == std::string::npos ? eq : item.find('=', eq + 1);
        out[trimmed(item.substr(0, eq))] =
            eq == std::string::npos ? std::string() : trimmed(item.substr(eq + 1, next - eq - 1));
    }
    return out;
}

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

} // namespace studio::testing
