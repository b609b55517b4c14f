// The profiler rules over step timings and framework events: StepOutlier,
// MaxInitializationTime, OverallFrameworkMetrics. Each follows the logic of smdebug's rule of
// the same name, applied to the StepEvents every rank sends and the ProfileEvents of the
// profiled window.
#include "engine/debugger/profiler_rules.h"

#include "engine/plot/stats.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <tuple>

namespace studio::debugger {

namespace {

double stepMs(const wire::StepEvent& s) {
    return s.dataMs + s.forwardMs + s.backwardMs + s.commMs + s.optimizerMs;
}

// SageMaker's mode names.
const char* modeName(wire::Phase p) {
    return p == wire::Phase::Eval ? "EVAL" : "TRAIN";
}

std::string rankName(int rank) {
    return "rank " + std::to_string(rank);
}

double share(double part, double total) {
    return total > 0 ? 100.0 * part / total : 0.0;
}

class StepOutlier final : public ScanningRule {
public:
    // smdebug evaluates a series only once it holds more than this many steps.
    static constexpr std::size_t kMinSteps = 100;
    static constexpr std::size_t kListedOutliers = 50;

    explicit StepOutlier(const RuleParams& p)
        : ScanningRule(p)
        , m_stddev(numberAtLeast(p, "stddev", 0))
        , m_nOutliers(integerAtLeast(p, "n_outliers", 0)) {
        std::string mode = p.text("mode");
        for (auto& c : mode)
            c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        if (mode.rfind("MODEKEYS.", 0) == 0)
            mode = mode.substr(9);
        if (mode == "TRAIN")
            m_mode = wire::Phase::Train;
        else if (mode == "EVAL")
            m_mode = wire::Phase::Eval;
        else if (!mode.empty())
            throw RuleConfigError(
                "StepOutlier: parameter mode must be TRAIN, EVAL or None, got \"" + p.text("mode") +
                "\"");
    }

    std::string criteria() const override {
        return "For each rank and mode (" + modeText() + ") with more than " +
               std::to_string(kMinSteps) + " steps: more than " + std::to_string(m_nOutliers) +
               " step durations exceed the mean + " + formatNumber(m_stddev) +
               " x the standard deviation of its step durations.";
    }

    nlohmann::json details() const override {
        nlohmann::json d = parameterDetails();
        d["min_steps"] = kMinSteps;
        d["violations"] = m_violations;
        nlohmann::json ranks = nlohmann::json::array();
        for (const auto& [key, series] : m_series) {
            const Stats s = stats(series);
            std::vector<double> sorted = series.ms;
            std::sort(sorted.begin(), sorted.end());
            nlohmann::json listed = nlohmann::json::array();
            for (std::size_t i = 0; i < s.outlierSteps.size() && i < kListedOutliers; ++i)
                listed.push_back(s.outlierSteps[i]);
            ranks.push_back({{"node", std::get<0>(key)},
                             {"rank", std::get<1>(key)},
                             {"phase", modeName(std::get<2>(key))},
                             {"steps", series.ms.size()},
                             {"mean_ms", s.mean},
                             {"std_ms", s.std},
                             {"threshold_ms", s.threshold},
                             {"max_ms", sorted.back()},
                             {"p99_ms", plot::sortedPercentile(sorted, 99)},
                             {"p95_ms", plot::sortedPercentile(sorted, 95)},
                             {"p50_ms", plot::sortedPercentile(sorted, 50)},
                             {"min_ms", sorted.front()},
                             {"outliers", s.outlierSteps.size()},
                             {"outlier_steps", std::move(listed)}});
        }
        d["ranks"] = std::move(ranks);
        return d;
    }

protected:
    std::string noDataReason() const override {
        return m_mode ? "no " + modeText() + " step was recorded" : "no step timings were recorded";
    }

private:
    using Key = std::tuple<int, int, wire::Phase>;
    struct Series {
        std::vector<double> ms;
        std::vector<std::int64_t> steps;
    };
    struct Stats {
        double mean = 0, std = 0, threshold = 0;
        std::vector<std::int64_t> outlierSteps;
        double slowestMs = 0;
        std::int64_t slowestStep = -1;
    };

