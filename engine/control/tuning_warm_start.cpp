// Warm start: the parent tuning jobs' training jobs as observations of the new search, after
// SageMaker's limits (at most 5 parents, all ended, not warm started themselves, the same
// objective, the same number of static plus tunable hyperparameters, no type changes, at most 10
// changes to static ones, at most 500 training jobs with the parents').
#include "engine/control/tuning_run.h"

#include "engine/tune/tuning_parser.h"

#include <nlohmann/json.hpp>

#include <set>
#include <stdexcept>

namespace studio::control {

namespace {

using nlohmann::json;

std::string textOf(const json& v) {
    return v.is_string() ? v.get<std::string>() : v.dump();
}

struct ParentShape {
    std::map<std::string, std::string> rangeTypes;   // tuned name -> type
    std::map<std::string, std::string> staticValues; // training hyperparameters not tuned
    json training;
    bool warmStarted = false;
};

ParentShape parentShape(const std::string& specJson) {
    ParentShape p;
    const json doc = json::parse(specJson, nullptr, false);
    if (!doc.is_object())
        return p;
    const json tuning = doc.value("tuning", json::object());
    p.warmStarted = tuning.contains("warm_start_config");
    const json ranges = tuning.value("hyperparameter_ranges", json::object());
    for (const auto& [name, r] : ranges.items())
        p.rangeTypes[name] = r.is_object() ? r.value("type", std::string()) : std::string();
    p.training = doc.value("training", json::object());
    const json hyperparameters = p.training.value("hyperparameters", json::object());
    for (const auto& [name, v] : hyperparameters.items())
        if (!p.rangeTypes.count(name))
            p.staticValues[name] = textOf(v);
    return p;
}

void checkShape(const tune::TuningSpec& spec, const ParentShape& parent, const std::string& who) {
    std::map<std::string, std::string> statics;
    for (const auto& [name, v] : spec.training.hyperparameters)
        statics[name] = v.text;
    std::set<std::string> mine, theirs;
    for (const auto& r : spec.ranges) {
        statics.erase(r.name);
        mine.insert(r.name);
        auto t = parent.rangeTypes.find(r.name);
        if (t != parent.rangeTypes.end() && t->second != tune::parameterTypeName(r.type))
            throw std::runtime_error(who + ": " + r.name + " is " + t->second + " there and " +
                                     tune::parameterTypeName(r.type) +
                                     " here; warm start allows no type changes");
    }
    for (const auto& [name, v] : statics)
        mine.insert(name);
    for (const auto& [name, t] : parent.rangeTypes)
        theirs.insert(name);
    for (const auto& [name, v] : parent.staticValues)
        theirs.insert(name);
    if (mine.size() != theirs.size())
        throw std::runtime_error(who + " has " + std::to_string(theirs.size()) +
                                 " static and tunable hyperparameters, this one " +
                                 std::to_string(mine.size()) + "; warm start needs the same count");
    int changes = 0;
    for (const auto& [name, value] : statics) {
        if (parent.rangeTypes.count(name))
            ++changes; // tunable there, static here
        else if (auto v = parent.staticValues.find(name);
                 v != parent.staticValues.end() && v->second != value)
            ++changes; // another static value
    }
    if (changes > tune::kMaxWarmStartStaticChanges)
        throw std::runtime_error(who + ": " + std::to_string(changes) +
                                 " hyperparameters became static or changed their static value; "
                                 "warm start allows at most " +
                                 std::to_string(tune::kMaxWarmStartStaticChanges));
}

// Identical data and algorithm: the same entry point and the same input channels.
void checkIdentical(const tune::TuningSpec& spec, const ParentShape& parent,
                    const std::string& who) {
    const json mine = json::parse(spec.effectiveJson, nullptr, false);
    const json training = mine.is_object() ? mine.value("training", json::object()) : json();
    for (const char* key : {"entry_point", "inputs", "source_dir"})
        if (training.value(key, json()) != parent.training.value(key, json()))
            throw std::runtime_error(who + ": training." + key +
                                     " differs; IdenticalDataAndAlgorithm needs the same data "
                                     "and algorithm (TransferLearning allows changes)");
}

} // namespace

std::vector<InheritedTrial> warmStartTrials(const tune::TuningSpec& spec,
                                            store::StoreReader& reader) {
    if (!spec.warmStart)
        return {};
    if (spec.strategy == tune::SearchStrategy::Grid)
        throw std::runtime_error("tuning.warm_start_config: a Grid search runs every combination; "
                                 "it cannot warm start");
    std::vector<InheritedTrial> out;
    std::size_t parentJobs = 0;
    for (std::size_t i = 0; i < spec.warmStart->parents.size(); ++i) {
        const std::string& name = spec.warmStart->parents[i];
        const std::string who =
            "tuning.warm_start_config.parents[" + std::to_string(i) + "] (" + name + ")";
        auto row = reader.tuningJob(name);
        if (!row)
            throw std::runtime_error(who + ": there is no such tuning job (see: mlstudio list "
                                           "tuning-jobs)");
        if (store::isLiveStatus(row->status))
            throw std::runtime_error(who + " is " + row->status + "; a parent must have ended");
        if (row->objectiveName != spec.objectiveMetricName)
            throw std::runtime_error(who + " optimised " + row->objectiveName + ", this one " +
                                     spec.objectiveMetricName +
                                     "; warm start needs the same objective metric");
        const ParentShape shape = parentShape(row->specJson);
        if (shape.warmStarted)
            throw std::runtime_error(who + " was itself warm started; warm start is not recursive");
        checkShape(spec, shape, who);
        if (spec.warmStart->type == tune::WarmStartType::IdenticalDataAndAlgorithm)
            checkIdentical(spec, shape, who);
        const auto rows = reader.tuningTrainingJobs(row->id);
        parentJobs += rows.size();
        for (const auto& r : rows) {
            if (!r.objective || (r.state != "Completed" && r.state != "Stopped"))
                continue;
            InheritedTrial t;
            t.value = *r.objective;
            for (const auto& range : spec.ranges) {
                auto v = r.hyperparameters.find(range.name);
                std::optional<double> x;
                if (v != r.hyperparameters.end())
                    x = tune::parseValue(range, v->second);
                else if (auto s = shape.staticValues.find(range.name);
                         s != shape.staticValues.end())
                    x = tune::parseValue(range, s->second);
                if (!x)
                    break; // outside this search's space: not an observation of it
                t.point.push_back(*x);
            }
            if (t.point.size() == spec.ranges.size())
                out.push_back(std::move(t));
        }
    }
    if (parentJobs + static_cast<std::size_t>(spec.maxJobs) > tune::kMaxTrainingJobs)
        throw std::runtime_error("tuning.warm_start_config: the parents' " +
                                 std::to_string(parentJobs) + " training jobs and max_jobs (" +
                                 std::to_string(spec.maxJobs) + ") exceed " +
                                 std::to_string(tune::kMaxTrainingJobs));
    return out;
}

} // namespace studio::control
