// Plain rows the store writes and returns. No SQL here: callers never see the schema.
#pragma once

#include "engine/store/summary.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace studio::store {

using ComponentId = std::int64_t;

struct MetricPoint {
    std::int64_t step = 0;
    double time = 0;
    double value = 0;
    int node = 0;
    int rank = 0;
};

// One metric's points, written whole (an imported job's).
struct MetricSeries {
    std::string name;
    std::vector<MetricPoint> points;
};

struct StatusTransition {
    std::string status;
    std::string secondaryStatus;
    double startTime = 0;
    double endTime = 0; // 0 while current
    std::string message;
};

struct ExperimentRow {
    std::int64_t id = 0;
    std::string name;
    std::string description;
    double created = 0;
    int trials = 0;
    int components = 0;
};

struct TrialRow {
    std::int64_t id = 0;
    std::string experiment;
    std::string name;
    double created = 0;
    int components = 0;
};

// A job that has not ended yet: InProgress or Stopping.
inline bool isLiveStatus(const std::string& status) {
    return status == "InProgress" || status == "Stopping";
}

struct ComponentRow {
    ComponentId id = 0;
    std::string name;
    std::string displayName;
    std::string experiment;
    std::string trial;
    std::string status;
    std::string secondaryStatus;
    std::string failureReason;
    std::string instanceType;
    int instanceCount = 1;
    int processesPerHost = 1;
    std::string entryPoint;
    std::string jobDir;
    double created = 0;
    double started = 0; // 0: not yet
    double ended = 0;
    std::string notes;
    int protocolErrors = 0;
    std::string cluster = "local";
    std::string owner; // "host:pid:start" of the studio process following the job; "" when none
};

struct NodeRow {
    int node = 0;
    std::string host;
    std::int64_t launcherPid = 0;
    int cores = 0;
    int gpus = 0;
    double started = 0;
    double ended = 0;
    std::optional<int> exitCode;
};

struct RankRow {
    int rank = 0;
    int node = 0;
    int localRank = 0;
    std::int64_t pid = 0;
    double started = 0;
    double ended = 0;
    std::optional<int> exitCode;
    int signal = 0;
    std::string device; // "cuda:1 (NVIDIA H100 80GB HBM3, 79.6 GiB)", as the rank reported it
};

struct LogFileRow {
    int node = 0;
    int rank = 0;
    std::string path;
    std::int64_t lines = 0;
    std::int64_t bytes = 0;
};

struct ParameterRow {
    std::string name;
    std::string value;
    std::optional<double> number;
};

struct SystemSample {
    double time = 0;
    double value = 0;
};

struct SystemSeries {
    int node = 0;
    std::string device;
    std::string metric;
    std::vector<SystemSample> samples;
};

struct StepTiming {
    int node = 0;
    int rank = 0;
    std::int64_t step = 0;
    std::string phase = "train";
    double time = 0;
    double dataMs = 0, forwardMs = 0, backwardMs = 0, commMs = 0, optimizerMs = 0;
};

struct TensorReduction {
    std::int64_t step = 0;
    std::string collection;
    std::string tensor;
    std::string reduction;
    double value = 0;
    int node = 0;
    int rank = 0;
    std::string phase = "train";
};

struct FrameworkEventRow {
    int node = 0;
    int rank = 0;
    std::int64_t step = 0;
    std::string phase = "train";
    std::string name;
    std::string category; // forward, backward, dataloader, comm, optimizer, step
    double start = 0;
    double durationMs = 0;
    std::int64_t pid = 0;
};

struct CheckpointRow {
    int node = 0;
    int rank = 0;
    std::int64_t step = 0;
    double time = 0;
    std::string path;
    std::string sha256;
    std::int64_t bytes = 0;
};

