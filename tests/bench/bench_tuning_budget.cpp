// Compute saved by early stopping in tuning jobs: Hyperband, and Bayesian with Auto early stopping
// (the median rule), against a full-budget Random search of the same number of configurations of
// builtin:fmnist-cnn on Fashion-MNIST. Random and Hyperband share the random seed, so they train
// the same configurations (Hyperband's are drawn as Random's; a check holds it); Bayesian
// proposes its own from the same seed. All three run under the same conditions: the same
// controller, data, batch size, threads per job, max_parallel_jobs and evaluation, one after the
// other (Random, Bayesian, Hyperband). A job's training steps are its largest checkpoint step: the
// built-in trainer checkpoints where it is stopped and at its end (checkpoint-interval 0 writes
// only those); steps do not depend on the machine's load, wall times do (reported, no goal).
// Goals: each early-stopping strategy reaches Random's best accuracy within 0.5 points with at
// most 40 % of Random's training steps.
// Sizes: full (the default) 20 configurations x 9 epochs of 1,800 samples (eval 1,000), 2 jobs at
// a time: 23 minutes measured on 2 cores shared with other work (load average ~7); it is
// CPU-bound training, shorter on idle cores. The goals are stated for this size (--configs and
// --epochs size it down). --quick (ctest) 4 configurations x 3 epochs of 600 samples, enough
// that both early-stopping rules may stop a job (under a minute).
// Usage: bench_tuning_budget [--quick] [--json FILE] [--full] [--configs N] [--epochs E]
// [--train-samples N] [--eval-samples N] [--parallel P] [--threads T] [--seed S] [--data DIR]
// (--full is accepted as a synonym of the default full mode.) Checks: the three tuning jobs
// complete, every training job leaves a checkpoint, completed jobs trained their whole budget,
// Random and Hyperband trained the same configurations, and the figures are finite. It never
// fails on a ratio or a time.
#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/control/tuner.h"
#include "engine/store/store_reader.h"
#include "engine/tune/tuning_parser.h"
#include "tests/bench/bench_support.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace studio;
using nlohmann::json;
using nlohmann::ordered_json;

