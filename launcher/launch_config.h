// What one studio-launcher runs: the node's place in the job, the rank command, and the
// SageMaker-style training environment. Built from the command line (torchrun's flag names).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace studio::launcher {

struct LaunchConfig {
    int nnodes = 1;
    int nodeRank = 0;
    int nprocPerNode = 1;
    std::string masterAddr = "127.0.0.1";
    int masterPort = 29500;
    std::string runId = "none";
    int monitorIntervalMs = 500; // 0: no system sampling
    double gracePeriodSeconds = 10;
    bool bindCores = true; // --bind-cores auto: each local rank gets its own share of the CPUs
    std::vector<std::string> hosts; // SM_HOSTS; default algo-1 .. algo-N
    std::string modelDir;
    std::string outputDataDir;
    std::string checkpointDir;
    // tensorboard_output_config.local_path: SM_TENSORBOARD_DIR where it exists on this host;
    // the launcher reads the scalars of the event files ranks write there (tensorboard_watch.h).
    std::string tensorboardDir;
    std::map<std::string, std::string> channels; // SM_CHANNEL_<NAME>
    std::string hyperparametersJson = "{}";      // SM_HPS: a JSON object
    std::vector<std::string> userArgs;           // SM_USER_ARGS
    std::map<std::string, std::string> env;      // the job's environment
    bool envFromStdin = false; // --env-stdin: more of env as a JSON object on stdin
    // --slurm: one task of srun; the node's rank is SLURM_NODEID, and "%n" in --journal
    // becomes it (one batch script starts every node's launcher with the same arguments).
    bool slurm = false;
    std::string workdir;
    std::string imdsEndpoint; // spot: poll this IMDS for interruption notices (empty: no)
    double imdsIntervalSeconds = 5;
    std::vector<std::string> command;
    // Jobs that outlive the studio: events are appended to the journal file instead of stdout,
    // and with detach the launcher runs in its own session (see detach.h).
    std::string journal;
    bool detach = false;
    std::string sourceFrom;   // copy this folder to workdir before the ranks start (staged code)
    std::string socketIfname; // GLOO/NCCL_SOCKET_IFNAME; "auto": the interface to masterAddr
    // Set by the launcher of a one-host job with several ranks: STUDIO_STORE_FILE, the file the
    // trainer's ranks meet through instead of a TCP store listening on every interface.
    std::string storeFile;
    // distribution.mpi for a script (mpi_wire.h): node 0 runs one mpirun for the job, and every
    // node serves the ranks mpirun starts on its host.
    bool mpi = false;
    std::vector<std::string> mpiHosts; // per node, as mpirun reaches it (node 0 only)
    std::vector<std::string> mpiArgs;  // custom_mpi_options, split
    std::string mpiSshConfig;          // ssh_config text for mpirun's SSH launch ("" none)
    double mpiWaitSeconds = 120;       // for this node's ranks to reach it
    // Set by the launcher (rank_python.h): the folder holding the mlstudio package on this host
    // ("" when none) and the Debugger hook's configuration file ("" when the job has no plan).
    std::string pythonRoot;
    std::string hookConfigFile;

    int worldSize() const { return nnodes * nprocPerNode; }
    std::string currentHost() const;
};

// Parses argv (after the program name); throws std::invalid_argument with a message naming the
// flag. "--help" text comes from launcherUsage().
// Adds the variables of a JSON object of strings (what --env-stdin reads) to c.env; throws
// std::invalid_argument naming --env-stdin for anything else.
void addEnvironmentJson(const std::string& json, LaunchConfig& c);

LaunchConfig parseLaunchArgs(const std::vector<std::string>& args);
// --slurm: takes the node's rank from SLURM_NODEID (nodeId, null when unset) and puts it for
// "%n" in the journal's path; throws std::invalid_argument naming the variable.
void applySlurmTask(LaunchConfig& c, const char* nodeId);
std::string launcherUsage();

} // namespace studio::launcher
