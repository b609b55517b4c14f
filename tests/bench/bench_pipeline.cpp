// Pipeline parallelism on transformer-lm (uniform decoder blocks): for 2 stages and 4 and 8
// microbatches, with the interleaved (1F1B) and simple (GPipe) schedules, it measures each stage's
// busy time, the bubble fraction against (p-1)/(m+p-1) (goal: within 10% relative) and against a
// replay of the plan with the stages' measured forward and backward times (medians over steps),
// throughput, and peak activation memory. Every configuration runs studio-train under
// studio-launcher.
// Usage: bench_pipeline [steps]
#include "engine/process/process.h"
#include "engine/train/pipeline_schedule.h"
#include "engine/wire/codec.h"
#include "engine/wire/line_splitter.h"
#include "tests/support/read_to_end.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <unistd.h>

using namespace studio;

namespace {

const int kWarmup = 4;
const int kStages = 2;

struct Measured {
    double samplesPerSecond = 0;
    std::vector<double> busy;      // per stage, fraction of the step window
    std::vector<double> forwardMs; // per stage, per microbatch
    std::vector<double> backwardMs;
    std::vector<double> peakActivationMb;
};

// transformer-lm over kStages pipeline stages with the given schedule and microbatches.
nlohmann::json pipelineSpec(const std::string& schedule, int microbatches, int steps, int batch) {
    return {{"entry_point", "builtin:transformer-lm"},
            {"hyperparameters",
             {{"dataset", "synthetic"},
              {"batch-size", batch},
              {"max-steps", kWarmup + steps},
              {"log-interval", 1},
              {"train-samples", 4096},
              {"eval-samples", 32},
              {"layers", 8},
              {"d-model", 256},
              {"seq-len", 64}}},
            {"distribution",
             {{"smdistributed",
               {{"modelparallel",
                 {{"enabled", true},
                  {"parameters",
                   {{"partitions", kStages},
                    {"microbatches", microbatches},
                    {"pipeline", schedule},
                    {"optimize", "speed"},
                    {"ddp", false}}}}}}},
              {"mpi", {{"enabled", true}, {"processes_per_host", kStages}}}}}};
}

// studio-train under studio-launcher, one rank per stage; the event lines they printed, or
// nothing when the run failed.
std::optional<std::string> runUnderLauncher(const nlohmann::json& doc) {
    const std::string spec = (std::filesystem::temp_directory_path() /
                              ("bench-pipeline-" + std::to_string(::getpid()) + ".json"))
                                 .string();
    std::ofstream(spec) << doc.dump();
    process::SpawnOptions o;
    o.argv = {std::string(STUDIO_BIN_DIR) + "/studio-launcher",
              "--nproc-per-node",
              std::to_string(kStages),
              "--master-port",
              std::to_string(process::freeTcpPort()),
              "--monitor-interval-ms",
              "0",
              "--",
              std::string(STUDIO_BIN_DIR) + "/studio-train",
              "--spec",
              spec};
    o.env = process::currentEnvironment();
    o.captureStderr = false;
    process::Process p = process::Process::spawn(o);
    const std::string out = readToEnd(p.stdoutFd());
    const bool ok = p.wait().success();
    std::filesystem::remove(spec);
    if (!ok)
        return std::nullopt;
    return out;
}

// Medians over steps: a step slowed by something else on the machine says nothing about the
// schedule.
double median(std::vector<double> v) {
    if (v.empty())
        return 0.0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// The stages' figures from the ranks' step and metric events after the warm-up.
Measured measure(const std::string& out, int microbatches, int batch) {
    std::map<int, std::vector<double>> busy, peak, fwd, bwd, times;
    wire::LineSplitter split;
    for (const auto& line : split.append(out)) {
        auto d = wire::decode(line.text);
        if (!d.event || d.event->rank < 0)
            continue;
        const int rank = d.event->rank;
        if (const auto* s = d.event->as<wire::StepEvent>(); s && s->step > kWarmup) {
            fwd[rank].push_back(s->forwardMs / microbatches);
            bwd[rank].push_back(s->backwardMs / microbatches);
            times[rank].push_back(d.event->t);
        }
        if (const auto* x = d.event->as<wire::MetricEvent>(); x && x->step > kWarmup + 1) {
            if (x->name == "pipeline:busy_fraction")
                busy[rank].push_back(x->value);
            if (x->name == "pipeline:peak_activation_mb")
                peak[rank].push_back(x->value);
        }
    }
    Measured m;
    for (int r = 0; r < kStages; ++r) { // ranks are stages here (one replica, "cluster" placement)
        m.busy.push_back(median(busy[r]));
        m.forwardMs.push_back(median(fwd[r]));
        m.backwardMs.push_back(median(bwd[r]));
        m.peakActivationMb.push_back(
            peak[r].empty() ? 0 : *std::max_element(peak[r].begin(), peak[r].end()));
    }
    const auto& t = times[0];
    if (t.size() > 1)
        m.samplesPerSecond = static_cast<double>(t.size() - 1) * batch / (t.back() - t.front());
    return m;
}

Measured run(const std::string& schedule, int microbatches, int steps, int batch) {
    const auto out = runUnderLauncher(pipelineSpec(schedule, microbatches, steps, batch));
    return out ? measure(*out, microbatches, batch) : Measured{};
}

} // namespace

int main(int argc, char** argv) {
    const int steps = argc > 1 ? std::atoi(argv[1]) : 16;
    const int microbatchSize = 8; // sequences: the same work per microbatch for every m
    nlohmann::ordered_json results = nlohmann::ordered_json::array();
    std::map<std::string, Measured> byName;
    bool allWithin = true, ran = true;
    for (int m : {4, 8}) {
        for (const char* schedule : {"interleaved", "simple"}) {
            Measured r = run(schedule, m, m == 4 ? steps : steps * 2 / 3, m * microbatchSize);
            ran = ran && r.samplesPerSecond > 0;
            const double theory = train::theoreticalBubble(kStages, m);
            double busy = 0;
            for (double b : r.busy)
                busy += b;
            const double measured =
                r.busy.empty() ? 0 : 1 - busy / static_cast<double>(r.busy.size());
            auto plan = train::planPipeline(train::scheduleFromName(schedule), kStages, m);
            const double replay =
                train::simulatePipeline(plan, r.forwardMs, r.backwardMs).bubbleFraction();
            const double deviation = std::abs(measured - theory) / theory;
            if (m == 4)
                allWithin = allWithin && deviation <= 0.10;
            byName[std::string(schedule) + std::to_string(m)] = r;
            results.push_back({{"schedule", schedule},
                               {"stages", kStages},
                               {"microbatches", m},
                               {"global_batch", m * microbatchSize},
                               {"samples_per_s", r.samplesPerSecond},
                               {"stage_busy_fraction", r.busy},
                               {"stage_forward_ms_per_microbatch", r.forwardMs},
                               {"stage_backward_ms_per_microbatch", r.backwardMs},
                               {"bubble_measured", measured},
                               {"bubble_theory", theory},
                               {"bubble_replay_of_measured_stage_times", replay},
                               {"relative_deviation_from_theory", deviation},
                               {"peak_activation_mb_per_stage", r.peakActivationMb}});
        }
    }
    auto ratio = [&](const char* a, const char* b) {
        return byName[b].samplesPerSecond > 0
                   ? byName[a].samplesPerSecond / byName[b].samplesPerSecond
                   : 0.0;
    };
    auto memRatio = [&](const char* a, const char* b) {
        const double x = byName[a].peakActivationMb.empty() ? 0 : byName[a].peakActivationMb[0];
        const double y = byName[b].peakActivationMb.empty() ? 0 : byName[b].peakActivationMb[0];
        return y > 0 ? x / y : 0.0;
    };
    nlohmann::ordered_json out = {
        {"bench", "pipeline"},
        {"model", "transformer-lm (d-model 256, 8 blocks, seq-len 64), synthetic text"},
        {"microbatch_sequences", microbatchSize},
        {"measured_steps", steps},
        {"runs", results},
        {"interleaved_vs_simple_throughput_m4", ratio("interleaved4", "simple4")},
        {"interleaved_vs_simple_throughput_m8", ratio("interleaved8", "simple8")},
        {"interleaved_vs_simple_peak_activation_stage0_m4", memRatio("interleaved4", "simple4")},
        {"interleaved_vs_simple_peak_activation_stage0_m8", memRatio("interleaved8", "simple8")},
        {"goal", "bubble within 10% (relative) of (p-1)/(m+p-1) at m = 4"},
        {"meets_goal", allWithin},
    };
    std::printf("%s\n", out.dump(2).c_str());
    return ran ? 0 : 1;
}