    std::string modeText() const {
        return m_mode ? modeName(*m_mode) : std::string("TRAIN and EVAL");
    }

    Stats stats(const Series& s) const {
        Stats out;
        out.mean = plot::mean(s.ms);
        out.std = plot::stddev(s.ms);
        out.threshold = out.mean + m_stddev * out.std;
        for (std::size_t i = 0; i < s.ms.size(); ++i) {
            if (s.ms[i] <= out.threshold)
                continue;
            out.outlierSteps.push_back(s.steps[i]);
            if (s.ms[i] > out.slowestMs) {
                out.slowestMs = s.ms[i];
                out.slowestStep = s.steps[i];
            }
        }
        return out;
    }

    bool take(const wire::Event& e) override {
        const auto* step = e.as<wire::StepEvent>();
        if (!step || (m_mode && step->phase != *m_mode))
            return false;
        Series& s = m_series[{e.node, e.rank, step->phase}];
        s.ms.push_back(stepMs(*step));
        s.steps.push_back(step->step);
        countDatapoints();
        return true;
    }

    void evaluate(double time) override {
        const Key* worst = nullptr;
        Stats worstStats;
        int count = 0;
        for (const auto& [key, series] : m_series) {
            if (series.ms.size() <= kMinSteps)
                continue;
            Stats s = stats(series);
            if (static_cast<std::int64_t>(s.outlierSteps.size()) <= m_nOutliers)
                continue;
            ++m_violations;
            ++count;
            if (!worst || s.outlierSteps.size() > worstStats.outlierSteps.size()) {
                worst = &key;
                worstStats = std::move(s);
            }
        }
        if (!worst)
            return;
        const auto& [node, rank, phase] = *worst;
        Finding f;
        f.time = time;
        f.node = node;
        f.device = rankName(rank);
        f.step = worstStats.slowestStep;
        f.message = rankName(rank) + " of node " + std::to_string(node) + " (" + modeName(phase) +
                    "): " + std::to_string(worstStats.outlierSteps.size()) + " of " +
                    std::to_string(m_series.at(*worst).ms.size()) + " steps took longer than " +
                    formatNumber(worstStats.threshold) + " ms (mean " +
                    formatNumber(worstStats.mean) + " ms + " + formatNumber(m_stddev) + " x std " +
                    formatNumber(worstStats.std) + " ms), more than " +
                    std::to_string(m_nOutliers) + " allowed; the slowest, step " +
                    std::to_string(worstStats.slowestStep) + ", took " +
                    formatNumber(worstStats.slowestMs) + " ms";
        if (count > 1)
            f.message += "; " + std::to_string(count - 1) + " more rank/mode series show the same";
        f.recommendation =
            "Find what the slow steps do differently: checkpoint saves, evaluation or logging "
            "inside the loop, data-loader stalls, garbage collection, or another process on the "
            "host. Compare their phases (data, forward, backward, comm) in the step timeline.";
        fire(std::move(f));
    }

    double m_stddev;
    std::int64_t m_nOutliers;
    std::optional<wire::Phase> m_mode;
    std::map<Key, Series> m_series;
    std::int64_t m_violations = 0;
};

class MaxInitializationTime final : public Rule {
public:
    explicit MaxInitializationTime(const RuleParams& p)
        : Rule(p.info().name, RuleKind::Profiler)
        , m_params(p)
        , m_minutes(numberAtLeast(p, "threshold", 0)) {
        integerAtLeast(p, "scan_interval_us", 1);
    }

    void start(const JobFacts& facts) override {
        Rule::start(facts);
        if (facts.submitTime > 0)
            m_start = facts.submitTime;
    }

    void onEvent(const wire::Event& e) override {
        if (!m_start)
            m_start = e.t; // no submit time: the job's first event stands in
        const auto* step = e.as<wire::StepEvent>();
        if (!step || m_firstStep)
            return;
        // The event arrives when the step ends; the loop started when the step began.
        m_firstStep = e.t - stepMs(*step) / 1000.0;
        countDatapoints();
        const double init = *m_firstStep - *m_start;
        if (init > limit() && fired() == 0)
            report(e.t, step->step,
                   "Training started " + formatNumber(init) +
                       " s after submission: the first step came later than the " +
                       formatNumber(m_minutes) + " minute limit");
    }

