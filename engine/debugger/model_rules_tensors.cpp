// Model rules over saved tensors' reductions, judged step by step: VanishingGradient,
// ExplodingTensor, SaturatedActivation, DeadRelu, WeightUpdateRatio, AllZero, UnchangedTensor,
// TensorVariance.
#include "engine/debugger/hook_plan.h"
#include "engine/debugger/model_rules.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

namespace studio::debugger::model_rules {

namespace {

// A rule that compares one reduction of each selected tensor with its thresholds and reports
// the step's offending tensors together, worst first.
class ReductionRule : public StepwiseTensorRule {
protected:
    ReductionRule(const RuleParams& p, std::string reduction, std::string noun)
        : StepwiseTensorRule(p.info().name, RuleKind::Model)
        , m_reduction(std::move(reduction))
        , m_noun(std::move(noun)) {}

    virtual bool bad(double v) const = 0;
    // Larger is worse; orders a step's hits.
    virtual double severity(double v) const = 0;
    // "have abs_mean below 1e-07"
    virtual std::string condition() const = 0;
    virtual std::string recommendation() const = 0;
    // What to save when no selected tensor came at all.
    virtual std::string missingTensors() const = 0;

    void evaluateStep(std::int64_t step, const std::vector<TensorSample>& tensors) override {
        std::vector<Hit> hits;
        std::size_t evaluated = 0;
        for (const auto& s : tensors) {
            const auto v = s.get(m_reduction);
            if (!v) {
                m_withoutReduction = true;
                continue;
            }
            ++evaluated;
            m_lowest = std::min(m_lowest, *v);
            m_highest = std::max(m_highest, *v);
            if (bad(*v))
                hits.push_back({&s, *v});
        }
        countDatapoints(static_cast<std::int64_t>(evaluated));
        if (hits.empty())
            return;
        std::stable_sort(hits.begin(), hits.end(), [this](const Hit& a, const Hit& b) {
            return severity(a.value) > severity(b.value);
        });
        m_flagged += static_cast<std::int64_t>(hits.size());
        std::string message = std::to_string(hits.size()) + " of " +
                              plural(evaluated, m_noun.c_str(), m_noun.c_str()) + " " +
                              condition() + " at step " + std::to_string(step) + ": " +
                              listHits(hits);
        fireForStep(step, stepFinding(step, tensors, *hits.front().sample, std::move(message),
                                      recommendation()));
    }

    void addDetails(nlohmann::json& j) const override {
        j["reduction"] = m_reduction;
        j["tensors_flagged"] = m_flagged;
        if (m_lowest <= m_highest) {
            j["lowest"] = m_lowest;
            j["highest"] = m_highest;
        }
    }

    std::string noDataReason() const override {
        if (m_withoutReduction)
            return "tensors the rule reads were saved, but without the \"" + m_reduction +
                   "\" reduction: add it to the collection's reductions in "
                   "debugger_hook_config.collection_configs (the built-in trainer's hook adds it "
                   "when the rule is listed)";
        return missingTensors();
    }

private:
    std::string m_reduction;
    std::string m_noun;
    bool m_withoutReduction = false;
    std::int64_t m_flagged = 0;
    double m_lowest = std::numeric_limits<double>::infinity();
    double m_highest = -std::numeric_limits<double>::infinity();
};

class VanishingGradient final : public ReductionRule {
public:
    explicit VanishingGradient(const RuleParams& p)
        : ReductionRule(p, "abs_mean", "gradients")
        , m_threshold(p.number("threshold")) {}

    std::string criteria() const override {
        return "the mean absolute value (abs_mean) of a gradient tensor is below threshold=" +
               fmt(m_threshold) + " at a saved step";
    }

protected:
    bool selects(const wire::TensorEvent& t) const override { return isGradient(t); }
    bool bad(double v) const override { return v < m_threshold; }
    double severity(double v) const override { return -v; }
    std::string condition() const override {
        return "have a mean |gradient| below " + fmt(m_threshold);
    }
    std::string recommendation() const override {
        return "Gradients this small leave the early layers untrained. Use ReLU-family "
               "activations rather than sigmoid or tanh, add batch normalization or residual "
               "connections, initialize weights with He or Xavier initialization, or raise the "
               "learning rate.";
    }
    std::string missingTensors() const override {
        return "no gradients were saved: add the gradients collection to "
               "debugger_hook_config.collection_configs (with the abs_mean reduction)";
    }

private:
    double m_threshold;
};

class SaturationRule : public ReductionRule {
public:
    SaturationRule(const RuleParams& p, std::string noun)
        : ReductionRule(p, reduction::kInactiveUnitsPercent, std::move(noun))
        , m_regex(requiredRegexParam(p, "tensor_regex"))
        , m_regexText(p.text("tensor_regex"))
        , m_inactivity(p.number("threshold_inactivity"))
        , m_layer(p.number("threshold_layer")) {}

protected:
    bool selects(const wire::TensorEvent& t) const override {
        return std::regex_search(t.name, m_regex);
    }
    bool bad(double v) const override { return v > m_layer; }
    double severity(double v) const override { return v; }

