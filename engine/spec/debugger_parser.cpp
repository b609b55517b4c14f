// debugger_hook_config, profiler_config and rules, with SageMaker Debugger's names and defaults.
#include "engine/debugger/rule_catalog.h"
#include "engine/spec/spec_sections.h"
#include "engine/spec/suggest.h"

#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>

namespace studio::spec {
namespace {

const std::vector<std::string> kBuiltinCollections = {"losses",    "metrics", "weights",
                                                      "gradients", "biases",  "outputs"};

const std::vector<std::string>& allowedReductions() {
    static const std::vector<std::string> all = [] {
        std::vector<std::string> base = {"min", "max",  "mean",    "std",    "variance",
                                         "sum", "prod", "l1_norm", "l2_norm"};
        std::vector<std::string> out = base;
        for (const auto& b : base)
            out.push_back("abs_" + b);
        return out;
    }();
    return all;
}

std::vector<std::string> splitList(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ',')) {
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        if (!item.empty())
            out.push_back(item);
    }
    return out;
}

// A list written either as a JSON array of strings or as SageMaker's comma string.
std::optional<std::vector<std::string>>
stringList(SpecReader& r, const json& obj, const std::string& key, const std::string& path) {
    auto it = obj.find(key);
    if (it == obj.end())
        return std::nullopt;
    const std::string p = childPath(path, key);
    if (it->is_string())
        return splitList(it->get<std::string>());
    if (it->is_array()) {
        std::vector<std::string> out;
        for (std::size_t i = 0; i < it->size(); ++i) {
            if (!(*it)[i].is_string()) {
                r.mustBe(indexPath(p, i), "a string", (*it)[i]);
                continue;
            }
            out.push_back((*it)[i].get<std::string>());
        }
        return out;
    }
    r.mustBe(p, "a comma-separated string or an array of strings", *it);
    return std::nullopt;
}

void parseCollection(SpecReader& r, const json& c, const std::string& p,
                     std::vector<CollectionConfig>& into) {
    if (!r.isObject(c, p))
        return;
    r.checkKeys(c, p, {"name", "parameters"});
    CollectionConfig cc;
    auto name = r.string(c, "name", p);
    if (!c.contains("name"))
        r.error(childPath(p, "name"), "required");
    if (!name)
        return;
    cc.name = *name;
    for (const auto& prev : into)
        if (prev.name == cc.name)
            r.error(childPath(p, "name"), "collection \"" + cc.name + "\" is configured twice");
    const std::string pp = childPath(p, "parameters");
    json params = c.value("parameters", json::object());
    if (c.contains("parameters") && !r.isObject(c["parameters"], pp))
        params = json::object();
    r.checkKeys(params, pp,
                {"include_regex", "save_interval", "save_steps", "start_step", "end_step",
                 "reductions", "save_raw_tensor", "save_histogram"});
    if (auto inc = stringList(r, params, "include_regex", pp)) {
        cc.includeRegex = *inc;
        for (const auto& re : cc.includeRegex) {
            if (re.size() > debugger::kMaxRegexLength) {
                r.error(childPath(pp, "include_regex"),
                        "a regular expression of at most " +
                            std::to_string(debugger::kMaxRegexLength) + " characters, got " +
                            std::to_string(re.size()));
                continue;
            }
            try {
                std::regex compiled(re);
            } catch (const std::regex_error& e) {
                r.error(childPath(pp, "include_regex"),
                        "\"" + re + "\" is not a valid regular expression: " + e.what());
            }
        }
    }
    const bool builtin = std::find(kBuiltinCollections.begin(), kBuiltinCollections.end(),
                                   cc.name) != kBuiltinCollections.end();
    if (!builtin && cc.includeRegex.empty()) {
        std::string hint = didYouMean(cc.name, kBuiltinCollections);
        r.error(childPath(p, "name"),
                "\"" + cc.name + "\" is not a built-in collection (" +
                    quoteList(kBuiltinCollections) + ")" +
                    (hint.empty() ? "; a custom collection needs parameters.include_regex" : hint));
    }
    cc.saveInterval =
        static_cast<int>(r.integer(params, "save_interval", pp, 1, 1 << 30, true).value_or(0));
    if (auto steps = stringList(r, params, "save_steps", pp)) {
        for (const auto& s : *steps) {
            auto v = r.integerValue(json(s), childPath(pp, "save_steps"), 0, INT64_MAX, true);
            if (v)
                cc.saveSteps.push_back(*v);
        }
    }
    cc.startStep = r.integer(params, "start_step", pp, 0, INT64_MAX, true).value_or(0);
    cc.endStep = r.integer(params, "end_step", pp, 1, INT64_MAX, true).value_or(-1);
    if (cc.endStep >= 0 && cc.endStep <= cc.startStep)
        r.error(childPath(pp, "end_step"),
                "must be greater than start_step (" + std::to_string(cc.startStep) + ")");
    if (auto red = stringList(r, params, "reductions", pp)) {
        for (const auto& x : *red) {
            if (std::find(allowedReductions().begin(), allowedReductions().end(), x) ==
                allowedReductions().end())
                r.error(childPath(pp, "reductions"),
                        "unknown reduction \"" + x + "\"" + didYouMean(x, allowedReductions()) +
                            " (allowed: min, max, mean, std, variance, sum, prod, l1_norm, "
                            "l2_norm and their abs_ forms)");
            else
                cc.reductions.push_back(x);
        }
    }
    cc.saveRawTensor = r.boolean(params, "save_raw_tensor", pp, true).value_or(false);
    cc.saveHistogram = r.boolean(params, "save_histogram", pp, true).value_or(true);
    into.push_back(std::move(cc));
}

