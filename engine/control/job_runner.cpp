#include "engine/control/job_runner.h"

#include "engine/control/control_channel.h"
#include "engine/control/job_runner_state.h"
#include "engine/wire/codec.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace studio::control {

namespace fs = std::filesystem;

JobRunner::JobRunner(RunnerContext ctx)
    : d(std::make_unique<State>(std::move(ctx))) {
    d->wake = process::Fd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
}

JobRunner::~JobRunner() = default;

const std::string& JobRunner::name() const {
    return d->ctx.jobName;
}
store::ComponentId JobRunner::id() const {
    return d->ctx.id;
}

std::string JobRunner::finalStatus() const {
    std::lock_guard lock(d->mutex);
    return d->status;
}

JobProgress JobRunner::progress() const {
    std::lock_guard lock(d->mutex);
    return d->progress;
}

bool JobRunner::requestStop(const std::string& reason, const std::string& secondary) {
    if (m_ended)
        return false;
    {
        std::lock_guard lock(d->mutex);
        if (d->stopRequested)
            return true;
        d->stopRequested = true;
        d->stopReason = reason;
        d->stopSecondary = secondary;
    }
    std::uint64_t one = 1;
    (void)!::write(d->wake.get(), &one, sizeof one);
    return true;
}

namespace {

// Reads what is available; false at end of stream.
bool drain(int fd, std::string& out) {
    char buf[65536];
    while (true) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n > 0) {
            out.append(buf, static_cast<std::size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return n < 0; // EAGAIN: still open; 0: closed
    }
}

void writeFile(const std::string& path, const std::string& text) {
    std::ofstream out(path);
    out << text << "\n";
    if (!out)
        throw std::runtime_error("cannot write " + path);
}

} // namespace

void JobRunner::startDebugger() {
    State& s = *d;
    const spec::JobSpec& spec = s.ctx.spec;
    debugger::JobFacts facts;
    facts.jobName = s.ctx.jobName;
    facts.submitTime = wire::nowSeconds();
    facts.nodes = spec.instanceCount;
    facts.processesPerHost = spec.distribution.processesPerHost;
    facts.builtinTrainer = spec.isBuiltin();
    debugger::SessionCallbacks callbacks;
    callbacks.stopTraining = [this](const std::string&, const std::string& reason) {
        requestStop(reason, "Stopped");
    };
    callbacks.notify = [&s](const std::string& rule, const std::string& message, double time) {
        if (s.ctx.onNotification)
            s.ctx.onNotification(JobNotification{s.ctx.jobName, s.ctx.id, rule, message, time});
    };
    auto session = std::make_unique<debugger::DebuggerSession>(spec, facts, s.ctx.writer, s.ctx.id,
                                                               std::move(callbacks));
    for (const CustomRule& rule : s.ctx.customRules)
        session->addRule(rule.make(), rule.actions);
    if (!session->empty())
        s.debugger = std::move(session);
}

void JobRunner::launchAttempt() {
    State& s = *d;
    const spec::JobSpec& spec = s.ctx.spec;
    s.launchers.clear();
    s.ranks.clear();
    s.stopSent = false;
    s.killAt = 0;
    s.interrupting = false;
    s.trainingStarted = false;
    s.ranksStartedAt = 0;
    s.marketArmed = false;
    s.attemptMaxStep = -1;
    m_attemptStart = wire::nowSeconds();
    s.manualNotices.attemptStarted(s.attempt, m_attemptStart);
    s.imdsNotices.attemptStarted(s.attempt, m_attemptStart);
    const Placement placement = placeJob(spec, process::freeTcpPort());
    const int monitorMs = spec.profiler.disabled ? 0 : spec.profiler.systemMonitorIntervalMillis;
    for (const auto& node : placement.nodes) {
        LauncherProc l;
        l.plan = node;
        process::SpawnOptions o;
        o.argv = launcherArgv(spec, placement, node, s.ctx.jobName, s.ctx.launch, monitorMs,
                              s.ctx.graceSeconds);
        if (!s.ctx.imdsEndpoint.empty()) // before the "--" that starts the rank command
            o.argv.insert(std::find(o.argv.begin(), o.argv.end(), "--"),
                          {"--imds-endpoint", s.ctx.imdsEndpoint});
        o.env = process::currentEnvironment();
        o.parentDeathSignal = SIGTERM;
        l.proc = process::Process::spawn(o);
        l.out = l.proc.takeStdout();
        l.err = l.proc.takeStderr();
        process::setNonBlocking(l.out.get());
        process::setNonBlocking(l.err.get());
        s.launchers.push_back(std::move(l));
    }
}