    std::regex m_regex;
    std::string m_regexText;
    double m_inactivity;
    double m_layer;
};

class SaturatedActivation final : public SaturationRule {
public:
    explicit SaturatedActivation(const RuleParams& p)
        : SaturationRule(p, "tanh/sigmoid inputs")
        , m_tanh(p.numberPair("threshold_tanh"))
        , m_sigmoid(p.numberPair("threshold_sigmoid")) {}

    std::string criteria() const override {
        return "more than threshold_layer=" + fmt(m_layer) +
               "% of the units of a layer matching tensor_regex='" + m_regexText +
               "' are saturated (active less than threshold_inactivity=" + fmt(m_inactivity) +
               "% of the time; tanh inputs outside (" + fmt(m_tanh.first) + ", " +
               fmt(m_tanh.second) + "), sigmoid inputs outside (" + fmt(m_sigmoid.first) + ", " +
               fmt(m_sigmoid.second) + "))";
    }

protected:
    std::string condition() const override {
        return "have more than " + fmt(m_layer) + "% of their units saturated";
    }
    std::string recommendation() const override {
        return "Saturated tanh or sigmoid units pass almost no gradient. Normalize the layer's "
               "inputs (batch normalization), lower the learning rate, initialize with smaller "
               "weights, or move to ReLU-family activations.";
    }
    std::string missingTensors() const override {
        return "no tensor matching tensor_regex='" + m_regexText +
               "' was saved: the model may have no tanh or sigmoid activations (the built-in "
               "trainer's models use ReLU only); for a script, save the activations' inputs "
               "under names that match tensor_regex";
    }

private:
    std::pair<double, double> m_tanh;
    std::pair<double, double> m_sigmoid;
};

class DeadRelu final : public SaturationRule {
public:
    explicit DeadRelu(const RuleParams& p)
        : SaturationRule(p, "ReLU outputs") {}

    std::string criteria() const override {
        return "more than threshold_layer=" + fmt(m_layer) +
               "% of the ReLUs of a layer matching tensor_regex='" + m_regexText +
               "' are inactive (output > 0 less than threshold_inactivity=" + fmt(m_inactivity) +
               "% of the time in a batch)";
    }

protected:
    std::string condition() const override {
        return "have more than " + fmt(m_layer) + "% of their units dead";
    }
    std::string recommendation() const override {
        return "ReLUs that never activate stop learning for good. Lower the learning rate, use "
               "He initialization, add batch normalization before the activation, or use Leaky "
               "ReLU or ELU.";
    }
    std::string missingTensors() const override {
        return "no ReLU output matching tensor_regex='" + m_regexText +
               "' was saved: list DeadRelu so the built-in trainer saves \"<block>_relu_output\" "
               "tensors, or save a collection whose tensors match tensor_regex";
    }
};

class AllZero final : public ReductionRule {
public:
    explicit AllZero(const RuleParams& p)
        : ReductionRule(p, reduction::kZeroPercent, "tensors")
        , m_selector(p)
        , m_threshold(p.number("threshold")) {}

    std::string criteria() const override {
        return "at least threshold=" + fmt(m_threshold) + "% of the values of a tensor are zero (" +
               m_selector.describe() + ")";
    }

protected:
    bool selects(const wire::TensorEvent& t) const override { return m_selector.selects(t); }
    bool bad(double v) const override { return v >= m_threshold; }
    double severity(double v) const override { return v; }
    std::string condition() const override {
        return "have at least " + fmt(m_threshold) + "% zeros";
    }
    std::string recommendation() const override {
        return "A tensor of zeros usually means dead units, a layer cut off from the graph or a "
               "data problem: check the layer's inputs and activations (dead ReLUs), the data "
               "pipeline, and that its parameters get gradients.";
    }
    std::string missingTensors() const override {
        return "no tensor was saved for " + m_selector.describe() +
               ": set collection_names or tensor_regex to saved tensors, or add the collections "
               "to debugger_hook_config.collection_configs";
    }

private:
    TensorSelector m_selector;
    double m_threshold;
};

class TensorVariance final : public ReductionRule {
public:
    explicit TensorVariance(const RuleParams& p)
        : ReductionRule(p, "variance", "tensors")
        , m_selector(p)
        , m_max(p.optionalNumber("max_threshold"))
        , m_min(p.optionalNumber("min_threshold")) {
        if (!m_max && !m_min)
            throw RuleConfigError("TensorVariance needs max_threshold or min_threshold");
    }

