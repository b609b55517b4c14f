// Model rules over training progress: the loss rules LossNotDecreasing, Overfit and
// Overtraining, and StalledTrainingRule (time since the last data).
#include "engine/debugger/hook_plan.h"
#include "engine/debugger/model_rules.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

namespace studio::debugger::model_rules {

namespace {

const char* phaseWord(wire::Phase p) {
    return p == wire::Phase::Eval ? "eval" : "train";
}

class LossNotDecreasing final : public Rule {
public:
    explicit LossNotDecreasing(const RuleParams& p)
        : Rule(p.info().name, RuleKind::Model)
        , m_collections(p.list("collection_names"))
        , m_regex(regexParam(p, "tensor_regex"))
        , m_regexText(p.text("tensor_regex"))
        , m_useLosses(p.boolean("use_losses_collection"))
        , m_numSteps(integerAtLeast(p, "num_steps", 1))
        , m_diffPercent(p.number("diff_percent"))
        , m_mode(p.text("mode")) {
        for (auto& c : m_mode)
            c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        if (!m_mode.empty() && m_mode != "TRAIN" && m_mode != "EVAL" && m_mode != "GLOBAL")
            throw RuleConfigError("LossNotDecreasing: parameter mode must be TRAIN, EVAL, GLOBAL "
                                  "or None, got \"" +
                                  p.text("mode") + "\"");
        if (!m_useLosses && m_collections.empty() && !m_regex)
            throw RuleConfigError("LossNotDecreasing reads no tensor: use_losses_collection is "
                                  "False and neither collection_names nor tensor_regex is set");
    }

    std::string criteria() const override {
        std::string what = m_useLosses ? "the losses collection" : "";
        for (const auto& c : m_collections)
            what += (what.empty() ? "collection " : ", collection ") + c;
        if (m_regex)
            what +=
                (what.empty() ? "" : ", ") + std::string("tensors matching '") + m_regexText + "'";
        return "a loss (" + what + "; mode=" + (m_mode.empty() ? "None" : m_mode) +
               ") has decreased by less than diff_percent=" + fmt(m_diffPercent) +
               "% since its value num_steps=" + std::to_string(m_numSteps) +
               " or more steps earlier, or is NaN";
    }

    void onEvent(const wire::Event& e) override {
        const auto* t = e.as<wire::TensorEvent>();
        if (!t || !selects(*t))
            return;
        const auto v = scalarValue(*t);
        if (!v)
            return;
        const TensorKey key = keyOf(e, *t);
        if (!m_filter.accept(key, t->step))
            return;
        m_sawEval = m_sawEval || t->phase == wire::Phase::Eval;
        Series& s = m_series[key];
        ++s.values;
        if (!s.started || t->step < s.refStep) { // first value, or a restarted step count
            s = Series{true, *v, t->step, s.values};
            return;
        }
        if (t->step < s.refStep + m_numSteps)
            return;
        const double ref = s.ref;
        const std::int64_t refStep = s.refStep;
        s.ref = *v;
        s.refStep = t->step;
        if (!active(t->phase))
            return;
        countDatapoints();
        const double decrease = ref != 0 ? (ref - *v) / std::abs(ref) * 100
                                         : (*v < 0 ? HUGE_VAL : (*v == 0 ? 0 : -HUGE_VAL));
        m_lastDecrease = decrease;
        if (!(decrease < m_diffPercent || std::isnan(*v)))
            return;
        if (t->step == m_lastFiredStep)
            return; // one finding per step
        m_lastFiredStep = t->step;
        Finding f = tensorFinding(e, *t);
        f.message = std::string(phaseWord(t->phase)) + " loss " + t->name +
                    (e.rank > 0 ? " (rank " + std::to_string(e.rank) + ")" : "") + " went from " +
                    fmt(ref) + " at step " + std::to_string(refStep) + " to " + fmt(*v) +
                    " at step " + std::to_string(t->step) + ": a decrease of " + fmt(decrease) +
                    "%, less than diff_percent " + fmt(m_diffPercent) + "%";
        f.recommendation = "Check the learning rate (too high makes the loss oscillate, too low "
                           "stalls it), look for a bug in the loss or the labels, and consider "
                           "stopping the job to save cost (the StopTraining action).";
        fire(std::move(f));
    }

