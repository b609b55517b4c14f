// The tuning spec parser: the "tuning" section against SageMaker's HyperparameterTuner rules and
// limits, and the "training" section through the job spec parser.
#include "engine/tune/tuning_parser.h"

#include "engine/spec/spec_json.h"
#include "engine/spec/spec_reader.h"
#include "engine/spec/suggest.h"
#include "engine/train/builtin_models.h"
#include "engine/tune/search.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace studio::tune {

using spec::childPath;
using spec::indexPath;
using spec::json;
using spec::SpecReader;

namespace {

const std::vector<std::string> kTopKeys = {"tuning", "training"};
const std::vector<std::string> kTuningKeys = {"name",
                                              "objective_metric_name",
                                              "objective_type",
                                              "hyperparameter_ranges",
                                              "strategy",
                                              "max_jobs",
                                              "max_parallel_jobs",
                                              "early_stopping_type",
                                              "strategy_config",
                                              "warm_start_config",
                                              "random_seed",
                                              "completion_criteria",
                                              "hyperparameters_to_keep_static",
                                              "max_runtime_in_seconds"};
const std::vector<std::string> kRangeKeys = {"type", "min_value", "max_value", "values",
                                             "scaling_type"};
// The hyperparameters SageMaker takes Hyperband's resource from, in its order.
const std::vector<std::string> kEpochNames = {"epochs", "numepochs", "n-epochs", "n_epochs",
                                              "num_epochs"};
// What the built-in trainer reports.
const std::vector<std::string> kBuiltinMetrics = {"eval:accuracy", "eval:loss", "train:loss",
                                                  "train:throughput"};

bool tuningName(const std::string& s) {
    if (s.empty() || s.size() > 32 || s.front() == '-' || s.back() == '-')
        return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '-';
    });
}

// The text of a categorical value: SageMaker's values are strings; numbers and booleans are
// accepted and passed as their JSON text.
std::optional<std::string> valueString(const json& v) {
    if (v.is_string())
        return v.get<std::string>();
    if (v.is_boolean())
        return std::string(v.get<bool>() ? "true" : "false");
    if (v.is_number())
        return v.dump();
    return std::nullopt;
}