    std::string criteria() const override {
        return "the variance of a tensor (" + m_selector.describe() + ") is " + range();
    }

protected:
    bool selects(const wire::TensorEvent& t) const override { return m_selector.selects(t); }
    bool bad(double v) const override {
        return std::isnan(v) || (m_max && v > *m_max) || (m_min && v < *m_min);
    }
    double severity(double v) const override {
        if (std::isnan(v))
            return std::numeric_limits<double>::infinity();
        // How many times beyond its bound, so large and small variances rank together.
        if (m_max && v > *m_max)
            return v / std::max(std::abs(*m_max), 1e-300);
        return m_min ? std::abs(*m_min) / std::max(std::abs(v), 1e-300) : 0;
    }
    std::string condition() const override { return "have a variance " + range(); }
    std::string recommendation() const override {
        return "A very large variance points to exploding values, a very small one to vanishing "
               "or saturated ones: adjust the learning rate, add normalization layers, or review "
               "the weight initialization.";
    }
    std::string missingTensors() const override {
        return "no tensor was saved for " + m_selector.describe() +
               ": set collection_names or tensor_regex to saved tensors";
    }

private:
    std::string range() const {
        if (m_max && m_min)
            return "outside [min_threshold=" + fmt(*m_min) + ", max_threshold=" + fmt(*m_max) + "]";
        return m_max ? "above max_threshold=" + fmt(*m_max) : "below min_threshold=" + fmt(*m_min);
    }

    TensorSelector m_selector;
    std::optional<double> m_max;
    std::optional<double> m_min;
};

class ExplodingTensor final : public StepwiseTensorRule {
public:
    explicit ExplodingTensor(const RuleParams& p)
        : StepwiseTensorRule(p.info().name, RuleKind::Model)
        , m_selector(p)
        , m_onlyNan(p.boolean("only_nan")) {}

    std::string criteria() const override {
        return std::string("a tensor (") + m_selector.describe() + ") holds " +
               (m_onlyNan ? "NaN values (only_nan=True)"
                          : "NaN or infinite values (only_nan=False)");
    }

protected:
    bool selects(const wire::TensorEvent& t) const override { return m_selector.selects(t); }

    void evaluateStep(std::int64_t step, const std::vector<TensorSample>& tensors) override {
        std::vector<Hit> hits;
        for (const auto& s : tensors) {
            countDatapoints();
            // The hook's count when it sent one; a reduction that is itself NaN/Inf too.
            double bad = s.get(m_onlyNan ? reduction::kNan : reduction::kNonFinite).value_or(0);
            for (const auto& [r, v] : s.reductions)
                if (std::isnan(v) || (!m_onlyNan && std::isinf(v)))
                    bad = std::max(bad, 1.0);
            if (bad > 0)
                hits.push_back({&s, bad});
        }
        if (hits.empty())
            return;
        std::stable_sort(hits.begin(), hits.end(),
                         [](const Hit& a, const Hit& b) { return a.value > b.value; });
        m_flagged += static_cast<std::int64_t>(hits.size());
        m_firstStep = m_firstStep < 0 ? step : m_firstStep;
        const std::string what = m_onlyNan ? "NaN" : "NaN or infinite";
        std::string message = plural(hits.size(), "tensor holds ", "tensors hold ") + what +
                              " values at step " + std::to_string(step) + ": " + listHits(hits) +
                              " (figures: count of " + what + " values, at least 1)";
        fireForStep(step, stepFinding(step, tensors, *hits.front().sample, std::move(message),
                                      "Lower the learning rate, clip gradients, check the input "
                                      "data and labels for NaN or infinite values, and guard "
                                      "log, division and square root with a small epsilon."));
    }

    void addDetails(nlohmann::json& j) const override {
        j["tensors_flagged"] = m_flagged;
        j["first_step_flagged"] = m_firstStep;
    }