    nlohmann::json details() const override {
        nlohmann::json series = nlohmann::json::array();
        for (const auto& [key, s] : m_series)
            series.push_back({{"tensor", key.name},
                              {"rank", key.rank},
                              {"phase", phaseWord(key.phase)},
                              {"values", s.values},
                              {"reference", s.ref},
                              {"reference_step", s.refStep}});
        return {{"mode", m_mode.empty() ? (m_sawEval ? "EVAL (None)" : "TRAIN (None)") : m_mode},
                {"series", series},
                {"last_decrease_percent", m_lastDecrease},
                {"fired", fired()}};
    }

protected:
    std::string noDataReason() const override {
        if (m_series.empty())
            return "no loss was saved: the losses collection is saved by default with the "
                   "debugger hook on; for a script, define a metric whose name contains \"loss\" "
                   "in metric_definitions";
        if (m_mode == "EVAL" && !m_sawEval)
            return "mode=EVAL but no evaluation loss was saved: give the job a validation "
                   "channel or set mode to TRAIN";
        return "losses were saved, but never num_steps=" + std::to_string(m_numSteps) +
               " steps apart: lower num_steps or the losses collection's save_interval";
    }

private:
    struct Series {
        bool started = false;
        double ref = 0;
        std::int64_t refStep = 0;
        std::int64_t values = 0;
    };

    bool selects(const wire::TensorEvent& t) const {
        if (m_useLosses && isLoss(t))
            return true;
        if (std::find(m_collections.begin(), m_collections.end(), t.collection) !=
            m_collections.end())
            return true;
        return m_regex && std::regex_search(t.name, *m_regex);
    }

    // None reads EVAL losses once there are any, else TRAIN ones.
    bool active(wire::Phase p) const {
        if (m_mode == "GLOBAL")
            return true;
        if (m_mode == "TRAIN")
            return p == wire::Phase::Train;
        if (m_mode == "EVAL")
            return p == wire::Phase::Eval;
        return m_sawEval ? p == wire::Phase::Eval : p == wire::Phase::Train;
    }

    std::vector<std::string> m_collections;
    std::optional<std::regex> m_regex;
    std::string m_regexText;
    bool m_useLosses;
    std::int64_t m_numSteps;
    double m_diffPercent;
    std::string m_mode;
    FirstArrivalFilter m_filter;
    std::map<TensorKey, Series> m_series;
    bool m_sawEval = false;
    std::int64_t m_lastFiredStep = std::numeric_limits<std::int64_t>::min();
    double m_lastDecrease = 0;
};

class Overfit final : public Rule {
public:
    explicit Overfit(const RuleParams& p)
        : Rule(p.info().name, RuleKind::Model)
        , m_regex(regexParam(p, "tensor_regex"))
        , m_regexText(p.text("tensor_regex"))
        , m_startStep(p.integer("start_step"))
        , m_patience(integerAtLeast(p, "patience", 1))
        , m_ratio(p.number("ratio_threshold")) {}

    std::string criteria() const override {
        return "(validation loss - training loss) / training loss > ratio_threshold=" +
               fmt(m_ratio) + " for patience=" + std::to_string(m_patience) +
               " consecutive evaluations from start_step=" + std::to_string(m_startStep) +
               " (training loss: mean since the previous evaluation; losses: " +
               (m_regex ? "tensors matching '" + m_regexText + "'" : "the losses collection") + ")";
    }

    void onEvent(const wire::Event& e) override {
        const auto* t = e.as<wire::TensorEvent>();
        if (!t || !(m_regex ? std::regex_search(t->name, *m_regex) : isLoss(*t)))
            return;
        const auto v = scalarValue(*t);
        if (!v || !m_filter.accept(keyOf(e, *t), t->step))
            return;
        RankState& r = m_ranks[e.rank];
        if (t->phase == wire::Phase::Train) {
            r.sum += *v;
            ++r.count;
            r.last = *v;
            return;
        }
        m_sawEval = true;
        if (t->step < m_startStep)
            return;
        if (r.count == 0 && !r.last) {
            m_evalWithoutTrain = true;
            return;
        }
        const double train = r.count > 0 ? r.sum / static_cast<double>(r.count) : *r.last;
        r.sum = 0;
        r.count = 0;
        if (train == 0)
            return;
        countDatapoints();
        const double ratio = (*v - train) / std::abs(train);
        m_lastRatio = ratio;
        m_maxRatio = std::max(m_maxRatio, ratio);
        r.streak = ratio > m_ratio ? r.streak + 1 : 0;
        if (r.streak < m_patience)
            return;
        r.streak = 0;
        Finding f = tensorFinding(e, *t);
        f.message = "validation loss " + fmt(*v) + " vs training loss " + fmt(train) + " at step " +
                    std::to_string(t->step) + ": " + fmt(ratio * 100) + "% higher (ratio " +
                    fmt(ratio) + " > " + fmt(m_ratio) + ") for " +
                    plural(static_cast<std::size_t>(m_patience), "evaluation", "evaluations") +
                    " in a row";
        f.recommendation = "The model fits the training data much better than unseen data: add "
                           "regularization (weight decay, dropout), augment the data, use a "
                           "smaller model, or stop training earlier.";
        fire(std::move(f));
    }

