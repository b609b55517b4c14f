// Placement of a job on local "nodes": instance_count launchers, each with processes_per_host
// ranks, and the command line each launcher is started with.
#pragma once

#include "engine/spec/job_spec.h"

#include <string>
#include <vector>

namespace studio::control {

struct NodePlan {
    int node = 0;
    std::string host; // algo-1, algo-2, ...
    std::vector<int> ranks;
};

struct Placement {
    std::vector<NodePlan> nodes;
    std::string masterAddr = "127.0.0.1";
    int masterPort = 0;
    int worldSize = 0;
};

Placement placeJob(const spec::JobSpec& spec, int masterPort);

struct LaunchPaths {
    std::string launcher; // studio-launcher
    std::string trainer;  // studio-train, for builtin: entry points
    std::string specFile; // the job's spec.json
    std::string modelDir;
    std::string outputDir;
    std::string checkpointDir;
    std::string debugOutputDir; // raw tensors the debugger hook saves
};

// The rank command: the spec's command plus "--name value" hyperparameters, or studio-train.
std::vector<std::string> rankCommand(const spec::JobSpec& spec, const LaunchPaths& paths);

// studio-launcher's argv for one node.
std::vector<std::string> launcherArgv(const spec::JobSpec& spec, const Placement& placement,
                                      const NodePlan& node, const std::string& jobName,
                                      const LaunchPaths& paths, int monitorIntervalMs,
                                      double gracePeriodSeconds);

} // namespace studio::control
