// The built-in Debugger model rules (SageMaker's names, parameters and defaults) and what their
// source files share: tensor selection by collection_names / tensor_regex, dropping a tensor
// saved for several collections, batching a step's tensors into one evaluation, and finding text.
// Rules over tensor reductions live in model_rules_tensors.cpp; rules over losses and stalls
// (StalledTrainingRule) in model_rules_training.cpp; PoorWeightInitialization in
// model_rules_initialization.cpp; model_rules.cpp has the shared parts, the name -> rule table
// and the rules over the data fed to the model (class counts, input images).
// Not thread-safe, like every Rule.
#pragma once

#include "engine/debugger/rule.h"

#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace studio::debugger::model_rules {

// An integer parameter with a lower bound; RuleConfigError below it.
std::int64_t integerAtLeast(const RuleParams& p, const std::string& name, std::int64_t min);

// A regex parameter compiled once; nullopt for None. Throws RuleConfigError for an invalid one.
std::optional<std::regex> regexParam(const RuleParams& p, const std::string& name);
// The same for a regex the rule cannot do without: None is a RuleConfigError too.
std::regex requiredRegexParam(const RuleParams& p, const std::string& name);

// A tensor event's reduction, nullopt when the hook did not send it.
std::optional<double> reductionOf(const wire::TensorEvent& t, std::string_view name);

// A number for messages: 4 significant digits, "nan", "inf".
std::string fmt(double v);

// Whether a tensor event is a loss: saved for the losses collection, or the trainer's "loss".
bool isLoss(const wire::TensorEvent& t);

// Whether a tensor event is a gradient: saved for gradients, or named "gradient/<param>".
bool isGradient(const wire::TensorEvent& t);

// "1 tensor", "3 tensors"
std::string plural(std::size_t n, const char* one, const char* many);

// A loss or metric's value: "value" for scalars, else "mean" (a loss saved as a tensor).
std::optional<double> scalarValue(const wire::TensorEvent& t);

// One tensor of a job: the same name from two ranks is two tensors (pipeline stages, every
// worker saving), and a tensor's train and eval values are kept apart.
struct TensorKey {
    std::string name;
    int rank = 0;
    wire::Phase phase = wire::Phase::Train;
    auto operator<=>(const TensorKey&) const = default;
};

TensorKey keyOf(const wire::Event& e, const wire::TensorEvent& t);

// collection_names and tensor_regex the way SageMaker's rules read them: a tensor is read when
// the collection it was saved for is named or its name matches; with neither, every tensor.
class TensorSelector {
public:
    explicit TensorSelector(const RuleParams& p);
    bool selects(const wire::TensorEvent& t) const;
    bool everything() const { return m_collections.empty() && !m_regex; }
    // "every saved tensor", "tensors of collections gradients, weights or matching 'fc1'"
    std::string describe() const;

private:
    std::vector<std::string> m_collections;
    std::optional<std::regex> m_regex;
    std::string m_regexText;
};

// A tensor arrives once per collection it was saved for, with the same values: only its first
// arrival at a step counts.
class FirstArrivalFilter {
public:
    // True (and remembered) unless this tensor already arrived at this step.
    bool accept(const TensorKey& key, std::int64_t step);

private:
    std::map<TensorKey, std::int64_t> m_lastStep;
};

// A tensor's reductions at one step, merged over the collections it arrived in.
struct TensorSample {
    TensorKey key;
    int node = 0;
    double time = 0;
    std::int64_t step = 0;
    std::vector<std::string> collections; // every collection it arrived for
    std::map<std::string, double, std::less<>> reductions;

    std::optional<double> get(std::string_view r) const;
    bool in(std::string_view collection) const;
};

// One tensor that met a rule's condition, with the figure that did.
struct Hit {
    const TensorSample* sample = nullptr;
    double value = 0;
};

// "fc1.fc.weight (0.01), fc2.fc.weight (0.2) and 3 more"; names only without values.
std::string listHits(const std::vector<Hit>& hits, bool withValues = true, std::size_t limit = 4);

// A finding about the tensors of one step: time of the latest, node and device of `worst`.
Finding stepFinding(std::int64_t step, const std::vector<TensorSample>& tensors,
                    const TensorSample& worst, std::string message, std::string recommendation);

// Base of the rules that judge a step's tensors together: the tensors the rule selects are
// gathered per step and evaluated once the step is complete (a later step arrives, or a tick
// passes with nothing new for it, or the job ends), so one finding covers the whole step.
class StepwiseTensorRule : public Rule {
public:
    using Rule::Rule;
    void onEvent(const wire::Event& e) override;
    void onTick(double now) override;
    void finish(double now) override;
    nlohmann::json details() const override;

protected:
    virtual bool selects(const wire::TensorEvent& t) const = 0;
    // Every (name, rank, phase) of the step once, in name order.
    virtual void evaluateStep(std::int64_t step, const std::vector<TensorSample>& tensors) = 0;
    // The rule's own figures for details().
    virtual void addDetails(nlohmann::json& j) const { (void)j; }
    // Fires unless this step already fired: a late part of a step cannot fire twice.
    void fireForStep(std::int64_t step, Finding f);
    std::int64_t stepsEvaluated() const { return m_stepsEvaluated; }
    std::int64_t tensorsSeen() const { return m_tensorsSeen; }

private:
    struct Batch {
        std::map<TensorKey, TensorSample> tensors;
        bool touched = true; // got a tensor since the last tick
    };
    void evaluate(std::int64_t step, Batch& batch);

    std::map<std::int64_t, Batch> m_pending;
    std::map<TensorKey, std::int64_t> m_evaluatedStep; // drops a late second arrival
    std::set<std::int64_t> m_firedSteps;               // the latest few
    std::int64_t m_stepsEvaluated = 0;
    std::int64_t m_tensorsSeen = 0;
    std::int64_t m_lastStep = -1;
};

// model_rules_tensors.cpp
std::unique_ptr<Rule> makeVanishingGradient(const RuleParams& p);
std::unique_ptr<Rule> makeExplodingTensor(const RuleParams& p);
std::unique_ptr<Rule> makeSaturatedActivation(const RuleParams& p);
std::unique_ptr<Rule> makeDeadRelu(const RuleParams& p);
std::unique_ptr<Rule> makeWeightUpdateRatio(const RuleParams& p);
std::unique_ptr<Rule> makeAllZero(const RuleParams& p);
std::unique_ptr<Rule> makeUnchangedTensor(const RuleParams& p);
std::unique_ptr<Rule> makeTensorVariance(const RuleParams& p);

// model_rules_training.cpp
std::unique_ptr<Rule> makePoorWeightInitialization(const RuleParams& p);
std::unique_ptr<Rule> makeLossNotDecreasing(const RuleParams& p);
std::unique_ptr<Rule> makeOverfit(const RuleParams& p);
std::unique_ptr<Rule> makeOvertraining(const RuleParams& p);
std::unique_ptr<Rule> makeStalledTrainingRule(const RuleParams& p);

// model_rules.cpp
std::unique_ptr<Rule> makeClassImbalance(const RuleParams& p);
std::unique_ptr<Rule> makeCheckInputImages(const RuleParams& p);

} // namespace studio::debugger::model_rules
