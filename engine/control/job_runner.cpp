#include "engine/control/job_runner.h"

#include "engine/process/process.h"

#include "engine/control/control_channel.h"
#include "engine/control/job_runner_state.h"
#include "engine/control/source_record.h"
#include "engine/wire/codec.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace studio::control {

namespace fs = std::filesystem;

namespace {

// Readable by its owner only: a spec holds the job's environment.
void writeFile(const std::string& path, const std::string& text) {
    {
        std::ofstream out(path);
        out << text << "\n";
        if (!out)
            throw std::runtime_error("cannot write " + path);
    }
    ::chmod(path.c_str(), 0600);
}

} // namespace

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

void JobRunner::reportStoreError(const std::string& message, bool fatal) {
    if (m_ended)
        return;
    {
        std::lock_guard lock(d->storeErrorsMutex);
        if (d->storeErrors.size() < 1000)
            d->storeErrors.push_back({message, fatal});
    }
    std::uint64_t one = 1;
    (void)!::write(d->wake.get(), &one, sizeof one);
}

// On the job's thread: each refused write gets a line (the first 20, then every 1000th); a lost
// batch fails the job like a lost host, naming the database. So does a log that cannot be
// written: on a full disk the job stops, and the space kept in reserve records how it ended.
void JobRunner::handleStoreErrors() {
    State& s = *d;
    std::deque<State::StoreError> errors;
    {
        std::lock_guard lock(s.storeErrorsMutex);
        errors.swap(s.storeErrors);
    }
    for (const auto& e : errors) {
        const std::int64_t n = ++s.storeErrorCount;
        if (n <= 20 || n % 1000 == 0)
            s.logs.write(wire::nowSeconds(), 0, -1, wire::Stream::Stderr,
                         "studio database " + s.ctx.writer->path() + " refused a write (#" +
                             std::to_string(n) + "): " + e.message);
        if (e.fatal)
            stopForWriteError("the studio database " + s.ctx.writer->path() +
                              " could not be written (" + e.message + ")");
    }
    if (!s.logs.error().empty() && !s.logFailureSeen) {
        s.logFailureSeen = true;
        s.ctx.writer->releaseReserve();
        stopForWriteError("the job's log could not be written (" + s.logs.error() + ")");
    }
}

void JobRunner::stopForWriteError(const std::string& what) {
    State& s = *d;
    if (!s.hostFailure.empty() || s.stopping())
        return;
    s.hostFailure = what + "; the job was stopped, and what was committed before is kept";
    s.hostFailureAt = wire::nowSeconds();
    if (!s.stopSent) {
        s.stopSent = true;
        s.signalLaunchers(SIGTERM);
        s.killAt = wire::nowSeconds() + s.ctx.graceSeconds + 5;
    }
}

bool JobRunner::requestDetach() {
    if (m_ended)
        return false;
    {
        std::lock_guard lock(d->mutex);
        d->detachRequested = true;
    }
    std::uint64_t one = 1;
    (void)!::write(d->wake.get(), &one, sizeof one);
    return true;
}

// A custom rule's process; a rule whose process cannot start shows Error with the reason.
std::unique_ptr<debugger::Rule> JobRunner::startRuleProcess(const spec::CustomRuleConfig& rc) {
    State& s = *d;
    RuleProcessSetup setup;
    setup.jobName = s.ctx.jobName;
    setup.home = s.ctx.home;
    setup.debugOutput = s.ctx.paths.debugOutput;
    setup.logPath = s.ctx.paths.logs + "/rule-" + rc.name + ".log";
    try {
        s.ruleProcesses.push_back(std::make_unique<PythonRuleProcess>(rc, setup));
        return s.ruleProcesses.back()->makeRule();
    } catch (const std::exception& e) {
        auto link = std::make_shared<debugger::ExternalRuleLink>();
        link->fail(e.what());
        return std::make_unique<debugger::ExternalRule>(
            rc.name, rc.ruleToInvoke, PythonRuleProcess::kinds(), std::move(link));
    }
}

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
    for (const spec::CustomRuleConfig& rc : spec.customRules)
        session->addRule(startRuleProcess(rc), rc.actions);
    if (!session->empty())
        s.debugger = std::move(session);
}

