// Crafted event streams for the Debugger's profiler rules (test_profiler_rules): system
// snapshots, steps, data loaders and framework events, by scenario name, and a driver that runs
// one rule over a stream.
#pragma once

#include "engine/debugger/debugger_session.h"
#include "engine/debugger/rule_registry.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace studio::testing {

using Stream = std::vector<wire::Event>;
using Params = std::map<std::string, std::string>;

inline constexpr double kT0 = 1'700'000'000.0; // the streams' first timestamp
inline constexpr double kInterval = 0.5;       // the launcher's default monitor interval

inline wire::Event at(double t, int node, int rank, wire::Payload p) {
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

void addSnapshot(Stream& s, double t, int node, const Snapshot& snap);

// A TRAIN (or EVAL) step of `ms` split 10 / 30 / 50 / 0 / 10 % over the phases.
wire::StepEvent step(std::int64_t n, double ms, wire::Phase phase = wire::Phase::Train);

// Steps of 100 ms with forward, backward and comm framework events for 50 of them.
Stream frameworkStream();

// The stream of a scenario ("busy", "cpu_bound", ...), built once: several rows share them.
const Stream& streamOf(const std::string& name);

// "key=value,key=value" as rule parameters.
Params parseParams(const std::string& text);

struct Run {
    std::unique_ptr<debugger::Rule> rule;
    std::vector<debugger::Finding> findings;
    double duration = 0;
};

// Builds the rule through the registry, feeds it the stream and finishes it.
Run runRule(const std::string& name, const Params& params, const Stream& stream);

const debugger::Rule* ruleNamed(const debugger::DebuggerSession& session, const std::string& name);

// The rules that judge GPUs.
inline const std::vector<std::string> kGpuRules = {"LowGPUUtilization", "CPUBottleneck",
                                                   "IOBottleneck",      "GPUMemoryIncrease",
                                                   "BatchSize",         "LoadBalancing"};

} // namespace studio::testing