void parseHook(SpecReader& r, const json& root, JobSpec& spec) {
    auto it = root.find("debugger_hook_config");
    if (it == root.end())
        return;
    const std::string p = "debugger_hook_config";
    DebuggerHookConfig& hook = spec.debugger;
    hook.given = true;
    if (it->is_boolean()) {
        hook.enabled = it->get<bool>();
        return;
    }
    if (!r.isObject(*it, p))
        return;
    r.checkKeys(
        *it, p,
        {"s3_output_path", "container_local_output_path", "hook_parameters", "collection_configs"});
    r.string(*it, "s3_output_path", p);
    if (auto lp = r.string(*it, "container_local_output_path", p))
        hook.localPath = *lp;
    if (auto hp = it->find("hook_parameters"); hp != it->end()) {
        const std::string hpp = childPath(p, "hook_parameters");
        if (r.isObject(*hp, hpp)) {
            r.checkKeys(*hp, hpp,
                        {"save_interval", "save_steps", "start_step", "end_step", "include_workers",
                         "auto_attach"});
            for (const char* k : {"save_interval", "start_step", "end_step"})
                if (auto v = r.integer(*hp, k, hpp, k == std::string("save_interval") ? 1 : 0,
                                       INT64_MAX, true))
                    hook.hookParameters[k] = std::to_string(*v);
            if (auto steps = stringList(r, *hp, "save_steps", hpp)) {
                std::string joined;
                for (const auto& s : *steps) {
                    if (r.integerValue(json(s), childPath(hpp, "save_steps"), 0, INT64_MAX, true))
                        joined += (joined.empty() ? "" : ",") + s;
                }
                hook.hookParameters["save_steps"] = joined;
            }
            if (auto w = r.oneOf(*hp, "include_workers", hpp, {"one", "all"}))
                hook.hookParameters["include_workers"] = *w;
            // A script's hook attaches itself unless this is "false" (SageMaker passes strings).
            if (auto a = r.boolean(*hp, "auto_attach", hpp, true))
                hook.hookParameters["auto_attach"] = *a ? "true" : "false";
        }
    }
    if (auto cc = it->find("collection_configs"); cc != it->end()) {
        const std::string cp = childPath(p, "collection_configs");
        if (!cc->is_array()) {
            r.mustBe(cp, "an array of {\"name\", \"parameters\"} objects", *cc);
        } else {
            for (std::size_t i = 0; i < cc->size(); ++i)
                parseCollection(r, (*cc)[i], indexPath(cp, i), hook.collections);
        }
    }
}