    std::string noDataReason() const override {
        return "no tensor was saved for " + m_selector.describe() +
               ": enable the debugger hook and save the collections the rule reads "
               "(debugger_hook_config.collection_configs), or set collection_names/tensor_regex "
               "to saved tensors";
    }

private:
    TensorSelector m_selector;
    bool m_onlyNan;
    std::int64_t m_flagged = 0;
    std::int64_t m_firstStep = -1;
};

class WeightUpdateRatio final : public StepwiseTensorRule {
public:
    explicit WeightUpdateRatio(const RuleParams& p)
        : StepwiseTensorRule(p.info().name, RuleKind::Model)
        , m_numSteps(p.optionalInteger("num_steps"))
        , m_large(p.number("large_threshold"))
        , m_small(p.number("small_threshold"))
        , m_epsilon(p.number("epsilon")) {
        if (m_numSteps && *m_numSteps < 1)
            throw RuleConfigError("WeightUpdateRatio: parameter num_steps must be at least 1");
    }

    std::string criteria() const override {
        std::string c =
            "for a weight tensor, update_l2_norm / (l2_norm + epsilon=" + fmt(m_epsilon) +
            ") > large_threshold=" + fmt(m_large) + " or < small_threshold=" + fmt(m_small);
        c += m_numSteps ? ", checked every num_steps=" + std::to_string(*m_numSteps) + " steps"
                        : ", checked at every saved step";
        return c;
    }

protected:
    bool selects(const wire::TensorEvent& t) const override {
        return t.phase == wire::Phase::Train &&
               (t.collection == "weights" || reductionOf(t, reduction::kUpdateL2Norm));
    }

    void evaluateStep(std::int64_t step, const std::vector<TensorSample>& tensors) override {
        if (m_numSteps && m_lastChecked >= 0 && step < m_lastChecked + *m_numSteps)
            return;
        std::vector<Hit> large, small;
        std::size_t evaluated = 0;
        for (const auto& s : tensors) {
            const auto update = s.get(reduction::kUpdateL2Norm);
            const auto norm = s.get("l2_norm");
            if (!update || !norm) {
                m_withoutReductions = true;
                continue;
            }
            ++evaluated;
            const double ratio = *update / (*norm + m_epsilon);
            m_lastRatio[s.key.name] = ratio;
            if (ratio > m_large)
                large.push_back({&s, ratio});
            else if (ratio < m_small)
                small.push_back({&s, ratio});
        }
        if (evaluated == 0)
            return;
        m_lastChecked = step;
        countDatapoints(static_cast<std::int64_t>(evaluated));
        if (large.empty() && small.empty())
            return;
        std::stable_sort(large.begin(), large.end(),
                         [](const Hit& a, const Hit& b) { return a.value > b.value; });
        std::stable_sort(small.begin(), small.end(),
                         [](const Hit& a, const Hit& b) { return a.value < b.value; });
        std::string message = "update/weight ratios at step " + std::to_string(step) + ": ";
        std::string recommendation;
        if (!large.empty()) {
            message += plural(large.size(), "weight", "weights") + " above " + fmt(m_large) + ": " +
                       listHits(large);
            recommendation = "Updates this large relative to the weights make training unstable: "
                             "lower the learning rate or clip gradients. ";
        }
        if (!small.empty()) {
            message += std::string(large.empty() ? "" : "; ") +
                       plural(small.size(), "weight", "weights") + " below " + fmt(m_small) + ": " +
                       listHits(small);
            recommendation += "Updates this small mean the layer barely learns: check that it is "
                              "not frozen and that gradients reach it, or raise the learning "
                              "rate.";
        }
        const Hit& worst = large.empty() ? small.front() : large.front();
        fireForStep(step, stepFinding(step, tensors, *worst.sample, std::move(message),
                                      std::move(recommendation)));
    }

    void addDetails(nlohmann::json& j) const override {
        j["last_checked_step"] = m_lastChecked;
        j["last_ratios"] = m_lastRatio;
    }

    std::string noDataReason() const override {
        if (m_withoutReductions)
            return "weights were saved without both the update_l2_norm and l2_norm reductions: "
                   "list WeightUpdateRatio so the built-in trainer's hook computes them";
        return "no weights were saved: add the weights collection to "
               "debugger_hook_config.collection_configs";
    }

private:
    std::optional<std::int64_t> m_numSteps;
    double m_large;
    double m_small;
    double m_epsilon;
    std::int64_t m_lastChecked = -1;
    bool m_withoutReductions = false;
    std::map<std::string, double> m_lastRatio;
};

class UnchangedTensor final : public StepwiseTensorRule {
public:
    explicit UnchangedTensor(const RuleParams& p)
        : StepwiseTensorRule(p.info().name, RuleKind::Model)
        , m_selector(p)
        , m_numSteps(p.integer("num_steps"))
        , m_rtol(p.number("rtol"))
        , m_atol(p.number("atol"))
        , m_equalNan(p.boolean("equal_nan")) {
        if (m_numSteps < 2)
            throw RuleConfigError("UnchangedTensor: parameter num_steps must be at least 2");
    }