namespace {

constexpr double kAccuracyTolerancePoints = 0.5;
constexpr double kStepsRatioGoal = 0.40;

// What every strategy runs under.
struct Conditions {
    int configurations = 20; // max_jobs of every strategy
    int epochs = 9;          // the full budget; Hyperband's max_resource (3 brackets)
    int trainSamples = 1800;
    int evalSamples = 1000;
    int parallel = 2; // max_parallel_jobs
    int threads = 1;  // intra-op threads of each training job
    std::uint64_t seed = 17;
    std::string data = "/usr/share/datasets/fashion-mnist";
};

Conditions shortConditions() {
    Conditions c;
    // Enough jobs and epochs that both early-stopping rules may stop one (and its checkpoint
    // counts): the median rule compares with 3 earlier jobs, Hyperband has a rung below 3.
    c.configurations = 4;
    c.epochs = 3;
    c.trainSamples = 600;
    c.evalSamples = 300;
    return c;
}

json rangesJson() {
    return {{"lr",
             {{"type", "Continuous"},
              {"min_value", 0.001},
              {"max_value", 0.3},
              {"scaling_type", "Logarithmic"}}},
            {"momentum", {{"type", "Continuous"}, {"min_value", 0.0}, {"max_value", 0.95}}},
            {"optimizer", {{"type", "Categorical"}, {"values", {"sgd", "adam"}}}}};
}

// One batch size for every job, so that a step is the same work in every configuration.
constexpr int kBatchSize = 64;

ordered_json conditionsJson(const Conditions& c) {
    return {
        {"model", "builtin:fmnist-cnn"},
        {"dataset", "Fashion-MNIST (" + c.data + ")"},
        {"train_samples", c.trainSamples},
        {"eval_samples", c.evalSamples},
        {"epochs_full_budget", c.epochs},
        {"configurations", c.configurations},
        {"max_parallel_jobs", c.parallel},
        {"threads_per_job", c.threads},
        {"random_seed", c.seed},
        {"objective", "eval:accuracy (Maximize), evaluated at every epoch end"},
        {"ranges", rangesJson()},
        {"batch_size", kBatchSize},
        {"hyperband", {{"min_resource", 1}, {"max_resource", c.epochs}, {"reduction_factor", 3}}},
        {"bayesian_early_stopping", "Auto (median rule)"},
        {"steps_counted", "sum over training jobs of the largest checkpoint step"}};
}

json tuningDocument(const Conditions& c, const std::string& strategy) {
    json tuning = {{"name", "budget-" + strategy},
                   {"objective_metric_name", "eval:accuracy"},
                   {"objective_type", "Maximize"},
                   {"hyperparameter_ranges", rangesJson()},
                   {"strategy", strategy},
                   {"max_jobs", c.configurations},
                   {"max_parallel_jobs", c.parallel},
                   {"random_seed", c.seed}};
    if (strategy == "Bayesian")
        tuning["early_stopping_type"] = "Auto";
    if (strategy == "Hyperband")
        tuning["strategy_config"] = {
            {"hyperband", {{"min_resource", 1}, {"max_resource", c.epochs}}}};
    json training = {{"name", "budget-" + strategy},
                     {"entry_point", "builtin:fmnist-cnn"},
                     {"hyperparameters",
                      {{"epochs", c.epochs},
                       {"train-samples", c.trainSamples},
                       {"eval-samples", c.evalSamples},
                       {"batch-size", kBatchSize},
                       {"threads", c.threads},
                       {"checkpoint-interval", 0},
                       {"log-interval", 50}}},
                     {"instance_type", "local"},
                     {"inputs", {{"train", c.data}}},
                     {"disable_profiler", true},
                     {"debugger_hook_config", false}};
    return {{"tuning", tuning}, {"training", training}};
}

// One training job of a tuning job, as the bench counts it.
struct TrainedJob {
    std::map<std::string, std::string> hyperparameters;
    std::string state;
    int bracket = -1; // Hyperband's
    bool stoppedEarly = false;
    std::optional<double> objective;
    int resumedFrom = -1;       // Hyperband's promotions: the job whose checkpoint it went on from
    std::int64_t steps = -1;    // -1: no checkpoint recorded
    std::int64_t fullSteps = 0; // epochs * steps per epoch at its batch size
    std::int64_t batchSize = 0;
};

struct StrategyRun {
    std::string strategy;
    std::string status;
    std::string message;
    std::optional<double> best; // the tuning job's best objective (a fraction)
    double wallSeconds = 0;
    int stoppedEarly = 0;
    std::vector<TrainedJob> jobs;

