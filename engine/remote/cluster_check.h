// `mlstudio cluster check`: connects to every host of a cluster in parallel and reports, per
// host, whether it answers (or the exact error), the launcher's version against the studio's,
// cores, memory, free disk in the workdir, GPUs and the clock offset to this machine.
#pragma once

#include "engine/remote/cluster.h"
#include "engine/remote/host_facts.h"

#include <functional>
#include <string>
#include <vector>

namespace studio::remote {

struct HostCheck {
    std::string host; // as the cluster names it
    bool reachable = false;
    std::string error;   // why the host cannot be used, host named; "" when it can
    std::string version; // the launcher's version line ("" when it has none)
    HostFacts facts;
    double clockOffsetSeconds = 0; // host clock minus this machine's
    double seconds = 0;            // how long the check took

    bool ok() const { return reachable && error.empty(); }
};

struct ClusterCheck {
    std::string cluster;
    double time = 0;
    std::vector<HostCheck> hosts;

    bool ok() const;
};

struct CheckOptions {
    std::string controlDir;    // ControlMaster sockets
    std::string localLauncher; // studio-launcher of this build, for the local cluster
    std::string localWorkdir;  // where local jobs are written (the studio home), for "local"
    double timeoutSeconds = 20;
    bool acceptNewHostKeys = false; // trust a host key seen for the first time (cluster add)
    // Called from a worker thread as each host's check ends.
    std::function<void(std::size_t index, const HostCheck&)> progress;
};

ClusterCheck checkCluster(const ClusterConfig& cluster, const CheckOptions& options);

// The error for a launcher whose version differs from the studio's, with how to fix it.
std::string versionMismatch(const std::string& host, const std::string& found,
                            const ClusterConfig& cluster);

std::string clusterCheckToJson(const ClusterCheck& c);
// An empty check (no hosts) when the text is not a stored check.
ClusterCheck clusterCheckFromJson(const std::string& text);

} // namespace studio::remote
