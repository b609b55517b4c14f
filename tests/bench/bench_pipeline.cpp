// Pipeline parallelism on transformer-lm (uniform decoder blocks): for 2 stages and 4 and 8
// microbatches, with the interleaved (1F1B) and simple (GPipe) schedules, it measures each stage's
// busy time, the bubble fraction against (p-1)/(m+p-1) (goal: within 10% relative at m = 4) and
// against a replay of the plan with the stages' measured forward and backward times (medians over
// steps), throughput, and peak activation memory. Every configuration runs studio-train under
// studio-launcher (its default core binding: each stage's rank gets its share of the CPUs), one
// thread per rank, stages exchanging activations through shared memory. Rounds (one unless
// asked) run the four configurations interleaved with alternating order; each configuration's
// fastest round counts. Quick mode runs a smaller model for a few steps: correctness only.
// Usage: bench_pipeline [--quick] [--json FILE] [steps] [rounds]
#include "engine/process/process.h"
#include "engine/train/pipeline_schedule.h"
#include "engine/wire/codec.h"
#include "engine/wire/line_splitter.h"
#include "tests/bench/bench_support.h"
#include "tests/support/read_to_end.h"

#include <filesystem>
#include <map>
#include <optional>
#include <unistd.h>

using namespace studio;
namespace bench = studio::bench;

