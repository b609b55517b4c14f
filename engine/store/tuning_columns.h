// The columns of the records in tuning_records.h, read by typed_query.h; a training job's
// hyperparameters and search point are stored as JSON. Internal to engine/store.
#pragma once

#include "engine/store/tuning_records.h"
#include "engine/store/typed_query.h"

#include <nlohmann/json.hpp>

namespace studio::store {

// tuning_jobs t.
template <>
struct Columns<TuningJobRow> {
    using R = TuningJobRow;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"t.id", &R::id},
        {"t.name", &R::name},
        {"t.status", &R::status},
        {"t.status_message", &R::statusMessage},
        {"t.strategy", &R::strategy},
        {"t.objective_name", &R::objectiveName},
        {"t.objective_type", &R::objectiveType},
        {"t.max_jobs", &R::maxJobs},
        {"t.max_parallel_jobs", &R::maxParallelJobs},
        {"t.early_stopping", &R::earlyStopping},
        {"t.random_seed", &R::randomSeed},
        {"t.created", &R::created},
        {"t.ended", &R::ended},
        {"t.owner", &R::owner},
        {"t.spec", &R::specJson},
    });
};

// A JSON object of names to values; a value that is not a string keeps its JSON text.
inline void decodeHyperparameters(TuningTrainingJobRow& r, const SQLite::Column& c) {
    const auto hp = nlohmann::json::parse(c.getString(), nullptr, false);
    if (hp.is_object())
        for (const auto& [k, v] : hp.items())
            r.hyperparameters[k] = v.is_string() ? v.get<std::string>() : v.dump();
}

// A JSON array of numbers; anything else in it reads as NaN.
inline void decodePoint(TuningTrainingJobRow& r, const SQLite::Column& c) {
    const auto point = nlohmann::json::parse(c.getString(), nullptr, false);
    if (point.is_array())
        for (const auto& v : point)
            r.point.push_back(v.is_number() ? v.get<double>() : std::nan(""));
}

// tuning_training_jobs j LEFT JOIN trial_components c (c's columns are NULL for a row without
// its training job).
template <>
struct Columns<TuningTrainingJobRow> {
    using R = TuningTrainingJobRow;
    static constexpr auto fields = std::to_array<Field<R>>({
        {"j.ordinal", &R::ordinal},
        {"j.component_id", &R::component},
        {"c.name", &R::job},
        {"j.hyperparameters", &decodeHyperparameters},
        {"j.point", &decodePoint},
        {"j.bracket", &R::bracket},
        {"j.state", &R::state},
        {"j.objective", &R::objective},
        {"j.stopped_early", &R::stoppedEarly},
        {"j.stop_reason", &R::stopReason},
        {"c.status", &R::status},
        {"c.created", &R::created},
        {"c.started", &R::started},
        {"c.ended", &R::ended},
        {"j.resumed_from", &R::resumedFrom},
    });
};

} // namespace studio::store
