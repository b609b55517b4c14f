// The analytics table of a tuning job's training jobs.
#include "engine/store/tuning_analytics.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

namespace studio::store {

std::string countersText(const TuningCounters& c, int maxJobs) {
    const int done = c.completed + c.stoppedEarly + c.stopped + c.failed;
    std::string s = std::to_string(done) + "/" + std::to_string(maxJobs) + " jobs done, " +
                    std::to_string(c.inProgress) + " running";
    if (c.stoppedEarly > 0)
        s += ", " + std::to_string(c.stoppedEarly) + " stopped early";
    if (c.resumed > 0)
        s += ", " + std::to_string(c.resumed) + " resumed from a checkpoint";
    if (c.failed > 0)
        s += ", " + std::to_string(c.failed) + " failed";
    return s;
}

std::vector<std::string> tunedNames(const TuningJobRow& t) {
    // nlohmann's ordered_json keeps the spec's key order.
    const auto doc = nlohmann::ordered_json::parse(t.specJson, nullptr, false);
    std::vector<std::string> names;
    if (doc.is_object() && doc.contains("tuning") && doc["tuning"].is_object()) {
        const auto& ranges =
            doc["tuning"].value("hyperparameter_ranges", nlohmann::ordered_json::object());
        for (const auto& [name, r] : ranges.items())
            names.push_back(name);
    }
    return names;
}

AnalyticsTable tuningAnalytics(StoreReader& reader, const TuningJobRow& tuningJob) {
    const auto rows = reader.tuningTrainingJobs(tuningJob.id);
    std::vector<std::string> names = tunedNames(tuningJob);
    if (names.empty()) {
        std::set<std::string> seen;
        for (const auto& r : rows)
            for (const auto& [k, v] : r.hyperparameters)
                seen.insert(k);
        names.assign(seen.begin(), seen.end());
    }
    AnalyticsTable t;
    t.columns = names;
    for (const char* c : {"TrainingJobName", "TrainingJobStatus", "FinalObjectiveValue",
                          "TrainingStartTime", "TrainingEndTime", "TrainingElapsedTimeSeconds",
                          "StoppedEarly", "StopReason", "Bracket", "ResumedFrom"})
        t.columns.push_back(c);
    for (const auto& r : rows) {
        std::vector<Cell> row;
        for (const auto& n : names) {
            auto v = r.hyperparameters.find(n);
            if (v == r.hyperparameters.end()) {
                row.emplace_back(std::monostate{});
                continue;
            }
            char* end = nullptr;
            const double number = std::strtod(v->second.c_str(), &end);
            if (!v->second.empty() && end && *end == '\0')
                row.emplace_back(number);
            else
                row.emplace_back(v->second);
        }
        row.emplace_back(r.job);
        row.emplace_back(r.status.empty() ? r.state : r.status);
        row.emplace_back(r.objective ? Cell(*r.objective) : Cell(std::monostate{}));
        row.emplace_back(r.started > 0 ? Cell(r.started) : Cell(std::monostate{}));
        row.emplace_back(r.ended > 0 ? Cell(r.ended) : Cell(std::monostate{}));
        row.emplace_back(r.started > 0 && r.ended > 0 ? Cell(r.ended - r.started)
                                                      : Cell(std::monostate{}));
        row.emplace_back(std::string(r.stoppedEarly ? "true" : "false"));
        row.emplace_back(r.stopReason);
        row.emplace_back(r.bracket >= 0 ? Cell(static_cast<double>(r.bracket))
                                        : Cell(std::monostate{}));
        // The job whose checkpoint this one went on from (Hyperband's promotions).
        const bool resumed = r.resumedFrom >= 0 && r.resumedFrom < static_cast<int>(rows.size());
        row.emplace_back(resumed ? Cell(rows[static_cast<std::size_t>(r.resumedFrom)].job)
                                 : Cell(std::monostate{}));
        t.rows.push_back(std::move(row));
    }
    return t;
}

} // namespace studio::store