namespace {

const int kWarmup = 4;
const int kStages = 2;
const int kMicrobatchSize = 8; // sequences: the same work per microbatch for every m

// The model's size: full mode measures the real one; quick mode (a correctness run) a small one
// so that the eight jobs take seconds.
struct LmSize {
    int layers = 8;
    int dModel = 256;
    int seqLen = 64;
    std::string text() const {
        return "transformer-lm (d-model " + std::to_string(dModel) + ", " + std::to_string(layers) +
               " blocks, seq-len " + std::to_string(seqLen) + ")";
    }
};

struct Measured {
    bool ran = false;
    double samplesPerSecond = 0;
    std::vector<double> busy;      // per stage, fraction of the step window
    std::vector<double> forwardMs; // per stage, per microbatch
    std::vector<double> backwardMs;
    std::vector<double> peakActivationMb;
    std::size_t busySamples = 0; // busy-fraction metrics read, all stages
};

// transformer-lm over kStages pipeline stages with the given schedule and microbatches.
nlohmann::json pipelineSpec(const std::string& schedule, int microbatches, int steps, int batch,
                            const LmSize& size) {
    return {{"entry_point", "builtin:transformer-lm"},
            {"hyperparameters",
             {{"dataset", "synthetic"},
              {"batch-size", batch},
              {"max-steps", kWarmup + steps},
              {"log-interval", 1},
              {"threads", 1},
              {"device", "cpu"},
              {"train-samples", 4096},
              {"eval-samples", 32},
              {"layers", size.layers},
              {"d-model", size.dModel},
              {"seq-len", size.seqLen}}},
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
double median(const std::vector<double>& v) {
    bench::Samples s;
    s.values = v;
    return v.empty() ? 0.0 : s.median();
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
    m.ran = true;
    for (int r = 0; r < kStages; ++r) { // ranks are stages here (one replica, "cluster" placement)
        m.busy.push_back(median(busy[r]));
        m.busySamples += busy[r].size();
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

// One configuration: its rounds' throughputs and the figures of its fastest round.
struct Config {
    std::string schedule;
    int microbatches = 0;
    int steps = 0;
    LmSize size;
    bench::Samples throughput = bench::higherIsBetter();
    Measured best;
    int failures = 0;

    std::string name() const { return schedule + " m=" + std::to_string(microbatches); }
    int batch() const { return microbatches * kMicrobatchSize; }
    void run() {
        const auto out =
            runUnderLauncher(pipelineSpec(schedule, microbatches, steps, batch(), size));
        const Measured m = out ? measure(*out, microbatches, batch()) : Measured{};
        if (m.samplesPerSecond <= 0) {
            ++failures;
            return;
        }
        throughput.add(m.samplesPerSecond);
        if (m.samplesPerSecond >= throughput.best())
            best = m;
    }
    double bubble() const {
        double busy = 0;
        for (double b : best.busy)
            busy += b;
        return best.busy.empty() ? 0 : 1 - busy / static_cast<double>(best.busy.size());
    }
    double replay() const {
        auto plan = train::planPipeline(train::scheduleFromName(schedule), kStages, microbatches);
        return train::simulatePipeline(plan, best.forwardMs, best.backwardMs).bubbleFraction();
    }
};

void bubbleFigures(bench::Report& report, const Config& c) {
    const double theory = train::theoreticalBubble(kStages, c.microbatches);
    report.figure({"bubble fraction, " + c.name(), "fraction", c.bubble(), theory,
                   "theoretical bubble", std::nullopt, ""});
    if (c.microbatches == 4)
        report.figure({"bubble deviation from (p-1)/(m+p-1), " + c.name(), "relative",
                       std::abs(c.bubble() - theory) / theory, std::nullopt, "",
                       bench::Goal::valueAtMost(0.10), "|measured - theory| / theory"});
}

void comparisonFigures(bench::Report& report, const Config& interleaved, const Config& simple) {
    const std::string m = std::to_string(interleaved.microbatches);
    report.figure({"throughput, interleaved vs simple, m=" + m, "samples/s",
                   interleaved.throughput.best(), simple.throughput.best(),
                   "simple (GPipe) schedule", std::nullopt, ""});
    report.figure({"peak activation memory of stage 0, interleaved vs simple, m=" + m, "MB",
                   interleaved.best.peakActivationMb.at(0), simple.best.peakActivationMb.at(0),
                   "simple (GPipe) schedule", std::nullopt, ""});
}

bench::Json runJson(const Config& c) {
    return {{"schedule", c.schedule},
            {"stages", kStages},
            {"microbatches", c.microbatches},
            {"global_batch", c.batch()},
            {"measured_steps", c.steps},
            {"samples_per_s", c.throughput.json()},
            {"stage_busy_fraction", c.best.busy},
            {"stage_forward_ms_per_microbatch", c.best.forwardMs},
            {"stage_backward_ms_per_microbatch", c.best.backwardMs},
            {"bubble_measured", c.bubble()},
            {"bubble_theory", train::theoreticalBubble(kStages, c.microbatches)},
            {"bubble_replay_of_measured_stage_times", c.replay()},
            {"peak_activation_mb_per_stage", c.best.peakActivationMb}};
}

} // namespace

int main(int argc, char** argv) {
    const bench::Options opt = bench::Options::parse(argc, argv);
    bench::Report report("pipeline", opt);
    const int steps = opt.pick(0, 3, 16);
    // One round by default (a full run takes several minutes); more rounds interleave.
    const int rounds = opt.pick(1, 1, 1);
    LmSize size;
    if (opt.quick)
        size = {4, 64, 32};
    std::vector<Config> configs;
    for (int m : {4, 8})
        for (const char* schedule : {"interleaved", "simple"}) {
            Config c;
            c.schedule = schedule;
            c.microbatches = m;
            c.steps = m == 4 ? steps : std::max(2, steps * 2 / 3);
            c.size = size;
            configs.push_back(c);
        }
    std::vector<std::function<void(int)>> sides;
    for (auto& c : configs)
        sides.push_back([&c](int) { c.run(); });
    bench::interleave(rounds, sides);

    bool ran = true;
    for (const auto& c : configs) {
        const bool ok =
            c.failures == 0 && c.best.busySamples > 0 && c.best.peakActivationMb.size() == kStages;
        report.check(ok, c.name() + ": every round ran and reported its stages' busy time");
        ran = ran && ok;
    }
    const std::string work =
        size.text() + " on synthetic text, 2 stages, microbatches of 8 sequences, " +
        std::to_string(steps) + " measured steps at m=4 after " + std::to_string(kWarmup) +
        " warm-up, best of " + std::to_string(rounds) + " interleaved rounds";
    const std::string pinning = "studio-launcher --bind-cores auto (each stage's share)";
    report.anchor(
        {"theoretical bubble", "(p-1)/(m+p-1): the bubble of p equal stages", "", 0, "", "", ""});
    report.anchor({"simple (GPipe) schedule",
                   "the same job with pipeline \"simple\": every forward, then every backward",
                   "studio " STUDIO_VERSION, 1, pinning, "shared memory", work});
    if (ran) {
        for (const auto& c : configs)
            bubbleFigures(report, c);
        comparisonFigures(report, configs[0], configs[1]);
        comparisonFigures(report, configs[2], configs[3]);
    }
    bench::Json& d = report.details();
    d["model"] = size.text() + ", synthetic text";
    d["microbatch_sequences"] = kMicrobatchSize;
    d["rounds"] = rounds;
    for (const auto& c : configs)
        d["runs"].push_back(runJson(c));
    return report.finish();
}