    std::string criteria() const override {
        return "the reductions of a tensor (" + m_selector.describe() + ") are allclose over " +
               "the last num_steps=" + std::to_string(m_numSteps) +
               " saved steps (|a - b| <= " + "atol=" + fmt(m_atol) + " + rtol=" + fmt(m_rtol) +
               " * |b|, equal_nan=" + (m_equalNan ? "True" : "False") + ")";
    }

protected:
    bool selects(const wire::TensorEvent& t) const override { return m_selector.selects(t); }

    void evaluateStep(std::int64_t step, const std::vector<TensorSample>& tensors) override {
        std::vector<Hit> hits;
        for (const auto& s : tensors) {
            if (s.reductions.empty())
                continue;
            countDatapoints();
            auto& history = m_history[s.key];
            history.push_back(s.reductions);
            while (history.size() > static_cast<std::size_t>(m_numSteps))
                history.pop_front();
            if (history.size() == static_cast<std::size_t>(m_numSteps) && unchanged(history))
                hits.push_back({&s, 0});
        }
        if (hits.empty())
            return;
        m_flagged += static_cast<std::int64_t>(hits.size());
        std::string message = plural(hits.size(), "tensor", "tensors") +
                              " did not change over the last " + std::to_string(m_numSteps) +
                              " saved steps (up to step " + std::to_string(step) +
                              "): " + listHits(hits, false);
        fireForStep(step, stepFinding(step, tensors, *hits.front().sample, std::move(message),
                                      "A tensor that stopped changing belongs to a layer that no "
                                      "longer learns: check that its parameters are passed to the "
                                      "optimizer and not frozen, that gradients reach it, and "
                                      "that the learning rate has not decayed to zero."));
    }

    void addDetails(nlohmann::json& j) const override {
        j["tensors_tracked"] = m_history.size();
        j["tensors_flagged"] = m_flagged;
    }

    std::string noDataReason() const override {
        return "no tensor with reductions was saved for " + m_selector.describe() +
               ": set collection_names or tensor_regex to saved tensors";
    }

private:
    using Reductions = std::map<std::string, double, std::less<>>;

    bool close(double a, double b) const {
        if (std::isnan(a) || std::isnan(b))
            return m_equalNan && std::isnan(a) && std::isnan(b);
        if (std::isinf(a) || std::isinf(b))
            return a == b;
        return std::abs(a - b) <= m_atol + m_rtol * std::abs(b);
    }

    // numpy.allclose of every kept step against the newest, over the reductions all of them
    // carry.
    bool unchanged(const std::deque<Reductions>& history) const {
        const Reductions& newest = history.back();
        bool compared = false;
        for (const auto& [r, b] : newest) {
            bool common = true;
            for (const auto& h : history)
                common = common && h.contains(r);
            if (!common)
                continue;
            compared = true;
            for (const auto& h : history)
                if (!close(h.at(r), b))
                    return false;
        }
        return compared;
    }

    TensorSelector m_selector;
    std::int64_t m_numSteps;
    double m_rtol;
    double m_atol;
    bool m_equalNan;
    std::map<TensorKey, std::deque<Reductions>> m_history;
    std::int64_t m_flagged = 0;
};

} // namespace

std::unique_ptr<Rule> makeVanishingGradient(const RuleParams& p) {
    return std::make_unique<VanishingGradient>(p);
}
std::unique_ptr<Rule> makeExplodingTensor(const RuleParams& p) {
    return std::make_unique<ExplodingTensor>(p);
}
std::unique_ptr<Rule> makeSaturatedActivation(const RuleParams& p) {
    return std::make_unique<SaturatedActivation>(p);
}
std::unique_ptr<Rule> makeDeadRelu(const RuleParams& p) {
    return std::make_unique<DeadRelu>(p);
}
std::unique_ptr<Rule> makeWeightUpdateRatio(const RuleParams& p) {
    return std::make_unique<WeightUpdateRatio>(p);
}
std::unique_ptr<Rule> makeAllZero(const RuleParams& p) {
    return std::make_unique<AllZero>(p);
}
std::unique_ptr<Rule> makeUnchangedTensor(const RuleParams& p) {
    return std::make_unique<UnchangedTensor>(p);
}
std::unique_ptr<Rule> makeTensorVariance(const RuleParams& p) {
    return std::make_unique<TensorVariance>(p);
}

} // namespace studio::debugger::model_rules