// The job's folder, its inputs and its control socket; throws on what fails the job.
void JobRunner::prepareJob() {
    State& s = *d;
    const spec::JobSpec& spec = s.ctx.spec;
    s.ctx.paths.create();
    if (!s.ctx.resume) {
        writeFile(s.ctx.paths.spec, spec.effectiveJson);
        // What ran: the code as it is when the job starts, recorded beside the launch (hashing
        // and copying a source folder must not hold the ranks back); waited for at the end.
        s.sourceRecord = std::async(std::launch::async, [spec, writer = s.ctx.writer, id = s.ctx.id,
                                                         snapshot = s.ctx.paths.root + "/source"] {
            const nlohmann::json source = recordSource(spec, snapshot);
            writer->setFacts(
                id, store::FactsRow{
                        "source", -1, -1, wire::nowSeconds(),
                        source.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)});
        });
        if (!spec.checkpointLocalPath.empty() && s.ctx.cluster.isLocal())
            fs::create_directories(spec.checkpointLocalPath);
    }
    if (spec.useSpotInstances && spec.spotSimulation)
        s.market = std::make_unique<spot::SimulatedMarket>(
            spec.spotSimulation->interruptionsPerHour, spec.spotSimulation->meanCapacityWaitSeconds,
            spec.spotSimulation->seed);
    if (!spec.inputs.empty() && !s.ctx.resume) {
        s.setStatus("InProgress", "Downloading");
        for (const auto& [channel, path] : spec.inputs) {
            if (!fs::exists(path))
                throw std::runtime_error("input channel " + channel + ": " + path +
                                         " does not exist");
            s.ctx.writer->setArtifact(s.ctx.id, store::ArtifactRow{channel, "input", path, ""});
        }
    }
    startDebugger();
    // Before the launchers start: on this machine they tell the ranks to write into the folder.
    if (!spec.tensorboardLocalPath.empty())
        s.tensorboard = std::make_unique<TensorboardLive>(
            spec.tensorboardLocalPath, s.ctx.jobName,
            hparamSession(spec, s.ctx.jobName, m_jobStart), [&s](const std::string& line) {
                s.logs.write(wire::nowSeconds(), 0, -1, wire::Stream::Stderr, line);
            });
    try {
        s.control = std::make_unique<ControlServer>(
            s.ctx.home, s.ctx.jobName,
            [this](const ControlRequest& req) { return answerControl(req); });
    } catch (const std::exception& e) {
        s.logs.write(wire::nowSeconds(), 0, -1, wire::Stream::Stderr,
                     std::string("control socket unavailable: ") + e.what());
    }
}

void JobRunner::run() {
    State& s = *d;
    std::string outcomeStatus, outcomeSecondary, reason;
    m_jobStart = wire::nowSeconds();
    try {
        prepareJob();
    } catch (const std::exception& e) {
        outcomeStatus = "Failed";
        outcomeSecondary = "Failed";
        reason = std::string("ClientError: ") + e.what();
    }
    bool resuming = false;
    if (outcomeStatus.empty() && s.ctx.resume) {
        resumeNodes();
        resuming = true;
    }
    while (outcomeStatus.empty()) {
        if (!resuming) {
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
        }
        resuming = false;
        if (!superviseAttempt()) {
            detach();
            return;
        }
        if (!endAttempt(wire::nowSeconds()))
            break;
    }
    if (outcomeStatus.empty())
        decideOutcome(outcomeStatus, outcomeSecondary, reason);
    finish(outcomeStatus, outcomeSecondary, reason);
}

