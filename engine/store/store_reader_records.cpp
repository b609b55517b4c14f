// StoreReader: system samples, step timings, debugger output, checkpoints, billing and tags.
#include "engine/store/store_reader.h"
#include "engine/store/store_reader_impl.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <cmath>

namespace studio::store {

std::vector<SystemSeries> StoreReader::systemSeries(ComponentId id, double fromTime) {
    SQLite::Statement q(
        *d->db,
        "SELECT s.id, s.node, s.device, s.metric, p.time, p.value FROM system_series s "
        "JOIN system_samples p ON p.series_id = s.id WHERE s.component_id=? AND p.time >= ? "
        "ORDER BY s.node, s.device, s.metric, p.time");
    q.bind(1, id);
    q.bind(2, fromTime);
    std::vector<SystemSeries> out;
    std::int64_t current = -1;
    while (q.executeStep()) {
        std::int64_t sid = q.getColumn(0).getInt64();
        if (sid != current) {
            out.push_back({q.getColumn(1).getInt(),
                           q.getColumn(2).getString(),
                           q.getColumn(3).getString(),
                           {}});
            current = sid;
        }
        out.back().samples.push_back({q.getColumn(4).getDouble(), q.getColumn(5).getDouble()});
    }
    return out;
}

std::vector<StepTiming> StoreReader::stepTimings(ComponentId id) {
    SQLite::Statement q(*d->db, "SELECT node, rank, step, phase, time, data_ms, forward_ms, "
                                "backward_ms, comm_ms, optimizer_ms FROM step_timings WHERE "
                                "component_id=? ORDER BY time, rowid");
    q.bind(1, id);
    std::vector<StepTiming> out;
    while (q.executeStep())
        out.push_back({q.getColumn(0).getInt(), q.getColumn(1).getInt(), q.getColumn(2).getInt64(),
                       q.getColumn(3).getString(), q.getColumn(4).getDouble(),
                       q.getColumn(5).getDouble(), q.getColumn(6).getDouble(),
                       q.getColumn(7).getDouble(), q.getColumn(8).getDouble(),
                       q.getColumn(9).getDouble()});
    return out;
}

std::vector<TensorReduction> StoreReader::tensorReductions(ComponentId id,
                                                           const std::string& tensor) {
    SQLite::Statement q(*d->db,
                        "SELECT step, collection, tensor, reduction, value, node, rank, "
                        "phase FROM tensor_reductions WHERE component_id=?1 AND (?2 = '' OR "
                        "tensor = ?2) ORDER BY tensor, step, rowid");
    q.bind(1, id);
    q.bind(2, tensor);
    std::vector<TensorReduction> out;
    while (q.executeStep())
        out.push_back({q.getColumn(0).getInt64(), q.getColumn(1).getString(),
                       q.getColumn(2).getString(), q.getColumn(3).getString(),
                       q.getColumn(4).isNull() ? std::nan("") : q.getColumn(4).getDouble(),
                       q.getColumn(5).getInt(), q.getColumn(6).getInt(),
                       q.getColumn(7).getString()});
    return out;
}

std::vector<FrameworkEventRow> StoreReader::frameworkEvents(ComponentId id) {
    SQLite::Statement q(*d->db, "SELECT node, rank, step, phase, name, category, start, "
                                "duration_ms, pid FROM framework_events WHERE component_id=? "
                                "ORDER BY start, rowid");
    q.bind(1, id);
    std::vector<FrameworkEventRow> out;
    while (q.executeStep())
        out.push_back({q.getColumn(0).getInt(), q.getColumn(1).getInt(), q.getColumn(2).getInt64(),
                       q.getColumn(3).getString(), q.getColumn(4).getString(),
                       q.getColumn(5).getString(), q.getColumn(6).getDouble(),
                       q.getColumn(7).getDouble(), q.getColumn(8).getInt64()});
    return out;
}

std::vector<CheckpointRow> StoreReader::checkpoints(ComponentId id) {
    SQLite::Statement q(*d->db, "SELECT node, rank, step, time, path, sha256, bytes FROM "
                                "checkpoints WHERE component_id=? ORDER BY time, rowid");
    q.bind(1, id);
    std::vector<CheckpointRow> out;
    while (q.executeStep())
        out.push_back({q.getColumn(0).getInt(), q.getColumn(1).getInt(), q.getColumn(2).getInt64(),
                       q.getColumn(3).getDouble(), q.getColumn(4).getString(),
                       q.getColumn(5).getString(), q.getColumn(6).getInt64()});
    return out;
}

std::vector<RuleStatusRow> StoreReader::ruleStatuses(ComponentId id) {
    SQLite::Statement q(*d->db,
                        "SELECT rule, kind, status, message, updated, fired, datapoints, "
                        "parameters, actions, details, criteria FROM rule_evaluations WHERE "
                        "component_id=? "
                        "ORDER BY kind, rule");
    q.bind(1, id);
    std::vector<RuleStatusRow> out;
    while (q.executeStep())
        out.push_back(
            {q.getColumn(0).getString(), q.getColumn(1).getString(), q.getColumn(2).getString(),
             q.getColumn(3).getString(), q.getColumn(4).getDouble(), q.getColumn(5).getInt64(),
             q.getColumn(6).getInt64(), q.getColumn(7).getString(), q.getColumn(8).getString(),
             q.getColumn(9).getString(), q.getColumn(10).getString()});
    return out;
}

std::vector<FindingRow> StoreReader::findings(ComponentId id) {
    SQLite::Statement q(*d->db, "SELECT rule, time, step, node, device, message, recommendation, "
                                "criteria FROM findings WHERE component_id=? ORDER BY time, id");
    q.bind(1, id);
    std::vector<FindingRow> out;
    while (q.executeStep())
        out.push_back({q.getColumn(0).getString(), q.getColumn(1).getDouble(),
                       q.getColumn(2).isNull() ? -1 : q.getColumn(2).getInt64(),
                       q.getColumn(3).isNull() ? -1 : q.getColumn(3).getInt(),
                       q.getColumn(4).isNull() ? "" : q.getColumn(4).getString(),
                       q.getColumn(5).getString(), q.getColumn(6).getString(),
                       q.getColumn(7).getString()});
    return out;
}

std::vector<NotificationRow> StoreReader::notifications(double sinceTime) {
    SQLite::Statement q(*d->db, "SELECT n.id, c.name, n.time, n.rule, n.message FROM "
                                "notifications n JOIN trial_components c ON c.id = n.component_id "
                                "WHERE n.time >= ? ORDER BY n.time, n.id");
    q.bind(1, sinceTime);
    std::vector<NotificationRow> out;
    while (q.executeStep())
        out.push_back({q.getColumn(0).getInt64(), q.getColumn(1).getString(),
                       q.getColumn(2).getDouble(), q.getColumn(3).getString(),
                       q.getColumn(4).getString()});
    return out;
}

std::vector<BillingSegment> StoreReader::billingSegments(ComponentId id) {
    SQLite::Statement q(*d->db, "SELECT attempt, start, end, kind FROM billing_segments WHERE "
                                "component_id=? ORDER BY start, rowid");
    q.bind(1, id);
    std::vector<BillingSegment> out;
    while (q.executeStep())
        out.push_back({q.getColumn(0).getInt(), q.getColumn(1).getDouble(),
                       q.getColumn(2).getDouble(), q.getColumn(3).getString()});
    return out;
}

std::vector<ArtifactRow> StoreReader::artifacts(ComponentId id) {
    SQLite::Statement q(*d->db, "SELECT name, kind, value, media_type FROM artifacts WHERE "
                                "component_id=? ORDER BY kind, name");
    q.bind(1, id);
    std::vector<ArtifactRow> out;
    while (q.executeStep())
        out.push_back({q.getColumn(0).getString(), q.getColumn(1).getString(),
                       q.getColumn(2).getString(), q.getColumn(3).getString()});
    return out;
}

std::map<std::string, std::string> StoreReader::tags(ComponentId id) {
    SQLite::Statement q(*d->db, "SELECT key, value FROM tags WHERE component_id=? ORDER BY key");
    q.bind(1, id);
    std::map<std::string, std::string> out;
    while (q.executeStep())
        out[q.getColumn(0).getString()] = q.getColumn(1).getString();
    return out;
}

std::optional<ComponentDetail> StoreReader::detail(const std::string& name) {
    auto row = component(name);
    if (!row)
        return std::nullopt;
    ComponentDetail out;
    out.row = *row;
    out.parameters = parameters({row->id})[row->id];
    out.transitions = transitions(row->id);
    out.metrics = metricSummaries(row->id);
    out.nodes = nodes(row->id);
    out.ranks = ranks(row->id);
    out.logs = logFiles(row->id);
    out.checkpoints = checkpoints(row->id);
    out.artifacts = artifacts(row->id);
    out.tags = tags(row->id);
    out.rules = ruleStatuses(row->id);
    out.findings = findings(row->id);
    out.journals = journals(row->id);
    out.slurmJobs = slurmJobs(row->id);
    SQLite::Statement q(*d->db, "SELECT spec_json FROM trial_components WHERE id=?");
    q.bind(1, row->id);
    if (q.executeStep())
        out.specJson = q.getColumn(0).getString();
    return out;
}

namespace {

ClusterRow readCluster(SQLite::Statement& q) {
    return ClusterRow{q.getColumn(0).getString(), q.getColumn(1).getString(),
                      q.getColumn(2).getString(), q.getColumn(3).getDouble(),
                      q.getColumn(4).getDouble(), q.getColumn(5).getString()};
}

const char* kClusterColumns = "SELECT name, kind, config, created, updated, last_check FROM "
                              "clusters ";

} // namespace

std::vector<ClusterRow> StoreReader::clusters() {
    SQLite::Statement q(*d->db, std::string(kClusterColumns) + "ORDER BY name");
    std::vector<ClusterRow> out;
    while (q.executeStep())
        out.push_back(readCluster(q));
    return out;
}

std::optional<ClusterRow> StoreReader::cluster(const std::string& name) {
    SQLite::Statement q(*d->db, std::string(kClusterColumns) + "WHERE name=?");
    q.bind(1, name);
    if (!q.executeStep())
        return std::nullopt;
    return readCluster(q);
}

namespace {

const char* kSlurmJobColumns = "job_id, attempt, cluster, partition, state, reason, nodes, "
                               "restarts, exit_code, submitted, started, ended, updated";

// The kSlurmJobColumns from column `first` on.
SlurmJobRow readSlurmJob(SQLite::Statement& q, int first) {
    auto col = [&q, first](int i) {
        return q.getColumn(first + i);
    };
    SlurmJobRow j;
    j.jobId = col(0).getInt64();
    j.attempt = col(1).getInt();
    j.cluster = col(2).getString();
    j.partition = col(3).getString();
    j.state = col(4).getString();
    j.reason = col(5).getString();
    j.nodes = col(6).getString();
    j.restarts = col(7).getInt();
    if (!col(8).isNull())
        j.exitCode = col(8).getInt();
    j.submitted = col(9).getDouble();
    j.started = col(10).getDouble();
    j.ended = col(11).getDouble();
    j.updated = col(12).getDouble();
    return j;
}

} // namespace

std::vector<SlurmJobRow> StoreReader::slurmJobs(ComponentId id) {
    SQLite::Statement q(*d->db, std::string("SELECT ") + kSlurmJobColumns +
                                    ", script FROM slurm_jobs WHERE component_id=? ORDER BY "
                                    "submitted, job_id");
    q.bind(1, id);
    std::vector<SlurmJobRow> out;
    while (q.executeStep()) {
        SlurmJobRow j = readSlurmJob(q, 0);
        j.script = q.getColumn(13).getString();
        out.push_back(std::move(j));
    }
    return out;
}

std::map<ComponentId, SlurmJobRow> StoreReader::newestSlurmJobs() {
    // One statement for the whole list, in slurmJobs()' order: the last row of each component.
    SQLite::Statement q(*d->db, std::string("SELECT component_id, ") + kSlurmJobColumns +
                                    " FROM (SELECT component_id, " + kSlurmJobColumns +
                                    ", row_number() OVER (PARTITION BY component_id ORDER BY "
                                    "submitted DESC, job_id DESC) AS newest FROM slurm_jobs) "
                                    "WHERE newest=1");
    std::map<ComponentId, SlurmJobRow> out;
    while (q.executeStep())
        out[q.getColumn(0).getInt64()] = readSlurmJob(q, 1);
    return out;
}

std::vector<JournalRow> StoreReader::journals(ComponentId id) {
    SQLite::Statement q(*d->db, "SELECT node, attempt, host, path, launcher_pid, launcher_start, "
                                "byte_offset, state, state_since, message FROM journals WHERE "
                                "component_id=? ORDER BY node");
    q.bind(1, id);
    std::vector<JournalRow> out;
    while (q.executeStep()) {
        JournalRow j;
        j.node = q.getColumn(0).getInt();
        j.attempt = q.getColumn(1).getInt();
        j.host = q.getColumn(2).getString();
        j.path = q.getColumn(3).getString();
        j.launcherPid = q.getColumn(4).getInt64();
        j.launcherStart = q.getColumn(5).getString();
        j.offset = q.getColumn(6).getInt64();
        j.state = q.getColumn(7).getString();
        j.stateSince = q.getColumn(8).isNull() ? 0 : q.getColumn(8).getDouble();
        j.message = q.getColumn(9).getString();
        out.push_back(std::move(j));
    }
    return out;
}

std::string StoreReader::runState(ComponentId id) {
    SQLite::Statement q(*d->db, "SELECT run_state FROM trial_components WHERE id=?");
    q.bind(1, id);
    return q.executeStep() ? q.getColumn(0).getString() : std::string();
}

} // namespace studio::store
