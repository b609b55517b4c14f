// Routing of one job's events: logs to files and metric_definitions, records to the store,
// launcher lifecycle to node and rank rows, and the first rank failure to a teardown.
#include "engine/control/job_runner_state.h"

#include <algorithm>
#include <csignal>

namespace studio::control {

void JobRunner::State::setStatus(const std::string& st, const std::string& sec,
                                 const std::string& message, bool always) {
    const double now = wire::nowSeconds();
    {
        std::lock_guard lock(mutex);
        if (status == st && secondary == sec && !always)
            return;
        status = st;
        secondary = sec;
    }
    runStateDirty = true;
    ctx.writer->setStatus(ctx.id, st, sec, message, now);
    if (ctx.onStatus)
        ctx.onStatus(JobStatusUpdate{ctx.jobName, ctx.id, st, sec, message, now});
}

void JobRunner::State::handleEvent(const wire::Event& e) {
    using namespace wire;
    store::StoreWriter& w = *ctx.writer;
    if (const auto* log = e.as<LogEvent>()) {
        logs.write(e.t, e.node, e.rank, log->stream, log->text, log->part);
        if (log->stream == Stream::Events)
            ++protocolErrors;
        else if (e.rank == 0 && !metrics.empty() && log->part == LinePart::Whole)
            for (const auto& m : metrics.scan(log->text)) {
                w.addMetric(ctx.id, m.name,
                            store::MetricPoint{m.step, e.t, m.value, e.node, e.rank});
                // Rules and observers see extracted metrics as if the rank had sent them.
                const Event extracted{e.t, e.node, e.rank,
                                      MetricEvent{m.name, m.step, m.value, Phase::Train}};
                if (debugger)
                    debugger->onEvent(extracted);
                if (tensorboard)
                    tensorboard->onEvent(extracted);
                if (ctx.onEvent)
                    ctx.onEvent(extracted);
            }
    } else if (const auto* m = e.as<MetricEvent>()) {
        noteStep(m->step);
        w.addMetric(ctx.id, m->name, store::MetricPoint{m->step, e.t, m->value, e.node, e.rank});
    } else if (const auto* s = e.as<SysEvent>()) {
        w.addSystemSample(ctx.id, e.node, s->device, s->metric, e.t, s->value);
    } else if (const auto* st = e.as<StepEvent>()) {
        noteStep(st->step);
        w.addStepTiming(ctx.id, store::StepTiming{e.node, e.rank, st->step, phaseName(st->phase),
                                                  e.t, st->dataMs, st->forwardMs, st->backwardMs,
                                                  st->commMs, st->optimizerMs});
    } else if (const auto* t = e.as<TensorEvent>()) {
        for (const auto& [red, value] : t->reductions)
            w.addTensorReduction(ctx.id,
                                 store::TensorReduction{t->step, t->collection, t->name, red, value,
                                                        e.node, e.rank, phaseName(t->phase)});
    } else if (const auto* pe = e.as<ProfileEvent>()) {
        w.addFrameworkEvent(ctx.id, store::FrameworkEventRow{
                                        e.node, e.rank, pe->step, phaseName(pe->phase), pe->name,
                                        pe->category, pe->start, pe->durationMs, pe->pid});
    } else if (const auto* c = e.as<CheckpointEvent>()) {
        w.addCheckpoint(ctx.id, store::CheckpointRow{e.node, e.rank, c->step, e.t, c->path,
                                                     c->sha256, c->bytes});
        lastCheckpointStep = std::max(lastCheckpointStep, c->step);
    } else if (const auto* pa = e.as<ParamEvent>()) {
        w.setParameter(
            ctx.id, store::ParameterRow{pa->name, pa->value,
                                        pa->isNumber ? std::optional(pa->number) : std::nullopt});
    } else if (const auto* a = e.as<ArtifactEvent>()) {
        w.setArtifact(ctx.id, store::ArtifactRow{a->name, a->type, a->value, a->mediaType});
    } else if (const auto* f = e.as<FactsEvent>()) {
        w.setFacts(ctx.id, store::FactsRow{f->topic, e.node, e.rank, e.t, f->body});
    } else if (const auto* s = e.as<StatusEvent>()) {
        handleStatus(e, *s);
    } else if (const auto* x = e.as<ExitEvent>()) {
        handleExit(e, *x);
    }
    if (debugger)
        debugger->onEvent(e);
    if (tensorboard)
        tensorboard->onEvent(e);
    if (ctx.onEvent)
        ctx.onEvent(e);
}

void JobRunner::State::handleStatus(const wire::Event& e, const wire::StatusEvent& s) {
    if (e.rank >= 0) {
        if (s.state == "progress") {
            std::lock_guard lock(mutex);
            progress = JobProgress{s.step, s.total};
        } else if (s.state == "partition") { // the trainer's pipeline cut, kept with the job
            ctx.writer->setArtifact(ctx.id, store::ArtifactRow{"pipeline_partition", "output",
                                                               s.message, "text/plain"});
        } else if (s.state == "device") { // the rank's torch device, sent once at its start
            store::RankRow& r = rankRow(e.rank, e.node);
            r.device = s.message;
            ctx.writer->upsertRank(ctx.id, r);
        }
        return;
    }
    NodeLink* l = node(e.node);
    if (!l)
        return;
    if (s.state == "started") {
        store::NodeRow n;
        n.node = e.node;
        // The cluster's name for the host, else this machine's "algo-N (hostname)".
        n.host = l->host->isRemote() ? l->journal.host
                                     : l->plan.host + (s.host.empty() ? "" : " (" + s.host + ")");
        n.launcherPid = s.pids.empty() ? l->journal.launcherPid : s.pids.front();
        n.cores = s.cores;
        n.gpus = s.gpus;
        n.started = e.t;
        l->row = n;
        ctx.writer->upsertNode(ctx.id, n);
    } else if (s.state == "ranks_started") {
        l->ranksStarted = true;
        for (std::size_t i = 0; i < l->plan.ranks.size(); ++i) {
            store::RankRow r;
            r.rank = l->plan.ranks[i];
            r.node = e.node;
            r.localRank = static_cast<int>(i);
            r.pid = i < s.pids.size() ? s.pids[i] : 0;
            r.started = e.t;
            if (const auto known = ranks.find(r.rank); known != ranks.end())
                r.device = known->second.device; // the rank's device came first
            ranks[r.rank] = r;
            ctx.writer->upsertRank(ctx.id, r);
        }
        bool all = true;
        for (const auto& other : nodes)
            all = all && other.ranksStarted;
        if (all && !trainingStarted) {
            trainingStarted = true;
            ranksStartedAt = e.t;
            if (!startedRecorded)
                ctx.writer->setStarted(ctx.id, e.t);
            startedRecorded = true;
            bool stopping;
            {
                std::lock_guard lock(mutex);
                stopping = stopRequested;
            }
            if (!stopping && !interrupting)
                setStatus("InProgress", "Training");
        }
    } else if (s.state == "finished") {
        l->finishMessage = s.message;
    } else if (s.state == "node_failure" && hostFailure.empty()) {
        // The launcher stopped its ranks for a reason of the node's own (its disk is full).
        hostFailure = "node " + std::to_string(e.node) + " (" + l->plan.host + "): " + s.message;
        hostFailureAt = e.t;
        if (!stopSent) { // the other nodes' ranks would wait for this node's (MPI) for ever
            stopSent = true;
            signalLaunchers(SIGTERM);
            killAt = wire::nowSeconds() + ctx.graceSeconds + 5;
        }
    } else if (s.state == "spot_notice" && ctx.spec.useSpotInstances) {
        imdsNotices.push(s.message); // the launcher's IMDS poll saw an instance-action
    }
}

store::RankRow& JobRunner::State::rankRow(int rank, int nodeIndex) {
    if (const auto it = ranks.find(rank); it != ranks.end())
        return it->second;
    store::RankRow r;
    r.rank = rank;
    r.node = nodeIndex;
    if (const NodeLink* l = node(nodeIndex)) {
        const auto& planned = l->plan.ranks;
        const auto at = std::find(planned.begin(), planned.end(), rank);
        if (at != planned.end())
            r.localRank = static_cast<int>(at - planned.begin());
    }
    return ranks.emplace(rank, r).first->second;
}

void JobRunner::State::handleExit(const wire::Event& e, const wire::ExitEvent& x) {
    if (e.rank < 0) { // the launcher's own exit, its journal's last line
        if (NodeLink* n = node(e.node)) {
            n->launcherExit = x.code;
            if (!x.stderrTail.empty())
                n->stderrTail.assign(x.stderrTail.begin(), x.stderrTail.end());
        }
        return;
    }
    store::RankRow& r = rankRow(e.rank, e.node);
    r.ended = e.t;
    r.exitCode = x.code;
    r.signal = x.signal;
    ctx.writer->upsertRank(ctx.id, r);
    if (x.code == 0 && x.signal == 0)
        return;
    bool stopping;
    {
        std::lock_guard lock(mutex);
        stopping = stopRequested || interrupting;
    }
    // Slurm ending the run (a requeue, the time limit, a cancel outside the studio) signals the
    // ranks itself: what it was decides the outcome once Slurm says.
    if (!stopping && slurm && slurmEnding()) {
        if (!slurm->deferredFailure || e.t < slurm->deferredFailure->time)
            slurm->deferredFailure =
                RankFailure{e.t, e.rank, e.node, x.code, x.signal, x.stderrTail};
        return;
    }
    // While stopping (or interrupted), ranks end by SIGTERM on purpose. Otherwise the earliest
    // failure is the cause; later ones are its echoes (peers losing their connection to the failed
    // rank).
    if (stopping && !failure)
        return;
    if (!failure || e.t < failure->time)
        failure = RankFailure{e.t, e.rank, e.node, x.code, x.signal, x.stderrTail};
    if (!stopSent) {
        stopSent = true;
        signalLaunchers(SIGTERM);
        killAt = wire::nowSeconds() + ctx.graceSeconds + 5;
    }
}

std::string JobRunner::State::failureText() const {
    if (!failure)
        return {};
    const RankFailure& f = *failure;
    std::string host = "algo-" + std::to_string(f.node + 1);
    for (const auto& n : nodes)
        if (n.plan.node == f.node && n.host->isRemote())
            host += " on " + n.journal.host;
    std::string what = f.signal ? process::ExitStatus{-1, f.signal}.describe()
                                : process::ExitStatus{f.code, 0}.describe();
    std::string text = "AlgorithmError: rank " + std::to_string(f.rank) + " (node " +
                       std::to_string(f.node) + ", " + host + ") " + what;
    if (!f.stderrTail.empty()) {
        text += "\nLast lines of its stderr:";
        for (const auto& line : f.stderrTail)
            text += "\n  " + line;
    }
    return text;
}

} // namespace studio::control