std::string numberText(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

void parseBounds(SpecReader& r, const json& o, const std::string& p, ParameterRange& range) {
    const auto lo = r.number(o, "min_value", p, -1e300, 1e300, true);
    const auto hi = r.number(o, "max_value", p, -1e300, 1e300, true);
    if (!o.contains("min_value"))
        r.error(childPath(p, "min_value"),
                "required for a " + std::string(parameterTypeName(range.type)) + " range");
    if (!o.contains("max_value"))
        r.error(childPath(p, "max_value"),
                "required for a " + std::string(parameterTypeName(range.type)) + " range");
    if (!lo || !hi)
        return;
    range.minValue = *lo;
    range.maxValue = *hi;
    if (range.type == ParameterType::Integer && (std::floor(*lo) != *lo || std::floor(*hi) != *hi))
        r.error(p, "an Integer range takes whole min_value and max_value");
    if (!(*lo < *hi))
        r.error(childPath(p, "max_value"),
                "must be greater than min_value (" + numberText(*lo) + "), got " + numberText(*hi));
    if (range.scaling == Scaling::Logarithmic && *lo <= 0)
        r.error(childPath(p, "scaling_type"),
                "Logarithmic scaling needs min_value > 0, got " + numberText(*lo));
    if (range.scaling == Scaling::ReverseLogarithmic && (*lo < 0 || *hi >= 1))
        r.error(childPath(p, "scaling_type"),
                "ReverseLogarithmic scaling needs 0 <= min_value and max_value < 1");
}

void parseCategorical(SpecReader& r, const json& o, const std::string& p, ParameterRange& range) {
    const std::string vp = childPath(p, "values");
    auto it = o.find("values");
    if (it == o.end()) {
        r.error(vp, "required for a Categorical range");
        return;
    }
    if (!it->is_array() || it->empty() || it->size() > kMaxCategoricalValues) {
        r.mustBe(vp, "a list of 1 to " + std::to_string(kMaxCategoricalValues) + " values", *it);
        return;
    }
    std::set<std::string> seen;
    for (std::size_t i = 0; i < it->size(); ++i) {
        auto text = valueString((*it)[i]);
        if (!text) {
            r.mustBe(indexPath(vp, i), "a string, number or boolean", (*it)[i]);
            continue;
        }
        if (!seen.insert(*text).second)
            r.error(indexPath(vp, i), "\"" + *text + "\" is listed twice");
        range.values.push_back(*text);
    }
    if (o.contains("scaling_type"))
        r.error(childPath(p, "scaling_type"), "Categorical ranges have no scaling");
    if (o.contains("min_value") || o.contains("max_value"))
        r.error(p, "a Categorical range takes values, not min_value/max_value");
}

std::optional<ParameterRange> parseRange(SpecReader& r, const std::string& name, const json& o,
                                         const std::string& p) {
    if (!r.isObject(o, p))
        return std::nullopt;
    r.checkKeys(o, p, kRangeKeys);
    ParameterRange range;
    range.name = name;
    const auto type = r.oneOf(o, "type", p, {"Continuous", "Integer", "Categorical"});
    if (!type) {
        if (!o.contains("type"))
            r.error(childPath(p, "type"), "required: Continuous, Integer or Categorical");
        return std::nullopt;
    }
    range.type = *type == "Continuous" ? ParameterType::Continuous
                 : *type == "Integer"  ? ParameterType::Integer
                                       : ParameterType::Categorical;
    if (range.type == ParameterType::Categorical) {
        parseCategorical(r, o, p, range);
        return range;
    }
    if (auto s = r.oneOf(o, "scaling_type", p,
                         {"Auto", "Linear", "Logarithmic", "ReverseLogarithmic"})) {
        range.scaling = *s == "Linear"        ? Scaling::Linear
                        : *s == "Logarithmic" ? Scaling::Logarithmic
                        : *s == "Auto"        ? Scaling::Auto
                                              : Scaling::ReverseLogarithmic;
        if (range.scaling == Scaling::ReverseLogarithmic && range.type == ParameterType::Integer)
            r.error(childPath(p, "scaling_type"),
                    "ReverseLogarithmic is for Continuous ranges only");
    }
    parseBounds(r, o, p, range);
    return range;
}

// The names a training spec's hyperparameters may take.
std::vector<std::string> knownNames(const spec::JobSpec& training) {
    if (training.isBuiltin())
        return train::builtinHyperparameterNames(training.entryPoint.builtinModel);
    return {};
}

// A builtin job's range must lie inside what the trainer accepts.
void checkAgainstTrainer(SpecReader& r, const spec::JobSpec& training, const ParameterRange& range,
                         const std::string& p) {
    if (!training.isBuiltin())
        return;
    const auto names = knownNames(training);
    if (std::find(names.begin(), names.end(), range.name) == names.end()) {
        r.error(p, "the built-in model " + training.entryPoint.builtinModel +
                       " has no hyperparameter \"" + range.name + "\"" +
                       spec::didYouMean(range.name, names));
        return;
    }
    const train::HyperparameterInfo* info = train::findBuiltinHyperparameter(range.name);
    if (!info)
        return;
    std::vector<std::pair<std::string, std::string>> probes;
    if (range.type == ParameterType::Categorical) {
        for (std::size_t i = 0; i < range.values.size(); ++i)
            probes.emplace_back(indexPath(childPath(p, "values"), i), range.values[i]);
    } else {
        probes.emplace_back(childPath(p, "min_value"), valueText(range, range.minValue));
        probes.emplace_back(childPath(p, "max_value"), valueText(range, range.maxValue));
    }
    for (const auto& [where, text] : probes) {
        const std::string problem = train::checkBuiltinValue(*info, text);
        if (!problem.empty())
            r.error(where, problem);
    }
}

void parseRanges(SpecReader& r, const json& t, TuningSpec& s, bool known) {
    const std::string p = "tuning.hyperparameter_ranges";
    auto it = t.find("hyperparameter_ranges");
    if (it == t.end()) {
        r.error(p, "required: the hyperparameters to tune, e.g. {\"lr\": {\"type\": "
                   "\"Continuous\", \"min_value\": 0.001, \"max_value\": 0.1}}");
        return;
    }
    if (!r.isObject(*it, p))
        return;
    if (it->empty())
        r.error(p, "needs at least one hyperparameter");
    int count = 0;
    for (auto h = it->begin(); h != it->end(); ++h) {
        const std::string hp = childPath(p, h.key());
        if (h.key().empty() || h.key().find_first_of(" \t=") != std::string::npos) {
            r.error(hp, "hyperparameter names must be non-empty, without spaces or '='");
            continue;
        }
        if (auto range = parseRange(r, h.key(), *h, hp)) {
            count += range->type == ParameterType::Categorical
                         ? static_cast<int>(range->values.size())
                         : 1;
            if (known)
                checkAgainstTrainer(r, s.training, *range, hp);
            s.ranges.push_back(std::move(*range));
        }
    }
    if (count > kMaxHyperparameters)
        r.error(p, "at most " + std::to_string(kMaxHyperparameters) +
                       " hyperparameters can be tuned, each categorical value counting as one; "
                       "got " +
                       std::to_string(count));
}

// known: the training section parsed, so what it reports and accepts can be checked.
void parseObjective(SpecReader& r, const json& t, TuningSpec& s, bool known) {
    const std::string p = "tuning";
    if (auto o = r.string(t, "objective_metric_name", p)) {
        s.objectiveMetricName = *o;
        if (!known) {
            if (auto ty = r.oneOf(t, "objective_type", p, {"Maximize", "Minimize"}))
                s.maximize = *ty == "Maximize";
            return;
        }
        std::vector<std::string> emitted;
        if (s.training.isBuiltin())
            emitted = kBuiltinMetrics;
        for (const auto& m : s.training.metricDefinitions)
            emitted.push_back(m.name);
        if (std::find(emitted.begin(), emitted.end(), *o) == emitted.end())
            r.error("tuning.objective_metric_name",
                    "the training job reports no metric \"" + *o + "\"" +
                        spec::didYouMean(*o, emitted) +
                        (emitted.empty() ? " (it reports none: add training.metric_definitions)"
                                         : " (it reports " + spec::quoteList(emitted) + ")"));
    } else if (!t.contains("objective_metric_name")) {
        r.error("tuning.objective_metric_name", "required: the metric to optimise, e.g. "
                                                "\"eval:accuracy\"");
    }
    if (auto o = r.oneOf(t, "objective_type", p, {"Maximize", "Minimize"}))
        s.maximize = *o == "Maximize";
}

// The training hyperparameter Hyperband spends: SageMaker's epoch names, else max-steps.
std::string hyperbandResource(const spec::JobSpec& training) {
    for (const auto& n : kEpochNames)
        if (training.hyperparameters.count(n))
            return n;
    if (training.isBuiltin())
        return "epochs";
    if (training.hyperparameters.count("max-steps"))
        return "max-steps";
    return {};
}

void parseHyperband(SpecReader& r, const json& t, TuningSpec& s) {
    const std::string p = "tuning.strategy_config";
    auto it = t.find("strategy_config");
    if (it != t.end() && r.isObject(*it, p)) {
        r.checkKeys(*it, p, {"hyperband"});
        if (s.strategy != SearchStrategy::Hyperband)
            r.error(p, "strategy_config is for the Hyperband strategy");
    }
    if (s.strategy != SearchStrategy::Hyperband)
        return;
    HyperbandConfig& h = s.hyperband;
    h.resource = hyperbandResource(s.training);
    if (h.resource.empty()) {
        r.error(p, "Hyperband needs the training's epochs (a hyperparameter named epochs, "
                   "num_epochs, n_epochs, n-epochs, numepochs or max-steps)");
        return;
    }
    const std::string hp = childPath(p, "hyperband");
    json hb = json::object();
    if (it != t.end() && it->is_object() && it->contains("hyperband") &&
        r.isObject((*it)["hyperband"], hp)) {
        hb = (*it)["hyperband"];
        r.checkKeys(hb, hp, {"min_resource", "max_resource"});
    }
    h.minResource = r.integer(hb, "min_resource", hp, 1, kMaxHyperbandResource, true).value_or(1);
    if (auto m = r.integer(hb, "max_resource", hp, 1, kMaxHyperbandResource, true)) {
        h.maxResource = *m;
    } else if (!hb.contains("max_resource")) {
        const auto v = s.training.hyperparameters.find(h.resource);
        double inferred = 0;
        if (v != s.training.hyperparameters.end() && v->second.number)
            inferred = *v->second.number;
        else if (s.training.isBuiltin() && h.resource == "epochs")
            inferred = 1;
        if (inferred < 1 || inferred > kMaxHyperbandResource || std::floor(inferred) != inferred)
            r.error(childPath(hp, "max_resource"), "required: training." +
                                                       childPath("hyperparameters", h.resource) +
                                                       " does not give a whole number of 1 to " +
                                                       std::to_string(kMaxHyperbandResource));
        h.maxResource = static_cast<std::int64_t>(inferred);
    }
    if (h.maxResource > 0 && h.minResource >= h.maxResource)
        r.error(childPath(hp, "min_resource"),
                "must be less than max_resource (" + std::to_string(h.maxResource) + ")");
    for (const auto& range : s.ranges)
        if (range.name == h.resource)
            r.error(childPath("tuning.hyperparameter_ranges", range.name),
                    "Hyperband sets " + h.resource + " itself; it cannot be tuned");
}

void parseBudget(SpecReader& r, const json& t, TuningSpec& s) {
    const std::string p = "tuning";
    if (auto st = r.oneOf(t, "strategy", p, {"Bayesian", "Random", "Grid", "Hyperband"}))
        s.strategy = *st == "Bayesian" ? SearchStrategy::Bayesian
                     : *st == "Random" ? SearchStrategy::Random
                     : *st == "Grid"   ? SearchStrategy::Grid
                                       : SearchStrategy::Hyperband;
    const auto maxJobs = r.integer(t, "max_jobs", p, 1, kMaxTrainingJobs, true);
    if (s.strategy == SearchStrategy::Grid) {
        if (maxJobs)
            r.error("tuning.max_jobs", "a Grid search runs every combination of its values; "
                                       "leave max_jobs out");
        for (const auto& range : s.ranges)
            if (range.type == ParameterType::Continuous)
                r.error(childPath("tuning.hyperparameter_ranges", range.name),
                        "a Grid search takes Categorical and Integer ranges, not Continuous");
        const std::int64_t size = gridSize(s.ranges);
        if (size > kMaxTrainingJobs)
            r.error("tuning.hyperparameter_ranges",
                    "the grid has " + std::to_string(size) + " combinations; at most " +
                        std::to_string(kMaxTrainingJobs) + " training jobs can run");
        s.maxJobs = static_cast<int>(std::clamp<std::int64_t>(size, 1, kMaxTrainingJobs));
    } else {
        s.maxJobs = static_cast<int>(maxJobs.value_or(1));
    }
    s.maxParallelJobs = static_cast<int>(
        r.integer(t, "max_parallel_jobs", p, 1, kMaxParallelJobs, true).value_or(1));
    if (auto e = r.oneOf(t, "early_stopping_type", p, {"Off", "Auto"})) {
        s.earlyStoppingAuto = *e == "Auto";
        if (s.earlyStoppingAuto && s.strategy == SearchStrategy::Hyperband)
            r.error("tuning.early_stopping_type",
                    "Hyperband stops jobs early itself; early_stopping_type must be Off");
        if (s.earlyStoppingAuto && s.strategy == SearchStrategy::Grid)
            r.error("tuning.early_stopping_type", "a Grid search runs every combination to the "
                                                  "end; early_stopping_type must be Off");
    }
    if (auto seed = r.integer(t, "random_seed", p, 0, INT64_MAX, true)) {
        s.randomSeed = static_cast<std::uint64_t>(*seed);
        s.randomSeedGiven = true;
    }
    s.maxRuntimeSeconds =
        r.integer(t, "max_runtime_in_seconds", p, 1, 30LL * 86400, true).value_or(0);
    if (auto n = r.string(t, "name", p)) {
        if (!tuningName(*n))
            r.error("tuning.name", "up to 32 letters, digits and hyphens, starting and ending with "
                                   "a letter or digit (a timestamp is appended), got \"" +
                                       *n + "\"");
        s.name = *n;
    } else {
        s.name = s.training.name.substr(0, 25) + "-tuning";
    }
}

void parseCompletion(SpecReader& r, const json& t, TuningSpec& s) {
    const std::string p = "tuning.completion_criteria";
    auto it = t.find("completion_criteria");
    if (it == t.end() || !r.isObject(*it, p))
        return;
    r.checkKeys(*it, p,
                {"target_objective_metric_value", "max_number_training_jobs_not_improving",
                 "complete_on_convergence"});
    s.completion.targetObjectiveMetricValue =
        r.number(*it, "target_objective_metric_value", p, -1e300, 1e300, true);
    s.completion.maxNumberOfTrainingJobsNotImproving = static_cast<int>(
        r.integer(*it, "max_number_training_jobs_not_improving", p, 3, kMaxTrainingJobs, true)
            .value_or(0));
    const std::string cp = childPath(p, "complete_on_convergence");
    if (auto c = it->find("complete_on_convergence"); c != it->end()) {
        if (c->is_boolean())
            s.completion.completeOnConvergence = c->get<bool>();
        else if (c->is_string() && (*c == "Enabled" || *c == "Disabled"))
            s.completion.completeOnConvergence = *c == "Enabled";
        else
            r.mustBe(cp, "true, false, \"Enabled\" or \"Disabled\"", *c);
    }
}

void parseWarmStart(SpecReader& r, const json& t, TuningSpec& s) {
    const std::string p = "tuning.warm_start_config";
    auto it = t.find("warm_start_config");
    if (it == t.end() || !r.isObject(*it, p))
        return;
    r.checkKeys(*it, p, {"parents", "type"});
    WarmStartConfig w;
    const std::string pp = childPath(p, "parents");
    auto parents = it->find("parents");
    if (parents == it->end() || !parents->is_array() || parents->empty() ||
        parents->size() > kMaxWarmStartParents) {
        r.error(pp, "a list of 1 to " + std::to_string(kMaxWarmStartParents) + " tuning job names" +
                        (parents == it->end() ? std::string(" is required")
                                              : ", got " + spec::describeValue(*parents)));
    } else {
        std::set<std::string> seen;
        for (std::size_t i = 0; i < parents->size(); ++i) {
            const auto& v = (*parents)[i];
            if (!v.is_string() || v.get<std::string>().empty()) {
                r.mustBe(indexPath(pp, i), "a tuning job's name", v);
                continue;
            }
            if (!seen.insert(v.get<std::string>()).second)
                r.error(indexPath(pp, i), "\"" + v.get<std::string>() + "\" is listed twice");
            w.parents.push_back(v.get<std::string>());
        }
    }
    if (auto type = r.oneOf(*it, "type", p, {"IdenticalDataAndAlgorithm", "TransferLearning"}))
        w.type = *type == "TransferLearning" ? WarmStartType::TransferLearning
                                             : WarmStartType::IdenticalDataAndAlgorithm;
    else if (!it->contains("type"))
        r.error(childPath(p, "type"), "required: IdenticalDataAndAlgorithm or TransferLearning");
    s.warmStart = std::move(w);
}

void parseStatics(SpecReader& r, const json& t, TuningSpec& s, bool known) {
    const std::string p = "tuning.hyperparameters_to_keep_static";
    auto it = t.find("hyperparameters_to_keep_static");
    if (it == t.end())
        return;
    if (!it->is_array()) {
        r.mustBe(p, "a list of hyperparameter names", *it);
        return;
    }
    for (std::size_t i = 0; i < it->size(); ++i) {
        const auto& v = (*it)[i];
        if (!v.is_string()) {
            r.mustBe(indexPath(p, i), "a hyperparameter name", v);
            continue;
        }
        const std::string name = v.get<std::string>();
        if (known && !s.training.hyperparameters.count(name))
            r.error(indexPath(p, i), "training.hyperparameters has no \"" + name + "\"");
        for (const auto& range : s.ranges)
            if (range.name == name)
                r.error(indexPath(p, i), "\"" + name + "\" is tuned; it cannot also be static");
        s.staticHyperparameters.push_back(name);
    }
}

// The training section through the job spec parser, its errors under "training." (in r, which
// the caller reports after the tuning section's).
bool parseTraining(SpecReader& r, const json& doc, const std::string& baseDir,
                   const spec::ParseOptions& opt, TuningSpec& s) {
    auto it = doc.find("training");
    if (it == doc.end()) {
        r.error("training", "required: the training job to tune (a job spec)");
        return false;
    }
    spec::ParseResult training = spec::parseSpecJson(*it, baseDir, opt);
    for (auto& e : training.errors)
        r.error(e.path.empty() ? "training" : "training." + e.path, e.message);
    if (!training.ok())
        return false;
    s.training = std::move(*training.spec);
    return true;
}

} // namespace

