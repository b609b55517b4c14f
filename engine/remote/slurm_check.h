// `mlstudio cluster check` for a Slurm cluster: the API versions slurmrestd serves and the one
// chosen, Slurm's release, the controller's ping, the partitions and nodes, whether the token
// is accepted for the user, and whether the workdir is shared: a one-node test job writes a
// marker file there, which must then be visible on this machine.
#pragma once

#include "engine/remote/cluster.h"
#include "engine/remote/slurm_client.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace studio::remote {

struct SlurmWorkdirCheck {
    std::string path;
    bool tried = false;   // a test job was submitted
    bool visible = false; // its marker came back on this machine
    std::int64_t jobId = 0;
    std::string jobState; // as last seen ("COMPLETED", "PENDING", ...)
    std::string reason;   // Slurm's state_reason then
    std::string node;     // where the job ran
    std::string jobUser;  // who it ran as
    double seconds = 0;   // submission to marker (or to giving up)
};

struct SlurmCheck {
    std::string cluster;
    double time = 0;
    std::string url;
    std::string auth; // "JWT for user U (token file F)", "local (unix socket)"
    std::vector<std::string> serverVersions;
    std::string version;        // the one chosen; "" when none could be
    std::string release;        // Slurm's, "22.05.8"
    bool reachable = false;     // slurmrestd answered
    bool authenticated = false; // slurmctld accepted a request with our credentials
    std::string ping;           // "UP", or what the controller said
    std::vector<SlurmPartitionInfo> partitions;
    std::vector<SlurmNodeInfo> nodes;
    SlurmWorkdirCheck workdir;
    std::string error;     // the first problem, naming the cluster and what to fix
    std::string errorKind; // unreachable, auth, version, rejected, not_found, protocol, workdir
    double seconds = 0;

    bool ok() const { return error.empty() && workdir.visible; }
};

struct SlurmCheckOptions {
    double requestTimeoutSeconds = 10;
    double jobTimeoutSeconds = 60; // the test job, from submission to its marker
    double pollSeconds = 0.25;
    // Called on the calling thread as the check goes on; `waiting` lines replace each other
    // (the test job's state while it is awaited).
    std::function<void(const std::string& line, bool waiting)> progress;
};

SlurmCheck checkSlurmCluster(const ClusterConfig& cluster, const SlurmCheckOptions& options);

// "unreachable", "auth", ...
std::string slurmErrorKindName(SlurmError::Kind kind);

std::string slurmCheckToJson(const SlurmCheck& c);
// A check with time 0 when the text is not a stored Slurm check.
SlurmCheck slurmCheckFromJson(const std::string& text);

} // namespace studio::remote
