// The running job's state, shared by the runner's loop and its event routing.
// Internal to engine/control.
#pragma once

#include "engine/control/job_runner.h"
#include "engine/control/log_sink.h"
#include "engine/control/metric_extractor.h"
#include "engine/debugger/debugger_session.h"
#include "engine/process/process.h"
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

    void setStatus(const std::string& status, const std::string& secondary,
                   const std::string& message = {});
    void handleEvent(const wire::Event& e);
    void handleStatus(const wire::Event& e, const wire::StatusEvent& s);
    void handleExit(const wire::Event& e, const wire::ExitEvent& x);
    void signalLaunchers(int sig);
    std::string failureText() const;
};

} // namespace studio::control
