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

namespace {

// Rules that name their collections go first, so that the rules reading every saved collection
// see those too.
std::vector<const spec::RuleConfig*> rulesInPlanOrder(const std::vector<spec::RuleConfig>& rules) {
    auto readsEverything = [](const std::string& n) {
        return n == "ExplodingTensor" || n == "AllZero" || n == "UnchangedTensor" ||
               n == "TensorVariance";
    };
    std::vector<const spec::RuleConfig*> ordered;
    for (const auto& rc : rules)
        if (!readsEverything(rc.name))
            ordered.push_back(&rc);
    for (const auto& rc : rules)
        if (readsEverything(rc.name))
            ordered.push_back(&rc);
    return ordered;
}

// Builds a hook plan: the spec's collections over hook_parameters' defaults, then what each
// model rule reads, added to those collections or to new ones.
class HookPlanner {
public:
    explicit HookPlanner(const spec::DebuggerHookConfig& hook)
        : m_hook(hook) {
        m_plan.enabled = true;
        m_defaultInterval =
            static_cast<int>(hookParameter("save_interval").value_or(kRuleSaveInterval));
        if (auto it = hook.hookParameters.find("save_steps"); it != hook.hookParameters.end()) {
            std::size_t pos = 0;
            const std::string& s = it->second;
            while (pos < s.size()) {
                std::size_t comma = s.find(',', pos);
                m_defaultSteps.push_back(std::stoll(s.substr(pos, comma - pos)));
                pos = comma == std::string::npos ? s.size() : comma + 1;
            }
        }
        if (auto it = hook.hookParameters.find("include_workers"); it != hook.hookParameters.end())
            m_plan.allWorkers = it->second == "all";
    }

    // The spec's collections, then those custom rules ask for (collections_to_save, merged
    // as SageMaker merges them into the hook's; the spec's settings win), then the defaults.
    void addSpecCollections(const std::vector<spec::CustomRuleConfig>& customRules) {
        for (const auto& cc : m_hook.collections)
            addCollection(cc);
        for (const auto& rc : customRules)
            for (const auto& cc : rc.collectionsToSave) {
                if (!m_plan.find(cc.name))
                    addCollection(cc);
                // smdebug rules read reductions with abs=True too (SageMaker computes them from
                // the raw tensors it saves): a collection left to the defaults gets abs_ forms.
                for (CollectionPlan& c : m_plan.collections)
                    if (c.name == cc.name && c.defaultReductions)
                        for (const char* r : {"abs_min", "abs_max", "abs_mean", "abs_l2_norm"})
                            addUnique(c.reductions, r);
            }
        // Losses and metrics are saved by default, as SageMaker's PyTorch hook does.
        for (const char* name : {"losses", "metrics"})
            if (!m_plan.find(name))
                m_plan.collections.push_back(withDefaults(name, builtinCollectionRegex(name)));
    }

    void addCollection(const spec::CollectionConfig& cc) {
        CollectionPlan c = withDefaults(cc.name, builtinCollectionRegex(cc.name));
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
        m_plan.collections.push_back(std::move(c));
    }

    void addRule(const spec::RuleConfig& rc) {
        const RuleInfo* info = findRule(rc.name);
        if (!info || info->kind != RuleKind::Model)
            return;
        const RuleParams p(*info, rc.parameters);
        try {
            if (!addTrainingRule(rc.name, p) && !addActivationRule(rc.name, p))
                addTensorRule(rc.name, p);
        } catch (const RuleConfigError& e) {
            throw std::invalid_argument(std::string("rules: ") + e.what());
        } catch (const std::regex_error& e) {
            throw std::invalid_argument("rules: " + rc.name +
                                        ": invalid regular expression: " + e.what());
        }
    }

    HookPlan take() { return std::move(m_plan); }

private:
    // hook_parameters are the defaults of every collection (the parser checked the values).
    std::optional<std::int64_t> hookParameter(const char* key) const {
        auto it = m_hook.hookParameters.find(key);
        if (it == m_hook.hookParameters.end() || it->second.empty())
            return std::nullopt;
        return std::stoll(it->second);
    }

    CollectionPlan withDefaults(const std::string& name, const std::string& regex) const {
        CollectionPlan c;
        c.name = name;
        if (!regex.empty())
            c.includeRegex = {regex};
        c.saveInterval = m_defaultInterval;
        c.saveSteps = m_defaultSteps;
        c.startStep = hookParameter("start_step").value_or(0);
        c.endStep = hookParameter("end_step").value_or(-1);
        return c;
    }

    // The collection of that name, added with the defaults when the plan has none.
    CollectionPlan& ensure(const std::string& name, const std::string& regex) {
        for (auto& c : m_plan.collections)
            if (c.name == name)
                return c;
        m_plan.collections.push_back(withDefaults(name, regex));
        return m_plan.collections.back();
    }

    CollectionPlan& ensureBuiltin(const std::string& name) {
        return ensure(name, builtinCollectionRegex(name));
    }

