// A client of Slurm's REST API (slurmrestd) over libcurl: TCP with a JWT in
// X-SLURM-USER-TOKEN / X-SLURM-USER-NAME, or a unix socket with local auth. The API plugin
// version is chosen from the server's OpenAPI document: the highest one both sides speak.
// Every error names the cluster and says what to fix; the token is read from its file or
// variable at each request and never appears in a message.
// Thread-compatible: one client per thread (each call makes its own curl handle).
#pragma once

#include "engine/remote/cluster.h"

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace studio::remote {

// The API plugin versions this studio speaks, oldest first ("v0.0.36", ...).
const std::vector<std::string>& supportedSlurmApiVersions();

// What went wrong talking to slurmrestd. `kind` lets callers tell a server that cannot be
// reached from one that refused the request.
class SlurmError : public std::runtime_error {
public:
    enum class Kind { Unreachable, Auth, Version, Rejected, NotFound, Protocol };
    SlurmError(Kind kind, const std::string& message)
        : std::runtime_error(message)
        , m_kind(kind) {}
    Kind kind() const { return m_kind; }

private:
    Kind m_kind;
};

struct SlurmPartitionInfo {
    std::string name;
    std::string state; // UP, DOWN, DRAIN, INACTIVE
    bool isDefault = false;
    int totalNodes = 0;
    int totalCpus = 0;
    std::string nodes;                // as Slurm writes the list ("h[1-2]")
    std::int64_t maxTimeMinutes = -1; // -1: unlimited
};

struct SlurmNodeInfo {
    std::string name;
    std::string address;
    std::string state; // idle, allocated, mixed, down, drained, ...
    int cpus = 0;
    int allocCpus = 0;
    std::int64_t memoryMb = 0;
    std::string gres; // "gpu:a100:4", "" when none
    std::vector<std::string> partitions;
};

// A batch job to submit: what the studio sets, plus the spec's extra job fields.
struct SlurmJobRequest {
    std::string name;
    std::string script; // the batch script (starts with #!)
    std::string partition, account, qos;
    int nodes = 1;
    int tasksPerNode = 1;
    int cpusPerTask = 0;               // 0: Slurm's default
    std::int64_t timeLimitMinutes = 0; // 0: the partition's default
    std::string gres;                  // per node, e.g. "gpu:2" (tres_per_node)
    std::string constraint;            // node features
    bool exclusive = false;
    bool requeue = true; // node failure and preemption requeue the job (the studio resumes it)
    std::string workingDirectory; // must exist on the nodes
    std::string standardOutput;   // sbatch patterns (%j, %x) allowed
    std::string standardError;
    std::map<std::string, std::string> environment; // the job gets this and SLURM_* only
    // Further fields of the job description, passed through as JSON values (the spec's
    // "extra_sbatch"); they must not name a field set above.
    std::map<std::string, std::string> extraJson; // field -> JSON text of its value
};

// A job as Slurm describes it (GET /slurm/<v>/job/<id>).
struct SlurmJobInfo {
    std::int64_t jobId = 0;
    std::string name;
    std::string state;  // PENDING, RUNNING, COMPLETING, COMPLETED, FAILED, CANCELLED, TIMEOUT,
                        // NODE_FAIL, PREEMPTED, REQUEUED, ...
    std::string reason; // state_reason: None, Resources, Priority, NonZeroExitCode, ...
    std::string description;
    int rawExitCode = 0; // the batch script's wait status as Slurm reports it
    int restartCount = 0;
    double submitTime = 0, startTime = 0, endTime = 0;
    std::string partition;
    std::string nodes; // "h[1-2]"; "" while pending
    std::vector<std::string> nodeNames;
    std::string batchHost;
    std::string userName;

    // The exit code of a script that exited (WEXITSTATUS), else empty; the signal that ended
    // it, else 0. Both wait for the script to end (a final state or COMPLETING).
    std::optional<int> exitCode() const;
    int termSignal() const;
    // A final state: COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL, PREEMPTED, ...
    bool ended() const;
};

class SlurmClient {
public:
    // timeoutSeconds bounds each request (connect and transfer).
    explicit SlurmClient(ClusterConfig cluster, double timeoutSeconds = 10);
    ~SlurmClient();
    SlurmClient(const SlurmClient&) = delete;
    SlurmClient& operator=(const SlurmClient&) = delete;

    // The versions the server announces in /openapi/v3 (its "paths"), oldest first.
    std::vector<std::string> serverVersions();
    // The cluster's apiVersion when set (checked against the server's), else the highest
    // version both sides speak. Throws SlurmError{Version} naming both lists. The result is
    // kept for the client's later requests.
    std::string negotiate();
    const std::string& version() const { return m_version; }
    std::string release() const { return m_release; } // "22.05.8" once a request came back

    // GET ping: "" when the controller answers UP, else what it said.
    std::string ping();
    std::vector<SlurmPartitionInfo> partitions();
    std::vector<SlurmNodeInfo> nodes();

    // Submits; returns Slurm's job id. Throws SlurmError{Rejected} with Slurm's errors.
    std::int64_t submit(const SlurmJobRequest& job);
    // The job, or nothing when Slurm no longer knows it (ended longer ago than MinJobAge).
    std::optional<SlurmJobInfo> job(std::int64_t jobId);
    // Every job Slurm knows (one request for many followed jobs).
    std::vector<SlurmJobInfo> jobs();
    // DELETE: cancels the job (SIGTERM to its steps, then SIGKILL after KillWait); with a
    // signal name ("USR1", "TERM") only delivers that signal. Unknown job: SlurmError{NotFound}.
    void cancel(std::int64_t jobId, const std::string& signal = {});

    const ClusterConfig& cluster() const { return m_cluster; }
    // X-SLURM-USER-NAME: the cluster's user, else this process's user name.
    std::string userName() const;

private:
    struct Response;
    Response request(const std::string& method, const std::string& path,
                     const std::string& body = {});
    // Throws the SlurmError a reply stands for; `what` names the request in the message.
    void check(const Response& r, const std::string& what) const;
    // /slurm/<version><rest>, negotiating the version first when none is chosen yet.
    std::string apiPath(const std::string& rest);

    ClusterConfig m_cluster;
    double m_timeout;
    std::string m_version;
    std::string m_release;
    std::vector<std::string> m_served; // from the last serverVersions()
};

// The token of a cluster from its file or variable ("" when it uses neither). Throws
// std::runtime_error naming the cluster and the file or variable when it cannot be read.
std::string readSlurmToken(const SlurmSettings& s, const std::string& clusterName);

} // namespace studio::remote