    nlohmann::json details() const override {
        nlohmann::json j = {{"evaluations", datapoints()}, {"fired", fired()}};
        if (datapoints() > 0) {
            j["last_ratio"] = m_lastRatio;
            j["max_ratio"] = m_maxRatio;
        }
        return j;
    }

protected:
    std::string noDataReason() const override {
        if (!m_sawEval)
            return "no validation loss was saved: the job needs evaluation (a validation channel, "
                   "or for a script a metric named like \"validation:loss\")";
        if (m_evalWithoutTrain)
            return "validation losses came without training losses to compare with: save the "
                   "training loss too";
        return "no validation loss at or after start_step=" + std::to_string(m_startStep);
    }

private:
    struct RankState {
        double sum = 0;
        std::int64_t count = 0;
        std::optional<double> last;
        std::int64_t streak = 0;
    };
    std::optional<std::regex> m_regex;
    std::string m_regexText;
    std::int64_t m_startStep;
    std::int64_t m_patience;
    double m_ratio;
    FirstArrivalFilter m_filter;
    std::map<int, RankState> m_ranks;
    bool m_sawEval = false;
    bool m_evalWithoutTrain = false;
    double m_lastRatio = 0;
    double m_maxRatio = -HUGE_VAL;
};

class Overtraining final : public Rule {
public:
    explicit Overtraining(const RuleParams& p)
        : Rule(p.info().name, RuleKind::Model)
        , m_patienceTrain(integerAtLeast(p, "patience_train", 1))
        , m_patienceValidation(integerAtLeast(p, "patience_validation", 1))
        , m_delta(p.number("delta")) {}

    std::string criteria() const override {
        return "the training loss has not improved on its best value by at least delta=" +
               fmt(m_delta) + " for patience_train=" + std::to_string(m_patienceTrain) +
               " saved values, or the validation loss for patience_validation=" +
               std::to_string(m_patienceValidation) + " saved values";
    }

    void onEvent(const wire::Event& e) override {
        const auto* t = e.as<wire::TensorEvent>();
        if (!t || !isLoss(*t))
            return;
        const auto v = scalarValue(*t);
        const TensorKey key = keyOf(e, *t);
        if (!v || !m_filter.accept(key, t->step))
            return;
        countDatapoints();
        Series& s = m_series[key];
        if (!s.best || (*s.best - *v >= m_delta && *v < *s.best)) {
            s.best = *v;
            s.bestStep = t->step;
            s.stale = 0;
            return;
        }
        const bool eval = t->phase == wire::Phase::Eval;
        const std::int64_t patience = eval ? m_patienceValidation : m_patienceTrain;
        if (++s.stale < patience)
            return;
        s.stale = 0;
        Finding f = tensorFinding(e, *t);
        f.message = std::string(eval ? "validation" : "training") + " loss " + t->name +
                    " has not improved on its best " + fmt(*s.best) + " (step " +
                    std::to_string(s.bestStep) + ") by " + fmt(m_delta) + " for " +
                    std::to_string(patience) + " saved values; now " + fmt(*v) + " at step " +
                    std::to_string(t->step);
        f.recommendation = "Training has stopped paying off: stop the job (early stopping, the "
                           "StopTraining action) to save cost, or lower the learning rate to "
                           "make progress.";
        fire(std::move(f));
    }

