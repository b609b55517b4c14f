// What the Debugger costs a training job: the same fmnist-cnn job (one rank, batch 64, one
// thread, unpinned) run through the engine with
//   off:      debugger_hook_config false, disable_profiler true, no rules (the anchor)
//   default:  nothing said: the hook saves losses and metrics every 500 steps (save_interval's
//             default, engine/debugger/hook_plan), the profiler samples the system every 500 ms
//             and ProfilerReport's rules run live
//   tensors:  default plus weights and gradients every 10 steps with six reductions each, and
//             VanishingGradient, ExplodingTensor and WeightUpdateRatio watching them
// Step time is rank 0's wall time per step between its step events as the store recorded them
// (it includes the hook's work after each step), over every step after a warm-up. In full mode
// the jobs run long enough that the default hook saves at steps 500 and 1000 INSIDE the measured
// window; the report lists the steps each configuration saved there, read back from the store.
// Goals: default / off <= 1.02, tensors / off <= 1.10. Rounds interleave the configurations with
// alternating order; each one's best round counts.
// Usage: bench_debugger [--quick] [--json FILE] [steps] [rounds]
#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/spec/spec_parser.h"
#include "engine/store/store_reader.h"
#include "tests/bench/bench_controller.h"
#include "tests/bench/bench_support.h"
#include "tests/support/temp_dir.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <unistd.h>

using namespace studio;
namespace bench = studio::bench;

namespace {

constexpr int kWarmup = 10;
constexpr int kDefaultSaveInterval = 500; // engine/debugger/hook_plan.h CollectionPlan
const char* const kConfigs[] = {"off", "default", "tensors"};

constexpr int kBatch = 64;
constexpr int kTrainSamples = 20000;

std::string specText(const std::string& config, int steps) {
    nlohmann::json spec = {
        {"name", "bench-debugger-" + config},
        {"entry_point", "builtin:fmnist-cnn"},
        {"hyperparameters",
         {{"batch-size", kBatch},
          {"max-steps", steps},
          // Enough passes over the samples for max-steps to end the job, not the first epoch.
          {"epochs", steps * kBatch / kTrainSamples + 1},
          {"threads", 1},
          {"device", "cpu"},
          {"eval-samples", 500},
          {"log-interval", 50},
          {"train-samples", kTrainSamples}}},
        {"inputs", {{"train", "/usr/share/datasets/fashion-mnist"}}},
    };
    if (config == "off") {
        spec["debugger_hook_config"] = false;
        spec["disable_profiler"] = true;
    } else if (config == "tensors") {
        const std::string reductions = "min,max,mean,std,l2_norm,abs_mean";
        spec["debugger_hook_config"] = {
            {"collection_configs",
             {{{"name", "weights"},
               {"parameters", {{"save_interval", "10"}, {"reductions", reductions}}}},
              {{"name", "gradients"},
               {"parameters", {{"save_interval", "10"}, {"reductions", reductions}}}}}}};
        spec["rules"] = {{{"name", "VanishingGradient"}},
                         {{"name", "ExplodingTensor"}},
                         {{"name", "WeightUpdateRatio"}}};
    }
    return spec.dump();
}

// One job's measurements.
struct JobResult {
    double secondsPerStep = 0;
    std::size_t stepsTimed = 0;             // rank 0's train steps the store recorded
    std::set<std::int64_t> savedTrainSteps; // hook steps (from 0) with train-phase reductions
    std::size_t reductionRows = 0;
};

// Seconds per step of rank 0 after the warm-up: step events (warmup, last], which carry the
// hook's work of its steps [warmup, last - 1] (the hook counts from 0, step events from 1).
double secondsPerStep(const std::vector<store::StepTiming>& timings) {
    std::vector<double> times;
    for (const auto& t : timings)
        if (t.rank == 0 && t.phase == "train")
            times.push_back(t.time);
    std::sort(times.begin(), times.end());
    if (times.size() < kWarmup + 10)
        throw std::runtime_error("too few step timings recorded");
    return (times.back() - times[kWarmup - 1]) / static_cast<double>(times.size() - kWarmup);
}

JobResult runJob(control::Controller& controller, const std::string& home,
                 const std::string& config, int steps) {
    auto parsed = spec::parseSpecText(specText(config, steps), STUDIO_SOURCE_DIR);
    if (!parsed.ok())
        throw std::runtime_error(parsed.errors.front().text());
    auto job = controller.submit(*parsed.spec);
    const std::string status = controller.wait(job.name);
    if (status != "Completed")
        throw std::runtime_error(job.name + " ended " + status);
    store::StoreReader reader(control::databasePath(home));
    JobResult r;
    const auto timings = reader.stepTimings(job.id);
    r.secondsPerStep = secondsPerStep(timings);
    r.stepsTimed = static_cast<std::size_t>(
        std::count_if(timings.begin(), timings.end(), [](const store::StepTiming& t) {
            return t.rank == 0 && t.phase == "train";
        }));
    const auto rows = reader.tensorReductions(job.id);
    r.reductionRows = rows.size();
    for (const auto& row : rows)
        if (row.phase == "train")
            r.savedTrainSteps.insert(row.step);
    return r;
}

// The hook steps inside the measured window of a job of `steps` steps.
std::vector<std::int64_t> inWindow(const std::set<std::int64_t>& saved, int steps) {
    std::vector<std::int64_t> out;
    for (auto s : saved)
        if (s >= kWarmup && s <= steps - 1)
            out.push_back(s);
    return out;
}

void checkSaves(bench::Report& report, const std::map<std::string, JobResult>& last, int steps) {
    std::vector<std::int64_t> expected;
    for (std::int64_t s = 0; s <= steps - 1; s += kDefaultSaveInterval)
        if (s >= kWarmup)
            expected.push_back(s);
    for (const char* config : kConfigs)
        report.check(last.at(config).stepsTimed == static_cast<std::size_t>(steps),
                     std::string(config) + ": the job ran all " + std::to_string(steps) + " steps");
    const JobResult& def = last.at("default");
    report.check(def.savedTrainSteps.count(0) == 1, "default: the hook saved the loss at step 0");
    report.check(inWindow(def.savedTrainSteps, steps) == expected,
                 "default: the hook saved inside the measured window exactly at the multiples "
                 "of save_interval 500 there (" +
                     std::to_string(expected.size()) + " steps)");
    report.check(last.at("off").reductionRows == 0, "off: nothing saved");
    report.check(inWindow(last.at("tensors").savedTrainSteps, steps).size() >=
                     static_cast<std::size_t>((steps - kWarmup) / 10),
                 "tensors: weights and gradients saved every 10 steps inside the window");
}

} // namespace

