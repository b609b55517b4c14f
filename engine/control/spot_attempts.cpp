// Managed spot training in the runner: interruption notices from the simulated market, the
// instance metadata service (relayed by the launchers) and manual requests; the max_run and
// max_wait clocks; the wait for capacity between attempts; billing segments and lost steps.
#include "engine/control/job_runner_state.h"
#include "engine/spot/job_billing.h"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <poll.h>
#include <unistd.h>

namespace studio::control {

void JobRunner::State::noteStep(std::int64_t step) {
    if (resumePending && step > 0) {
        resumePending = false;
        replaceStepsAfter(step - 1, pendingMaxStep);
    }
    attemptMaxStep = std::max(attemptMaxStep, step);
}

void JobRunner::State::replaceStepsAfter(std::int64_t resumeStep, std::int64_t interruptedMaxStep) {
    lostSteps += std::max<std::int64_t>(0, interruptedMaxStep - resumeStep);
    pendingMaxStep = -1;
    ctx.writer->truncateMetrics(ctx.id, resumeStep);
    ctx.writer->setArtifact(ctx.id, store::ArtifactRow{spot::kLostStepsArtifact, "output",
                                                       std::to_string(lostSteps), "text/plain"});
}

bool JobRunner::requestInterrupt(const std::string& reason) {
    if (m_ended || !d->ctx.spec.useSpotInstances)
        return false;
    d->manualNotices.push(reason.empty() ? "interrupted by user" : reason);
    std::uint64_t one = 1;
    (void)!::write(d->wake.get(), &one, sizeof one);
    return true;
}

void JobRunner::checkClocks(double now) {
    const spec::JobSpec& spec = d->ctx.spec;
    const double running = m_runningBefore + (m_attemptStart > 0 ? now - m_attemptStart : 0);
    if (running >= static_cast<double>(spec.maxRun))
        requestStop("MaxRuntimeExceeded: the job ran longer than max_run (" +
                        std::to_string(spec.maxRun) + " s)",
                    "MaxRuntimeExceeded");
    if (spec.useSpotInstances && spec.maxWait > 0 &&
        now - m_jobStart >= static_cast<double>(spec.maxWait))
        requestStop("MaxWaitTimeExceeded: the job, waiting for spot capacity included, took "
                    "longer than max_wait (" +
                        std::to_string(spec.maxWait) + " s)",
                    "MaxWaitTimeExceeded");
}

void JobRunner::checkInterruptions(double now) {
    State& s = *d;
    if (!s.ctx.spec.useSpotInstances)
        return;
    if (s.market && s.ranksStartedAt > 0 && !s.marketArmed) {
        s.marketArmed = true;
        s.market->attemptStarted(s.attempt, s.ranksStartedAt);
    }
    std::optional<spot::InterruptionNotice> notice = s.manualNotices.poll(now);
    if (!notice)
        notice = s.imdsNotices.poll(now);
    if (!notice && s.market)
        notice = s.market->poll(now);
    bool stopping;
    {
        std::lock_guard lock(s.mutex);
        stopping = s.stopRequested;
    }
    if (!notice || s.interrupting || stopping)
        return;
    s.interrupting = true;
    const std::string text = "Spot interruption notice (" + notice->source + ", attempt " +
                             std::to_string(s.attempt) + "): " + notice->detail;
    s.logs.write(now, 0, -1, wire::Stream::Stderr, text);
    s.setStatus("InProgress", "Interrupted", text);
    if (!s.stopSent) {
        s.stopSent = true;
        s.signalLaunchers(SIGTERM);
        s.killAt = now + s.ctx.graceSeconds + 5;
    }
}

bool JobRunner::endAttempt(double now) {
    State& s = *d;
    const spec::JobSpec& spec = s.ctx.spec;
    const bool slurmInterrupted = s.slurm && s.slurm->interrupted;
    if (s.slurm) { // a Slurm run's time: waiting in the queue, then running
        if (m_attemptStart > 0) {
            s.ctx.writer->addBillingSegment(
                s.ctx.id, store::BillingSegment{s.attempt, m_attemptStart, now, "running"});
            m_runningBefore += now - m_attemptStart;
        }
        m_attemptStart = 0;
        if (!slurmInterrupted)
            return false;
    } else {
        if (!spec.useSpotInstances)
            return false;
        s.ctx.writer->addBillingSegment(
            s.ctx.id, store::BillingSegment{s.attempt, m_attemptStart, now, "running"});
        m_runningBefore += now - m_attemptStart;
        m_attemptStart = 0;
    }
    bool stopping;
    {
        std::lock_guard lock(s.mutex);
        stopping = s.stopRequested;
    }
    bool allSucceeded = true;
    for (const auto& n : s.nodes)
        allSucceeded = allSucceeded && n.launcherExit.value_or(-1) == 0;
    if (!s.interrupting || stopping || s.failure || allSucceeded)
        return false;
    // The next attempt resumes from the newest checkpoint: the steps after it are computed
    // again, and their metrics replace what this attempt reported. Without an announced
    // checkpoint the next attempt's first step tells where it resumed.
    const std::int64_t interruptedMax = std::max(s.attemptMaxStep, s.pendingMaxStep);
    if (s.lastCheckpointStep >= 0) {
        s.resumePending = false;
        s.replaceStepsAfter(s.lastCheckpointStep, interruptedMax);
    } else if (interruptedMax > 0) {
        s.resumePending = true;
        s.pendingMaxStep = interruptedMax;
    }
    return true;
}

bool JobRunner::waitForCapacity() {
    State& s = *d;
    const double waitStart = wire::nowSeconds();
    if (s.slurm) { // Slurm's queue is the wait: the next attempt records it
        std::lock_guard lock(s.mutex);
        return !s.stopRequested;
    }
    const double wait = s.market ? s.market->capacityWait(s.attempt) : 0;
    s.setStatus("InProgress", "Interrupted",
                "waiting for spot capacity before attempt " + std::to_string(s.attempt));
    bool stopped = false;
    while (true) {
        const double now = wire::nowSeconds();
        checkClocks(now);
        {
            std::lock_guard lock(s.mutex);
            stopped = s.stopRequested;
        }
        if (stopped || now >= waitStart + wait)
            break;
        pollfd wake{s.wake.get(), POLLIN, 0};
        const int ms = static_cast<int>(std::clamp((waitStart + wait - now) * 1000, 1.0, 100.0));
        if (::poll(&wake, 1, ms) > 0) {
            std::uint64_t v;
            (void)!::read(s.wake.get(), &v, sizeof v);
        }
    }
    const double end = wire::nowSeconds();
    s.ctx.writer->addBillingSegment(s.ctx.id,
                                    store::BillingSegment{s.attempt, waitStart, end, "waiting"});
    if (stopped)
        return false;
    s.setStatus("InProgress", "Starting",
                "attempt " + std::to_string(s.attempt) + ": resuming from the checkpoint at step " +
                    std::to_string(std::max<std::int64_t>(s.lastCheckpointStep, 0)));
    return true;
}

} // namespace studio::control
