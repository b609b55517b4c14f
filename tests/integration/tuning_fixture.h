// Tuning specs over tests/integration/python/tune_objective.py, a training job whose objective
// curve is known in advance (no model, no data), for the tuning job tests.
#pragma once

#include "engine/store/store_reader.h"
#include "engine/tune/tuning_parser.h"
#include "tests/support/process_check.h"

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>

inline const std::string kTuneScripts = STUDIO_SOURCE_DIR "/tests/integration/python";

// The tuning document: `tuning` is merged over the defaults (objective "objective", ranges x, y
// in [0, 1] and kind a|b, Random, 4 jobs, 2 at a time, seed 11); `hyperparameters` over the
// training job's (4 epochs of 0.15 s).
inline nlohmann::json
objectiveTuning(const nlohmann::json& tuning = nlohmann::json::object(),
                const nlohmann::json& hyperparameters = nlohmann::json::object()) {
    nlohmann::json t = {{"name", "objective-tuning"},
                        {"objective_metric_name", "objective"},
                        {"hyperparameter_ranges",
                         {{"x", {{"type", "Continuous"}, {"min_value", 0.0}, {"max_value", 1.0}}},
                          {"y", {{"type", "Continuous"}, {"min_value", 0.0}, {"max_value", 1.0}}},
                          {"kind", {{"type", "Categorical"}, {"values", {"a", "b"}}}}}},
                        {"strategy", "Random"},
                        {"max_jobs", 4},
                        {"max_parallel_jobs", 2},
                        {"random_seed", 11}};
    for (const auto& [k, v] : tuning.items())
        t[k] = v;
    nlohmann::json hp = {{"epochs", 4}, {"seconds-per-epoch", 0.15}};
    for (const auto& [k, v] : hyperparameters.items())
        hp[k] = v;
    nlohmann::json training = {
        {"name", "objective"},
        {"entry_point", "tune_objective.py"},
        {"source_dir", kTuneScripts},
        {"hyperparameters", hp},
        {"metric_definitions", {{{"Name", "objective"}, {"Regex", "objective=(-?[0-9.]+)"}}}},
        {"disable_profiler", true},
        {"debugger_hook_config", false}};
    return {{"tuning", t}, {"training", training}};
}

inline studio::tune::TuningSpec tuningSpecOf(const nlohmann::json& doc) {
    auto r = studio::tune::parseTuningJson(doc, kTuneScripts);
    if (!r.ok())
        throw std::runtime_error(r.errors.front().text());
    return *r.spec;
}

// The first rank or launcher of a tuning job's training jobs that still runs ("" when none).
inline std::string leftoverProcess(studio::store::StoreReader& reader,
                                   const std::vector<studio::store::TuningTrainingJobRow>& rows) {
    for (const auto& row : rows) {
        auto d = reader.detail(row.job);
        if (!d)
            return row.job + ": not in the store";
        for (const auto& rank : d->ranks)
            if (!processGone(rank.pid))
                return row.job + ": rank " + std::to_string(rank.rank) + " still runs";
        for (const auto& node : d->nodes)
            if (!processGone(node.launcherPid))
                return row.job + ": the launcher of node " + std::to_string(node.node) +
                       " still runs";
    }
    return {};
}
