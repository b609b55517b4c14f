// The batch script a Slurm job of the studio runs: it finds the rendezvous (the first node's
// address, a port derived from the Slurm job id) and starts one studio-launcher per node with
// srun; each launcher appends its events to its node's journal on the shared filesystem.
// Every value from a spec or a cluster is quoted by remote::shellQuote.
#pragma once

#include <string>
#include <vector>

namespace studio::control {

struct SlurmScriptInput {
    std::string jobName;
    std::string cluster;
    std::string jobDir; // the job's folder on the cluster's shared filesystem
    int nodes = 1;
    int ranksPerNode = 1;
    // The attempt the Slurm job's first run is; a requeued run (SLURM_RESTART_COUNT) is the
    // next one, and writes journals of its own.
    int firstAttempt = 1;
    // studio-launcher's argv for a node (launcherArgv()): its --node-rank, --master-addr,
    // --master-port, --journal, --detach and --env-stdin are replaced by what the script
    // computes.
    std::vector<std::string> launcherArgv;
};

std::string slurmBatchScript(const SlurmScriptInput& in);

// The journal of node `node` for an attempt (journal.jsonl, journal.2.jsonl, ...), as the
// script's launchers write it.
std::string slurmJournalPath(const std::string& jobDir, int node, int attempt);

// The rendezvous port the script derives from a Slurm job id and its restart count.
int slurmRendezvousPort(long long jobId, int restartCount);

} // namespace studio::control