bool JobRunner::superviseAttempt() {
    State& s = *d;
    bool stopHandled = false;
    while (true) {
        const double now = wire::nowSeconds();
        const double mono = process::monotonicSeconds();
        checkClocks(now);
        checkInterruptions(now);
        bool stopNow, detachNow;
        {
            std::lock_guard lock(s.mutex);
            stopNow = s.stopRequested && !stopHandled;
            detachNow = s.detachRequested;
        }
        if (detachNow)
            return false;
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
        tendLinks(now, mono);
        tendSlurm(mono);
        handleStoreErrors();
        if (s.tensorboard) // once per batch of events read
            s.tensorboard->flush();
        if (s.runStateDirty) {
            s.runStateDirty = false;
            saveRunState();
        }
        if (std::all_of(s.nodes.begin(), s.nodes.end(), [](const NodeLink& n) { return n.done; }) &&
            slurmSettled(mono))
            return true;

        std::vector<pollfd> fds;
        std::vector<std::pair<NodeLink*, bool>> owners; // (node, isStderr)
        fds.push_back({s.wake.get(), POLLIN, 0});
        owners.emplace_back(nullptr, false);
        for (auto& n : s.nodes) {
            if (n.out.valid()) {
                fds.push_back({n.out.get(), POLLIN, 0});
                owners.emplace_back(&n, false);
            }
            if (n.err.valid()) {
                fds.push_back({n.err.get(), POLLIN, 0});
                owners.emplace_back(&n, true);
            }
        }
        if (::poll(fds.data(), fds.size(), quiet() ? 1000 : 100) <= 0)
            continue;
        for (std::size_t i = 0; i < fds.size(); ++i) {
            if (!fds[i].revents)
                continue;
            auto [n, isErr] = owners[i];
            if (!n) {
                std::uint64_t v;
                (void)!::read(s.wake.get(), &v, sizeof v);
            } else {
                readFollower(*n, isErr);
            }
        }
    }
}

// Nothing is due soon: every link is up, the ranks train, no stop or kill is on its way and
// Slurm has nothing to report. Events still wake the loop at once; only its timers slow down
// to a second (50 followed jobs would otherwise wake 500 times a second).
bool JobRunner::quiet() const {
    const State& s = *d;
    if (!s.trainingStarted || s.killAt > 0 || s.stopSent || s.stopping())
        return false;
    if (s.slurm && (!s.slurm->running || s.slurm->endedAt > 0))
        return false;
    return std::all_of(s.nodes.begin(), s.nodes.end(),
                       [](const NodeLink& n) { return n.done || (n.linkUp && n.downSince <= 0); });
}

// The launchers go on; the job stays InProgress with no owner until a studio takes it over.
void JobRunner::detach() {
    State& s = *d;
    for (auto& n : s.nodes) {
        n.follower.kill();
        n.out.reset();
        n.err.reset();
    }
    saveRunState();
    s.tensorboard.reset(); // flushed; the studio that takes the job over writes on
    s.logs.flush();
    for (const auto& f : s.logs.files())
        s.ctx.writer->upsertLogFile(s.ctx.id, f);
    s.control.reset();
    s.ctx.writer->setOwner(s.ctx.id, "");
    s.ctx.writer->flush();
    m_detached = true;
    m_ended = true;
}

void JobRunner::saveRunState() {
    State& s = *d;
    RunState r;
    r.baseDir = s.ctx.spec.baseDir;
    r.attempt = s.attempt;
    r.jobStart = m_jobStart;
    r.attemptStart = m_attemptStart;
    r.runningBefore = m_runningBefore;
    r.trainingStarted = s.trainingStarted;
    r.startedRecorded = s.startedRecorded;
    r.ranksStartedAt = s.ranksStartedAt;
    r.lastCheckpointStep = s.lastCheckpointStep;
    r.lostSteps = s.lostSteps;
    {
        std::lock_guard lock(s.mutex);
        r.secondary = s.secondaryBeforeReconnect.empty() ? s.secondary : s.secondaryBeforeReconnect;
    }
    s.ctx.writer->setRunState(s.ctx.id, runStateToJson(r));
}

} // namespace studio::control
