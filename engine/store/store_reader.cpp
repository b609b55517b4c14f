#include "engine/store/store_reader.h"

#include "engine/store/database.h"
#include "engine/store/store_reader_impl.h"
#include "engine/store/store_writer.h"

#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <regex>
#include <stdexcept>

namespace studio::store {

namespace {

double optDouble(const SQLite::Column& c) {
    return c.isNull() ? 0.0 : c.getDouble();
}

std::optional<int> optInt(const SQLite::Column& c) {
    return c.isNull() ? std::nullopt : std::optional<int>(c.getInt());
}

const char* kComponentColumns =
    "c.id, c.name, c.display_name, e.name, t.name, c.status, c.secondary_status, "
    "c.failure_reason, c.instance_type, c.instance_count, c.processes_per_host, c.entry_point, "
    "c.job_dir, c.created, c.started, c.ended, c.notes, c.protocol_errors, c.cluster, c.owner "
    "FROM trial_components c JOIN trials t ON t.id = c.trial_id "
    "JOIN experiments e ON e.id = t.experiment_id ";

ComponentRow readComponent(SQLite::Statement& q) {
    ComponentRow r;
    r.id = q.getColumn(0).getInt64();
    r.name = q.getColumn(1).getString();
    r.displayName = q.getColumn(2).getString();
    r.experiment = q.getColumn(3).getString();
    r.trial = q.getColumn(4).getString();
    r.status = q.getColumn(5).getString();
    r.secondaryStatus = q.getColumn(6).getString();
    r.failureReason = q.getColumn(7).getString();
    r.instanceType = q.getColumn(8).getString();
    r.instanceCount = q.getColumn(9).getInt();
    r.processesPerHost = q.getColumn(10).getInt();
    r.entryPoint = q.getColumn(11).getString();
    r.jobDir = q.getColumn(12).getString();
    r.created = q.getColumn(13).getDouble();
    r.started = optDouble(q.getColumn(14));
    r.ended = optDouble(q.getColumn(15));
    r.notes = q.getColumn(16).getString();
    r.protocolErrors = q.getColumn(17).getInt();
    r.cluster = q.getColumn(18).getString();
    r.owner = q.getColumn(19).getString();
    return r;
}

MetricSummary readSummary(SQLite::Statement& q, int first) {
    MetricSummary s;
    s.count = q.getColumn(first).getInt64();
    if (!q.getColumn(first + 1).isNull()) {
        s.min = q.getColumn(first + 1).getDouble();
        s.max = q.getColumn(first + 2).getDouble();
    }
    s.mean = q.getColumn(first + 3).getDouble();
    s.m2 = q.getColumn(first + 4).getDouble();
    s.last = q.getColumn(first + 5).isNull() ? std::nan("") : q.getColumn(first + 5).getDouble();
    s.lastStep = q.getColumn(first + 6).getInt64();
    s.lastTime = q.getColumn(first + 7).getDouble();
    s.nonFinite = q.getColumn(first + 8).getInt64();
    return s;
}

std::string idList(const std::vector<ComponentId>& ids) {
    std::string out;
    for (auto id : ids)
        out += (out.empty() ? "" : ",") + std::to_string(id);
    return out;
}

} // namespace

StoreReader::StoreReader(const std::string& path)
    : d(std::make_unique<Impl>()) {
    // A missing or older file is created or migrated by a writer first: readers never migrate.
    bool current = false;
    if (std::filesystem::exists(path)) {
        // Waits like every connection: a writer may hold the file a moment (checkpoint on close).
        SQLite::Database probe(path, SQLite::OPEN_READONLY, 5000);
        const int version = schemaVersion(probe);
        if (version > latestSchemaVersion())
            throw std::runtime_error(path + ": schema version " + std::to_string(version) +
                                     " is newer than this studio supports (" +
                                     std::to_string(latestSchemaVersion()) + ")");
        current = version == latestSchemaVersion();
    }
    if (!current)
        StoreWriter migrateOrCreate(path);
    d->db = openDatabase(path, true);
}

StoreReader::~StoreReader() = default;

std::vector<ExperimentRow> StoreReader::experiments() {
    SQLite::Statement q(
        *d->db, "SELECT e.id, e.name, e.description, e.created, "
                "(SELECT COUNT(*) FROM trials t WHERE t.experiment_id = e.id), "
                "(SELECT COUNT(*) FROM trial_components c JOIN trials t ON t.id = c.trial_id "
                " WHERE t.experiment_id = e.id) FROM experiments e ORDER BY e.created");
    std::vector<ExperimentRow> out;
    while (q.executeStep())
        out.push_back({q.getColumn(0).getInt64(), q.getColumn(1).getString(),
                       q.getColumn(2).getString(), q.getColumn(3).getDouble(),
                       q.getColumn(4).getInt(), q.getColumn(5).getInt()});
    return out;
}

std::vector<TrialRow> StoreReader::trials(const std::string& experiment) {
    SQLite::Statement q(*d->db, "SELECT t.id, e.name, t.name, t.created, "
                                "(SELECT COUNT(*) FROM trial_components c WHERE c.trial_id = t.id) "
                                "FROM trials t JOIN experiments e ON e.id = t.experiment_id "
                                "WHERE ?1 = '' OR e.name = ?1 ORDER BY t.created");
    q.bind(1, experiment);
    std::vector<TrialRow> out;
    while (q.executeStep())
        out.push_back({q.getColumn(0).getInt64(), q.getColumn(1).getString(),
                       q.getColumn(2).getString(), q.getColumn(3).getDouble(),
                       q.getColumn(4).getInt()});
    return out;
}

std::vector<ComponentRow> StoreReader::components(const ComponentFilter& f) {
    std::string sql = std::string("SELECT ") + kComponentColumns +
                      "WHERE (?1 = '' OR e.name = ?1) AND (?2 = '' OR t.name = ?2) AND "
                      "(?3 = '' OR c.status = ?3) ORDER BY c.created, c.id";
    if (f.limit > 0)
        sql += " LIMIT " + std::to_string(f.limit);
    SQLite::Statement q(*d->db, sql);
    q.bind(1, f.experiment);
    q.bind(2, f.trial);
    q.bind(3, f.status);
    std::vector<ComponentRow> out;
    while (q.executeStep())
        out.push_back(readComponent(q));
    return out;
}

std::optional<ComponentRow> StoreReader::component(const std::string& name) {
    SQLite::Statement q(*d->db, std::string("SELECT ") + kComponentColumns + "WHERE c.name = ?");
    q.bind(1, name);
    if (!q.executeStep())
        return std::nullopt;
    return readComponent(q);
}

ComponentRow StoreReader::resolveJob(const std::string& key) {
    if (auto exact = component(key))
        return *exact;
    SQLite::Statement q(*d->db, std::string("SELECT ") + kComponentColumns +
                                    "WHERE substr(c.name, 1, length(?1)) = ?1 "
                                    "ORDER BY c.created DESC, c.id DESC");
    q.bind(1, key);
    std::vector<ComponentRow> rows;
    while (q.executeStep())
        rows.push_back(readComponent(q));
    if (rows.empty())
        throw std::runtime_error("no job named \"" + key + "\" (see: mlstudio list jobs)");
    // A job's base name ("pytorch-ddp-script") means its newest run: every match is that base
    // plus the "-YYYY-MM-DD-HH-MM-SS-mmm" the studio appends.
    static const std::regex stamp("^-\\d{4}(-\\d{2}){5}-\\d{3}$");
    const bool sameBase = std::all_of(rows.begin(), rows.end(), [&](const ComponentRow& r) {
        return std::regex_match(r.name.substr(key.size()), stamp);
    });
    if (rows.size() == 1 || sameBase)
        return rows.front();
    std::string names;
    for (std::size_t i = 0; i < std::min<std::size_t>(rows.size(), 5); ++i)
        names += "\n  " + rows[i].name;
    throw std::runtime_error("\"" + key + "\" matches several jobs; give more of the name:" +
                             names + (rows.size() > 5 ? "\n  ..." : ""));
}

std::vector<std::string> StoreReader::metricNames(ComponentId id) {
    SQLite::Statement q(*d->db,
                        "SELECT name FROM metric_series WHERE component_id=? ORDER BY name");
    q.bind(1, id);
    std::vector<std::string> out;
    while (q.executeStep())
        out.push_back(q.getColumn(0).getString());
    return out;
}

std::vector<MetricPoint> StoreReader::metricPoints(ComponentId id, const std::string& metric) {
    SQLite::Statement q(
        *d->db, "SELECT p.step, p.time, p.value, p.node, p.rank FROM metric_points p "
                "JOIN metric_series s ON s.id = p.series_id WHERE s.component_id=? AND s.name=? "
                "ORDER BY p.step, p.rowid");
    q.bind(1, id);
    q.bind(2, metric);
    std::vector<MetricPoint> out;
    while (q.executeStep())
        out.push_back({q.getColumn(0).getInt64(), q.getColumn(1).getDouble(),
                       q.getColumn(2).isNull() ? std::nan("") : q.getColumn(2).getDouble(),
                       q.getColumn(3).getInt(), q.getColumn(4).getInt()});
    return out;
}

std::map<std::string, MetricSummary> StoreReader::metricSummaries(ComponentId id) {
    return metricSummaries(std::vector<ComponentId>{id})[id];
}

std::map<ComponentId, std::map<std::string, MetricSummary>>
StoreReader::metricSummaries(const std::vector<ComponentId>& ids) {
    std::map<ComponentId, std::map<std::string, MetricSummary>> out;
    if (ids.empty())
        return out;
    SQLite::Statement q(
        *d->db,
        "SELECT s.component_id, s.name, m.count, m.min, m.max, m.mean, m.m2, m.last, m.last_step, "
        "m.last_time, m.non_finite FROM metric_series s JOIN metric_summaries m ON m.series_id = "
        "s.id WHERE s.component_id IN (" +
            idList(ids) + ")");
    while (q.executeStep())
        out[q.getColumn(0).getInt64()][q.getColumn(1).getString()] = readSummary(q, 2);
    return out;
}

std::map<ComponentId, std::vector<ParameterRow>>
StoreReader::parameters(const std::vector<ComponentId>& ids) {
    std::map<ComponentId, std::vector<ParameterRow>> out;
    if (ids.empty())
        return out;
    SQLite::Statement q(*d->db, "SELECT component_id, name, value, number FROM parameters WHERE "
                                "component_id IN (" +
                                    idList(ids) + ") ORDER BY component_id, name");
    while (q.executeStep()) {
        ParameterRow p{q.getColumn(1).getString(), q.getColumn(2).getString(), std::nullopt};
        if (!q.getColumn(3).isNull())
            p.number = q.getColumn(3).getDouble();
        out[q.getColumn(0).getInt64()].push_back(std::move(p));
    }
    return out;
}

std::vector<StatusTransition> StoreReader::transitions(ComponentId id) {
    SQLite::Statement q(*d->db, "SELECT time, status, secondary_status, message FROM "
                                "status_history WHERE component_id=? ORDER BY time, rowid");
    q.bind(1, id);
    std::vector<StatusTransition> out;
    while (q.executeStep()) {
        StatusTransition t{q.getColumn(1).getString(), q.getColumn(2).getString(),
                           q.getColumn(0).getDouble(), 0, q.getColumn(3).getString()};
        if (!out.empty())
            out.back().endTime = t.startTime;
        out.push_back(std::move(t));
    }
    return out;
}

std::vector<NodeRow> StoreReader::nodes(ComponentId id) {
    SQLite::Statement q(*d->db, "SELECT node, host, launcher_pid, cores, gpus, started, ended, "
                                "exit_code FROM nodes WHERE component_id=? ORDER BY node");
    q.bind(1, id);
    std::vector<NodeRow> out;
    while (q.executeStep())
        out.push_back({q.getColumn(0).getInt(), q.getColumn(1).getString(),
                       q.getColumn(2).getInt64(), q.getColumn(3).getInt(), q.getColumn(4).getInt(),
                       optDouble(q.getColumn(5)), optDouble(q.getColumn(6)),
                       optInt(q.getColumn(7))});
    return out;
}

std::vector<RankRow> StoreReader::ranks(ComponentId id) {
    SQLite::Statement q(*d->db, "SELECT rank, node, local_rank, pid, started, ended, exit_code, "
                                "signal, device FROM ranks WHERE component_id=? ORDER BY rank");
    q.bind(1, id);
    std::vector<RankRow> out;
    while (q.executeStep())
        out.push_back({q.getColumn(0).getInt(), q.getColumn(1).getInt(), q.getColumn(2).getInt(),
                       q.getColumn(3).getInt64(), optDouble(q.getColumn(4)),
                       optDouble(q.getColumn(5)), optInt(q.getColumn(6)), q.getColumn(7).getInt(),
                       q.getColumn(8).getString()});
    return out;
}

std::vector<LogFileRow> StoreReader::logFiles(ComponentId id) {
    SQLite::Statement q(*d->db, "SELECT node, rank, path, lines, bytes FROM log_files WHERE "
                                "component_id=? ORDER BY node, rank");
    q.bind(1, id);
    std::vector<LogFileRow> out;
    while (q.executeStep())
        out.push_back({q.getColumn(0).getInt(), q.getColumn(1).getInt(), q.getColumn(2).getString(),
                       q.getColumn(3).getInt64(), q.getColumn(4).getInt64()});
    return out;
}

} // namespace studio::store