    void onTick(double now) override { checkWaiting(now); }

    void finish(double now) override {
        checkWaiting(now);
        if (!m_firstStep && fired() == 0)
            setNotApplicable(m_start ? "the job ended " + formatNumber(now - *m_start) +
                                           " s after submission, before its first training step"
                                     : "no training step was recorded");
        Rule::finish(now);
    }

    std::string criteria() const override {
        return "No training step within " + formatNumber(m_minutes) + " minutes (" +
               formatNumber(limit()) + " s) of the job's submission.";
    }

    nlohmann::json details() const override {
        nlohmann::json d = parameterDetails(m_params);
        d["threshold_minutes"] = m_minutes;
        d["submit_time"] = m_start ? nlohmann::json(*m_start) : nullptr;
        d["first_step_time"] = nullptr;
        d["initialization_seconds"] = nullptr;
        if (m_firstStep && m_start) {
            d["first_step_time"] = *m_firstStep;
            d["initialization_seconds"] = *m_firstStep - *m_start;
        } else if (m_start && m_lastCheck) {
            d["waited_seconds"] = *m_lastCheck - *m_start;
        }
        return d;
    }

protected:
    std::string noDataReason() const override { return "no training step was recorded"; }

private:
    double limit() const { return m_minutes * 60.0; }

    void checkWaiting(double now) {
        if (m_firstStep || !m_start)
            return;
        m_lastCheck = now;
        if (now - *m_start > limit() && fired() == 0)
            report(now, -1,
                   "No training step after " + formatNumber(now - *m_start) +
                       " s: initialization takes longer than the " + formatNumber(m_minutes) +
                       " minute limit");
    }

    void report(double time, std::int64_t step, std::string message) {
        Finding f;
        f.time = time;
        f.step = step;
        f.message = std::move(message);
        f.recommendation =
            "Find where start-up time goes: downloading or decompressing the data set (stream "
            "it or stage it once), installing packages at start (build them into the image or "
            "environment), and heavy model or tokenizer set-up before the first step.";
        fire(std::move(f));
    }

    RuleParams m_params;
    double m_minutes;
    std::optional<double> m_start, m_firstStep, m_lastCheck;
};

class OverallFrameworkMetrics final : public Rule {
public:
    static constexpr double kMinEventPercent = 2.0;
    static constexpr std::size_t kTopEvents = 20;

    explicit OverallFrameworkMetrics(const RuleParams& p)
        : Rule(p.info().name, RuleKind::Profiler)
        , m_params(p) {
        integerAtLeast(p, "scan_interval_us", 1);
    }

    void onEvent(const wire::Event& e) override {
        if (const auto* s = e.as<wire::StepEvent>()) {
            countDatapoints();
            ++m_steps;
            const std::array<double, 5> phases = {s->dataMs, s->forwardMs, s->backwardMs, s->commMs,
                                                  s->optimizerMs};
            for (std::size_t i = 0; i < phases.size(); ++i)
                m_phaseMs[i] += phases[i];
            const double ms = stepMs(*s);
            (s->phase == wire::Phase::Train ? m_trainMs : m_evalMs) += ms;
            Span& span = m_spans[{e.node, e.rank}];
            const double begin = e.t - ms / 1000.0;
            span.first = span.seen ? std::min(span.first, begin) : begin;
            span.seen = true;
            span.last = std::max(span.last, e.t);
            span.busyMs += ms;
        } else if (const auto* pe = e.as<wire::ProfileEvent>()) {
            countDatapoints();
            ++m_events;
            m_categoryMs[pe->category] += pe->durationMs;
            EventTotal& t = m_byName[pe->name];
            if (t.category.empty())
                t.category = pe->category;
            ++t.calls;
            t.totalMs += pe->durationMs;
        }
    }

    std::string criteria() const override {
        return "Never fires: time per step phase, TRAIN/EVAL share, forward/backward ratio and "
               "the framework events taking " +
               formatNumber(kMinEventPercent) + "% or more of the profiled time.";
    }

