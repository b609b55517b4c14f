#include "engine/store/store_reader.h"

#include "engine/store/database.h"
#include "engine/store/store_reader_impl.h"
#include "engine/store/store_writer.h"

#include <algorithm>
#include <filesystem>
#include <regex>
#include <stdexcept>

namespace studio::store {

namespace {

// Components with their trial's and experiment's names; `rest` filters and orders them.
std::string componentQuery(const std::string& rest) {
    return selectColumns<ComponentRow>("FROM trial_components c JOIN trials t ON t.id = "
                                       "c.trial_id JOIN experiments e ON e.id = t.experiment_id " +
                                       rest);
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
    return queryAll<ExperimentRow>(
        *d->db, selectColumns<ExperimentRow>("FROM experiments e ORDER BY e.created"));
}

std::vector<TrialRow> StoreReader::trials(const std::string& experiment) {
    return queryAll<TrialRow>(
        *d->db,
        selectColumns<TrialRow>("FROM trials t JOIN experiments e ON e.id = t.experiment_id "
                                "WHERE ?1 = '' OR e.name = ?1 ORDER BY t.created"),
        experiment);
}

std::vector<ComponentRow> StoreReader::components(const ComponentFilter& f) {
    std::string rest = "WHERE (?1 = '' OR e.name = ?1) AND (?2 = '' OR t.name = ?2) AND "
                       "(?3 = '' OR c.status = ?3) ORDER BY c.created, c.id";
    if (f.limit > 0)
        rest += " LIMIT " + std::to_string(f.limit);
    return queryAll<ComponentRow>(*d->db, componentQuery(rest), f.experiment, f.trial, f.status);
}

std::optional<ComponentRow> StoreReader::component(const std::string& name) {
    return queryOne<ComponentRow>(*d->db, componentQuery("WHERE c.name = ?"), name);
}

ComponentRow StoreReader::resolveJob(const std::string& key) {
    if (auto exact = component(key))
        return *exact;
    const std::vector<ComponentRow> rows =
        queryAll<ComponentRow>(*d->db,
                               componentQuery("WHERE substr(c.name, 1, length(?1)) = ?1 "
                                              "ORDER BY c.created DESC, c.id DESC"),
                               key);
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
    return queryAll<std::string>(
        *d->db, "SELECT name FROM metric_series WHERE component_id=? ORDER BY name", id);
}

std::vector<MetricPoint> StoreReader::metricPoints(ComponentId id, const std::string& metric) {
    return queryAll<MetricPoint>(
        *d->db,
        selectColumns<MetricPoint>("FROM metric_points p JOIN metric_series s ON s.id = "
                                   "p.series_id WHERE s.component_id=? AND s.name=? "
                                   "ORDER BY p.step, p.rowid"),
        id, metric);
}

std::map<std::string, MetricSummary> StoreReader::metricSummaries(ComponentId id) {
    return metricSummaries(std::vector<ComponentId>{id})[id];
}

std::map<ComponentId, std::map<std::string, MetricSummary>>
StoreReader::metricSummaries(const std::vector<ComponentId>& ids) {
    std::map<ComponentId, std::map<std::string, MetricSummary>> out;
    if (ids.empty())
        return out;
    using Row = std::tuple<ComponentId, std::string, MetricSummary>;
    queryEach<Row>(*d->db,
                   "SELECT s.component_id, s.name, " + columnList<MetricSummary>() +
                       " FROM metric_series s JOIN metric_summaries m ON m.series_id = s.id "
                       "WHERE s.component_id IN (" +
                       idList(ids) + ")",
                   [&out](Row&& r) {
                       auto& [component, name, summary] = r;
                       out[component][name] = std::move(summary);
                   });
    return out;
}

std::map<ComponentId, std::vector<ParameterRow>>
StoreReader::parameters(const std::vector<ComponentId>& ids) {
    std::map<ComponentId, std::vector<ParameterRow>> out;
    if (ids.empty())
        return out;
    using Row = std::pair<ComponentId, ParameterRow>;
    queryEach<Row>(*d->db,
                   "SELECT component_id, " + columnList<ParameterRow>() +
                       " FROM parameters WHERE component_id IN (" + idList(ids) +
                       ") ORDER BY component_id, name",
                   [&out](Row&& r) { out[r.first].push_back(std::move(r.second)); });
    return out;
}

std::map<ComponentId, std::map<std::string, std::string>>
StoreReader::tags(const std::vector<ComponentId>& ids) {
    std::map<ComponentId, std::map<std::string, std::string>> out;
    if (ids.empty())
        return out;
    using Row = std::tuple<ComponentId, std::string, std::string>;
    queryEach<Row>(*d->db,
                   "SELECT component_id, key, value FROM tags WHERE component_id IN (" +
                       idList(ids) + ")",
                   [&out](Row&& r) {
                       auto& [component, key, value] = r;
                       out[component][std::move(key)] = std::move(value);
                   });
    return out;
}

std::vector<StatusTransition> StoreReader::transitions(ComponentId id) {
    std::vector<StatusTransition> out =
        componentRows<StatusTransition>(*d->db, "status_history", "time, rowid", id);
    for (std::size_t i = 1; i < out.size(); ++i)
        out[i - 1].endTime = out[i].startTime;
    return out;
}

std::vector<NodeRow> StoreReader::nodes(ComponentId id) {
    return componentRows<NodeRow>(*d->db, "nodes", "node", id);
}

std::vector<RankRow> StoreReader::ranks(ComponentId id) {
    return componentRows<RankRow>(*d->db, "ranks", "rank", id);
}

std::vector<LogFileRow> StoreReader::logFiles(ComponentId id) {
    return componentRows<LogFileRow>(*d->db, "log_files", "node, rank", id);
}

} // namespace studio::store