    nlohmann::json details() const override {
        nlohmann::json series = nlohmann::json::array();
        for (const auto& [key, s] : m_series)
            series.push_back({{"tensor", key.name},
                              {"rank", key.rank},
                              {"phase", phaseWord(key.phase)},
                              {"best", s.best.value_or(0)},
                              {"best_step", s.bestStep},
                              {"values_since_best", s.stale}});
        return {{"series", series}, {"fired", fired()}};
    }

protected:
    std::string noDataReason() const override {
        return "no loss was saved: the losses collection is saved by default with the debugger "
               "hook on; for a script, define metrics named like \"train:loss\" and "
               "\"validation:loss\" in metric_definitions";
    }

private:
    struct Series {
        std::optional<double> best;
        std::int64_t bestStep = 0;
        std::int64_t stale = 0;
    };
    std::int64_t m_patienceTrain;
    std::int64_t m_patienceValidation;
    double m_delta;
    FirstArrivalFilter m_filter;
    std::map<TensorKey, Series> m_series;
};

class StalledTrainingRule final : public Rule {
public:
    explicit StalledTrainingRule(const RuleParams& p)
        : Rule(p.info().name, RuleKind::Model)
        , m_threshold(p.number("threshold"))
        , m_stopOnFire(p.boolean("stop_training_on_fire"))
        , m_prefix(p.text("training_job_name_prefix")) {
        if (m_threshold <= 0)
            throw RuleConfigError("StalledTrainingRule: parameter threshold must be a positive "
                                  "number of seconds");
    }

    std::string criteria() const override {
        return "no tensor, metric or step timing from any rank for more than threshold=" +
               fmt(m_threshold) + " s (stop_training_on_fire=" + (m_stopOnFire ? "True" : "False") +
               (m_prefix.empty() ? std::string() : ", training_job_name_prefix=" + m_prefix) + ")";
    }

    void start(const JobFacts& facts) override {
        Rule::start(facts);
        m_last = facts.submitTime;
    }

    void onEvent(const wire::Event& e) override {
        if (e.rank < 0)
            return;
        if (const auto* t = e.as<wire::TensorEvent>())
            m_lastStep = std::max(m_lastStep, t->step);
        else if (const auto* s = e.as<wire::StepEvent>())
            m_lastStep = std::max(m_lastStep, s->step);
        else if (!e.as<wire::MetricEvent>())
            return;
        m_last = std::max(m_last, e.t);
    }

    void onTick(double now) override {
        if (m_last <= 0)
            m_last = now; // no submit time: the clock starts with the first tick
        countDatapoints();
        const double gap = now - m_last;
        m_longestGap = std::max(m_longestGap, gap);
        if (gap <= m_threshold)
            return;
        Finding f;
        f.time = now;
        f.step = m_lastStep;
        f.message = "no tensor, metric or step timing from any rank for " + fmt(gap) +
                    " s (threshold " + fmt(m_threshold) + " s)" +
                    (m_lastStep >= 0 ? "; the last data was for step " + std::to_string(m_lastStep)
                                     : std::string("; no step was reported yet"));
        f.recommendation = "Look at the ranks' logs for a hang: a stuck data loader, a deadlocked "
                           "collective or a rank that died silently. Stop the job if it does not "
                           "recover, so it stops costing.";
        fire(std::move(f));
        m_last = now; // fire again only after another threshold
    }

    bool stopsTrainingOnFire() const override {
        return m_stopOnFire && (m_prefix.empty() || facts().jobName.starts_with(m_prefix));
    }

    nlohmann::json details() const override {
        return {{"threshold_s", m_threshold},
                {"longest_gap_s", m_longestGap},
                {"last_data_time", m_last},
                {"last_step", m_lastStep},
                {"fired", fired()}};
    }

protected:
    std::string noDataReason() const override {
        return "the rule got no clock tick: the job ended before it was evaluated";
    }

private:
    double m_threshold;
    bool m_stopOnFire;
    std::string m_prefix;
    double m_last = 0;
    double m_longestGap = 0;
    std::int64_t m_lastStep = -1;
};

} // namespace

std::unique_ptr<Rule> makeLossNotDecreasing(const RuleParams& p) {
    return std::make_unique<LossNotDecreasing>(p);
}
std::unique_ptr<Rule> makeOverfit(const RuleParams& p) {
    return std::make_unique<Overfit>(p);
}
std::unique_ptr<Rule> makeOvertraining(const RuleParams& p) {
    return std::make_unique<Overtraining>(p);
}
std::unique_ptr<Rule> makeStalledTrainingRule(const RuleParams& p) {
    return std::make_unique<StalledTrainingRule>(p);
}

} // namespace studio::debugger::model_rules
