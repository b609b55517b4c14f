// Placement of a job on "nodes": instance_count launchers, each with processes_per_host ranks,
// on this machine or on the hosts of a cluster, and the command line each launcher is started
// with.
#pragma once

#include "engine/remote/cluster.h"
#include "engine/spec/job_spec.h"

#include <map>
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

// What one node's launcher is given, as its host sees it: programs and folders, the ranks'
// working directory, the input channels and the rank command.
struct NodeLaunch {
    LaunchPaths paths;
    std::string workdir;    // the ranks' working directory
    std::string sourceFrom; // staged code the launcher copies to workdir first ("": none)
    std::map<std::string, std::string> channels; // name -> path on the host
    std::vector<std::string> rankCommand;
    std::string journal;      // the launcher appends its events here and runs detached
    std::string socketIfname; // GLOO/NCCL_SOCKET_IFNAME: "" (not set), "auto" or a name
    std::string imdsEndpoint; // spot jobs: the metadata endpoint to poll ("": none)
    // distribution.mpi for a script (engine/spec/mpi_launch.h): the ranks run under mpirun.
    bool mpi = false;
    std::vector<std::string> mpiHosts; // per node, as node 0 reaches it (empty: localhost/Slurm)
    std::string mpiSshConfig;          // ssh_config for mpirun's SSH launch ("": none)
};

// mpirun's SSH launch from node 0 to the other hosts of an SSH cluster: the cluster's ports,
// users, identity and known hosts as an ssh_config. Throws naming the cluster's field when a
// value cannot be written into one (a newline or a double quote).
std::string mpiSshConfig(const remote::ClusterConfig& cluster);

// A node on this machine: the job folder's paths, the spec's source_dir and inputs.
NodeLaunch localLaunch(const spec::JobSpec& spec, const LaunchPaths& paths);

// studio-launcher's argv for one node.
// The ranks' environment the launcher reads on its stdin (--env-stdin), as a JSON object: the
// spec's variables and the resolved secrets. Throws naming the variable when a secret is missing.
std::string launcherEnvironment(const spec::JobSpec& spec, const LaunchPaths& paths,
                                const std::map<std::string, std::string>& secrets);
std::vector<std::string> launcherArgv(const spec::JobSpec& spec, const Placement& placement,
                                      const NodePlan& node, const std::string& jobName,
                                      const NodeLaunch& launch, int monitorIntervalMs,
                                      double gracePeriodSeconds);
std::vector<std::string> launcherArgv(const spec::JobSpec& spec, const Placement& placement,
                                      const NodePlan& node, const std::string& jobName,
                                      const LaunchPaths& paths, int monitorIntervalMs,
                                      double gracePeriodSeconds);

} // namespace studio::control