void parseProfiler(SpecReader& r, const json& root, JobSpec& spec) {
    ProfilerConfig& prof = spec.profiler;
    prof.disabled = r.boolean(root, "disable_profiler", "").value_or(false);
    auto it = root.find("profiler_config");
    if (it == root.end() || !r.isObject(*it, "profiler_config"))
        return;
    const std::string p = "profiler_config";
    r.checkKeys(*it, p,
                {"system_monitor_interval_millis", "framework_profile_params", "disable_profiler",
                 "s3_output_path"});
    r.string(*it, "s3_output_path", p);
    if (auto d = r.boolean(*it, "disable_profiler", p))
        prof.disabled = prof.disabled || *d;
    if (auto iv = it->find("system_monitor_interval_millis"); iv != it->end()) {
        static const std::vector<std::int64_t> allowed = {100, 200, 500, 1000, 5000, 60000};
        auto v = iv->is_number_integer() ? std::optional<std::int64_t>(iv->get<std::int64_t>())
                                         : std::nullopt;
        if (!v || std::find(allowed.begin(), allowed.end(), *v) == allowed.end())
            r.mustBe(childPath(p, "system_monitor_interval_millis"),
                     "one of 100, 200, 500, 1000, 5000, 60000", *iv);
        else
            prof.systemMonitorIntervalMillis = static_cast<int>(*v);
    }
    if (auto fp = it->find("framework_profile_params"); fp != it->end()) {
        const std::string fpp = childPath(p, "framework_profile_params");
        if (r.isObject(*fp, fpp)) {
            prof.frameworkProfiling = true;
            r.checkKeys(*fp, fpp,
                        {"start_step", "num_steps", "start_unix_time", "duration", "local_path",
                         "file_max_size", "file_close_interval", "file_open_fail_threshold"});
            prof.startStep = r.integer(*fp, "start_step", fpp, 0).value_or(-1);
            prof.numSteps = r.integer(*fp, "num_steps", fpp, 1).value_or(-1);
            prof.startUnixTime = r.number(*fp, "start_unix_time", fpp, 0, 1e11).value_or(-1);
            prof.durationSeconds = r.number(*fp, "duration", fpp, 0, 1e9).value_or(-1);
            r.string(*fp, "local_path", fpp);
            r.integer(*fp, "file_max_size", fpp, 1);
            r.integer(*fp, "file_close_interval", fpp, 1);
            r.integer(*fp, "file_open_fail_threshold", fpp, 1);
            bool steps = fp->contains("start_step") || fp->contains("num_steps");
            bool time = fp->contains("start_unix_time") || fp->contains("duration");
            if (steps && time)
                r.error(fpp, "start_step/num_steps and start_unix_time/duration are mutually "
                             "exclusive; give one pair");
        }
    }
}

} // namespace

void parseDebugger(SpecReader& r, const json& root, JobSpec& spec) {
    parseHook(r, root, spec);
    parseProfiler(r, root, spec);
}

