// The running job's state, shared by the runner's loop and its event routing.
// Internal to engine/control.
#pragma once

#include "engine/control/follow_stream.h"
#include "engine/control/job_runner.h"
#include "engine/control/log_sink.h"
#include "engine/control/metric_extractor.h"
#include "engine/control/python_rule.h"
#include "engine/control/tensorboard_live.h"
#include "engine/debugger/debugger_session.h"
#include "engine/process/process.h"
#include "engine/remote/slurm_client.h"
#include "engine/spot/interruption_source.h"

#include <deque>
#include <future>
#include <map>
#include <optional>
#include <vector>

namespace studio::control {

// One node as the controller sees it: a detached launcher on its host, appending to a journal,
// and the follower (`studio-launcher follow` through the host's executor) that streams the
// journal from the offset stored so far.
struct NodeLink {
    NodePlan plan;
    std::shared_ptr<remote::HostExecutor> host;
    std::string launcher;     // studio-launcher on the host
    std::string remoteJobDir; // the job's folder on the host ("" for this machine)
    store::JournalRow journal;

    process::Process follower;
    process::Fd out, err;
    FollowStream stream;
    std::string followerErr;    // what the follower (ssh) wrote on stderr
    double followerStarted = 0; // monotonic
    double lastHeard = 0;       // monotonic: the last bytes from the follower
    bool linkUp = false;        // the follower's marker came, and it has not gone quiet since
    double downSince = 0;       // unix time the link went down; 0 while up
    double nextAttempt = 0;     // monotonic: when to start the follower again
    int reconnectAttempts = 0;
    int pendingSignal = 0;                  // a signal to deliver once the link is back
    std::vector<process::Process> commands; // signal commands in flight

    bool journalEnded = false;       // the launcher's exit event arrived
    std::optional<int> launcherExit; // its exit code
    std::string lostReason;          // the launcher or host is gone (why, host named)
    bool done = false;
    std::deque<std::string> stderrTail;
    bool ranksStarted = false;
    std::string finishMessage;
    store::NodeRow row;
};

struct RankFailure {
    double time = 0;
    int rank = -1;
    int node = -1;
    int code = 0;
    int signal = 0;
    std::vector<std::string> stderrTail;
};

// The rank command as a cluster's node runs it: the staged spec for the trainer, the script
// relative to the staged source folder (job_launch.cpp).
std::vector<std::string> stagedRankCommand(const spec::JobSpec& spec, const LaunchPaths& paths,
                                           const std::string& cluster);
// The folders a job on a cluster brings back at its end: the name in the node's job folder, and
// the local folder it goes to (job_launch.cpp).
std::vector<std::pair<std::string, std::string>> broughtBack(const JobPaths& paths);
// A job's programs and folders on a cluster's node, its folder there being jobDir.
LaunchPaths clusterJobPaths(const spec::JobSpec& spec, const remote::ClusterConfig& cluster,
                            const std::string& jobDir);

// A job on a Slurm cluster: the Slurm job running the studio's attempt, and what Slurm last
// said of it (slurm_attempts.cpp).
struct SlurmFollow {
    std::unique_ptr<remote::SlurmClient> client;
    std::string jobDir; // the job's folder on the cluster's shared filesystem
    store::SlurmJobRow row;
    int restartBase = 0;      // Slurm's restart count when this attempt began
    double attemptBegan = 0;  // unix time: submitted, or requeued
    double nextPoll = 0;      // monotonic
    bool running = false;     // this attempt's run was seen RUNNING
    double endedAt = 0;       // monotonic: this run ended in Slurm (final state or requeued)
    double settleSince = 0;   // monotonic: every journal ended, Slurm's final word awaited
    std::string endState;     // what ended it
    bool interrupted = false; // node failure, preemption or requeue: the next attempt resumes
    bool requeued = false;    // Slurm runs the same job again: nothing to submit
    int cancelSent = 0;       // the signal asked of Slurm so far (SIGTERM, SIGKILL)
    int resubmits = 0;
    int pollErrors = 0;
    std::optional<RankFailure> deferredFailure; // a rank's exit while Slurm was ending the run
};

struct JobRunner::State {
    explicit State(RunnerContext c)
        : ctx(std::move(c))
        , logs(ctx.paths.logs)
        , metrics(ctx.spec.metricDefinitions) {}

    RunnerContext ctx;
    LogSink logs;
    MetricExtractor metrics;

    mutable std::mutex mutex; // guards the fields below that other threads read or set
    bool stopRequested = false;
    bool detachRequested = false;
    std::string stopReason;
    std::string stopSecondary = "Stopped";
    std::string status = "InProgress";
    std::string secondary = "Starting";
    JobProgress progress;