int main(int argc, char** argv) {
    const bench::Options opt = bench::Options::parse(argc, argv);
    bench::Report report("debugger_overhead", opt);
    // Full mode: hook steps 10..1009 are measured, so the default hook's saves at 500 and 1000
    // fall inside; 6 jobs of about 1,000 steps each take 10 to 15 minutes on two cores.
    const int steps = opt.pick(0, 30, 1010);
    const int rounds = opt.pick(1, 1, 2);
    std::map<std::string, bench::Samples> perStep;
    std::map<std::string, JobResult> last;
    {
        const testing::TempDir home;
        try {
            control::Controller controller(bench::controllerOptions(home.path()));
            std::vector<std::function<void(int)>> sides;
            for (const char* config : kConfigs)
                sides.push_back([&, config](int round) {
                    last[config] = runJob(controller, home.path(), config, steps);
                    perStep[config].add(last[config].secondsPerStep * 1000);
                    std::fprintf(stderr, "round %d %-8s %.2f ms/step\n", round + 1, config,
                                 last[config].secondsPerStep * 1000);
                });
            bench::interleave(rounds, sides);
        } catch (const std::exception& e) {
            report.check(false, std::string("every job completed: ") + e.what());
            return report.finish();
        }
    }
    for (const char* config : kConfigs)
        report.check(static_cast<int>(perStep[config].size()) == rounds,
                     std::string(config) + ": every round's job completed and was timed");
    checkSaves(report, last, steps);

    const std::string work = "fmnist-cnn, batch 64, 1 thread, unpinned, " + std::to_string(steps) +
                             " steps, measured over steps " + std::to_string(kWarmup + 1) + ".." +
                             std::to_string(steps) + ", best of " + std::to_string(rounds) +
                             " interleaved rounds";
    report.anchor({"hook off",
                   "the same job with debugger_hook_config false, disable_profiler true, no rules",
                   "studio " STUDIO_VERSION, 1, "none", "", work});
    report.figure({"step time, default hook and profiler", "ms/step", perStep["default"].best(),
                   perStep["off"].best(), "hook off", bench::Goal::ratioAtMost(1.02),
                   "the default hook's saves inside the window: details.saved_steps_in_window"});
    report.figure({"step time, weights and gradients every 10 steps + 3 rules", "ms/step",
                   perStep["tensors"].best(), perStep["off"].best(), "hook off",
                   bench::Goal::ratioAtMost(1.10), ""});
    bench::Json& d = report.details();
    d["steps"] = steps;
    d["warmup_steps"] = kWarmup;
    d["rounds"] = rounds;
    d["window"] = "hook steps " + std::to_string(kWarmup) + ".." + std::to_string(steps - 1) +
                  " (from 0, as the hook counts; step events " + std::to_string(kWarmup + 1) +
                  ".." + std::to_string(steps) + ")";
    for (const char* config : kConfigs) {
        d["ms_per_step"][config] = perStep[config].json();
        const auto saved = inWindow(last[config].savedTrainSteps, steps);
        d["saved_steps_in_window"][config] = {{"count", saved.size()}, {"steps", saved}};
        d["tensor_reduction_rows"][config] = last[config].reductionRows;
    }
    return report.finish();
}
