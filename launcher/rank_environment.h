// The environment of one rank: torchrun's variables, SageMaker's SM_* training environment and
// STUDIO_EVENTS_FD. A pure function of the config, so it is unit-tested without processes.
#pragma once

#include "launcher/launch_config.h"

#include <map>
#include <string>
#include <vector>

namespace studio::launcher {

inline constexpr int kEventsFd = 3; // the fd number ranks write events to

struct NodeResources {
    int cpus = 1;
    int gpus = 0;
};

std::map<std::string, std::string> rankEnvironment(const LaunchConfig& c, int localRank,
                                                   const NodeResources& node,
                                                   const std::map<std::string, std::string>& base);

// The CPUs of local rank `localRank` when nproc ranks share `available` CPUs: an equal, disjoint
// share each; empty (no binding) when there are fewer CPUs than ranks or just one rank.
std::vector<int> rankCpus(const std::vector<int>& available, int nproc, int localRank);

// The CPUs this process may run on (its affinity mask); none when bind is false.
std::vector<int> affinityCpus(bool bind);

// This host's name, as gethostname(2) says it.
std::string hostName();

// "learning-rate" -> "LEARNING_RATE": environment-safe upper case.
std::string envName(const std::string& name);

} // namespace studio::launcher