    // Collections the rule reads from: created first and resolved after, as ensure() may grow
    // the vector.
    std::vector<CollectionPlan*> collectionsOf(const RuleParams& p) {
        std::vector<std::string> wanted;
        const std::vector<std::string> names = p.list("collection_names");
        const std::string regex = p.text("tensor_regex");
        if (!regex.empty())
            wanted.push_back(ensure("rule_tensors_" + p.info().name, regex).name);
        for (const auto& n : names)
            wanted.push_back(ensureBuiltin(n).name);
        if (names.empty() && regex.empty())
            for (const auto& c : m_plan.collections)
                wanted.push_back(c.name);
        std::vector<CollectionPlan*> out;
        for (auto& c : m_plan.collections)
            if (std::find(wanted.begin(), wanted.end(), c.name) != wanted.end())
                out.push_back(&c);
        return out;
    }

    // Rules on losses, gradients and weights; false for other rules.
    bool addTrainingRule(const std::string& n, const RuleParams& p) {
        if (n == "VanishingGradient") {
            addUnique(ensureBuiltin("gradients").reductions, "abs_mean");
        } else if (n == "LossNotDecreasing" || n == "Overfit" || n == "Overtraining") {
            ensureBuiltin("losses");
        } else if (n == "WeightUpdateRatio") {
            CollectionPlan& w = ensureBuiltin("weights");
            addUnique(w.reductions, "l2_norm");
            addUnique(w.reductions, reduction::kUpdateL2Norm);
        } else if (n == "PoorWeightInitialization") {
            addUnique(ensure("relu_input", p.text("activation_inputs_regex")).reductions,
                      "variance");
            CollectionPlan& g = ensureBuiltin("gradients");
            addUnique(g.reductions, reduction::kP5);
            addUnique(g.reductions, reduction::kP95);
            ensureBuiltin("losses");
        } else {
            return false;
        }
        return true;
    }

    // Rules on inputs, activations, labels and predictions; false for other rules.
    bool addActivationRule(const std::string& n, const RuleParams& p) {
        if (n == "CheckInputImages") {
            // The hook sends channel_mean_<c> for every channel plus the batch's samples.
            CollectionPlan& c = ensure("input_image", p.text("regex"));
            addUnique(c.reductions, reduction::kChannelMeanPrefix);
            m_plan.inputChannelAxis = static_cast<int>(p.integer("channel"));
        } else if (n == "DeadRelu") {
            CollectionPlan& c = ensure("relu_output", p.text("tensor_regex"));
            addUnique(c.reductions, reduction::kInactiveUnitsPercent);
            m_plan.reluInactivityPercent = p.number("threshold_inactivity");
        } else if (n == "SaturatedActivation") {
            CollectionPlan& c = ensure("saturated_activation", p.text("tensor_regex"));
            addUnique(c.reductions, reduction::kInactiveUnitsPercent);
            m_plan.saturationInactivityPercent = p.number("threshold_inactivity");
            m_plan.tanhRange = p.numberPair("threshold_tanh");
            m_plan.sigmoidRange = p.numberPair("threshold_sigmoid");
        } else if (n == "ClassImbalance") {
            // Counts accumulate over `samples` samples, so every step is counted unless the
            // spec configured the collection itself.
            for (const char* name : {"labels", "predictions"}) {
                const bool configured = m_plan.find(name) != nullptr;
                CollectionPlan& c =
                    ensure(name, name == std::string("labels") ? p.text("labels_regex")
                                                               : p.text("predictions_regex"));
                if (!configured) {
                    c.saveInterval = 1;
                    c.saveSteps.clear();
                }
            }
        } else {
            return false;
        }
        return true;
    }

    // Rules that read whole collections (the rule's own, or every saved one).
    void addTensorRule(const std::string& n, const RuleParams& p) {
        if (n == "ExplodingTensor") {
            for (CollectionPlan* c : collectionsOf(p))
                addUnique(c->reductions,
                          p.boolean("only_nan") ? reduction::kNan : reduction::kNonFinite);
        } else if (n == "AllZero") {
            for (CollectionPlan* c : collectionsOf(p))
                addUnique(c->reductions, reduction::kZeroPercent);
        } else if (n == "UnchangedTensor") {
            for (CollectionPlan* c : collectionsOf(p))
                for (const char* r : {"min", "max", "mean", "l2_norm"})
                    addUnique(c->reductions, r);
        } else if (n == "TensorVariance") {
            for (CollectionPlan* c : collectionsOf(p))
                addUnique(c->reductions, "variance");
        }
    }

    const spec::DebuggerHookConfig& m_hook;
    HookPlan m_plan;
    int m_defaultInterval = kRuleSaveInterval;
    std::vector<std::int64_t> m_defaultSteps;
};

} // namespace

HookPlan planHook(const spec::JobSpec& spec) {
    if (!spec.debugger.enabled)
        return HookPlan{};
    HookPlanner planner(spec.debugger);
    planner.addSpecCollections(spec.customRules);
    for (const spec::RuleConfig* rc : rulesInPlanOrder(spec.rules))
        planner.addRule(*rc);
    return planner.take();
}

} // namespace studio::debugger
