// StoreWriter: the less frequent records (ranks, nodes, checkpoints, debugger, billing, tags).
#include "engine/store/store_writer_impl.h"

#include <ctime>
#include <future>

namespace studio::store {

void StoreWriter::truncateMetrics(ComponentId id, std::int64_t afterStep) {
    d->push(Impl::Generic([=](Impl& w) {
        w.flushSummaries();
        w.run("DELETE FROM metric_points WHERE step > ? AND series_id IN "
              "(SELECT id FROM metric_series WHERE component_id=?)",
              afterStep, id);
        // Rebuild the summaries of this job's series from what remains, in step order.
        const auto ids =
            queryAll<std::int64_t>(*w.db, "SELECT id FROM metric_series WHERE component_id=?", id);
        for (std::int64_t sid : ids) {
            MetricSummary s;
            queryEach<MetricPoint>(
                *w.db,
                selectColumns<MetricPoint>(
                    "FROM metric_points p WHERE p.series_id=? ORDER BY p.step, p.rowid"),
                [&s](MetricPoint&& p) { s.add(p.value, p.step, p.time); }, sid);
            w.summaries[sid] = MetricSummary{};
            w.touched[sid] = s;
        }
        w.flushSummaries();
    }));
}

void StoreWriter::addStepTiming(ComponentId id, const StepTiming& t) {
    d->pushRun("INSERT INTO step_timings(component_id, node, rank, step, phase, time, data_ms, "
               "forward_ms, backward_ms, comm_ms, optimizer_ms) VALUES(?,?,?,?,?,?,?,?,?,?,?)",
               id, t.node, t.rank, t.step, t.phase, t.time, t.dataMs, t.forwardMs, t.backwardMs,
               t.commMs, t.optimizerMs);
}

void StoreWriter::addTensorReduction(ComponentId id, const TensorReduction& t) {
    d->pushRun("INSERT INTO tensor_reductions(component_id, step, collection, tensor, reduction, "
               "value, node, rank, phase) VALUES(?,?,?,?,?,?,?,?,?)",
               id, t.step, t.collection, t.tensor, t.reduction, t.value, t.node, t.rank, t.phase);
}

void StoreWriter::addFrameworkEvent(ComponentId id, const FrameworkEventRow& f) {
    d->pushRun("INSERT INTO framework_events(component_id, node, rank, step, phase, name, "
               "category, start, duration_ms, pid) VALUES(?,?,?,?,?,?,?,?,?,?)",
               id, f.node, f.rank, f.step, f.phase, f.name, f.category, f.start, f.durationMs,
               f.pid);
}

void StoreWriter::addCheckpoint(ComponentId id, const CheckpointRow& c) {
    d->pushRun("INSERT INTO checkpoints(component_id, node, rank, step, time, path, sha256, bytes) "
               "VALUES(?,?,?,?,?,?,?,?)",
               id, c.node, c.rank, c.step, c.time, c.path, c.sha256, c.bytes);
}

void StoreWriter::upsertNode(ComponentId id, const NodeRow& n) {
    d->pushRun("INSERT OR REPLACE INTO nodes(component_id, node, host, launcher_pid, cores, gpus, "
               "started, ended, exit_code) VALUES(?,?,?,?,?,?,?,?,?)",
               id, n.node, n.host, n.launcherPid, n.cores, n.gpus, optionalTime(n.started),
               optionalTime(n.ended), n.exitCode);
}

void StoreWriter::upsertRank(ComponentId id, const RankRow& r) {
    // An empty device keeps the stored one: the rank reports it once, apart from its start and
    // exit, and in either order.
    d->pushRun("INSERT INTO ranks(component_id, rank, node, local_rank, pid, started, ended, "
               "exit_code, signal, device) VALUES(?,?,?,?,?,?,?,?,?,?) "
               "ON CONFLICT(component_id, rank) DO UPDATE SET node=excluded.node, "
               "local_rank=excluded.local_rank, pid=excluded.pid, started=excluded.started, "
               "ended=excluded.ended, exit_code=excluded.exit_code, signal=excluded.signal, "
               "device=CASE WHEN excluded.device='' THEN ranks.device ELSE excluded.device END",
               id, r.rank, r.node, r.localRank, r.pid, optionalTime(r.started),
               optionalTime(r.ended), r.exitCode, r.signal, r.device);
}

void StoreWriter::upsertLogFile(ComponentId id, const LogFileRow& l) {
    d->pushRun("INSERT OR REPLACE INTO log_files(component_id, node, rank, path, lines, bytes) "
               "VALUES(?,?,?,?,?,?)",
               id, l.node, l.rank, l.path, l.lines, l.bytes);
}

void StoreWriter::setRuleStatus(ComponentId id, const RuleStatusRow& r) {
    d->pushRun("INSERT OR REPLACE INTO rule_evaluations(component_id, rule, kind, status, message, "
               "updated, fired, datapoints, parameters, actions, details, criteria) "
               "VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
               id, r.rule, r.kind, r.status, r.message, r.updated, r.fired, r.datapoints,
               r.parameters, r.actions, r.details, r.criteria);
}

void StoreWriter::addFinding(ComponentId id, const FindingRow& f) {
    d->pushRun("INSERT INTO findings(component_id, rule, time, step, node, device, message, "
               "recommendation, criteria) VALUES(?,?,?,?,?,?,?,?,?)",
               id, f.rule, f.time, f.step, f.node, f.device, f.message, f.recommendation,
               f.criteria);
}

void StoreWriter::addNotification(ComponentId id, double time, const std::string& rule,
                                  const std::string& message) {
    d->pushRun("INSERT INTO notifications(component_id, time, rule, message) VALUES(?,?,?,?)", id,
               time, rule, message);
}

void StoreWriter::addBillingSegment(ComponentId id, const BillingSegment& b) {
    d->pushRun("INSERT INTO billing_segments(component_id, attempt, start, end, kind) "
               "VALUES(?,?,?,?,?)",
               id, b.attempt, b.start, b.end, b.kind);
}

void StoreWriter::setArtifact(ComponentId id, const ArtifactRow& a) {
    d->pushRun("INSERT OR REPLACE INTO artifacts(component_id, name, kind, value, media_type) "
               "VALUES(?,?,?,?,?)",
               id, a.name, a.kind, a.value, a.mediaType);
}

void StoreWriter::setFacts(ComponentId id, const FactsRow& f) {
    d->pushRun("INSERT OR REPLACE INTO component_facts(component_id, topic, node, rank, time, "
               "body) VALUES(?,?,?,?,?,?)",
               id, f.topic, f.node, f.rank, f.time, f.body);
}

void StoreWriter::setTag(ComponentId id, const std::string& key, const std::string& value) {
    d->pushRun("INSERT OR REPLACE INTO tags(component_id, key, value) VALUES(?,?,?)", id, key,
               value);
}

void StoreWriter::removeTag(ComponentId id, const std::string& key) {
    d->pushRun("DELETE FROM tags WHERE component_id=? AND key=?", id, key);
}

namespace {

// A job and the studio process that follows it.
struct OwnedJob {
    ComponentId id = 0;
    std::string name;
    std::string owner;
};

} // namespace

// trial_components c.
template <>
struct Columns<OwnedJob> {
    using R = OwnedJob;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"c.id", &R::id},
        {"c.name", &R::name},
        {"c.owner", &R::owner},
    });
};

