// Runs one job to its end on the calling thread: starts a launcher per node, routes their
// events into the store and to observers, applies stop requests, and records the outcome.
// Internal to engine/control; the Controller owns runners and their threads.
#pragma once

#include "engine/control/control_channel.h"
#include "engine/control/follow_stream.h"
#include "engine/control/job_observer.h"
#include "engine/control/placement.h"
#include "engine/control/run_state.h"
#include "engine/control/studio_home.h"
#include "engine/debugger/rule.h"
#include "engine/remote/host_executor.h"
#include "engine/spec/job_spec.h"
#include "engine/store/store_writer.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace studio::control {

// A rule from outside the spec (a notebook's Rule.custom) and its actions ("StopTraining",
// "Notify"). make is called once, when the job's rules start.
struct CustomRule {
    std::function<std::unique_ptr<debugger::Rule>()> make;
    std::vector<std::string> actions;
};

// A job another studio process started, taken over: its journals with their stored offsets,
// what it had recorded of its ranks, nodes and logs, and its run state.
struct ResumeState {
    std::vector<store::JournalRow> journals;
    std::vector<store::RankRow> ranks;
    std::vector<store::NodeRow> nodes;
    std::vector<store::LogFileRow> logs;
    std::map<std::string, std::int64_t> metricLastSteps; // for metric_definitions' step counters
    RunState state;
    bool stopping = false; // the job was being stopped when its studio went away
    std::vector<store::SlurmJobRow> slurmJobs; // a Slurm job's submissions, oldest first
};

struct RunnerContext {
    std::string home;
    std::string jobName;
    store::ComponentId id = 0;
    spec::JobSpec spec;
    JobPaths paths;
    LaunchPaths launch;
    store::StoreWriter* writer = nullptr;
    std::function<void(const JobStatusUpdate&)> onStatus;
    std::function<void(const wire::Event&)> onEvent;
    std::function<void(const JobNotification&)> onNotification;
    double graceSeconds = 10;
    std::string imdsEndpoint; // spot jobs: the instance metadata endpoint to poll (empty: none)
    std::vector<CustomRule> customRules;
    remote::ClusterConfig cluster = remote::localCluster();
    // One executor per node: LocalExecutor on "local", the cluster's first hosts otherwise.
    std::vector<std::shared_ptr<remote::HostExecutor>> hosts;
    std::optional<ResumeState> resume;
    // The spec's secret variables, read from this process's environment (never stored).
    std::map<std::string, std::string> secrets;
    double linkTimeoutSeconds = 4;     // a follower silent this long: the link is down
    double commandTimeoutSeconds = 30; // probes, staging checks, launcher starts on a host
};

struct JobProgress {
    std::int64_t step = -1;
    std::int64_t total = -1;
};

struct NodeLink;

class JobRunner {
public:
    explicit JobRunner(RunnerContext ctx);
    ~JobRunner();
    JobRunner(const JobRunner&) = delete;
    JobRunner& operator=(const JobRunner&) = delete;

    void run();

    // Thread-safe. secondary: "Stopped" (user), "MaxRuntimeExceeded", ...; false once ended.
    bool requestStop(const std::string& reason, const std::string& secondary = "Stopped");
    // Thread-safe. A manual spot interruption notice (mlstudio interrupt, the studio's Interrupt
    // action): the ranks get SIGTERM, the job waits for capacity and resumes from its newest
    // checkpoint. False when the job is not a spot job or has ended.
    bool requestInterrupt(const std::string& reason);
    // Thread-safe. Stops following the job without stopping it: the launchers go on, and a
    // studio process takes the job over later (Controller reattaches it). False once ended.
    bool requestDetach();
    // Thread-safe. A write of this job the database refused: said in the job's launcher log;
    // a lost batch (disk full, I/O) fails the job with the reason and stops its ranks.
    void reportStoreError(const std::string& message, bool fatal);
    bool detached() const { return m_detached.load(); }
    bool ended() const { return m_ended.load(); }
    std::string finalStatus() const;
    JobProgress progress() const;
    const std::string& name() const;
    store::ComponentId id() const;

private:
    void startDebugger();
    std::unique_ptr<debugger::Rule> startRuleProcess(const spec::CustomRuleConfig& rc);
    void prepareJob();
    void launchAttempt();
    // Remote clusters: connects to the hosts, checks their launchers and stages the job's
    // files; fills each node's launch (job_launch.cpp).
    std::vector<NodeLaunch> prepareHosts(Placement& placement);
    void startLaunchers(const Placement& placement, const std::vector<NodeLaunch>& launches);
    // Slurm clusters (slurm_attempts.cpp): submits the attempt's batch job (or follows the
    // requeued one) and its nodes' journals on the shared filesystem.
    void launchSlurmAttempt(const Placement& placement);
    void submitSlurmJob(const Placement& placement); // stages, writes the script, submits
    void resumeSlurm();
    // Polls Slurm when due, and ends nodes whose run Slurm ended without their journal's end.
    void tendSlurm(double mono);
    // All journals ended: true once Slurm's word on the run is final (bounded wait).
    bool slurmSettled(double mono);
    void fetchSlurmOutputs(); // model/, output/, debug-output/ from the shared filesystem
    void resumeNodes();
    // false when a detach request ended the supervision.
    bool superviseAttempt();
    bool quiet() const; // the supervision loop may sleep longer between its timers
    // The nodes' links (job_links.cpp): followers, reconnection, lost hosts.
    void tendLinks(double now, double mono);
    void startFollower(NodeLink& n, double mono);
    void readFollower(NodeLink& n, bool isStderr);
    void handleFollowItems(NodeLink& n, const std::vector<FollowItem>& items);
    void linkDown(NodeLink& n, const std::string& why, double mono);
    void linkUp(NodeLink& n);
    void followerEnded(NodeLink& n, double mono);
    void finishNode(NodeLink& n);
    void fetchOutputs();
    void saveRunState();
    void detach();
    // Spot: interruption notices and the max_run / max_wait clocks (spot_attempts.cpp).
    void checkInterruptions(double now);
    void checkClocks(double now);
    // Records the attempt's running segment; true when a spot interruption ended it and the
    // job goes on with another attempt.
    bool endAttempt(double now);
    // Waits for capacity before the next attempt; false when the job was stopped meanwhile.
    bool waitForCapacity();
    ControlReply answerControl(const ControlRequest& req); // on the control server's thread
    void handleStoreErrors();
    void stopForWriteError(const std::string& what); // fails the job like a lost host
    void decideOutcome(std::string& status, std::string& secondary, std::string& reason);
    void finish(const std::string& status, const std::string& secondary, const std::string& reason);

    struct State;
    std::unique_ptr<State> d;
    std::atomic<bool> m_ended{false};
    std::atomic<bool> m_detached{false};
    double m_jobStart = 0;
    double m_attemptStart = 0;
    double m_runningBefore = 0; // Σ running seconds of the attempts that have ended
};

} // namespace studio::control