    std::int64_t steps() const {
        std::int64_t s = 0;
        for (const auto& j : jobs)
            s += std::max<std::int64_t>(j.steps, 0);
        return s;
    }
    // Samples trained: steps weighted by batch size, since a step of 32 costs less than one of 128.
    std::int64_t samples() const {
        std::int64_t s = 0;
        for (const auto& j : jobs)
            s += std::max<std::int64_t>(j.steps, 0) * j.batchSize;
        return s;
    }
    int jobsWithoutCheckpoint() const {
        return static_cast<int>(std::count_if(jobs.begin(), jobs.end(),
                                              [](const TrainedJob& j) { return j.steps < 0; }));
    }
};

std::int64_t largestCheckpointStep(store::StoreReader& reader, store::ComponentId component) {
    std::int64_t steps = -1;
    for (const auto& c : reader.checkpoints(component))
        steps = std::max(steps, c.step);
    return steps;
}

StrategyRun runStrategy(control::Tuner& tuner, const std::string& home, const Conditions& c,
                        const std::string& strategy) {
    auto parsed = tune::parseTuningJson(tuningDocument(c, strategy), home);
    if (!parsed.ok())
        throw std::runtime_error(parsed.errors.front().text());
    StrategyRun run;
    run.strategy = strategy;
    const auto start = bench::Clock::now();
    const auto submitted = tuner.submit(*parsed.spec);
    run.status = tuner.wait(submitted.name);
    run.wallSeconds = bench::secondsSince(start);

    store::StoreReader reader(control::databasePath(home));
    const auto row = reader.tuningJob(submitted.name);
    if (!row)
        throw std::runtime_error("the tuning job " + submitted.name + " is not in the store");
    run.message = row->statusMessage;
    run.best = row->bestObjective;
    run.stoppedEarly = row->counters.stoppedEarly;
    for (const auto& t : reader.tuningTrainingJobs(row->id)) {
        TrainedJob j;
        j.hyperparameters = t.hyperparameters;
        j.state = t.state;
        j.bracket = t.bracket;
        j.stoppedEarly = t.stoppedEarly;
        j.objective = t.objective;
        j.resumedFrom = t.resumedFrom;
        j.steps = largestCheckpointStep(reader, t.component);
        j.batchSize = kBatchSize;
        j.fullSteps = static_cast<std::int64_t>(c.epochs) * (c.trainSamples / j.batchSize);
        run.jobs.push_back(std::move(j));
    }
    // A promoted job's checkpoint steps count from the start of its configuration: it trained
    // only the steps after the checkpoint it went on from.
    std::vector<std::int64_t> reached;
    for (const auto& j : run.jobs)
        reached.push_back(j.steps);
    for (auto& j : run.jobs)
        if (j.resumedFrom >= 0 && j.steps >= 0)
            j.steps -= std::max<std::int64_t>(reached[static_cast<std::size_t>(j.resumedFrom)], 0);
    return run;
}

double points(const std::optional<double>& fraction) {
    return fraction ? 100.0 * *fraction : std::nan("");
}

ordered_json jobsJson(const StrategyRun& r) {
    ordered_json jobs = ordered_json::array();
    for (const auto& j : r.jobs)
        jobs.push_back({{"lr", j.hyperparameters.at("lr")},
                        {"momentum", j.hyperparameters.at("momentum")},
                        {"optimizer", j.hyperparameters.at("optimizer")},
                        {"resumed_from", j.resumedFrom},
                        {"state", j.state},
                        {"bracket", j.bracket},
                        {"stopped_early", j.stoppedEarly},
                        {"accuracy_points", points(j.objective)},
                        {"steps", j.steps},
                        {"full_budget_steps", j.fullSteps}});
    return jobs;
}

// Completed jobs must have trained their whole budget: the step count's own check.
bool completedJobsTrainedFully(const StrategyRun& r) {
    for (const auto& j : r.jobs) {
        if (j.state != "Completed")
            continue;
        // A configuration's steps over its chain of jobs.
        std::int64_t steps = j.steps;
        for (int from = j.resumedFrom; from >= 0;
             from = r.jobs[static_cast<std::size_t>(from)].resumedFrom)
            steps += r.jobs[static_cast<std::size_t>(from)].steps;
        if (steps != j.fullSteps)
            return false;
    }
    return true;
}

// The configurations each launched first (promotions go on with one already counted).
bool sameConfigurations(const StrategyRun& a, const StrategyRun& b) {
    auto configurations = [](const StrategyRun& r) {
        std::vector<std::map<std::string, std::string>> out;
        for (const auto& j : r.jobs)
            if (j.resumedFrom < 0)
                out.push_back(j.hyperparameters);
        return out;
    };
    return configurations(a) == configurations(b);
}

std::string pointsText(const std::optional<double>& fraction) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", points(fraction));
    return text;
}

// One strategy's details: its totals and every training job.
ordered_json strategyJson(const StrategyRun& r) {
    return {{"status", r.status},
            {"status_message", r.message},
            {"training_jobs", r.jobs.size()},
            {"best_accuracy_points", points(r.best)},
            {"training_steps", r.steps()},
            {"training_samples", r.samples()},
            {"wall_s", r.wallSeconds},
            {"jobs_stopped_early", r.stoppedEarly},
            {"jobs_without_checkpoint", r.jobsWithoutCheckpoint()},
            {"completed_jobs_trained_full_budget", completedJobsTrainedFully(r)},
            {"jobs", jobsJson(r)}};
}

// An early-stopping strategy's figures against the full-budget Random search.
void strategyFigures(bench::Report& report, const StrategyRun& r, const StrategyRun& random) {
    const std::string who = r.strategy == "Bayesian" ? "Bayesian + median rule" : r.strategy;
    report.figure({"training steps, " + who + " vs full-budget Random", "steps",
                   static_cast<double>(r.steps()), static_cast<double>(random.steps()),
                   "full-budget Random", bench::Goal::ratioAtMost(kStepsRatioGoal),
                   "steps do not depend on the machine's load"});
    report.figure({"best accuracy, " + who + " minus full-budget Random", "points",
                   points(r.best) - points(random.best), std::nullopt, "",
                   bench::Goal::valueAtLeast(-kAccuracyTolerancePoints),
                   "ours " + pointsText(r.best) + ", Random's " + pointsText(random.best)});
    report.figure({"tuning job wall time, " + who + " vs full-budget Random", "s", r.wallSeconds,
                   random.wallSeconds, "full-budget Random", std::nullopt,
                   "run one after the other on a shared machine: noisy"});
}

