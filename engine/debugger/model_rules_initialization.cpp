// PoorWeightInitialization: within the first saved steps, activation inputs whose variance
// differs too much across layers, gradients that barely spread, or a training loss that does not
// decrease.
#include "engine/debugger/hook_plan.h"
#include "engine/debugger/model_rules.h"

#include <algorithm>
#include <cmath>

namespace studio::debugger::model_rules {

namespace {

class PoorWeightInitialization final : public StepwiseTensorRule {
public:
    explicit PoorWeightInitialization(const RuleParams& p)
        : StepwiseTensorRule(p.info().name, RuleKind::Model)
        , m_activation(requiredRegexParam(p, "activation_inputs_regex"))
        , m_activationText(p.text("activation_inputs_regex"))
        , m_threshold(p.number("threshold"))
        , m_range(p.number("distribution_range"))
        , m_patience(integerAtLeast(p, "patience", 1))
        , m_steps(integerAtLeast(p, "steps", 1)) {}

    std::string criteria() const override {
        return "within the first steps=" + std::to_string(m_steps) +
               " saved steps: the largest/smallest variance of activation inputs matching "
               "activation_inputs_regex='" +
               m_activationText + "' > threshold=" + fmt(m_threshold) +
               ", or a gradient's p95 - p5 < distribution_range=" + fmt(m_range) +
               ", or the training loss has not decreased over patience=" +
               std::to_string(m_patience) + " saved values";
    }

protected:
    bool selects(const wire::TensorEvent& t) const override {
        return t.phase == wire::Phase::Train &&
               (isGradient(t) || isLoss(t) || std::regex_search(t.name, m_activation));
    }

    void evaluateStep(std::int64_t step, const std::vector<TensorSample>& tensors) override {
        if (m_stepsConsidered >= m_steps)
            return;
        ++m_stepsConsidered;
        std::vector<std::string> problems;
        // The finding names the first problem's tensor.
        const TensorSample* worst = checkActivationVariance(tensors, problems);
        const TensorSample* narrow = checkGradientSpread(tensors, problems);
        worst = worst ? worst : narrow;
        const TensorSample* loss = checkEarlyLoss(tensors, problems);
        worst = worst ? worst : loss;
        if (problems.empty())
            return;
        std::string message = "poor weight initialization at step " + std::to_string(step) + ": ";
        for (std::size_t i = 0; i < problems.size(); ++i)
            message += (i ? "; " : "") + problems[i];
        fireForStep(step, stepFinding(step, tensors, *worst, std::move(message),
                                      "Initialize the weights with a scheme that suits the "
                                      "activations (He for ReLU, Xavier/Glorot for tanh or "
                                      "sigmoid) or add batch normalization; if only the loss "
                                      "stalls, re-check the learning rate."));
    }

    void addDetails(nlohmann::json& j) const override {
        j["steps_considered"] = m_stepsConsidered;
        if (m_maxVarianceRatio > 0)
            j["max_variance_ratio"] = m_maxVarianceRatio;
    }

    std::string noDataReason() const override {
        return "none of the first " + std::to_string(m_steps) +
               " saved steps had activation inputs matching '" + m_activationText +
               "' with a variance, gradients with p5/p95, or a training loss: list the rule so the "
               "built-in trainer's hook saves them, or add the gradients and losses collections "
               "and one matching activation_inputs_regex to "
               "debugger_hook_config.collection_configs";
    }

private:
    // (a) The variance of activation inputs across layers; the layer of the smallest when the
    // spread exceeds the threshold.
    const TensorSample* checkActivationVariance(const std::vector<TensorSample>& tensors,
                                                std::vector<std::string>& problems) {
        const TensorSample* low = nullptr;
        const TensorSample* high = nullptr;
        std::size_t layers = 0;
        for (const auto& s : tensors) {
            const auto v = s.get("variance");
            if (!v || !std::regex_search(s.key.name, m_activation))
                continue;
            ++layers;
            if (!low || *v < *low->get("variance"))
                low = &s;
            if (!high || *v > *high->get("variance"))
                high = &s;
        }
        countDatapoints(static_cast<std::int64_t>(layers));
        if (layers < 2)
            return nullptr;
        const double lo = *low->get("variance");
        const double hi = *high->get("variance");
        const double ratio = lo > 0 ? hi / lo : (hi > 0 ? HUGE_VAL : 1.0);
        m_maxVarianceRatio = std::max(m_maxVarianceRatio, ratio);
        if (!(ratio > m_threshold)) // NaN too
            return nullptr;
        problems.push_back("the variance of activation inputs differs " + fmt(ratio) +
                           "-fold across " + std::to_string(layers) + " layers (" + high->key.name +
                           " " + fmt(hi) + ", " + low->key.name + " " + fmt(lo) + "; threshold " +
                           fmt(m_threshold) + ")");
        return low;
    }

    // (b) Gradients that barely spread; the first of them.
    const TensorSample* checkGradientSpread(const std::vector<TensorSample>& tensors,
                                            std::vector<std::string>& problems) {
        std::vector<Hit> narrow;
        for (const auto& s : tensors) {
            const auto p5 = s.get(reduction::kP5);
            const auto p95 = s.get(reduction::kP95);
            if (!p5 || !p95 ||
                !(s.in("gradients") || s.key.name.rfind(tensor::kGradientPrefix, 0) == 0))
                continue;
            countDatapoints();
            if (*p95 - *p5 < m_range)
                narrow.push_back({&s, *p95 - *p5});
        }
        if (narrow.empty())
            return nullptr;
        problems.push_back(plural(narrow.size(), "gradient has", "gradients have") +
                           " p95 - p5 below " + fmt(m_range) + ": " + listHits(narrow));
        return narrow.front().sample;
    }

    // (c) The training loss early on; the first loss that has not decreased.
    const TensorSample* checkEarlyLoss(const std::vector<TensorSample>& tensors,
                                       std::vector<std::string>& problems) {
        const TensorSample* first = nullptr;
        for (const auto& s : tensors) {
            const auto v = s.get(reduction::kValue) ? s.get(reduction::kValue) : s.get("mean");
            if (!v || !(s.in("losses") || s.key.name == tensor::kLoss))
                continue;
            countDatapoints();
            auto& series = m_losses[s.key];
            series.push_back(*v);
            const auto n = static_cast<std::int64_t>(series.size());
            if (n < m_patience)
                continue;
            const double before = series[static_cast<std::size_t>(n - m_patience)];
            if (!(*v < before)) {
                problems.push_back("the training loss " + s.key.name +
                                   " has not decreased over the last " +
                                   std::to_string(m_patience) + " saved values (" + fmt(before) +
                                   " -> " + fmt(*v) + ")");
                first = first ? first : &s;
            }
        }
        return first;
    }

    std::regex m_activation;
    std::string m_activationText;
    double m_threshold;
    double m_range;
    std::int64_t m_patience;
    std::int64_t m_steps;
    std::int64_t m_stepsConsidered = 0;
    double m_maxVarianceRatio = 0;
    std::map<TensorKey, std::vector<double>> m_losses;
};

} // namespace

std::unique_ptr<Rule> makePoorWeightInitialization(const RuleParams& p) {
    return std::make_unique<PoorWeightInitialization>(p);
}

} // namespace studio::debugger::model_rules
