// Built-in trainer against PyTorch's Python API doing the same work: fmnist-cnn on Fashion-MNIST,
// batch 64 per rank, SGD with momentum, one thread per rank. Measures, in one run:
//   single process: studio-train vs tests/bench/python/fmnist_anchor.py   (goal >= 1.10)
//   2-rank data parallel: studio-launcher + studio-train vs PyTorch DDP (Gloo)   (goal >= 1.10)
//   scaling efficiency: 2-rank throughput / (2 x single-process throughput)   (goal >= 0.90)
// Rounds run every configuration once, interleaved so that each sees the same conditions on a
// shared machine; each configuration's best round counts.
// Usage: bench_trainer [measured-steps] [rounds]
#include "engine/process/process.h"
#include "engine/wire/codec.h"
#include "engine/wire/line_splitter.h"
#include "tests/support/read_to_end.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <unistd.h>

using namespace studio;

namespace {

const int kWarmup = 10;

// Peak resident memory of rank 0 (MiB) in each configuration's rounds, and the anchor's torch.
std::map<std::string, double> g_peakMiB;
std::string g_pythonTorch;

void notePeak(const std::string& what, double mib) {
    g_peakMiB[what] = std::max(g_peakMiB[what], mib);
}

// studio-train's last line per rank: "rank 0 peak resident memory 123.4 MiB".
double peakFromLog(const std::string& text) {
    const std::string key = "rank 0 peak resident memory ";
    const auto at = text.find(key);
    return at == std::string::npos ? 0 : std::strtod(text.c_str() + at + key.size(), nullptr);
}

std::map<std::string, std::string> benchEnvironment() {
    auto env = process::currentEnvironment();
    env["OMP_NUM_THREADS"] = "1";
    env["OPENBLAS_NUM_THREADS"] = "1";
    return env;
}

// Samples per second of rank 0 over steps (warmup, warmup + steps], from its step events.
double fromStepEvents(const std::string& lines, int steps, int globalBatch) {
    std::vector<double> times;
    wire::LineSplitter split;
    for (const auto& line : split.append(lines)) {
        auto d = wire::decode(line.text);
        if (d.event && d.event->rank == 0 && d.event->as<wire::StepEvent>())
            times.push_back(d.event->t);
    }
    if (static_cast<int>(times.size()) < kWarmup + steps)
        return 0;
    const double seconds =
        times[static_cast<std::size_t>(kWarmup + steps - 1)] - times[kWarmup - 1];
    return steps * globalBatch / seconds;
}

std::vector<std::string> trainArgs(int steps, int batch) {
    return {std::string(STUDIO_BIN_DIR) + "/studio-train",
            "--model",
            "fmnist-cnn",
            "--set",
            "hyperparameters.max-steps=" + std::to_string(kWarmup + steps),
            "--set",
            "hyperparameters.batch-size=" + std::to_string(batch),
            "--set",
            "hyperparameters.log-interval=1000",
            "--set",
            "hyperparameters.threads=1"};
}

double oursSingle(int steps) {
    process::Pipe events = process::makePipe();
    process::SpawnOptions o;
    o.argv = trainArgs(steps, 64);
    o.env = benchEnvironment();
    o.env["STUDIO_EVENTS_FD"] = "3";
    o.passFds = {{events.write.get(), 3}};
    o.captureStderr = false;
    process::Process p = process::Process::spawn(o);
    events.write.reset();
    const std::string lines = readToEnd(events.read.get());
    notePeak("studio_single", peakFromLog(readToEnd(p.stdoutFd())));
    if (!p.wait().success())
        return 0;
    return fromStepEvents(lines, steps, 64);
}

double oursDistributed(int steps, int ranks) {
    process::SpawnOptions o;
    o.argv = {std::string(STUDIO_BIN_DIR) + "/studio-launcher",
              "--nproc-per-node",
              std::to_string(ranks),
              "--master-port",
              std::to_string(process::freeTcpPort()),
              "--monitor-interval-ms",
              "0",
              "--"};
    for (auto& a : trainArgs(steps, 64 * ranks))
        o.argv.push_back(a);
    o.env = benchEnvironment();
    o.captureStderr = false;
    process::Process p = process::Process::spawn(o);
    const std::string lines = readToEnd(p.stdoutFd());
    if (!p.wait().success())
        return 0;
    wire::LineSplitter split;
    for (const auto& line : split.append(lines))
        if (auto d = wire::decode(line.text); d.event && d.event->rank == 0)
            if (const auto* log = d.event->as<wire::LogEvent>())
                notePeak("studio_ddp2", peakFromLog(log->text));
    return fromStepEvents(lines, steps, 64 * ranks);
}

double python(int steps, int ranks, bool channelsLast) {
    const std::string script =
        std::string(STUDIO_SOURCE_DIR) + "/tests/bench/python/fmnist_anchor.py";
    const int port = process::freeTcpPort();
    std::vector<process::Process> procs;
    for (int r = 0; r < ranks; ++r) {
        process::SpawnOptions o;
        o.argv = {STUDIO_PYTHON,         script,     "--steps",
                  std::to_string(steps), "--warmup", std::to_string(kWarmup)};
        if (channelsLast)
            o.argv.push_back("--channels-last");
        o.env = benchEnvironment();
        o.env["RANK"] = std::to_string(r);
        o.env["WORLD_SIZE"] = std::to_string(ranks);
        o.env["MASTER_ADDR"] = "127.0.0.1";
        o.env["MASTER_PORT"] = std::to_string(port);
        o.captureStderr = false;
        procs.push_back(process::Process::spawn(o));
    }
    const std::string out = readToEnd(procs[0].stdoutFd());
    for (std::size_t i = 1; i < procs.size(); ++i)
        readToEnd(procs[i].stdoutFd());
    bool ok = true;
    for (auto& p : procs)
        ok = p.wait().success() && ok;
    auto j = nlohmann::json::parse(out, nullptr, false);
    if (!ok || !j.is_object())
        return 0;
    if (!channelsLast)
        notePeak(ranks == 1 ? "python_single" : "python_ddp2", j.value("peak_rss_mib", 0.0));
    g_pythonTorch = j.value("torch", std::string());
    return j.value("samples_per_s", 0.0);
}

nlohmann::json trainerProbe() {
    process::SpawnOptions o;
    o.argv = {std::string(STUDIO_BIN_DIR) + "/studio-train", "--probe", "--json"};
    o.env = benchEnvironment();
    o.captureStderr = false;
    process::Process p = process::Process::spawn(o);
    const std::string out = readToEnd(p.stdoutFd());
    p.wait();
    auto j = nlohmann::json::parse(out, nullptr, false);
    return j.is_object() ? j : nlohmann::json::object();
}

} // namespace