    process::Fd wake; // eventfd: a stop request arrived
    std::unique_ptr<ControlServer> control;
    std::vector<NodeLink> nodes;
    std::map<int, store::RankRow> ranks;
    std::optional<RankFailure> failure;
    struct StoreError {
        std::string message;
        bool fatal = false;
    };
    std::mutex storeErrorsMutex; // its own: the writer thread reports, never waiting on a job
    std::deque<StoreError> storeErrors; // handled on the job's thread
    std::int64_t storeErrorCount = 0;
    bool logFailureSeen = false; // the log sink's write error was acted on
    std::string hostFailure;     // a host or launcher that went away, named
    double hostFailureAt = 0;
    bool runStateDirty = false; // the status changed: store the run state again
    bool stopSent = false;
    double killAt = 0;
    bool trainingStarted = false;
    int protocolErrors = 0;
    std::string secondaryBeforeReconnect; // what the job showed before a link went down
    std::unique_ptr<debugger::DebuggerSession> debugger; // null when no rule runs
    // The spec's custom Python rules, one process each; they end after the session's finish.
    std::vector<std::unique_ptr<PythonRuleProcess>> ruleProcesses;
    std::future<void> sourceRecord; // what ran: the record of the code, made beside the launch
    std::unique_ptr<TensorboardLive> tensorboard; // tensorboard_output_config only

    // Managed spot training (see spot_attempts.cpp): the attempt running now (from 1), the
    // interruption sources, and what a resume needs to know.
    int attempt = 0;
    bool interrupting = false; // a notice's SIGTERM is on its way to this attempt's ranks
    bool startedRecorded = false;
    double ranksStartedAt = 0; // this attempt's ranks all started (0: not yet)
    bool marketArmed = false;
    std::unique_ptr<spot::SimulatedMarket> market;
    spot::NoticeQueue manualNotices{"manual"};
    spot::NoticeQueue imdsNotices{"imds"};
    std::int64_t lastCheckpointStep = -1; // newest checkpoint announced by a rank (-1: none)
    std::int64_t attemptMaxStep = -1;     // highest step this attempt reported
    std::int64_t lostSteps = 0;
    // A resumed attempt of ranks that announce no checkpoints: its first step says where it
    // resumed, and the metrics from there on are replaced (see noteStep).
    bool resumePending = false;
    std::int64_t pendingMaxStep = -1; // the interrupted attempt's highest step
    // Called before a step-carrying event is stored.
    void noteStep(std::int64_t step);
    void replaceStepsAfter(std::int64_t resumeStep, std::int64_t interruptedMaxStep);

    bool stopping() const {
        std::lock_guard lock(mutex);
        return stopRequested || interrupting;
    }
    // A new transition when the status changes, or always (a new pending reason).
    void setStatus(const std::string& status, const std::string& secondary,
                   const std::string& message = {}, bool always = false);
    void handleEvent(const wire::Event& e);
    void handleStatus(const wire::Event& e, const wire::StatusEvent& s);
    void handleExit(const wire::Event& e, const wire::ExitEvent& x);
    // The rank's row as recorded so far; a new one, placed by the node's plan, when nothing of
    // the rank came before (its device or its exit before its launcher's "ranks_started").
    store::RankRow& rankRow(int rank, int nodeIndex);
    NodeLink* node(int index);
    // Asks every launcher still running to stop (SIGTERM) or die (SIGKILL); never blocks.
    void signalLaunchers(int sig);
    void signalNode(NodeLink& n, int sig);
    // A host or launcher is gone: the job fails with it named and the other nodes stop.
    void loseNode(NodeLink& n, const std::string& reason);
    std::string failureText() const;

    std::unique_ptr<SlurmFollow> slurm; // jobs on Slurm clusters only
    // Asks Slurm to signal or cancel the job (slurm_attempts.cpp).
    void signalSlurm(int sig);
    // Polls Slurm at once; true when it is ending this run (leaving RUNNING, requeued), so a
    // rank's SIGTERM is Slurm's doing rather than the job's failure.
    bool slurmEnding();
    // Reads Slurm's word on the job and acts on a change (slurm_attempts.cpp).
    void pollSlurm(bool fresh = false); // fresh: a listing fetched now
    // Slurm's word on the job (empty: Slurm no longer knows it); false when it could not be
    // asked (said in the job's log now and then).
    bool askSlurm(bool fresh, std::optional<remote::SlurmJobInfo>& info);
    // Keeps what Slurm said in the job's row, stored when it changed.
    void recordSlurmJob(const std::optional<remote::SlurmJobInfo>& info);
    // Slurm ended the run: requeue-less interruption, time limit, outside cancel or failure.
    void slurmRunEnded(bool stopRequested);
};

} // namespace studio::control
