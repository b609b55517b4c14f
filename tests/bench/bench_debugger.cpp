// What the Debugger costs a training job: the same fmnist-cnn job (one rank, batch 64, one
// thread) run through the engine with
//   off:      debugger_hook_config false, disable_profiler true, no rules
//   default:  nothing said: the hook saves losses and metrics every 500 steps, the profiler
//             samples the system every 500 ms and ProfilerReport's rules run live
//   tensors:  default plus weights and gradients every 10 steps with six reductions each, and
//             VanishingGradient, ExplodingTensor and WeightUpdateRatio watching them
// Step time is rank 0's wall time per step between its step events as the store recorded them
// (it includes the hook's work after each step). Goals: default / off <= 1.02,
// tensors / off <= 1.10. Rounds interleave the configurations; each one's best round counts.
// Usage: bench_debugger [steps] [rounds]
#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/spec/spec_parser.h"
#include "engine/store/store_reader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <stdexcept>

using namespace studio;

namespace {

constexpr int kWarmup = 10;

std::string specText(const std::string& config, int steps) {
    nlohmann::json spec = {
        {"name", "bench-debugger-" + config},
        {"entry_point", "builtin:fmnist-cnn"},
        {"hyperparameters",
         {{"batch-size", 64},
          {"max-steps", steps},
          {"threads", 1},
          {"eval-samples", 500},
          {"log-interval", 50},
          {"train-samples", 20000}}},
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

// Seconds per step of rank 0 after the warm-up, from the recorded step times.
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

} // namespace

int main(int argc, char** argv) {
    const int steps = argc > 1 ? std::atoi(argv[1]) : 250;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
    const std::string home =
        (std::filesystem::temp_directory_path() / ("bench-debugger-" + std::to_string(::getpid())))
            .string();
    std::map<std::string, double> best;
    std::map<std::string, std::vector<double>> all;
    std::map<std::string, std::int64_t> tensorRows;
    try {
        control::ControllerOptions o;
        o.home = home;
        o.launcherPath = std::string(STUDIO_BIN_DIR) + "/studio-launcher";
        o.trainerPath = std::string(STUDIO_BIN_DIR) + "/studio-train";
        control::Controller controller(o);
        for (int r = 0; r < rounds; ++r) {
            for (const std::string config : {"off", "default", "tensors"}) {
                auto parsed = spec::parseSpecText(specText(config, steps), STUDIO_SOURCE_DIR);
                if (!parsed.ok())
                    throw std::runtime_error(parsed.errors.front().text());
                auto job = controller.submit(*parsed.spec);
                const std::string status = controller.wait(job.name);
                if (status != "Completed")
                    throw std::runtime_error(job.name + " ended " + status);
                store::StoreReader reader(control::databasePath(home));
                const double s = secondsPerStep(reader.stepTimings(job.id));
                all[config].push_back(s * 1000);
                best[config] = best.count(config) ? std::min(best[config], s) : s;
                tensorRows[config] =
                    static_cast<std::int64_t>(reader.tensorReductions(job.id).size());
                std::fprintf(stderr, "round %d %-8s %.2f ms/step\n", r + 1, config.c_str(),
                             s * 1000);
            }
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_debugger: %s\n", e.what());
        std::filesystem::remove_all(home);
        return 1;
    }
    std::filesystem::remove_all(home);
    const double defaultRatio = best["default"] / best["off"];
    const double tensorsRatio = best["tensors"] / best["off"];
    nlohmann::ordered_json out = {
        {"bench", "debugger_overhead"},
        {"model", "fmnist-cnn"},
        {"batch", 64},
        {"steps", steps},
        {"rounds", rounds},
        {"ms_per_step",
         {{"off", best["off"] * 1000},
          {"default", best["default"] * 1000},
          {"tensors", best["tensors"] * 1000}}},
        {"ms_per_step_all_rounds", all},
        {"tensor_reduction_rows", tensorRows},
        {"default_vs_off", defaultRatio},
        {"tensors_vs_off", tensorsRatio},
        {"goal_default_vs_off_max", 1.02},
        {"goal_tensors_vs_off_max", 1.10},
        {"meets_default", defaultRatio <= 1.02},
        {"meets_tensors", tensorsRatio <= 1.10},
    };
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
}