bool isTuningDocument(std::string_view text) {
    const json doc = json::parse(text.begin(), text.end(), nullptr, false);
    return doc.is_object() && doc.contains("tuning") && doc["tuning"].is_object();
}

TuningParseResult parseTuningJson(json doc, const std::string& baseDir,
                                  const spec::ParseOptions& opt) {
    TuningParseResult result;
    SpecReader r;
    if (!doc.is_object()) {
        r.mustBe("", "a JSON object with \"tuning\" and \"training\"", doc);
        result.errors = std::move(r.errors);
        return result;
    }
    r.checkKeys(doc, "", kTopKeys);
    TuningSpec s;
    s.baseDir =
        std::filesystem::absolute(baseDir.empty() ? "." : baseDir).lexically_normal().string();
    s.effectiveJson = doc.dump(2);
    SpecReader trainingErrors;
    const bool known = parseTraining(trainingErrors, doc, s.baseDir, opt, s);
    auto t = doc.find("tuning");
    if (t == doc.end()) {
        r.error("tuning", "required: the tuning job (objective_metric_name, "
                          "hyperparameter_ranges, strategy, max_jobs, ...)");
    } else if (r.isObject(*t, "tuning")) {
        r.checkKeys(*t, "tuning", kTuningKeys);
        parseObjective(r, *t, s, known);
        parseRanges(r, *t, s, known);
        parseStatics(r, *t, s, known);
        parseBudget(r, *t, s);
        if (known)
            parseHyperband(r, *t, s);
        parseCompletion(r, *t, s);
        parseWarmStart(r, *t, s);
    }
    result.errors = std::move(r.errors);
    for (auto& e : trainingErrors.errors)
        result.errors.push_back(std::move(e));
    if (result.errors.empty())
        result.spec = std::move(s);
    return result;
}