namespace {

// A parameter's value as SageMaker writes it: strings as they are, True/False, numbers as JSON.
std::optional<std::string> parameterText(SpecReader& r, const json& value, const std::string& kp) {
    if (value.is_string())
        return value.get<std::string>();
    if (value.is_boolean())
        return value.get<bool>() ? "True" : "False";
    if (value.is_number())
        return value.dump();
    r.mustBe(kp, "a string, number or boolean", value);
    return std::nullopt;
}

// The catalogue entry of the rule and parameter that key names; ProfilerReport (info null)
// takes "<Rule>_<parameter>" for any profiler rule. Null after reporting an error.
const debugger::RuleParam* findParameter(SpecReader& r, const debugger::RuleInfo* info,
                                         const std::string& key, const std::string& kp) {
    const debugger::RuleInfo* owner = info;
    std::string paramName = key;
    if (!info) {
        auto us = key.find('_');
        owner = us == std::string::npos ? nullptr : debugger::findRule(key.substr(0, us));
        if (!owner || owner->kind != debugger::RuleKind::Profiler) {
            r.error(kp, "ProfilerReport takes <ProfilerRule>_<parameter>, e.g. "
                        "CPUBottleneck_threshold");
            return nullptr;
        }
        paramName = key.substr(us + 1);
    }
    std::vector<std::string> known;
    for (const auto& rp : owner->params)
        known.push_back(rp.name);
    auto found = std::find_if(owner->params.begin(), owner->params.end(),
                              [&](const debugger::RuleParam& rp) { return rp.name == paramName; });
    if (found == owner->params.end()) {
        std::string hint = didYouMean(paramName, known);
        r.error(kp, "not a parameter of " + owner->name +
                        (hint.empty() ? "; parameters: " + quoteList(known) : hint));
        return nullptr;
    }
    return &*found;
}

void parseRuleParameters(SpecReader& r, const json& rule, const std::string& p,
                         const debugger::RuleInfo* info, RuleConfig& rc) {
    auto params = rule.find("parameters");
    if (params == rule.end())
        return;
    const std::string pp = childPath(p, "parameters");
    if (!r.isObject(*params, pp))
        return;
    for (auto kv = params->begin(); kv != params->end(); ++kv) {
        const std::string kp = childPath(pp, kv.key());
        const std::optional<std::string> text = parameterText(r, *kv, kp);
        if (!text)
            continue;
        const debugger::RuleParam* param = findParameter(r, info, kv.key(), kp);
        if (!param)
            continue;
        if (!debugger::paramValueValid(param->type, *text)) {
            r.mustBe(kp, debugger::paramTypeDescription(param->type), *kv);
            continue;
        }
        rc.parameters[kv.key()] = *text;
    }
}

void checkTensorVariance(SpecReader& r, const std::string& p, const RuleConfig& rc) {
    const auto max = rc.parameters.find("max_threshold");
    const auto min = rc.parameters.find("min_threshold");
    const std::string pp = childPath(p, "parameters");
    if (max == rc.parameters.end() && min == rc.parameters.end())
        r.error(pp, "TensorVariance needs max_threshold or min_threshold (SageMaker gives "
                    "it neither by default)");
    else if (max != rc.parameters.end() && min != rc.parameters.end() &&
             std::stod(min->second) >= std::stod(max->second))
        r.error(childPath(pp, "min_threshold"),
                "must be below max_threshold (" + max->second + ")");
}

void parseRuleActions(SpecReader& r, const json& rule, const std::string& p,
                      std::vector<std::string>& into) {
    auto actions = rule.find("actions");
    if (actions == rule.end())
        return;
    const std::string ap = childPath(p, "actions");
    if (!actions->is_array()) {
        r.mustBe(ap, "an array of \"StopTraining\" and \"Notify\"", *actions);
        return;
    }
    for (std::size_t j = 0; j < actions->size(); ++j) {
        const json& a = (*actions)[j];
        if (!a.is_string() ||
            (a.get<std::string>() != "StopTraining" && a.get<std::string>() != "Notify")) {
            std::string hint =
                a.is_string() ? didYouMean(a.get<std::string>(), {"StopTraining", "Notify"}) : "";
            r.mustBe(indexPath(ap, j), "\"StopTraining\" or \"Notify\"", a);
            if (!hint.empty())
                r.errors.back().message += hint;
            continue;
        }
        into.push_back(a.get<std::string>());
    }
}

bool isIdentifier(const std::string& s) {
    static const std::regex identifier("[A-Za-z_][A-Za-z0-9_]*");
    return std::regex_match(s, identifier);
}

// A rules entry with "source": a Python rule file passed through (SageMaker's Rule.custom).
void parseCustomRule(SpecReader& r, const json& rule, const std::string& p, JobSpec& spec,
                     const ParseOptions& opt) {
    r.checkKeys(
        rule, p,
        {"name", "source", "rule_to_invoke", "rule_parameters", "collections_to_save", "actions"});
    CustomRuleConfig rc;
    auto name = r.string(rule, "name", p);
    if (!rule.contains("name"))
        r.error(childPath(p, "name"), "required");
    if (name) {
        static const std::regex ruleName("[A-Za-z0-9][A-Za-z0-9_-]{0,62}");
        if (!std::regex_match(*name, ruleName))
            r.mustBe(childPath(p, "name"),
                     "1 to 63 letters, digits, '-' and '_', starting with a letter or digit",
                     rule["name"]);
        if (debugger::findRule(*name) || *name == "ProfilerReport")
            r.error(childPath(p, "name"), "\"" + *name +
                                              "\" is a built-in rule; a custom rule needs a "
                                              "name of its own");
        for (const auto& prev : spec.customRules)
            if (prev.name == *name)
                r.error(childPath(p, "name"), "rule \"" + *name + "\" is listed twice");
        rc.name = *name;
    }
    if (!rule.contains("source"))
        r.error(childPath(p, "source"), "required with rule_to_invoke: the rule's Python file");
    if (auto source = r.string(rule, "source", p)) {
        std::filesystem::path path(source->rfind("file://", 0) == 0 ? source->substr(7) : *source);
        if (path.is_relative())
            path = std::filesystem::path(spec.baseDir) / path;
        rc.source = path.lexically_normal().string();
        if (opt.checkFiles && !std::filesystem::is_regular_file(rc.source))
            r.error(childPath(p, "source"), "file " + rc.source + " does not exist");
    }
    if (!rule.contains("rule_to_invoke"))
        r.error(childPath(p, "rule_to_invoke"), "required with source: the rule class to run");
    if (auto invoke = r.string(rule, "rule_to_invoke", p)) {
        if (!isIdentifier(*invoke))
            r.mustBe(childPath(p, "rule_to_invoke"), "a Python class name", rule["rule_to_invoke"]);
        rc.ruleToInvoke = *invoke;
    }
    if (auto params = rule.find("rule_parameters"); params != rule.end()) {
        const std::string pp = childPath(p, "rule_parameters");
        if (r.isObject(*params, pp))
            for (auto kv = params->begin(); kv != params->end(); ++kv)
                if (auto text = parameterText(r, *kv, childPath(pp, kv.key())))
                    rc.parameters[kv.key()] = *text;
    }
    if (auto cs = rule.find("collections_to_save"); cs != rule.end()) {
        const std::string cp = childPath(p, "collections_to_save");
        if (!cs->is_array())
            r.mustBe(cp, "an array of {\"name\", \"parameters\"} objects", *cs);
        else
            for (std::size_t i = 0; i < cs->size(); ++i)
                parseCollection(r, (*cs)[i], indexPath(cp, i), rc.collectionsToSave);
    }
    parseRuleActions(r, rule, p, rc.actions);
    spec.customRules.push_back(std::move(rc));
}

} // namespace