namespace studio::store {

namespace {

using ojson = nlohmann::ordered_json;

ojson timeOrNull(double t) {
    return t > 0 ? ojson(t) : ojson(nullptr);
}

std::string textOf(const ojson& v) {
    return v.is_string() ? v.get<std::string>() : v.dump();
}

// HyperParameterTuningJobConfig from the stored tuning spec.
ojson tuningConfig(const TuningJobRow& t, const ojson& tuning) {
    ojson ranges = {{"ContinuousParameterRanges", ojson::array()},
                    {"IntegerParameterRanges", ojson::array()},
                    {"CategoricalParameterRanges", ojson::array()}};
    const ojson spec = tuning.value("hyperparameter_ranges", ojson::object());
    for (const auto& [name, r] : spec.items()) {
        const std::string type = r.value("type", std::string());
        if (type == "Categorical") {
            ojson values = ojson::array();
            for (const auto& v : r.value("values", ojson::array()))
                values.push_back(textOf(v));
            ranges["CategoricalParameterRanges"].push_back({{"Name", name}, {"Values", values}});
        } else {
            ranges[type + "ParameterRanges"].push_back(
                {{"Name", name},
                 {"MinValue", textOf(r.value("min_value", ojson()))},
                 {"MaxValue", textOf(r.value("max_value", ojson()))},
                 {"ScalingType", r.value("scaling_type", std::string("Auto"))}});
        }
    }
    ojson c = {{"Strategy", t.strategy},
               {"HyperParameterTuningJobObjective",
                {{"Type", t.objectiveType}, {"MetricName", t.objectiveName}}},
               {"ResourceLimits",
                {{"MaxNumberOfTrainingJobs", t.maxJobs},
                 {"MaxParallelTrainingJobs", t.maxParallelJobs},
                 {"MaxRuntimeInSeconds", tuning.value("max_runtime_in_seconds", ojson(nullptr))}}},
               {"ParameterRanges", ranges},
               {"TrainingJobEarlyStoppingType", t.earlyStopping},
               {"RandomSeed", t.randomSeed}};
    if (tuning.contains("strategy_config"))
        c["StrategyConfig"] = tuning["strategy_config"];
    if (tuning.contains("completion_criteria"))
        c["TuningJobCompletionCriteria"] = tuning["completion_criteria"];
    return c;
}

ojson bestJob(StoreReader& reader, const TuningJobRow& t) {
    if (t.bestComponent == 0)
        return nullptr;
    for (const auto& r : reader.tuningTrainingJobs(t.id)) {
        if (r.component != t.bestComponent)
            continue;
        ojson tuned = ojson::object();
        for (const auto& [k, v] : r.hyperparameters)
            tuned[k] = v;
        return {{"TrainingJobName", r.job},
                {"TrainingJobStatus", r.status},
                {"TunedHyperParameters", tuned},
                {"FinalHyperParameterTuningJobObjectiveMetric",
                 {{"MetricName", t.objectiveName}, {"Value", *t.bestObjective}}},
                {"ObjectiveStatus", "Succeeded"},
                {"CreationTime", timeOrNull(r.created)},
                {"TrainingStartTime", timeOrNull(r.started)},
                {"TrainingEndTime", timeOrNull(r.ended)}};
    }
    return nullptr;
}

} // namespace

ojson describeTuningJob(StoreReader& reader, const TuningJobRow& t) {
    const ojson doc = ojson::parse(t.specJson, nullptr, false);
    const ojson tuning = doc.is_object() ? doc.value("tuning", ojson::object()) : ojson::object();
    const TuningCounters& c = t.counters;
    ojson out = {{"HyperParameterTuningJobName", t.name},
                 {"HyperParameterTuningJobStatus", t.status},
                 {"StatusMessage", t.statusMessage},
                 {"CreationTime", t.created},
                 {"HyperParameterTuningEndTime", timeOrNull(t.ended)},
                 {"HyperParameterTuningJobConfig", tuningConfig(t, tuning)},
                 {"TrainingJobStatusCounters",
                  {{"Completed", c.completed},
                   {"InProgress", c.inProgress},
                   {"RetryableError", 0},
                   {"NonRetryableError", c.failed},
                   {"Stopped", c.stopped + c.stoppedEarly},
                   {"StoppedEarly", c.stoppedEarly}}},
                 {"ObjectiveStatusCounters",
                  {{"Succeeded", c.objectiveSucceeded},
                   {"Pending", c.inProgress},
                   {"Failed", c.total - c.inProgress - c.objectiveSucceeded}}},
                 {"BestTrainingJob", bestJob(reader, t)}};
    if (tuning.contains("warm_start_config")) {
        const ojson& w = tuning["warm_start_config"];
        ojson parents = ojson::array();
        for (const auto& p : w.value("parents", ojson::array()))
            parents.push_back({{"HyperParameterTuningJobName", p}});
        out["WarmStartConfig"] = {{"ParentHyperParameterTuningJobs", parents},
                                  {"WarmStartType", w.value("type", std::string())}};
    }
    return out;
}

} // namespace studio::store
