// The loop of one tuning job: launches the search's proposals as training jobs, follows their
// objective through the store, stops the unpromising ones early and ends the tuning job when its
// budget, a completion criterion, a stop request or its runtime limit says so.
#include "engine/control/tuning_run.h"

#include "engine/spec/spec_json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

namespace studio::control {

namespace {

using Clock = std::chrono::system_clock;

double now() {
    return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

bool isTerminal(const std::string& status) {
    return status == "Completed" || status == "Failed" || status == "Stopped";
}

std::string fixed(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

std::vector<tune::TrialRecord> searchRecords(const TuningRun& run) {
    std::vector<tune::TrialRecord> out;
    for (const auto& i : run.inherited)
        out.push_back({i.point, tune::TrialState::Completed, i.value});
    for (const auto& t : run.trials) {
        if (t.row.resumedFrom >= 0)
            continue; // a configuration goes to the search once, by the job that first ran it
        tune::TrialRecord r;
        r.point = t.row.point;
        r.value = t.row.objective;
        r.state = t.row.state == "Completed" ? tune::TrialState::Completed
                  : t.row.state == "Stopped" ? tune::TrialState::Stopped
                  : t.row.state == "Failed"  ? tune::TrialState::Failed
                                             : tune::TrialState::Pending;
        out.push_back(std::move(r));
    }
    return out;
}

// The training job's spec for a configuration: the template's document with the tuned values
// set, parsed again, so the spec the job records and its ranks read carries them.
spec::JobSpec trialSpec(const TuningRun& run, const tune::Point& point, int ordinal,
                        std::map<std::string, std::string>& tuned,
                        const std::string& checkpointDir) {
    nlohmann::json doc = nlohmann::json::parse(run.spec.training.effectiveJson);
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "-%03d", ordinal + 1);
    doc["name"] = run.spec.name + suffix;
    doc.erase("base_job_name");
    auto& hyperparameters = doc["hyperparameters"];
    for (std::size_t i = 0; i < run.spec.ranges.size(); ++i) {
        const tune::ParameterRange& range = run.spec.ranges[i];
        const std::string text = tune::valueText(range, point[i]);
        tuned[range.name] = text;
        char* end = nullptr;
        const double number = std::strtod(text.c_str(), &end);
        const bool numeric = !text.empty() && end && *end == '\0';
        if (range.type == tune::ParameterType::Categorical) {
            // A categorical value keeps the JSON type it was written with (128, true, "adam").
            const auto value = nlohmann::json::parse(text, nullptr, false);
            hyperparameters[range.name] =
                !value.is_discarded() && (value.is_number() || value.is_boolean())
                    ? value
                    : nlohmann::json(text);
        } else if (numeric && range.type == tune::ParameterType::Integer) {
            hyperparameters[range.name] = static_cast<std::int64_t>(std::llround(number));
        } else if (numeric) {
            hyperparameters[range.name] = number;
        } else {
            hyperparameters[range.name] = text;
        }
    }
    if (run.hyperband)
        hyperparameters[run.spec.hyperband.resource] = run.hyperband->maxResource;
    if (!checkpointDir.empty())
        doc["checkpoint_local_path"] = checkpointDir;
    if (!doc.contains("experiment_config"))
        doc["experiment_config"] = {{"ExperimentName", run.name}};
    if (!doc.contains("tags"))
        doc["tags"] = nlohmann::json::array();
    doc["tags"].push_back({{"Key", "mlstudio:tuning-job"}, {"Value", run.name}});
    spec::ParseResult r = spec::parseSpecJson(doc, run.spec.training.baseDir, {false});
    if (!r.ok())
        throw std::runtime_error("training job " + std::to_string(ordinal + 1) + " of " + run.name +
                                 ": " + spec::SpecException(r.errors).what());
    return *r.spec;
}

int configCount(const TuningRun& run) {
    return static_cast<int>(std::count_if(run.trials.begin(), run.trials.end(),
                                          [](const auto& t) { return t.row.resumedFrom < 0; }));
}

// Launches a configuration as a training job. resumedFrom >= 0: Hyperband promotes the
// configuration of that stopped job, which goes on from its checkpoint (every job of a
// configuration shares one checkpoint folder).
void launch(TuningRun& run, TuningLoopContext& ctx, const tune::Point& point, int resumedFrom) {
    TuningTrial t;
    t.row.ordinal = static_cast<int>(run.trials.size());
    t.row.resumedFrom = resumedFrom;
    t.row.point = point;
    std::string checkpointDir;
    if (run.hyperband) {
        int root = t.row.ordinal;
        if (resumedFrom >= 0) {
            const TuningTrial& from = run.trials[static_cast<std::size_t>(resumedFrom)];
            root = rootOrdinal(run, from);
            t.row.bracket = from.row.bracket;
        } else {
            t.row.bracket = run.hyperband->bracketOf(configCount(run));
        }
        checkpointDir = checkpointFolder(run, root);
    }
    const spec::JobSpec job =
        trialSpec(run, point, t.row.ordinal, t.row.hyperparameters, checkpointDir);
    const SubmittedJob submitted = ctx.controller.submit(job);
    ctx.launched(submitted.name);
    t.row.component = submitted.id;
    t.row.job = submitted.name;
    t.row.status = "InProgress";
    ctx.writer.putTuningTrainingJob(run.id, t.row);
    run.trials.push_back(std::move(t));
}

// Launches the search's next proposal; false when the search has nothing left.
bool launchTrial(TuningRun& run, TuningLoopContext& ctx) {
    std::optional<tune::Point> point = run.searcher->propose(searchRecords(run));
    if (!point)
        return false;
    launch(run, ctx, *point, -1);
    return true;
}

// The objective's points as one value per report, rank 0's, in step order.
// Then the values reported since, which the store may not hold yet.
tune::Curve curveOf(const std::vector<store::MetricPoint>& points,
                    const std::vector<std::pair<std::int64_t, double>>& observed) {
    tune::Curve c;
    std::int64_t last = -1;
    auto add = [&](std::int64_t step, double value) {
        if (!std::isfinite(value) || (step < last && !c.empty()))
            return;
        if (step == last && !c.empty())
            c.back() = value;
        else
            c.push_back(value);
        last = step;
    };
    for (const auto& p : points)
        if (p.rank == 0)
            add(p.step, p.value);
    for (const auto& [step, value] : observed)
        if (step > last || c.empty())
            add(step, value);
    return c;
}

struct EarlyStop {
    bool stop = false;
    std::string reason;
};

EarlyStop decideEarlyStop(const TuningRun& run, const TuningTrial& t, const tune::Curve& prefix) {
    const bool maximize = run.spec.maximize;
    std::vector<tune::Curve> others;
    if (run.hyperband) {
        const tune::HyperbandDecision d = tune::hyperbandDecision(
            *run.hyperband, t.row.bracket, prefix, bracketCurves(run, t), maximize);
        if (!d.stop)
            return {};
        return {true, "Stopped early by Hyperband (bracket " + std::to_string(t.row.bracket) +
                          "): its objective " + fixed(prefix.back()) + " after " +
                          std::to_string(d.rung) + " " + run.spec.hyperband.resource +
                          " is not among the best of its rung"};
    }
    if (!run.spec.earlyStoppingAuto)
        return {};
    for (const auto& o : run.trials)
        if (o.row.ordinal < t.row.ordinal)
            others.push_back(o.curve);
    const tune::MedianRuleDecision d = tune::medianRule(prefix, others, maximize);
    if (!d.stop)
        return {};
    return {true, "Stopped early by the median rule: running average " + fixed(d.runningAverage) +
                      " after epoch " + std::to_string(prefix.size()) +
                      " is worse than the median " + fixed(d.median) + " of " +
                      std::to_string(d.compared) + " earlier jobs"};
}

void askStop(TuningRun& run, TuningLoopContext& ctx, TuningTrial& t, const std::string& reason,
             bool early) {
    if (t.stopAsked)
        return;
    t.stopAsked = true;
    if (early) {
        t.row.stoppedEarly = true;
        t.row.stopReason = reason;
        ctx.writer.setTuningTrainingOutcome(run.id, t.row.ordinal, t.row.state, std::nullopt, true,
                                            reason);
    }
    ctx.controller.stop(t.row.job, reason, "Stopped");
}

struct LoopState {
    bool stopping = false; // no more launches; running jobs asked to stop
    std::string endStatus; // what the tuning job ends as once nothing runs
    std::string endMessage;
    bool exhausted = false;       // the search has nothing left to propose
    std::vector<double> endOrder; // objectives of the ended jobs, in the order they ended
};

// Reads the trials' curves and statuses from the store, records the ones that ended and stops
// the unpromising ones early.
void refresh(TuningRun& run, TuningLoopContext& ctx, store::StoreReader& reader, LoopState& s) {
    const auto curves = reader.tuningCurves(run.id);
    const auto rows = reader.tuningTrainingJobs(run.id);
    std::map<std::string, std::vector<std::pair<std::int64_t, double>>> observed;
    {
        std::lock_guard lock(run.mutex);
        observed = run.observed;
    }
    static const std::vector<store::MetricPoint> none;
    for (TuningTrial& t : run.trials) {
        const auto c = curves.find(t.row.component);
        const auto o = observed.find(t.row.job);
        t.curve = curveOf(c != curves.end() ? c->second : none,
                          o != observed.end() ? o->second : decltype(o->second){});
        const auto r = std::find_if(rows.begin(), rows.end(),
                                    [&](const auto& x) { return x.ordinal == t.row.ordinal; });
        if (r != rows.end())
            t.row.status = r->status;
    }
    for (TuningTrial& t : run.trials) {
        if (t.row.state != "Pending")
            continue;
        if (isTerminal(t.row.status)) {
            t.row.state = t.row.status;
            if (t.row.state != "Failed" && !t.curve.empty())
                t.row.objective = t.curve.back();
            ctx.writer.setTuningTrainingOutcome(run.id, t.row.ordinal, t.row.state, t.row.objective,
                                                t.row.stoppedEarly, t.row.stopReason);
            if (t.row.objective)
                s.endOrder.push_back(*t.row.objective);
            continue;
        }
        // A job continuing a configuration decides on the configuration's whole curve.
        const tune::Curve chain = chainCurve(run, t);
        const std::size_t before = chain.size() - t.curve.size();
        for (; t.decidedUpTo < t.curve.size() && !t.stopAsked && !s.stopping; ++t.decidedUpTo) {
            const tune::Curve prefix(chain.begin(),
                                     chain.begin() + static_cast<long>(before + t.decidedUpTo + 1));
            const EarlyStop e = decideEarlyStop(run, t, prefix);
            if (e.stop)
                askStop(run, ctx, t, e.reason, true);
        }
    }
}

int runningCount(const TuningRun& run) {
    return static_cast<int>(std::count_if(run.trials.begin(), run.trials.end(),
                                          [](const auto& t) { return t.row.state == "Pending"; }));
}

void stopAll(TuningRun& run, TuningLoopContext& ctx, LoopState& s, const std::string& status,
             const std::string& message, const std::string& jobReason) {
    if (s.stopping)
        return;
    s.stopping = true;
    s.endStatus = status;
    s.endMessage = message;
    if (runningCount(run) > 0)
        ctx.writer.setTuningStatus(run.id, "Stopping", message, now());
    for (TuningTrial& t : run.trials)
        if (t.row.state == "Pending")
            askStop(run, ctx, t, jobReason, false);
}

// Training jobs failed and none succeeded yet: the spec is broken, and more of them would fail
// too.
std::optional<std::string> hopelessFailure(const TuningRun& run, store::StoreReader& reader) {
    const int needed = std::min(3, run.spec.maxJobs);
    int failed = 0;
    const TuningTrial* last = nullptr;
    for (const auto& t : run.trials) {
        if (t.row.state == "Completed" || t.row.state == "Stopped")
            return std::nullopt;
        if (t.row.state == "Failed") {
            ++failed;
            last = &t;
        }
    }
    if (failed < needed || !last)
        return std::nullopt;
    std::string why;
    if (auto c = reader.component(last->row.job))
        why = c->failureReason;
    return std::to_string(failed) + " training jobs failed and none succeeded" +
           (why.empty() ? std::string() : " (the last: " + why + ")");
}

void updateProgress(TuningRun& run, const std::string& status, const std::string& message,
                    TuningLoopContext& ctx) {
    TuningProgress p;
    p.name = run.name;
    p.id = run.id;
    p.status = status;
    p.message = message;
    p.maxJobs = run.spec.maxJobs;
    p.time = now();
    for (const auto& t : run.trials) {
        store::TuningCounters& c = p.counters;
        ++c.total;
        if (t.row.resumedFrom >= 0)
            ++c.resumed;
        if (t.row.state == "Completed")
            ++c.completed;
        else if (t.row.state == "Stopped")
            ++(t.row.stoppedEarly ? c.stoppedEarly : c.stopped);
        else if (t.row.state == "Failed")
            ++c.failed;
        else
            ++c.inProgress;
        if (!t.row.objective || t.row.state == "Pending")
            continue;
        ++c.objectiveSucceeded;
        const double v = *t.row.objective;
        if (!p.best || (run.spec.maximize ? v > *p.best : v < *p.best)) {
            p.best = v;
            p.bestJob = t.row.job;
        }
    }
    {
        std::lock_guard lock(run.mutex);
        run.progress = p;
    }
    ctx.report(p);
}

// One pass: what ended, what to stop, what to launch. Returns true when the tuning job ended.
bool step(TuningRun& run, TuningLoopContext& ctx, store::StoreReader& reader, LoopState& s) {
    refresh(run, ctx, reader, s);
    if (reader.tuningStatus(run.id) == "Stopping")
        run.stopRequested = true;
    if (run.stopRequested)
        stopAll(run, ctx, s, "Stopped", "Stopped by the user",
                "Stopped: its tuning job " + run.name + " was stopped");
    if (!s.stopping) {
        if (auto failure = hopelessFailure(run, reader))
            stopAll(run, ctx, s, "Failed", *failure, "Stopped: its tuning job failed");
    }
    if (!s.stopping && run.spec.maxRuntimeSeconds > 0 &&
        now() - run.created > static_cast<double>(run.spec.maxRuntimeSeconds))
        stopAll(run, ctx, s, "Stopped",
                "max_runtime_in_seconds (" + std::to_string(run.spec.maxRuntimeSeconds) +
                    ") reached",
                "Stopped: its tuning job reached its max_runtime_in_seconds");
    if (!s.stopping) {
        const CompletionCheck c = checkCompletion(run.spec, s.endOrder);
        if (c.complete)
            stopAll(run, ctx, s, "Completed", c.reason,
                    "Stopped: its tuning job completed (" + c.reason + ")");
    }
    // A free slot goes first to a configuration Hyperband promotes, then to a new one; max_jobs
    // counts configurations.
    while (!s.stopping && runningCount(run) < run.spec.maxParallelJobs) {
        if (auto promoted = promotableTrial(run)) {
            launch(run, ctx, run.trials[static_cast<std::size_t>(*promoted)].row.point, *promoted);
            continue;
        }
        if (s.exhausted || configCount(run) >= run.spec.maxJobs)
            break;
        s.exhausted = !launchTrial(run, ctx);
    }
    const int running = runningCount(run);
    if (running == 0 && !s.stopping && (s.exhausted || configCount(run) >= run.spec.maxJobs)) {
        s.stopping = true;
        s.endStatus = "Completed";
        s.endMessage =
            s.exhausted && configCount(run) < run.spec.maxJobs
                ? "every configuration of the search ran"
            : run.trials.size() > static_cast<std::size_t>(run.spec.maxJobs)
                ? "max_jobs (" + std::to_string(run.spec.maxJobs) + ") configurations ran, in " +
                      std::to_string(run.trials.size()) + " training jobs"
                : "max_jobs (" + std::to_string(run.spec.maxJobs) + ") training jobs ran";
    }
    if (s.stopping && running == 0) {
        ctx.writer.setTuningStatus(run.id, s.endStatus, s.endMessage, now());
        ctx.writer.flush();
        updateProgress(run, s.endStatus, s.endMessage, ctx);
        return true;
    }
    updateProgress(run, s.stopping ? "Stopping" : "InProgress", s.endMessage, ctx);
    return false;
}

} // namespace

void TuningRun::notify() {
    {
        std::lock_guard lock(mutex);
        woken = true;
    }
    wake.notify_all();
}

CompletionCheck checkCompletion(const tune::TuningSpec& spec,
                                const std::vector<double>& objectives) {
    const tune::CompletionCriteria& c = spec.completion;
    const bool max = spec.maximize;
    auto better = [max](double a, double b) {
        return max ? a > b : a < b;
    };
    std::optional<double> best;
    std::size_t bestAt = 0;
    for (std::size_t i = 0; i < objectives.size(); ++i)
        if (!best || better(objectives[i], *best)) {
            best = objectives[i];
            bestAt = i;
        }
    if (!best)
        return {};
    if (c.targetObjectiveMetricValue &&
        (max ? *best >= *c.targetObjectiveMetricValue : *best <= *c.targetObjectiveMetricValue))
        return {true, "the objective reached target_objective_metric_value (" +
                          fixed(*c.targetObjectiveMetricValue) + ")"};
    const std::size_t since = objectives.size() - 1 - bestAt;
    if (c.maxNumberOfTrainingJobsNotImproving > 0 &&
        since >= static_cast<std::size_t>(c.maxNumberOfTrainingJobsNotImproving))
        return {true, std::to_string(since) + " training jobs in a row did not improve the best "
                                              "objective"};
    if (c.completeOnConvergence) {
        // Converged: over the last quarter of the jobs (at least 10, after at least 20), the best
        // objective improved by less than 0.1% of the range of objectives seen.
        const std::size_t n = objectives.size();
        const std::size_t window = std::max<std::size_t>(10, n / 4);
        if (n >= 20 && n > window) {
            std::optional<double> before;
            for (std::size_t i = 0; i + window < n; ++i)
                if (!before || better(objectives[i], *before))
                    before = objectives[i];
            const auto [lo, hi] = std::minmax_element(objectives.begin(), objectives.end());
            const double range = *hi - *lo;
            if (before && std::abs(*best - *before) <= 1e-3 * range)
                return {true, "the search converged: the last " + std::to_string(window) +
                                  " training jobs improved the best objective by less than 0.1% "
                                  "of the objectives' range"};
        }
    }
    return {};
}

void runTuningLoop(TuningRun& run, TuningLoopContext& ctx) {
    store::StoreReader reader(ctx.writer.path());
    LoopState s;
    // A resumed run: the jobs that ended before count for the completion criteria.
    std::vector<const TuningTrial*> finished;
    for (const auto& t : run.trials)
        if (t.row.state != "Pending" && t.row.objective)
            finished.push_back(&t);
    std::sort(finished.begin(), finished.end(), [](const TuningTrial* a, const TuningTrial* b) {
        return a->row.ended < b->row.ended;
    });
    for (const TuningTrial* t : finished)
        s.endOrder.push_back(*t->row.objective);

    while (!run.leave) {
        bool ended = false;
        try {
            ended = step(run, ctx, reader, s);
        } catch (const std::exception& e) {
            // A training job that cannot start (its cluster is gone, the disk is full): the
            // tuning job fails with the reason, after stopping what runs.
            stopAll(run, ctx, s, "Failed", e.what(), "Stopped: its tuning job failed");
        }
        if (ended)
            break;
        std::unique_lock lock(run.mutex);
        run.wake.wait_for(lock, std::chrono::milliseconds(s.stopping ? 250 : 1000),
                          [&] { return run.woken || run.leave.load(); });
        run.woken = false;
    }
    std::lock_guard lock(run.mutex);
    run.done = true;
    run.finalStatus = run.progress.status;
    run.wake.notify_all();
}

} // namespace studio::control