void parseRules(SpecReader& r, const json& root, JobSpec& spec, const ParseOptions& opt) {
    auto it = root.find("rules");
    if (it == root.end())
        return;
    if (!it->is_array()) {
        r.mustBe("rules", "an array of {\"name\", \"parameters\", \"actions\"} objects", *it);
        return;
    }
    if (it->size() > 20)
        r.error("rules", "at most 20 rules per job, got " + std::to_string(it->size()));
    const std::vector<std::string> names = debugger::ruleNames();
    for (std::size_t i = 0; i < it->size(); ++i) {
        const std::string p = indexPath("rules", i);
        const json& rule = (*it)[i];
        if (!r.isObject(rule, p))
            continue;
        if (rule.contains("source") || rule.contains("rule_to_invoke")) {
            parseCustomRule(r, rule, p, spec, opt);
            continue;
        }
        r.checkKeys(rule, p, {"name", "parameters", "actions"});
        RuleConfig rc;
        auto name = r.string(rule, "name", p);
        if (!rule.contains("name"))
            r.error(childPath(p, "name"), "required");
        if (!name)
            continue;
        rc.name = *name;
        const debugger::RuleInfo* info = debugger::findRule(rc.name);
        if (!info && rc.name != "ProfilerReport") {
            r.error(childPath(p, "name"), "unknown rule \"" + rc.name + "\"" +
                                              didYouMean(rc.name, names) +
                                              "; see resources/specs/SPEC.md for the rules");
            continue;
        }
        for (const auto& prev : spec.rules)
            if (prev.name == rc.name)
                r.error(childPath(p, "name"), "rule \"" + rc.name + "\" is listed twice");
        parseRuleParameters(r, rule, p, info, rc);
        if (rc.name == "TensorVariance")
            checkTensorVariance(r, p, rc);
        parseRuleActions(r, rule, p, rc.actions);
        spec.rules.push_back(std::move(rc));
    }
}

} // namespace studio::spec