    nlohmann::json details() const override {
        nlohmann::json d = parameterDetails(m_params);
        d["steps"] = m_steps;
        static constexpr std::array<const char*, 5> kPhases = {"data", "forward", "backward",
                                                               "comm", "optimizer"};
        double stepTotal = 0;
        for (double v : m_phaseMs)
            stepTotal += v;
        nlohmann::json phaseMs = nlohmann::json::object(), phasePercent = nlohmann::json::object();
        for (std::size_t i = 0; i < kPhases.size(); ++i) {
            phaseMs[kPhases[i]] = m_phaseMs[i];
            phasePercent[kPhases[i]] = share(m_phaseMs[i], stepTotal);
        }
        d["phase_time_ms"] = std::move(phaseMs);
        d["phase_percent"] = std::move(phasePercent);

        // Time between steps of a rank (evaluation set-up, checkpoints, logging) is "others".
        double othersMs = 0;
        for (const auto& [key, span] : m_spans)
            othersMs += std::max(0.0, (span.last - span.first) * 1000.0 - span.busyMs);
        const double modeTotal = m_trainMs + m_evalMs + othersMs;
        d["mode_time_ms"] = {{"TRAIN", m_trainMs}, {"EVAL", m_evalMs}, {"others", othersMs}};
        d["mode_percent"] = {{"TRAIN", share(m_trainMs, modeTotal)},
                             {"EVAL", share(m_evalMs, modeTotal)},
                             {"others", share(othersMs, modeTotal)}};

        const double fwd = m_phaseMs[1], bwd = m_phaseMs[2];
        d["forward_backward"] = {{"forward_percent", share(fwd, fwd + bwd)},
                                 {"backward_percent", share(bwd, fwd + bwd)},
                                 {"ratio", bwd > 0 ? nlohmann::json(fwd / bwd) : nullptr}};

        d["framework_events"] = m_events;
        double eventTotal = 0;
        nlohmann::json categoryMs = nlohmann::json::object();
        for (const auto& [category, ms] : m_categoryMs) {
            categoryMs[category] = ms;
            eventTotal += ms;
        }
        nlohmann::json categoryPercent = nlohmann::json::object();
        for (const auto& [category, ms] : m_categoryMs)
            categoryPercent[category] = share(ms, eventTotal);
        d["category_time_ms"] = std::move(categoryMs);
        d["category_percent"] = std::move(categoryPercent);

        std::vector<std::pair<std::string, const EventTotal*>> sorted;
        for (const auto& [name, t] : m_byName)
            if (share(t.totalMs, eventTotal) >= kMinEventPercent)
                sorted.emplace_back(name, &t);
        std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
            return a.second->totalMs > b.second->totalMs ||
                   (a.second->totalMs == b.second->totalMs && a.first < b.first);
        });
        if (sorted.size() > kTopEvents)
            sorted.resize(kTopEvents);
        nlohmann::json top = nlohmann::json::array();
        for (const auto& [name, t] : sorted)
            top.push_back({{"name", name},
                           {"category", t->category},
                           {"calls", t->calls},
                           {"total_ms", t->totalMs},
                           {"percent", share(t->totalMs, eventTotal)}});
        d["top_events"] = std::move(top);
        return d;
    }

protected:
    std::string noDataReason() const override {
        return "no step timings or framework events were recorded";
    }

private:
    struct Span {
        bool seen = false;
        double first = 0, last = 0, busyMs = 0;
    };
    struct EventTotal {
        std::string category;
        std::int64_t calls = 0;
        double totalMs = 0;
    };

    RuleParams m_params;
    std::int64_t m_steps = 0, m_events = 0;
    std::array<double, 5> m_phaseMs{};
    double m_trainMs = 0, m_evalMs = 0;
    std::map<std::pair<int, int>, Span> m_spans;
    std::map<std::string, double> m_categoryMs;
    std::map<std::string, EventTotal> m_byName;
};

} // namespace

std::unique_ptr<Rule> makeFrameworkProfilerRule(const RuleParams& params) {
    const std::string& name = params.info().name;
    if (name == "StepOutlier")
        return std::make_unique<StepOutlier>(params);
    if (name == "MaxInitializationTime")
        return std::make_unique<MaxInitializationTime>(params);
    if (name == "OverallFrameworkMetrics")
        return std::make_unique<OverallFrameworkMetrics>(params);
    return nullptr;
}

} // namespace studio::debugger
