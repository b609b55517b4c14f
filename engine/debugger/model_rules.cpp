// Shared parts of the model rules, the name -> rule table, and the rules over the data fed to
// the model: ClassImbalance (label counts) and CheckInputImages (input channel means).
#include "engine/debugger/model_rules.h"

#include "engine/debugger/hook_plan.h"
#include "engine/debugger/rule_registry.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

namespace studio::debugger {

namespace model_rules {

std::int64_t integerAtLeast(const RuleParams& p, const std::string& name, std::int64_t min) {
    const std::int64_t v = p.integer(name);
    if (v < min)
        throw RuleConfigError(p.info().name + ": parameter " + name + " must be at least " +
                              std::to_string(min) + ", got " + std::to_string(v));
    return v;
}

std::optional<std::regex> regexParam(const RuleParams& p, const std::string& name) {
    const std::string text = p.text(name);
    if (text.empty())
        return std::nullopt;
    try {
        return std::regex(text);
    } catch (const std::regex_error& e) {
        throw RuleConfigError(p.info().name + ": parameter " + name + " \"" + text +
                              "\" is not a valid regular expression (" + e.what() + ")");
    }
}

std::regex requiredRegexParam(const RuleParams& p, const std::string& name) {
    if (auto re = regexParam(p, name))
        return *std::move(re);
    throw RuleConfigError(p.info().name + ": parameter " + name + " needs a regular expression");
}

std::optional<double> reductionOf(const wire::TensorEvent& t, std::string_view name) {
    for (const auto& [r, v] : t.reductions)
        if (r == name)
            return v;
    return std::nullopt;
}

std::string fmt(double v) {
    if (std::isnan(v))
        return "nan";
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

bool isLoss(const wire::TensorEvent& t) {
    return t.collection == "losses" || t.name == tensor::kLoss;
}

bool isGradient(const wire::TensorEvent& t) {
    return t.collection == "gradients" || t.name.rfind(tensor::kGradientPrefix, 0) == 0;
}

std::string plural(std::size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::optional<double> scalarValue(const wire::TensorEvent& t) {
    if (auto v = reductionOf(t, reduction::kValue))
        return v;
    return reductionOf(t, "mean");
}

TensorKey keyOf(const wire::Event& e, const wire::TensorEvent& t) {
    return TensorKey{t.name, e.rank, t.phase};
}

TensorSelector::TensorSelector(const RuleParams& p)
    : m_collections(p.list("collection_names"))
    , m_regex(regexParam(p, "tensor_regex"))
    , m_regexText(p.text("tensor_regex")) {
}

bool TensorSelector::selects(const wire::TensorEvent& t) const {
    if (everything())
        return true;
    if (std::find(m_collections.begin(), m_collections.end(), t.collection) != m_collections.end())
        return true;
    return m_regex && std::regex_search(t.name, *m_regex);
}

std::string TensorSelector::describe() const {
    if (everything())
        return "every saved tensor";
    std::string out = "tensors";
    if (!m_collections.empty()) {
        out += " of collection" + std::string(m_collections.size() > 1 ? "s " : " ");
        for (std::size_t i = 0; i < m_collections.size(); ++i)
            out += (i ? ", " : "") + m_collections[i];
    }
    if (m_regex)
        out += std::string(m_collections.empty() ? "" : " or") + " matching '" + m_regexText + "'";
    return out;
}

bool FirstArrivalFilter::accept(const TensorKey& key, std::int64_t step) {
    auto [it, inserted] = m_lastStep.try_emplace(key, step);
    if (inserted)
        return true;
    if (it->second == step)
        return false;
    it->second = step;
    return true;
}

std::optional<double> TensorSample::get(std::string_view r) const {
    if (auto it = reductions.find(r); it != reductions.end())
        return it->second;
    return std::nullopt;
}

bool TensorSample::in(std::string_view collection) const {
    return std::find(collections.begin(), collections.end(), collection) != collections.end();
}

std::string listHits(const std::vector<Hit>& hits, bool withValues, std::size_t limit) {
    std::string out;
    for (std::size_t i = 0; i < hits.size() && i < limit; ++i) {
        out += i ? ", " : "";
        out += hits[i].sample->key.name;
        if (hits[i].sample->key.rank > 0)
            out += " (rank " + std::to_string(hits[i].sample->key.rank) + ")";
        if (hits[i].sample->key.phase == wire::Phase::Eval)
            out += " [eval]";
        if (withValues)
            out += " (" + fmt(hits[i].value) + ")";
    }
    if (hits.size() > limit)
        out += " and " + std::to_string(hits.size() - limit) + " more";
    return out;
}

Finding stepFinding(std::int64_t step, const std::vector<TensorSample>& tensors,
                    const TensorSample& worst, std::string message, std::string recommendation) {
    Finding f;
    for (const auto& t : tensors)
        f.time = std::max(f.time, t.time);
    f.step = step;
    f.node = worst.node;
    f.device = worst.key.name;
    f.message = std::move(message);
    f.recommendation = std::move(recommendation);
    return f;
}

void StepwiseTensorRule::onEvent(const wire::Event& e) {
    const auto* t = e.as<wire::TensorEvent>();
    if (!t || !selects(*t))
        return;
    TensorKey key = keyOf(e, *t);
    if (auto it = m_evaluatedStep.find(key); it != m_evaluatedStep.end() && it->second == t->step)
        return; // its step was evaluated already: a second collection's copy
    // Ranks send a step's tensors before the next step's: a later step completes earlier ones.
    if (t->step > m_lastStep) {
        while (!m_pending.empty() && m_pending.begin()->first < t->step) {
            auto node = m_pending.extract(m_pending.begin());
            evaluate(node.key(), node.mapped());
        }
        m_lastStep = t->step;
    }
    Batch& batch = m_pending[t->step];
    batch.touched = true;
    auto [it, inserted] = batch.tensors.try_emplace(key);
    TensorSample& s = it->second;
    if (inserted) {
        s.key = key;
        s.node = e.node;
        s.step = t->step;
    }
    s.time = std::max(s.time, e.t);
    if (!s.in(t->collection))
        s.collections.push_back(t->collection);
    for (const auto& [r, v] : t->reductions)
        s.reductions.try_emplace(r, v);
}

void StepwiseTensorRule::onTick(double /*now*/) {
    // A step with no new tensor for a whole tick is complete.
    for (auto it = m_pending.begin(); it != m_pending.end();) {
        if (it->second.touched) {
            it->second.touched = false;
            ++it;
            continue;
        }
        auto node = m_pending.extract(it++);
        evaluate(node.key(), node.mapped());
    }
}

void StepwiseTensorRule::finish(double now) {
    while (!m_pending.empty()) {
        auto node = m_pending.extract(m_pending.begin());
        evaluate(node.key(), node.mapped());
    }
    Rule::finish(now);
}

void StepwiseTensorRule::evaluate(std::int64_t step, Batch& batch) {
    std::vector<TensorSample> samples;
    samples.reserve(batch.tensors.size());
    for (auto& [key, s] : batch.tensors) {
        m_evaluatedStep[key] = step;
        samples.push_back(std::move(s));
    }
    ++m_stepsEvaluated;
    m_tensorsSeen += static_cast<std::int64_t>(samples.size());
    evaluateStep(step, samples);
}

void StepwiseTensorRule::fireForStep(std::int64_t step, Finding f) {
    if (!m_firedSteps.insert(step).second)
        return;
    if (m_firedSteps.size() > 64)
        m_firedSteps.erase(m_firedSteps.begin());
    fire(std::move(f));
}

nlohmann::json StepwiseTensorRule::details() const {
    nlohmann::json j = {{"steps_evaluated", m_stepsEvaluated},
                        {"tensors_evaluated", m_tensorsSeen},
                        {"last_step", m_lastStep},
                        {"fired", fired()}};
    addDetails(j);
    return j;
}

namespace {

// "class_3" with prefix "class_" -> 3; nullopt for another reduction.
std::optional<long> suffixIndex(const std::string& reduction, std::string_view prefix) {
    if (reduction.size() <= prefix.size() || reduction.compare(0, prefix.size(), prefix) != 0)
        return std::nullopt;
    const char* first = reduction.data() + prefix.size();
    const char* last = reduction.data() + reduction.size();
    long k = 0;
    auto [end, ec] = std::from_chars(first, last, k);
    if (ec != std::errc() || end != last)
        return std::nullopt;
    return k;
}

class ClassImbalance final : public Rule {
public:
    explicit ClassImbalance(const RuleParams& p)
        : Rule(p.info().name, RuleKind::Model)
        , m_thresholdImbalance(p.number("threshold_imbalance"))
        , m_thresholdMisprediction(p.number("threshold_misprediction"))
        , m_samples(integerAtLeast(p, "samples", 1))
        , m_labels(requiredRegexParam(p, "labels_regex"))
        , m_predictions(requiredRegexParam(p, "predictions_regex"))
        , m_labelsText(p.text("labels_regex"))
        , m_nextCheck(m_samples) {
        // argmax is not read: SageMaker applies it to raw prediction tensors, while the hook
        // already sends class counts of the labels and of the predictions.
        (void)p.boolean("argmax");
    }

    std::string criteria() const override {
        return "every samples=" + std::to_string(m_samples) +
               " training samples: the largest class count / the smallest (labels matching '" +
               m_labelsText + "') > threshold_imbalance=" + fmt(m_thresholdImbalance) +
               ", or a class's mispredicted share > threshold_misprediction=" +
               fmt(m_thresholdMisprediction);
    }

    void onEvent(const wire::Event& e) override {
        const auto* t = e.as<wire::TensorEvent>();
        if (!t || t->phase != wire::Phase::Train)
            return;
        const bool labels = std::regex_search(t->name, m_labels);
        if (!labels && !std::regex_search(t->name, m_predictions))
            return;
        if (!m_filter.accept(keyOf(e, *t), t->step))
            return;
        // Either tensor may carry the misses; the first to arrive for a rank's step counts.
        const bool takeMisses = !m_missesTaken.contains({t->step, e.rank});
        double counted = 0;
        bool carriedMisses = false;
        for (const auto& [r, v] : t->reductions) {
            if (auto k = suffixIndex(r, reduction::kClassPrefix); k && labels) {
                m_counts[*k] += v;
                counted += v;
            } else if (auto m = suffixIndex(r, reduction::kMispredictedPrefix); m && takeMisses) {
                m_mispredicted[*m] += v;
                carriedMisses = true;
            }
        }
        if (carriedMisses) {
            m_missesTaken.insert({t->step, e.rank});
            if (m_missesTaken.size() > 256)
                m_missesTaken.erase(m_missesTaken.begin());
        }
        if (!labels)
            return;
        m_seen += reductionOf(*t, reduction::kSamples).value_or(counted);
        if (m_seen >= static_cast<double>(m_nextCheck)) {
            m_nextCheck = (static_cast<std::int64_t>(m_seen) / m_samples + 1) * m_samples;
            evaluate(e, *t);
        }
    }

    nlohmann::json details() const override {
        nlohmann::json counts = nlohmann::json::object();
        for (const auto& [k, n] : m_counts)
            counts[std::to_string(k)] = n;
        nlohmann::json misses = nlohmann::json::object();
        for (const auto& [k, n] : m_mispredicted)
            misses[std::to_string(k)] = n;
        return {{"samples", m_seen},
                {"class_counts", counts},
                {"mispredicted", misses},
                {"imbalance", m_lastImbalance},
                {"fired", fired()}};
    }

protected:
    std::string noDataReason() const override {
        if (m_seen > 0)
            return "only " + fmt(m_seen) + " of the samples=" + std::to_string(m_samples) +
                   " training samples the rule needs were counted: lower samples, or save the "
                   "labels at more steps";
        return "no labels matching labels_regex='" + m_labelsText +
               "' with class counts were saved: list ClassImbalance so the built-in trainer "
               "saves the labels and predictions collections at every step";
    }

private:
    void evaluate(const wire::Event& e, const wire::TensorEvent& t) {
        if (m_counts.empty())
            return;
        countDatapoints(static_cast<std::int64_t>(m_counts.size()));
        auto [lo, hi] =
            std::minmax_element(m_counts.begin(), m_counts.end(),
                                [](const auto& a, const auto& b) { return a.second < b.second; });
        m_lastImbalance = lo->second > 0 ? hi->second / lo->second : HUGE_VAL;
        std::vector<std::string> problems;
        if (m_lastImbalance > m_thresholdImbalance)
            problems.push_back("class " + std::to_string(hi->first) + " has " + fmt(hi->second) +
                               " samples and class " + std::to_string(lo->first) + " " +
                               fmt(lo->second) + " (imbalance " + fmt(m_lastImbalance) + " > " +
                               fmt(m_thresholdImbalance) + ")");
        std::string missed;
        for (const auto& [k, misses] : m_mispredicted) {
            auto it = m_counts.find(k);
            if (it == m_counts.end() || it->second <= 0)
                continue;
            const double share = misses / it->second;
            if (share > m_thresholdMisprediction)
                missed += (missed.empty() ? "" : ", ") + std::string("class ") + std::to_string(k) +
                          " " + fmt(share * 100) + "%";
        }
        if (!missed.empty())
            problems.push_back("mostly mispredicted (share > " + fmt(m_thresholdMisprediction) +
                               "): " + missed);
        if (problems.empty())
            return;
        Finding f = tensorFinding(e, t);
        f.message = "after " + fmt(m_seen) + " training samples: ";
        for (std::size_t i = 0; i < problems.size(); ++i)
            f.message += (i ? "; " : "") + problems[i];
        f.recommendation = "Rebalance the training data: oversample the rare classes or "
                           "undersample the frequent ones, weight the loss by class, or collect "
                           "more examples of the classes the model misses.";
        fire(std::move(f));
    }

    double m_thresholdImbalance;
    double m_thresholdMisprediction;
    std::int64_t m_samples;
    std::regex m_labels;
    std::regex m_predictions;
    std::string m_labelsText;
    std::int64_t m_nextCheck;
    FirstArrivalFilter m_filter;
    std::map<long, double> m_counts;
    std::map<long, double> m_mispredicted;
    std::set<std::pair<std::int64_t, int>> m_missesTaken; // (step, rank), the latest
    double m_seen = 0;
    double m_lastImbalance = 0;
};

class CheckInputImages final : public Rule {
public:
    explicit CheckInputImages(const RuleParams& p)
        : Rule(p.info().name, RuleKind::Model)
        , m_thresholdMean(p.number("threshold_mean"))
        , m_thresholdSamples(integerAtLeast(p, "threshold_samples", 1))
        , m_regex(requiredRegexParam(p, "regex"))
        , m_regexText(p.text("regex"))
        , m_channel(p.integer("channel")) {}

    std::string criteria() const override {
        return "every threshold_samples=" + std::to_string(m_thresholdSamples) +
               " samples of the inputs matching regex='" + m_regexText +
               "': a channel's mean (channel axis " + std::to_string(m_channel) +
               ") has |mean| > threshold_mean=" + fmt(m_thresholdMean);
    }

    void onEvent(const wire::Event& e) override {
        const auto* t = e.as<wire::TensorEvent>();
        if (!t)
            return;
        if (!std::regex_search(t->name, m_regex)) {
            if (m_unmatched.empty() && t->name.ends_with("_input_0"))
                m_unmatched = t->name;
            return;
        }
        if (!m_filter.accept(keyOf(e, *t), t->step))
            return;
        std::map<long, double> means;
        for (const auto& [r, v] : t->reductions)
            if (auto c = suffixIndex(r, reduction::kChannelMeanPrefix))
                means[*c] = v;
        const auto n = reductionOf(*t, reduction::kSamples);
        if (means.empty() || !n) {
            m_incomplete = true;
            return;
        }
        for (const auto& [c, mean] : means)
            m_sums[c] += mean * *n;
        m_window += *n;
        m_total += *n;
        if (m_window < static_cast<double>(m_thresholdSamples))
            return;
        evaluate(e, *t);
        m_sums.clear();
        m_window = 0;
    }

    nlohmann::json details() const override {
        nlohmann::json means = nlohmann::json::object();
        for (const auto& [c, m] : m_lastMeans)
            means[std::to_string(c)] = m;
        return {{"samples", m_total}, {"last_channel_means", means}, {"fired", fired()}};
    }

protected:
    std::string noDataReason() const override {
        std::string why;
        if (m_incomplete)
            why = "input tensors matching regex='" + m_regexText +
                  "' came without channel_mean_<c> and samples reductions: list CheckInputImages "
                  "so the built-in trainer's hook computes them";
        else if (m_total > 0)
            why = "only " + fmt(m_total) +
                  " input samples were saved, fewer than "
                  "threshold_samples=" +
                  std::to_string(m_thresholdSamples) +
                  ": lower threshold_samples or save the inputs at more steps";
        else
            why = "no input tensor matched regex='" + m_regexText + "'";
        if (m_total == 0)
            why +=
                ". SageMaker's default regex is MXNet's '.*hybridsequential0_input_0'; the "
                "built-in trainer names its input '<model>_input_0'" +
                (m_unmatched.empty() ? std::string() : " (this job saved '" + m_unmatched + "')") +
                ", so set parameters.regex to '.*_input_0'";
        return why;
    }

private:
    void evaluate(const wire::Event& e, const wire::TensorEvent& t) {
        countDatapoints(static_cast<std::int64_t>(m_sums.size()));
        m_lastMeans.clear();
        std::string figures;
        bool bad = false;
        for (const auto& [c, sum] : m_sums) {
            const double mean = sum / m_window;
            m_lastMeans[c] = mean;
            figures += (figures.empty() ? "" : ", ") + std::string("channel ") + std::to_string(c) +
                       " " + fmt(mean);
            bad = bad || !(std::abs(mean) <= m_thresholdMean);
        }
        if (!bad)
            return;
        Finding f = tensorFinding(e, t);
        f.message = "input images are not normalized: channel means over the last " +
                    fmt(m_window) + " samples: " + figures + " (|mean| > " + fmt(m_thresholdMean) +
                    ")";
        f.recommendation = "Normalize the input images: subtract each channel's mean and divide "
                           "by its standard deviation (computed on the training set), so every "
                           "channel is centered near zero.";
        fire(std::move(f));
    }

    double m_thresholdMean;
    std::int64_t m_thresholdSamples;
    std::regex m_regex;
    std::string m_regexText;
    std::int64_t m_channel;
    FirstArrivalFilter m_filter;
    std::map<long, double> m_sums;
    std::map<long, double> m_lastMeans;
    double m_window = 0;
    double m_total = 0;
    bool m_incomplete = false;
    std::string m_unmatched;
};

} // namespace

std::unique_ptr<Rule> makeClassImbalance(const RuleParams& p) {
    return std::make_unique<ClassImbalance>(p);
}
std::unique_ptr<Rule> makeCheckInputImages(const RuleParams& p) {
    return std::make_unique<CheckInputImages>(p);
}

} // namespace model_rules

std::unique_ptr<Rule> makeModelRule(const RuleParams& params) {
    using Factory = std::unique_ptr<Rule> (*)(const RuleParams&);
    static const std::pair<const char*, Factory> factories[] = {
        {"VanishingGradient", model_rules::makeVanishingGradient},
        {"ExplodingTensor", model_rules::makeExplodingTensor},
        {"PoorWeightInitialization", model_rules::makePoorWeightInitialization},
        {"SaturatedActivation", model_rules::makeSaturatedActivation},
        {"DeadRelu", model_rules::makeDeadRelu},
        {"WeightUpdateRatio", model_rules::makeWeightUpdateRatio},
        {"AllZero", model_rules::makeAllZero},
        {"UnchangedTensor", model_rules::makeUnchangedTensor},
        {"TensorVariance", model_rules::makeTensorVariance},
        {"ClassImbalance", model_rules::makeClassImbalance},
        {"LossNotDecreasing", model_rules::makeLossNotDecreasing},
        {"Overfit", model_rules::makeOverfit},
        {"Overtraining", model_rules::makeOvertraining},
        {"StalledTrainingRule", model_rules::makeStalledTrainingRule},
        {"CheckInputImages", model_rules::makeCheckInputImages},
    };
    if (params.info().kind != RuleKind::Model)
        return nullptr;
    for (const auto& [name, make] : factories)
        if (params.info().name == name)
            return make(params);
    return nullptr;
}

} // namespace studio::debugger