std::vector<std::string> StoreWriter::failAbandoned(bool (*isAlive)(const std::string& owner)) {
    d->releaseGroup();
    auto promise = std::make_shared<std::promise<std::vector<std::string>>>();
    auto future = promise->get_future();
    d->push(Impl::Generic([promise, isAlive](Impl& w) {
        std::vector<std::string> failed;
        try {
            // Live jobs that only a studio process followed (no launcher journal, no Slurm job),
            // whose process has exited.
            std::vector<OwnedJob> stale = queryAll<OwnedJob>(
                *w.db, selectColumns<OwnedJob>(
                           "FROM trial_components c WHERE status IN ('InProgress', 'Stopping') "
                           "AND NOT EXISTS (SELECT 1 FROM journals j WHERE j.component_id = c.id "
                           "AND j.launcher_pid > 0) AND NOT EXISTS (SELECT 1 FROM slurm_jobs s "
                           "WHERE s.component_id = c.id)"));
            std::erase_if(stale, [isAlive](const OwnedJob& job) {
                return job.owner.empty() || isAlive(job.owner);
            });
            const double now = static_cast<double>(std::time(nullptr));
            const std::string reason =
                "the studio process that ran this job exited before the job ended";
            for (const OwnedJob& job : stale) {
                w.run("UPDATE trial_components SET status='Failed', secondary_status='Failed', "
                      "failure_reason=?, ended=COALESCE(ended, ?) WHERE id=?",
                      reason, now, job.id);
                w.run("INSERT INTO status_history(component_id, time, status, secondary_status, "
                      "message) VALUES(?,?,'Failed','Failed',?)",
                      job.id, now, reason);
                failed.push_back(job.name);
            }
            promise->set_value(failed);
        } catch (...) {
            promise->set_exception(std::current_exception());
        }
    }));
    auto failed = future.get();
    flush();
    return failed;
}

} // namespace studio::store