TuningParseResult parseTuningSpecText(std::string_view text, const std::string& baseDir,
                                      const std::vector<std::string>& overrides,
                                      const spec::ParseOptions& opt) {
    TuningParseResult result;
    if (spec::jsonNesting(text) > spec::kMaxSpecNesting) {
        result.errors.push_back({"", "the spec nests deeper than " +
                                         std::to_string(spec::kMaxSpecNesting) + " levels"});
        return result;
    }
    json doc = json::parse(text.begin(), text.end(), nullptr, false);
    if (doc.is_discarded()) {
        // The job spec parser's message says where the JSON breaks.
        result.errors = spec::parseSpecText(text, baseDir, {}, opt).errors;
        return result;
    }
    try {
        for (const auto& o : overrides)
            spec::applyOverride(doc, o);
    } catch (const spec::SpecException& e) {
        result.errors = e.errors();
        return result;
    }
    return parseTuningJson(std::move(doc), baseDir, opt);
}

TuningParseResult parseTuningSpecFile(const std::string& path,
                                      const std::vector<std::string>& overrides,
                                      const spec::ParseOptions& opt) {
    std::ifstream in(path);
    if (!in) {
        TuningParseResult r;
        r.errors.push_back({"", "cannot read tuning spec file " + path});
        return r;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    TuningParseResult r = parseTuningSpecText(
        ss.str(), std::filesystem::absolute(path).parent_path().string(), overrides, opt);
    for (auto& e : r.errors)
        if (e.path.empty())
            e.message = path + ": " + e.message;
    return r;
}

} // namespace studio::tune