int main(int argc, char** argv) {
    const int steps = argc > 1 ? std::atoi(argv[1]) : 60;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 2;
    double pySingle = 0, pySingleCl = 0, single = 0, pyDdp = 0, ddp = 0;
    for (int r = 0; r < rounds; ++r) {
        pySingle = std::max(pySingle, python(steps, 1, false));
        single = std::max(single, oursSingle(steps));
        pyDdp = std::max(pyDdp, python(steps, 2, false));
        ddp = std::max(ddp, oursDistributed(steps, 2));
        if (r == 0)
            pySingleCl = python(steps, 1, true);
    }
    const nlohmann::json probe = trainerProbe();
    const bool rssOk = g_peakMiB["studio_single"] <= g_peakMiB["python_single"] &&
                       g_peakMiB["studio_ddp2"] <= g_peakMiB["python_ddp2"];
    std::error_code ec;
    const std::string blas =
        std::filesystem::canonical("/usr/lib/x86_64-linux-gnu/libblas.so.3", ec).string();

    nlohmann::ordered_json out = {
        {"bench", "trainer"},
        {"model", "fmnist-cnn"},
        {"batch_per_rank", 64},
        {"threads_per_rank", 1},
        {"measured_steps", steps},
        {"rounds", rounds},
        {"blas", probe.value("blas", std::string()) == "mkl"
                     ? std::string("MKL, inside the wheel's LibTorch (both sides)")
                     : blas + " (both sides)"},
        {"anchor", "PyTorch " + g_pythonTorch + " (" + STUDIO_PYTHON +
                       ", the twin of the LibTorch built against): pytorch/examples MNIST net, "
                       "DataLoader, SGD, DistributedDataParallel with Gloo for 2 ranks"},
        {"studio_libtorch", probe.value("libtorch", std::string())},
        {"studio_blas", probe.value("blas", std::string())},
        {"pinning", "none: neither side is pinned with taskset; one intra-op thread per rank"},
        {"transport", "studio: shared memory between ranks of one host; PyTorch: Gloo over "
                      "loopback (what DDP users get on CPUs)"},
        {"python_single_samples_per_s", pySingle},
        {"python_single_channels_last_samples_per_s", pySingleCl},
        {"studio_single_samples_per_s", single},
        {"single_ratio", single / pySingle},
        {"single_ratio_vs_python_channels_last", single / pySingleCl},
        {"python_single_peak_rss_mib", g_peakMiB["python_single"]},
        {"studio_single_peak_rss_mib", g_peakMiB["studio_single"]},
        {"python_ddp2_rank0_peak_rss_mib", g_peakMiB["python_ddp2"]},
        {"studio_ddp2_rank0_peak_rss_mib", g_peakMiB["studio_ddp2"]},
        {"python_ddp2_samples_per_s", pyDdp},
        {"studio_ddp2_samples_per_s", ddp},
        {"ddp_ratio", ddp / pyDdp},
        {"studio_scaling_efficiency", ddp / (2 * single)},
        {"python_scaling_efficiency", pyDdp / (2 * pySingle)},
        {"goals",
         {{"single_ratio", 1.10},
          {"ddp_ratio", 1.10},
          {"studio_scaling_efficiency", 0.90},
          {"peak_rss", "studio <= python, single and rank 0 of ddp2"}}},
        {"meets_goals",
         single / pySingle >= 1.10 && ddp / pyDdp >= 1.10 && ddp / (2 * single) >= 0.90 && rssOk},
    };
    std::printf("%s\n", out.dump(2).c_str());
    return single > 0 && ddp > 0 && pySingle > 0 && pyDdp > 0 ? 0 : 1;
}
