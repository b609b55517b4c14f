// StoreReader: hyperparameter tuning jobs, their training jobs and objective curves.
#include "engine/store/store_reader_impl.h"
#include "engine/store/tuning_columns.h"

#include <algorithm>
#include <cmath>

namespace studio::store {

namespace {

// What a tuning job's counters and best job need of each of its training jobs.
struct TrainingOutcome {
    std::string state;
    bool stoppedEarly = false;
    std::optional<double> objective;
    std::string job;
    ComponentId component = 0;
    int resumedFrom = -1;
};

} // namespace

// tuning_training_jobs j LEFT JOIN trial_components c.
template <>
struct Columns<TrainingOutcome> {
    using R = TrainingOutcome;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"j.state", &R::state},
        {"j.stopped_early", &R::stoppedEarly},
        {"j.objective", &R::objective},
        {"c.name", &R::job},
        {"c.id", &R::component},
        {"j.resumed_from", &R::resumedFrom},
    });
};

namespace {

// Tuning jobs; `rest` joins, filters and orders them.
std::string tuningQuery(const std::string& rest) {
    return selectColumns<TuningJobRow>("FROM tuning_jobs t " + rest);
}

// Counters and the best job of one tuning job, from its training jobs' rows.
void addSummary(SQLite::Database& db, TuningJobRow& t) {
    const bool maximize = t.objectiveType != "Minimize";
    TuningCounters& c = t.counters;
    queryEach<TrainingOutcome>(
        db,
        selectColumns<TrainingOutcome>("FROM tuning_training_jobs j LEFT JOIN trial_components c "
                                       "ON c.id = j.component_id WHERE j.tuning_id=? "
                                       "ORDER BY j.ordinal"),
        [&](TrainingOutcome&& o) {
            ++c.total;
            if (o.resumedFrom >= 0)
                ++c.resumed;
            if (o.state == "Completed")
                ++c.completed;
            else if (o.state == "Stopped")
                ++(o.stoppedEarly ? c.stoppedEarly : c.stopped);
            else if (o.state == "Failed")
                ++c.failed;
            else
                ++c.inProgress;
            if (!o.objective)
                return;
            const double v = *o.objective;
            if (o.state != "Pending" && std::isfinite(v))
                ++c.objectiveSucceeded;
            if (!std::isfinite(v))
                return;
            if (!t.bestObjective || (maximize ? v > *t.bestObjective : v < *t.bestObjective)) {
                t.bestObjective = v;
                t.bestJob = o.job;
                t.bestComponent = o.component;
            }
        },
        t.id);
}

} // namespace

std::vector<TuningJobRow> StoreReader::tuningJobs() {
    std::vector<TuningJobRow> out =
        queryAll<TuningJobRow>(*d->db, tuningQuery("ORDER BY t.created DESC, t.id DESC"));
    for (TuningJobRow& t : out)
        addSummary(*d->db, t);
    return out;
}

std::optional<TuningJobRow> StoreReader::tuningJob(const std::string& key) {
    std::vector<TuningJobRow> rows;
    if (auto exact = queryOne<TuningJobRow>(*d->db, tuningQuery("WHERE t.name=?"), key))
        rows.push_back(std::move(*exact));
    else
        rows = queryAll<TuningJobRow>(*d->db,
                                      tuningQuery("WHERE substr(t.name, 1, length(?1)) = ?1 "
                                                  "ORDER BY t.created DESC, t.id DESC"),
                                      key);
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
    return queryOne<std::string>(*d->db, "SELECT status FROM tuning_jobs WHERE id=?", id)
        .value_or(std::string());
}

std::optional<TuningJobRow> StoreReader::tuningJobOf(ComponentId training) {
    auto t = queryOne<TuningJobRow>(*d->db,
                                    tuningQuery("JOIN tuning_training_jobs j ON j.tuning_id = "
                                                "t.id WHERE j.component_id=?"),
                                    training);
    if (t)
        addSummary(*d->db, *t);
    return t;
}

std::vector<TuningTrainingJobRow> StoreReader::tuningTrainingJobs(TuningId id) {
    return queryAll<TuningTrainingJobRow>(
        *d->db,
        selectColumns<TuningTrainingJobRow>("FROM tuning_training_jobs j LEFT JOIN "
                                            "trial_components c ON c.id = j.component_id "
                                            "WHERE j.tuning_id=? ORDER BY j.ordinal"),
        id);
}

std::map<ComponentId, std::vector<MetricPoint>> StoreReader::tuningCurves(TuningId id) {
    using Row = std::pair<ComponentId, MetricPoint>;
    std::map<ComponentId, std::vector<MetricPoint>> out;
    queryEach<Row>(
        *d->db,
        "SELECT s.component_id, " + columnList<MetricPoint>() +
            " FROM tuning_training_jobs j JOIN tuning_jobs t ON t.id = j.tuning_id "
            "JOIN metric_series s ON s.component_id = j.component_id AND "
            "s.name = t.objective_name JOIN metric_points p ON p.series_id = s.id "
            "WHERE j.tuning_id=? ORDER BY s.component_id, p.step, p.rowid",
        [&out](Row&& r) { out[r.first].push_back(r.second); }, id);
    return out;
}

} // namespace studio::store