void JobRunner::run() {
    State& s = *d;
    const spec::JobSpec& spec = s.ctx.spec;
    std::string outcomeStatus, outcomeSecondary, reason;
    m_jobStart = wire::nowSeconds();
    try {
        s.ctx.paths.create();
        writeFile(s.ctx.paths.spec, spec.effectiveJson);
        if (!spec.checkpointLocalPath.empty())
            fs::create_directories(spec.checkpointLocalPath);
        if (spec.useSpotInstances && spec.spotSimulation)
            s.market = std::make_unique<spot::SimulatedMarket>(
                spec.spotSimulation->interruptionsPerHour,
                spec.spotSimulation->meanCapacityWaitSeconds, spec.spotSimulation->seed);
        if (!spec.inputs.empty()) {
            s.setStatus("InProgress", "Downloading");
            for (const auto& [channel, path] : spec.inputs) {
                if (!fs::exists(path))
                    throw std::runtime_error("input channel " + channel + ": " + path +
                                             " does not exist");
                s.ctx.writer->setArtifact(s.ctx.id, store::ArtifactRow{channel, "input", path, ""});
            }
        }
        startDebugger();
        try {
            s.control = process::listenAbstract(controlSocketName(s.ctx.home, s.ctx.jobName));
        } catch (const std::exception& e) {
            s.logs.write(wire::nowSeconds(), 0, -1, wire::Stream::Stderr,
                         std::string("control socket unavailable: ") + e.what());
        }
    } catch (const std::exception& e) {
        outcomeStatus = "Failed";
        outcomeSecondary = "Failed";
        reason = std::string("ClientError: ") + e.what();
    }

    while (outcomeStatus.empty()) {
        ++s.attempt;
        if (s.attempt > 1 && !waitForCapacity())
            break;
        try {
            launchAttempt();
        } catch (const std::exception& e) {
            outcomeStatus = "Failed";
            outcomeSecondary = "Failed";
            reason = std::string("ClientError: ") + e.what();
            break;
        }
        superviseAttempt();
        if (!endAttempt(wire::nowSeconds()))
            break;
    }
    if (outcomeStatus.empty())
        decideOutcome(outcomeStatus, outcomeSecondary, reason);
    finish(outcomeStatus, outcomeSecondary, reason);
}

void JobRunner::superviseAttempt() {
    State& s = *d;
    bool stopHandled = false;
    while (true) {
        const double now = wire::nowSeconds();
        checkClocks(now);
        checkInterruptions(now);
        bool stopNow;
        {
            std::lock_guard lock(s.mutex);
            stopNow = s.stopRequested && !stopHandled;
        }
        if (stopNow) {
            stopHandled = true;
            s.setStatus("Stopping", "Stopping", s.stopReason);
            if (!s.stopSent) {
                s.stopSent = true;
                s.signalLaunchers(SIGTERM);
                s.killAt = now + s.ctx.graceSeconds + 5;
            }
        }
        if (s.debugger)
            s.debugger->tick(now);
        if (s.killAt > 0 && now >= s.killAt) {
            s.signalLaunchers(SIGKILL);
            s.killAt = 0;
        }

        // Reap launchers whose streams have ended (or that have been gone for a second).
        bool allDone = true;
        for (auto& l : s.launchers) {
            if (!l.done && l.proc.poll()) {
                if (l.exitedAt == 0)
                    l.exitedAt = now;
                if ((!l.out.valid() && !l.err.valid()) || now > l.exitedAt + 1.0) {
                    l.done = true;
                    l.out.reset();
                    l.err.reset();
                    l.row.node = l.plan.node;
                    if (l.row.host.empty())
                        l.row.host = l.plan.host;
                    l.row.launcherPid = l.proc.pid();
                    l.row.ended = now;
                    l.row.exitCode = l.proc.status()->code;
                    s.ctx.writer->upsertNode(s.ctx.id, l.row);
                }
            }
            allDone = allDone && l.done;
        }
        if (allDone)
            return;

        std::vector<pollfd> fds;
        std::vector<std::pair<LauncherProc*, bool>> owners; // (launcher, isStderr)
        fds.push_back({s.wake.get(), POLLIN, 0});
        owners.emplace_back(nullptr, false);
        if (s.control.valid()) {
            fds.push_back({s.control.get(), POLLIN, 0});
            owners.emplace_back(nullptr, true);
        }
        for (auto& l : s.launchers) {
            if (l.out.valid()) {
                fds.push_back({l.out.get(), POLLIN, 0});
                owners.emplace_back(&l, false);
            }
            if (l.err.valid()) {
                fds.push_back({l.err.get(), POLLIN, 0});
                owners.emplace_back(&l, true);
            }
        }
        if (::poll(fds.data(), fds.size(), 100) <= 0)
            continue;
        for (std::size_t i = 0; i < fds.size(); ++i) {
            if (!fds[i].revents)
                continue;
            auto [l, isErr] = owners[i];
            if (!l && !isErr) {
                std::uint64_t v;
                (void)!::read(s.wake.get(), &v, sizeof v);
            } else if (!l) {
                serveControl();
            } else {
                process::Fd& fd = isErr ? l->err : l->out;
                std::string bytes;
                const bool open = drain(fd.get(), bytes);
                wire::LineSplitter& split = isErr ? l->errLines : l->outLines;
                std::vector<std::string> lines = split.append(bytes);
                if (!open) {
                    if (auto rest = split.finish(); !rest.empty())
                        lines.push_back(std::move(rest));
                    fd.reset();
                }
                for (const auto& line : lines)
                    handleLauncherLine(*l, isErr, line);
            }
        }
        s.logs.flush();
    }
}

} // namespace studio::control