struct RuleStatusRow {
    std::string rule;
    std::string kind;   // "model" | "profiler"
    std::string status; // InProgress, NoIssuesFound, IssuesFound, Error, NotApplicable
    std::string message;
    double updated = 0;
    std::int64_t fired = 0;      // times the rule's condition was met
    std::int64_t datapoints = 0; // values the rule evaluated
    std::string parameters;      // "name=value, ..." as the rule ran with them
    std::string actions;         // "StopTraining, Notify"
    std::string details = "{}";  // JSON: the rule's figures for the profiler report
    std::string criteria;        // the trigger condition in words, with the parameter values
};

struct FindingRow {
    std::string rule;
    double time = 0;
    std::int64_t step = -1;
    int node = -1;
    std::string device;
    std::string message;
    std::string recommendation;
    std::string criteria;
};

struct NotificationRow {
    std::int64_t id = 0;
    std::string component;
    double time = 0;
    std::string rule;
    std::string message;
};

struct BillingSegment {
    int attempt = 1;
    double start = 0;
    double end = 0;
    std::string kind; // "running" | "waiting"
};

struct ArtifactRow {
    std::string name;
    std::string kind; // "input" | "output" | "artifact"
    std::string value;
    std::string mediaType;
};

// A document about a job, whole: topic "source" (node -1, rank -1: what the controller saw of
// the code), "provenance" (a rank's interpreter, packages and framework versions), "operators"
// (a profiled window's top operators), "logging" (points a rank dropped). body: a JSON object.
struct FactsRow {
    std::string topic;
    int node = -1;
    int rank = -1;
    double time = 0;
    std::string body;
};

// A cluster as stored; config is its JSON definition (engine/remote/cluster.h).
struct ClusterRow {
    std::string name;
    std::string kind;
    std::string config;
    double created = 0;
    double updated = 0;
    std::string lastCheck; // JSON of the last `cluster check`, "" when never checked
};

// One node's journal: where its launcher appends events on its host, and how far the studio
// has stored them. state: starting, following, reconnecting, ended, lost.
struct JournalRow {
    int node = 0;
    int attempt = 1;
    std::string host; // the cluster's name for the host ("local" for this machine)
    std::string path; // the journal file on that host
    std::int64_t launcherPid = 0;
    std::string launcherStart; // start time in clock ticks, against pid reuse
    std::int64_t offset = 0;
    std::string state = "starting";
    double stateSince = 0;
    std::string message;
};

// A Slurm job that a studio job submitted, as Slurm last described it.
struct SlurmJobRow {
    std::int64_t jobId = 0;
    int attempt = 1;             // the studio attempt it ran (a resubmission starts the next)
    std::string cluster;         // the studio's name of the Slurm cluster
    std::string partition;       // as allocated (the default partition when the spec named none)
    std::string state;           // Slurm's job_state: PENDING, RUNNING, COMPLETED, ...
    std::string reason;          // Slurm's state_reason: Resources, Priority, None, ...
    std::string nodes;           // the allocation as Slurm writes it ("h[1-2]"); "" while pending
    int restarts = 0;            // Slurm's restart_cnt (requeues)
    std::optional<int> exitCode; // the batch script's exit status (decoded), once ended
    double submitted = 0;
    double started = 0;
    double ended = 0;
    double updated = 0; // when the studio last heard from Slurm
    std::string script; // the batch script as submitted
};

// Everything `mlstudio show` prints about a job.
struct ComponentDetail {
    ComponentRow row;
    std::vector<ParameterRow> parameters;
    std::vector<StatusTransition> transitions;
    std::map<std::string, MetricSummary> metrics;
    std::vector<NodeRow> nodes;
    std::vector<RankRow> ranks;
    std::vector<LogFileRow> logs;
    std::vector<CheckpointRow> checkpoints;
    std::vector<ArtifactRow> artifacts;
    std::map<std::string, std::string> tags;
    std::string specJson;
    std::vector<RuleStatusRow> rules;
    std::vector<FindingRow> findings;
    std::vector<JournalRow> journals;
    std::vector<SlurmJobRow> slurmJobs; // in the order submitted
    std::vector<FactsRow> facts;        // what ran; by topic, node, rank
};

} // namespace studio::store
