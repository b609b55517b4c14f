#include "engine/debugger/hook_config_json.h"

#include <nlohmann/json.hpp>

namespace studio::debugger {

namespace {

using nlohmann::json;

json collectionJson(const CollectionPlan& c) {
    return {{"name", c.name},
            {"include_regex", c.includeRegex},
            {"save_interval", c.saveInterval},
            {"save_steps", c.saveSteps},
            {"start_step", c.startStep},
            {"end_step", c.endStep},
            {"reductions", c.reductions},
            {"default_reductions", c.defaultReductions},
            {"save_raw_tensor", c.saveRawTensor},
            {"every_eval", c.everyEval}};
}

json profilerJson(const spec::ProfilerConfig& p) {
    return {{"enabled", !p.disabled},
            {"framework", p.frameworkProfiling},
            {"start_step", p.startStep},
            {"num_steps", p.numSteps},
            {"start_unix_time", p.startUnixTime},
            {"duration_seconds", p.durationSeconds}};
}

bool wantsHook(const spec::JobSpec& spec) {
    if (spec.isBuiltin() || !spec.debugger.enabled)
        return false;
    return spec.debugger.given || !spec.rules.empty() || !spec.customRules.empty() ||
           (!spec.profiler.disabled && spec.profiler.frameworkProfiling);
}

} // namespace

std::string scriptHookConfigJson(const spec::JobSpec& spec, const std::string& localPath) {
    if (!wantsHook(spec))
        return {};
    const HookPlan plan = planHook(spec);
    json collections = json::array();
    for (const auto& c : plan.collections)
        collections.push_back(collectionJson(c));
    auto autoAttach = spec.debugger.hookParameters.find("auto_attach");
    const json out = {{"enabled", plan.enabled},
                      {"all_workers", plan.allWorkers},
                      {"local_path", localPath},
                      {"collections", std::move(collections)},
                      {"relu_inactivity_percent", plan.reluInactivityPercent},
                      {"saturation_inactivity_percent", plan.saturationInactivityPercent},
                      {"tanh_range", {plan.tanhRange.first, plan.tanhRange.second}},
                      {"sigmoid_range", {plan.sigmoidRange.first, plan.sigmoidRange.second}},
                      {"input_channel_axis", plan.inputChannelAxis},
                      {"profiler", profilerJson(spec.profiler)},
                      {"auto_attach", autoAttach == spec.debugger.hookParameters.end() ||
                                          autoAttach->second != "false"}};
    return out.dump();
}

} // namespace studio::debugger
