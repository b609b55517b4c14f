// StoreReader: hyperparameter tuning jobs, their training jobs and objective curves.
#include "engine/store/store_reader_impl.h"

#include <SQLiteCpp/Statement.h>
#include <nlohmann/json.hpp>

#include <cmath>

namespace studio::store {

namespace {

const char* kTuningColumns = "t.id, t.name, t.status, t.status_message, t.strategy, "
                             "t.objective_name, t.objective_type, t.max_jobs, "
                             "t.max_parallel_jobs, t.early_stopping, t.random_seed, t.created, "
                             "t.ended, t.owner, t.spec FROM tuning_jobs t ";

TuningJobRow readTuningJob(SQLite::Statement& q) {
    TuningJobRow t;
    t.id = q.getColumn(0).getInt64();
    t.name = q.getColumn(1).getString();
    t.status = q.getColumn(2).getString();
    t.statusMessage = q.getColumn(3).getString();
    t.strategy = q.getColumn(4).getString();
    t.objectiveName = q.getColumn(5).getString();
    t.objectiveType = q.getColumn(6).getString();
    t.maxJobs = q.getColumn(7).getInt();
    t.maxParallelJobs = q.getColumn(8).getInt();
    t.earlyStopping = q.getColumn(9).getString();
    t.randomSeed = static_cast<std::uint64_t>(q.getColumn(10).getInt64());
    t.created = q.getColumn(11).getDouble();
    t.ended = q.getColumn(12).isNull() ? 0 : q.getColumn(12).getDouble();
    t.owner = q.getColumn(13).getString();
    t.specJson = q.getColumn(14).getString();
    return t;
}

// Counters and the best job of one tuning job, from its training jobs' rows.
void addSummary(SQLite::Database& db, TuningJobRow& t) {
    SQLite::Statement q(db, "SELECT j.state, j.stopped_early, j.objective, c.status, c.name, c.id, "
                            "j.resumed_from "
                            "FROM tuning_training_jobs j LEFT JOIN trial_components c ON "
                            "c.id = j.component_id WHERE j.tuning_id=? ORDER BY j.ordinal");
    q.bind(1, t.id);
    const bool maximize = t.objectiveType != "Minimize";
    while (q.executeStep()) {
        const std::string state = q.getColumn(0).getString();
        const bool early = q.getColumn(1).getInt() != 0;
        TuningCounters& c = t.counters;
        ++c.total;
        if (q.getColumn(6).getInt() >= 0)
            ++c.resumed;
        if (state == "Completed")
            ++c.completed;
        else if (state == "Stopped")
            ++(early ? c.stoppedEarly : c.stopped);
        else if (state == "Failed")
            ++c.failed;
        else
            ++c.inProgress;
        if (q.getColumn(2).isNull())
            continue;
        const double v = q.getColumn(2).getDouble();
        if (state != "Pending" && std::isfinite(v))
            ++c.objectiveSucceeded;
        if (!std::isfinite(v))
            continue;
        if (!t.bestObjective || (maximize ? v > *t.bestObjective : v < *t.bestObjective)) {
            t.bestObjective = v;
            t.bestJob = q.getColumn(4).getString();
            t.bestComponent = q.getColumn(5).getInt64();
        }
    }
}

} // namespace

std::vector<TuningJobRow> StoreReader::tuningJobs() {
    SQLite::Statement q(*d->db, std::string("SELECT ") + kTuningColumns +
                                    "ORDER BY t.created DESC, t.id DESC");
    std::vector<TuningJobRow> out;
    while (q.executeStep())
        out.push_back(readTuningJob(q));
    for (TuningJobRow& t : out)
        addSummary(*d->db, t);
    return out;
}

std::optional<TuningJobRow> StoreReader::tuningJob(const std::string& key) {
    SQLite::Statement exact(*d->db, std::string("SELECT ") + kTuningColumns + "WHERE t.name=?");
    exact.bind(1, key);
    std::vector<TuningJobRow> rows;
    if (exact.executeStep()) {
        rows.push_back(readTuningJob(exact));
    } else {
        SQLite::Statement q(*d->db, std::string("SELECT ") + kTuningColumns +
                                        "WHERE substr(t.name, 1, length(?1)) = ?1 "
                                        "ORDER BY t.created DESC, t.id DESC");
        q.bind(1, key);
        while (q.executeStep())
            rows.push_back(readTuningJob(q));
    }
    if (rows.empty())
        return std::nullopt;
    if (rows.size() > 1) {
        std::string names;
        for (std::size_t i = 0; i < std::min<std::size_t>(rows.size(), 5); ++i)
            names += "\n  " + rows[i].name;
        throw std::runtime_error("\"" + key +
                                 "\" matches several tuning jobs; give more of the "
                                 "name:" +
                                 names);
    }
    addSummary(*d->db, rows.front());
    return rows.front();
}

std::string StoreReader::tuningStatus(TuningId id) {
    SQLite::Statement q(*d->db, "SELECT status FROM tuning_jobs WHERE id=?");
    q.bind(1, id);
    return q.executeStep() ? q.getColumn(0).getString() : std::string();
}

std::optional<TuningJobRow> StoreReader::tuningJobOf(ComponentId training) {
    SQLite::Statement q(*d->db, std::string("SELECT ") + kTuningColumns +
                                    "JOIN tuning_training_jobs j ON j.tuning_id = t.id "
                                    "WHERE j.component_id=?");
    q.bind(1, training);
    if (!q.executeStep())
        return std::nullopt;
    TuningJobRow t = readTuningJob(q);
    addSummary(*d->db, t);
    return t;
}

std::vector<TuningTrainingJobRow> StoreReader::tuningTrainingJobs(TuningId id) {
    SQLite::Statement q(
        *d->db,
        "SELECT j.ordinal, j.component_id, c.name, j.hyperparameters, j.point, "
        "j.bracket, j.state, j.objective, j.stopped_early, j.stop_reason, "
        "c.status, c.created, c.started, c.ended, j.resumed_from FROM tuning_training_jobs j "
        "LEFT JOIN trial_components c ON c.id = j.component_id "
        "WHERE j.tuning_id=? ORDER BY j.ordinal");
    q.bind(1, id);
    std::vector<TuningTrainingJobRow> out;
    while (q.executeStep()) {
        TuningTrainingJobRow r;
        r.ordinal = q.getColumn(0).getInt();
        r.component = q.getColumn(1).isNull() ? 0 : q.getColumn(1).getInt64();
        r.job = q.getColumn(2).isNull() ? std::string() : q.getColumn(2).getString();
        const auto hp = nlohmann::json::parse(q.getColumn(3).getString(), nullptr, false);
        if (hp.is_object())
            for (const auto& [k, v] : hp.items())
                r.hyperparameters[k] = v.is_string() ? v.get<std::string>() : v.dump();
        const auto point = nlohmann::json::parse(q.getColumn(4).getString(), nullptr, false);
        if (point.is_array())
            for (const auto& v : point)
                r.point.push_back(v.is_number() ? v.get<double>() : std::nan(""));
        r.bracket = q.getColumn(5).getInt();
        r.state = q.getColumn(6).getString();
        if (!q.getColumn(7).isNull())
            r.objective = q.getColumn(7).getDouble();
        r.stoppedEarly = q.getColumn(8).getInt() != 0;
        r.stopReason = q.getColumn(9).getString();
        r.status = q.getColumn(10).isNull() ? std::string() : q.getColumn(10).getString();
        r.created = q.getColumn(11).isNull() ? 0 : q.getColumn(11).getDouble();
        r.started = q.getColumn(12).isNull() ? 0 : q.getColumn(12).getDouble();
        r.ended = q.getColumn(13).isNull() ? 0 : q.getColumn(13).getDouble();
        r.resumedFrom = q.getColumn(14).getInt();
        out.push_back(std::move(r));
    }
    return out;
}

std::map<ComponentId, std::vector<MetricPoint>> StoreReader::tuningCurves(TuningId id) {
    SQLite::Statement q(*d->db,
                        "SELECT s.component_id, p.step, p.time, p.value, p.node, p.rank "
                        "FROM tuning_training_jobs j JOIN tuning_jobs t ON t.id = j.tuning_id "
                        "JOIN metric_series s ON s.component_id = j.component_id AND "
                        "s.name = t.objective_name JOIN metric_points p ON p.series_id = s.id "
                        "WHERE j.tuning_id=? ORDER BY s.component_id, p.step, p.rowid");
    q.bind(1, id);
    std::map<ComponentId, std::vector<MetricPoint>> out;
    while (q.executeStep())
        out[q.getColumn(0).getInt64()].push_back(
            {q.getColumn(1).getInt64(), q.getColumn(2).getDouble(),
             q.getColumn(3).isNull() ? std::nan("") : q.getColumn(3).getDouble(),
             q.getColumn(4).getInt(), q.getColumn(5).getInt()});
    return out;
}

} // namespace studio::store