// The checks: every tuning job completed, every training job left a checkpoint, completed jobs
// trained their whole budget, the figures are finite, Random and Hyperband drew alike.
void strategyChecks(bench::Report& report, const std::vector<StrategyRun>& runs) {
    for (const auto& r : runs) {
        report.check(r.status == "Completed",
                     r.strategy + ": the tuning job completed (" + r.status + ")");
        report.check(r.jobsWithoutCheckpoint() == 0 && r.steps() > 0,
                     r.strategy + ": every training job left a checkpoint");
        report.check(completedJobsTrainedFully(r),
                     r.strategy + ": every completed training job trained its whole budget");
        report.check(std::isfinite(points(r.best)), r.strategy + ": a finite best accuracy");
    }
    report.check(sameConfigurations(runs[0], runs[2]),
                 "Random and Hyperband trained the same configurations");
}

void reportRuns(bench::Report& report, const Conditions& c, const std::vector<StrategyRun>& runs) {
    const StrategyRun& random = runs[0];
    report.anchor({"full-budget Random",
                   "a Random search of the same number of configurations, each trained the whole "
                   "budget, same seed (the configurations Hyperband draws)",
                   "this build", c.threads, "none", "",
                   std::to_string(c.configurations) + " configurations x " +
                       std::to_string(c.epochs) + " epochs of " + std::to_string(c.trainSamples) +
                       " samples (eval " + std::to_string(c.evalSamples) + "), batch " +
                       std::to_string(kBatchSize) + ", " + std::to_string(c.parallel) +
                       " jobs at a time"});
    for (std::size_t i = 1; i < runs.size(); ++i)
        strategyFigures(report, runs[i], random);
    strategyChecks(report, runs);
    ordered_json strategies;
    for (const auto& r : runs)
        strategies[r.strategy] = strategyJson(r);
    report.details() = {{"conditions", conditionsJson(c)},
                        {"order", "Random, Bayesian, Hyperband, one after the other"},
                        {"strategies", strategies}};
}

// Overrides of the conditions (for sizing the run to a machine); --full is the default.
Conditions parseConditions(const bench::Options& options) {
    Conditions c = options.quick ? shortConditions() : Conditions{};
    const std::vector<std::string>& args = options.args;
    const std::map<std::string, int*> integers = {
        {"--configs", &c.configurations},     {"--epochs", &c.epochs},
        {"--train-samples", &c.trainSamples}, {"--eval-samples", &c.evalSamples},
        {"--parallel", &c.parallel},          {"--threads", &c.threads}};
    for (std::size_t i = 0; i + 1 < args.size(); ++i) {
        if (auto it = integers.find(args[i]); it != integers.end())
            *it->second = std::stoi(args[++i]);
        else if (args[i] == "--seed")
            c.seed = std::stoull(args[++i]);
        else if (args[i] == "--data")
            c.data = args[++i];
    }
    return c;
}

} // namespace

int main(int argc, char** argv) {
    const bench::Options options = bench::Options::parse(argc, argv);
    const Conditions c = parseConditions(options);
    bench::Report report("tuning_budget", options);
    if (!std::filesystem::exists(c.data + "/train-images-idx3-ubyte.gz")) {
        report.details() = {{"skipped", "no Fashion-MNIST in " + c.data}};
        return report.finish();
    }
    char tmpl[] = "/tmp/bench-tuning-budget-XXXXXX";
    const std::string home = ::mkdtemp(tmpl);
    control::ControllerOptions o;
    o.home = home;
    o.launcherPath = std::string(STUDIO_BIN_DIR) + "/studio-launcher";
    o.trainerPath = std::string(STUDIO_BIN_DIR) + "/studio-train";
    o.imdsEndpoint = "off";
    try {
        control::Controller controller(o);
        control::Tuner tuner(controller);
        std::vector<StrategyRun> runs; // reportRuns() reads them in this order
        for (const char* strategy : {"Random", "Bayesian", "Hyperband"})
            runs.push_back(runStrategy(tuner, home, c, strategy));
        reportRuns(report, c, runs);
    } catch (const std::exception& e) {
        report.check(false, std::string("the strategies ran: ") + e.what());
    }
    std::filesystem::remove_all(home);
    return report.finish();
}
