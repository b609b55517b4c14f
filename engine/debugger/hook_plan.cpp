#include "engine/debugger/hook_plan.h"

#include "engine/debugger/rule.h"

#include <algorithm>
#include <stdexcept>

namespace studio::debugger {

namespace {

// SageMaker saves a rule's collection every 500 steps unless told otherwise.
constexpr int kRuleSaveInterval = 500;

void addUnique(std::vector<std::string>& v, const std::string& x) {
    if (std::find(v.begin(), v.end(), x) == v.end())
        v.push_back(x);
}

} // namespace

bool CollectionPlan::savesStep(std::int64_t step) const {
    if (step < startStep || (endStep >= 0 && step >= endStep))
        return false;
    if (!saveSteps.empty())
        return std::find(saveSteps.begin(), saveSteps.end(), step) != saveSteps.end();
    return saveInterval > 0 && (step - startStep) % saveInterval == 0;
}

bool CollectionPlan::matches(const std::string& tensorName) const {
    if (m_compiled.size() != includeRegex.size()) {
        m_compiled.clear();
        for (const auto& re : includeRegex)
            m_compiled.emplace_back(re);
    }
    for (const auto& re : m_compiled)
        if (std::regex_search(tensorName, re))
            return true;
    return false;
}

bool CollectionPlan::hasReduction(const std::string& r) const {
    return std::find(reductions.begin(), reductions.end(), r) != reductions.end();
}

const CollectionPlan* HookPlan::find(const std::string& name) const {
    for (const auto& c : collections)
        if (c.name == name)
            return &c;
    return nullptr;
}

std::vector<const CollectionPlan*> HookPlan::collectionsOf(const std::string& tensorName) const {
    std::vector<const CollectionPlan*> out;
    for (const auto& c : collections)
        if (c.matches(tensorName))
            out.push_back(&c);
    return out;
}

bool HookPlan::savesAnything(std::int64_t step) const {
    if (!enabled)
        return false;
    for (const auto& c : collections)
        if (c.savesStep(step))
            return true;
    return false;
}

std::string builtinCollectionRegex(const std::string& name) {
    if (name == "losses")
        return "^loss$";
    if (name == "metrics")
        return "^accuracy$";
    if (name == "weights")
        return "^(?!gradient).*weight$";
    if (name == "biases")
        return "^(?!gradient).*bias$";
    if (name == "gradients")
        return "^gradient/";
    if (name == "outputs")
        return "_output_0$";
    if (name == "inputs")
        return "_input_0$";
    if (name == "labels")
        return "^labels$";
    if (name == "predictions")
        return "^predictions$";
    return {};
}

HookPlan planHook(const spec::JobSpec& spec) {
    HookPlan plan;
    const spec::DebuggerHookConfig& hook = spec.debugger;
    plan.enabled = hook.enabled;
    if (!plan.enabled)
        return plan;

    // hook_parameters are the defaults of every collection (the parser checked the values).
    auto hp = [&](const char* key) -> std::optional<std::int64_t> {
        auto it = hook.hookParameters.find(key);
        if (it == hook.hookParameters.end() || it->second.empty())
            return std::nullopt;
        return std::stoll(it->second);
    };
    const int defaultInterval = static_cast<int>(hp("save_interval").value_or(kRuleSaveInterval));
    std::vector<std::int64_t> defaultSteps;
    if (auto it = hook.hookParameters.find("save_steps"); it != hook.hookParameters.end()) {
        std::size_t pos = 0;
        const std::string& s = it->second;
        while (pos < s.size()) {
            std::size_t comma = s.find(',', pos);
            defaultSteps.push_back(std::stoll(s.substr(pos, comma - pos)));
            pos = comma == std::string::npos ? s.size() : comma + 1;
        }
    }
    if (auto it = hook.hookParameters.find("include_workers"); it != hook.hookParameters.end())
        plan.allWorkers = it->second == "all";

    auto base = [&](const std::string& name, const std::string& regex) {
        CollectionPlan c;
        c.name = name;
        if (!regex.empty())
            c.includeRegex = {regex};
        c.saveInterval = defaultInterval;
        c.saveSteps = defaultSteps;
        c.startStep = hp("start_step").value_or(0);
        c.endStep = hp("end_step").value_or(-1);
        return c;
    };

    for (const auto& cc : hook.collections) {
        CollectionPlan c = base(cc.name, builtinCollectionRegex(cc.name));
        if (!cc.includeRegex.empty())
            c.includeRegex = cc.includeRegex;
        if (cc.saveInterval > 0)
            c.saveInterval = cc.saveInterval;
        if (!cc.saveSteps.empty())
            c.saveSteps = cc.saveSteps;
        if (cc.startStep > 0)
            c.startStep = cc.startStep;
        if (cc.endStep >= 0)
            c.endStep = cc.endStep;
        c.reductions = cc.reductions;
        c.defaultReductions = cc.reductions.empty();
        c.saveRawTensor = cc.saveRawTensor;
        plan.collections.push_back(std::move(c));
    }
    // Losses and metrics are saved by default, as SageMaker's PyTorch hook does.
    for (const char* name : {"losses", "metrics"})
        if (!plan.find(name))
            plan.collections.push_back(base(name, builtinCollectionRegex(name)));

    auto ensure = [&](const std::string& name, const std::string& regex) -> CollectionPlan& {
        for (auto& c : plan.collections)
            if (c.name == name)
                return c;
        CollectionPlan c = base(name, regex);
        c.saveInterval = hp("save_interval").value_or(kRuleSaveInterval);
        plan.collections.push_back(std::move(c));
        return plan.collections.back();
    };
    // Collections the rules read from, with the reductions they evaluate.
    // Collections are created first and resolved after: ensure() may grow the vector.
    auto allCollections = [&](const RuleParams& p) {
        std::vector<std::string> wanted;
        const std::vector<std::string> names = p.list("collection_names");
        const std::string regex = p.text("tensor_regex");
        if (!regex.empty())
            wanted.push_back(ensure("rule_tensors_" + p.info().name, regex).name);
        for (const auto& n : names)
            wanted.push_back(ensure(n, builtinCollectionRegex(n)).name);
        if (names.empty() && regex.empty())
            for (const auto& c : plan.collections)
                wanted.push_back(c.name);
        std::vector<CollectionPlan*> out;
        for (auto& c : plan.collections)
            if (std::find(wanted.begin(), wanted.end(), c.name) != wanted.end())
                out.push_back(&c);
        return out;
    };

    // Rules that name their collections go first, so that the rules reading every saved
    // collection see those too.
    auto readsEverything = [](const std::string& n) {
        return n == "ExplodingTensor" || n == "AllZero" || n == "UnchangedTensor" ||
               n == "TensorVariance";
    };
    std::vector<const spec::RuleConfig*> ordered;
    for (const auto& rc : spec.rules)
        if (!readsEverything(rc.name))
            ordered.push_back(&rc);
    for (const auto& rc : spec.rules)
        if (readsEverything(rc.name))
            ordered.push_back(&rc);

    for (const spec::RuleConfig* rc : ordered) {
        const RuleInfo* info = findRule(rc->name);
        if (!info || info->kind != RuleKind::Model)
            continue;
        RuleParams p(*info, rc->parameters);
        const std::string& n = rc->name;
        try {
            if (n == "VanishingGradient") {
                addUnique(ensure("gradients", builtinCollectionRegex("gradients")).reductions,
                          "abs_mean");
            } else if (n == "LossNotDecreasing" || n == "Overfit" || n == "Overtraining") {
                ensure("losses", builtinCollectionRegex("losses"));
            } else if (n == "WeightUpdateRatio") {
                CollectionPlan& w = ensure("weights", builtinCollectionRegex("weights"));
                addUnique(w.reductions, "l2_norm");
                addUnique(w.reductions, reduction::kUpdateL2Norm);
            } else if (n == "CheckInputImages") {
                // The hook sends channel_mean_<c> for every channel plus the batch's samples.
                CollectionPlan& c = ensure("input_image", p.text("regex"));
                addUnique(c.reductions, reduction::kChannelMeanPrefix);
                plan.inputChannelAxis = static_cast<int>(p.integer("channel"));
            } else if (n == "DeadRelu") {
                CollectionPlan& c = ensure("relu_output", p.text("tensor_regex"));
                addUnique(c.reductions, reduction::kInactiveUnitsPercent);
                plan.reluInactivityPercent = p.number("threshold_inactivity");
            } else if (n == "SaturatedActivation") {
                CollectionPlan& c = ensure("saturated_activation", p.text("tensor_regex"));
                addUnique(c.reductions, reduction::kInactiveUnitsPercent);
                plan.saturationInactivityPercent = p.number("threshold_inactivity");
                plan.tanhRange = p.numberPair("threshold_tanh");
                plan.sigmoidRange = p.numberPair("threshold_sigmoid");
            } else if (n == "PoorWeightInitialization") {
                addUnique(ensure("relu_input", p.text("activation_inputs_regex")).reductions,
                          "variance");
                CollectionPlan& g = ensure("gradients", builtinCollectionRegex("gradients"));
                addUnique(g.reductions, reduction::kP5);
                addUnique(g.reductions, reduction::kP95);
                ensure("losses", builtinCollectionRegex("losses"));
            } else if (n == "ClassImbalance") {
                // Counts accumulate over `samples` samples, so every step is counted unless the
                // spec configured the collection itself.
                for (const char* name : {"labels", "predictions"}) {
                    const bool configured = plan.find(name) != nullptr;
                    CollectionPlan& c =
                        ensure(name, name == std::string("labels") ? p.text("labels_regex")
                                                                   : p.text("predictions_regex"));
                    if (!configured) {
                        c.saveInterval = 1;
                        c.saveSteps.clear();
                    }
                }
            } else if (n == "ExplodingTensor") {
                for (CollectionPlan* c : allCollections(p))
                    addUnique(c->reductions,
                              p.boolean("only_nan") ? reduction::kNan : reduction::kNonFinite);
            } else if (n == "AllZero") {
                for (CollectionPlan* c : allCollections(p))
                    addUnique(c->reductions, reduction::kZeroPercent);
            } else if (n == "UnchangedTensor") {
                for (CollectionPlan* c : allCollections(p))
                    for (const char* r : {"min", "max", "mean", "l2_norm"})
                        addUnique(c->reductions, r);
            } else if (n == "TensorVariance") {
                for (CollectionPlan* c : allCollections(p))
                    addUnique(c->reductions, "variance");
            }
        } catch (const RuleConfigError& e) {
            throw std::invalid_argument(std::string("rules: ") + e.what());
        } catch (const std::regex_error& e) {
            throw std::invalid_argument("rules: " + n +
                                        ": invalid regular expression: " + e.what());
        }
    }
    return plan;
}

} // namespace studio::debugger
