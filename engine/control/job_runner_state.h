// The running job's state, shared by the runner's loop and its event routing.
// Internal to engine/control.
#pragma once

#include "engine/control/job_runner.h"
#include "engine/control/log_sink.h"
#include "engine/control/metric_extractor.h"
#include "engine/debugger/debugger_session.h"
#include "engine/process/process.h"
#include "engine/spot/interruption_source.h"
#include "engine/wire/line_splitter.h"

#include <deque>
#include <map>
#include <optional>
#include <vector>

namespace studio::control {

struct LauncherProc {
    NodePlan plan;
    process::Process proc;
    process::Fd out, err;
    wire::LineSplitter outLines, errLines;
    std::deque<std::string> stderrTail;
    bool ranksStarted = false;
    std::string finishMessage;
    double exitedAt = 0;
    bool done = false;
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
    std::string stopReason;
    std::string stopSecondary = "Stopped";
    std::string status = "InProgress";
    std::string secondary = "Starting";
    JobProgress progress;

    process::Fd wake; // eventfd: a stop request arrived
    process::Fd control;
    std::vector<LauncherProc> launchers;
    std::map<int, store::RankRow> ranks;
    std::optional<RankFailure> failure;
    bool stopSent = false;
    double killAt = 0;
    bool trainingStarted = false;
    int protocolErrors = 0;
    std::unique_ptr<debugger::DebuggerSession> debugger; // null when no rule runs

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

    void setStatus(const std::string& status, const std::string& secondary,
                   const std::string& message = {});
    void handleEvent(const wire::Event& e);
    void handleStatus(const wire::Event& e, const wire::StatusEvent& s);
    void handleExit(const wire::Event& e, const wire::ExitEvent& x);
    void signalLaunchers(int sig);
    std::string failureText() const;
};

} // namespace studio::control
