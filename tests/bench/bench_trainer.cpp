// Built-in trainer against PyTorch's Python API doing the same work: fmnist-cnn on Fashion-MNIST,
// batch 64 per rank, SGD with momentum, one intra-op thread per rank. Measures, in one run:
//   1 process: studio-train vs tests/bench/python/fmnist_anchor.py, in PyTorch's default layout
//     and in channels-last (studio's layout for this model)              goal ours/anchor >= 1.10
//   2-rank data parallel: studio-launcher + studio-train vs PyTorch DDP (Gloo), with studio's
//     default shared-memory all-reduce and with Gloo like DDP's             goal >= 1.10
//   scaling efficiency: 2-rank throughput / (2 x 1-process throughput)     goal >= 0.90
//   peak resident memory of a studio-train rank vs the Python process's      goal <= 1.0
// Pinning is the same on both sides: studio-launcher binds each local rank to its share of the
// CPUs by default (--bind-cores auto, launcher/rank_environment.cpp rankCpus), so the Python
// ranks get the same CPU masks; single processes run unpinned on both sides.
// Every variant runs once per round, rounds interleaved with alternating order; each variant's
// best round counts (the median is in the details).
// Usage: bench_trainer [--quick] [--json FILE] [measured-steps] [rounds]
#include "engine/process/process.h"
#include "engine/wire/codec.h"
#include "engine/wire/line_splitter.h"
#include "launcher/rank_environment.h"
#include "tests/bench/bench_support.h"
#include "tests/support/read_to_end.h"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <sched.h>

using namespace studio;
namespace bench = studio::bench;

namespace {

struct Plan {
    int warmup = 10;
    int steps = 100;
    int rounds = 3;
};

// One run of a variant: rank 0's samples per second over the measured steps and its peak
// resident memory (MiB); samplesPerSecond 0 when the run failed.
struct RunResult {
    double samplesPerSecond = 0;
    double peakMiB = 0;
    std::string transport; // studio DDP: how its gradients travelled, from rank 0's log
    std::string torch;     // Python: torch.__version__
    std::vector<int> cpus; // Python: the CPUs rank 0 could run on
};

std::map<std::string, std::string> benchEnvironment() {
    auto env = process::currentEnvironment();
    env["OMP_NUM_THREADS"] = "1";
    env["OPENBLAS_NUM_THREADS"] = "1";
    env["MKL_NUM_THREADS"] = "1";
    return env;
}

// The CPUs studio-launcher --bind-cores auto gives local rank `local` of `nproc` when started
// from this process (it inherits this affinity): the launcher's own function.
std::vector<int> launcherCpus(int nproc, int local) {
    std::vector<int> available;
    cpu_set_t set;
    if (::sched_getaffinity(0, sizeof set, &set) == 0)
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
            if (CPU_ISSET(cpu, &set))
                available.push_back(cpu);
    return launcher::rankCpus(available, nproc, local);
}

std::string cpuList(const std::vector<int>& cpus) {
    if (cpus.empty())
        return "unbound";
    std::string s = "CPU";
    s += cpus.size() > 1 ? "s " : " ";
    for (std::size_t i = 0; i < cpus.size(); ++i)
        s += (i ? "," : "") + std::to_string(cpus[i]);
    return s;
}

// studio-train's last line per rank: "rank 0 peak resident memory 123.4 MiB".
double peakFromLog(const std::string& text) {
    const std::string key = "rank 0 peak resident memory ";
    const auto at = text.find(key);
    return at == std::string::npos ? 0 : std::strtod(text.c_str() + at + key.size(), nullptr);
}

// Samples per second of rank 0 over steps (warmup, warmup + steps], from its step events.
double fromStepEvents(const std::string& lines, const Plan& plan, int globalBatch) {
    std::vector<double> times;
    wire::LineSplitter split;
    for (const auto& line : split.append(lines)) {
        auto d = wire::decode(line.text);
        if (d.event && d.event->rank == 0 && d.event->as<wire::StepEvent>())
            times.push_back(d.event->t);
    }
    if (static_cast<int>(times.size()) < plan.warmup + plan.steps)
        return 0;
    const double seconds = times[static_cast<std::size_t>(plan.warmup + plan.steps - 1)] -
                           times[static_cast<std::size_t>(plan.warmup - 1)];
    return plan.steps * globalBatch / seconds;
}

std::vector<std::string> trainArgs(const Plan& plan, int batch) {
    return {std::string(STUDIO_BIN_DIR) + "/studio-train", "--model", "fmnist-cnn", "--set",
            "hyperparameters.max-steps=" + std::to_string(plan.warmup + plan.steps), "--set",
            "hyperparameters.batch-size=" + std::to_string(batch), "--set",
            "hyperparameters.log-interval=1000", "--set", "hyperparameters.threads=1", "--set",
            "hyperparameters.device=cpu", // the anchor trains on the CPU
            // The anchor evaluates nothing: the one evaluation studio-train runs after its last
            // step is kept small, so it inflates neither the run's time nor its peak memory.
            "--set", "hyperparameters.eval-samples=64"};
}

RunResult oursSingle(const Plan& plan) {
    process::Pipe events = process::makePipe();
    process::SpawnOptions o;
    o.argv = trainArgs(plan, 64);
    o.env = benchEnvironment();
    o.env["STUDIO_EVENTS_FD"] = "3";
    o.passFds = {{events.write.get(), 3}};
    o.captureStderr = false;
    process::Process p = process::Process::spawn(o);
    events.write.reset();
    const std::string lines = readToEnd(events.read.get());
    RunResult r;
    r.peakMiB = peakFromLog(readToEnd(p.stdoutFd()));
    if (p.wait().success())
        r.samplesPerSecond = fromStepEvents(lines, plan, 64);
    return r;
}

// Two ranks under studio-launcher with its default core binding; sharedMemory false turns the
// shared-memory all-reduce off (STUDIO_SHM_ALLREDUCE=0): the gradients go through Gloo.
RunResult oursDistributed(const Plan& plan, bool sharedMemory) {
    const int ranks = 2;
    process::SpawnOptions o;
    o.argv = {std::string(STUDIO_BIN_DIR) + "/studio-launcher",
              "--nproc-per-node",
              std::to_string(ranks),
              "--master-port",
              std::to_string(process::freeTcpPort()),
              "--monitor-interval-ms",
              "0",
              "--"};
    for (auto& a : trainArgs(plan, 64 * ranks))
        o.argv.push_back(a);
    o.env = benchEnvironment();
    if (!sharedMemory)
        o.env["STUDIO_SHM_ALLREDUCE"] = "0";
    o.captureStderr = false;
    process::Process p = process::Process::spawn(o);
    const std::string lines = readToEnd(p.stdoutFd());
    RunResult r;
    if (!p.wait().success())
        return r;
    wire::LineSplitter split;
    for (const auto& line : split.append(lines))
        if (auto d = wire::decode(line.text); d.event && d.event->rank == 0)
            if (const auto* log = d.event->as<wire::LogEvent>()) {
                r.peakMiB = std::max(r.peakMiB, peakFromLog(log->text));
                const std::string key = "all-reduced through ";
                if (auto at = log->text.find(key); at != std::string::npos)
                    r.transport = log->text.substr(at + key.size());
            }
    r.samplesPerSecond = fromStepEvents(lines, plan, 64 * ranks);
    return r;
}

// fmnist_anchor.py, one process per rank; ranks of a 2-rank run get the launcher's CPU masks.
RunResult python(const Plan& plan, int ranks, bool channelsLast) {
    const std::string script =
        std::string(STUDIO_SOURCE_DIR) + "/tests/bench/python/fmnist_anchor.py";
    const int port = process::freeTcpPort();
    std::vector<process::Process> procs;
    for (int r = 0; r < ranks; ++r) {
        process::SpawnOptions o;
        o.argv = {STUDIO_PYTHON, script,
                  "--steps",     std::to_string(plan.steps),
                  "--warmup",    std::to_string(plan.warmup)};
        if (channelsLast)
            o.argv.push_back("--channels-last");
        o.env = benchEnvironment();
        o.env["RANK"] = std::to_string(r);
        o.env["WORLD_SIZE"] = std::to_string(ranks);
        o.env["MASTER_ADDR"] = "127.0.0.1";
        o.env["MASTER_PORT"] = std::to_string(port);
        o.cpus = launcherCpus(ranks, r);
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
    RunResult r;
    if (!ok || !j.is_object())
        return r;
    r.samplesPerSecond = j.value("samples_per_s", 0.0);
    r.peakMiB = j.value("peak_rss_mib", 0.0);
    r.torch = j.value("torch", std::string());
    r.cpus = j.value("cpus", std::vector<int>());
    return r;
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

// What each variant measured over the rounds.
struct Variant {
    bench::Samples throughput = bench::higherIsBetter();
    double peakMiB = 0; // the largest over the rounds
    int failures = 0;
    std::string transport;
    std::vector<int> cpus;

    void add(const RunResult& r) {
        if (r.samplesPerSecond <= 0) {
            ++failures;
            return;
        }
        throughput.add(r.samplesPerSecond);
        peakMiB = std::max(peakMiB, r.peakMiB);
        transport = r.transport;
        cpus = r.cpus;
    }
};

const char* const kVariants[] = {"python_single",   "python_single_channels_last",
                                 "studio_single",   "python_ddp2",
                                 "studio_ddp2_shm", "studio_ddp2_gloo"};

std::map<std::string, Variant> measure(const Plan& plan, std::string& torchVersion) {
    std::map<std::string, Variant> v;
    auto py = [&](const char* name, int ranks, bool cl) {
        return [&, name, ranks, cl](int) {
            const RunResult r = python(plan, ranks, cl);
            torchVersion = r.torch.empty() ? torchVersion : r.torch;
            v[name].add(r);
        };
    };
    bench::interleave(plan.rounds, {py(kVariants[0], 1, false), py(kVariants[1], 1, true),
                                    [&](int) { v[kVariants[2]].add(oursSingle(plan)); },
                                    py(kVariants[3], 2, false),
                                    [&](int) { v[kVariants[4]].add(oursDistributed(plan, true)); },
                                    [&](int) {
                                        v[kVariants[5]].add(oursDistributed(plan, false));
                                    }});
    return v;
}

void anchors(bench::Report& report, const Plan& plan, const std::string& torch,
             const std::string& ddpPinning) {
    const std::string work = "fmnist-cnn, Fashion-MNIST, batch 64 per rank, SGD momentum 0.9, " +
                             std::to_string(plan.steps) + " measured steps after " +
                             std::to_string(plan.warmup) + " warm-up, best of " +
                             std::to_string(plan.rounds) + " interleaved rounds";
    const std::string what = "tests/bench/python/fmnist_anchor.py: pytorch/examples' MNIST net, "
                             "DataLoader, SGD";
    const std::string version = "PyTorch " + torch + " (" STUDIO_PYTHON ")";
    report.anchor({"pytorch single", what + ", NCHW (PyTorch's default layout)", version, 1, "none",
                   "", work});
    report.anchor({"pytorch single channels-last", what + ", channels-last like studio-train's",
                   version, 1, "none", "", work});
    report.anchor({"pytorch ddp2", what + ", DistributedDataParallel, 2 ranks", version, 1,
                   ddpPinning, "Gloo over loopback", work});
}

// Figures of one comparison of throughputs (best rounds), with the goal the issue sets.
void throughputFigure(bench::Report& report, const std::string& name, const Variant& ours,
                      const Variant& anchor, const std::string& anchorName,
                      const std::string& note) {
    report.figure({name, "samples/s", ours.throughput.best(), anchor.throughput.best(), anchorName,
                   bench::Goal::ratioAtLeast(1.10), note});
}

void figures(bench::Report& report, std::map<std::string, Variant>& v) {
    throughputFigure(report, "training throughput, 1 process", v["studio_single"],
                     v["python_single"], "pytorch single",
                     "both unpinned; PyTorch in its default NCHW layout");
    throughputFigure(report, "training throughput, 1 process, vs channels-last PyTorch",
                     v["studio_single"], v["python_single_channels_last"],
                     "pytorch single channels-last", "both unpinned; the same memory layout");
    throughputFigure(report, "training throughput, 2-rank DDP, same transport (Gloo)",
                     v["studio_ddp2_gloo"], v["python_ddp2"], "pytorch ddp2",
                     "studio with STUDIO_SHM_ALLREDUCE=0: gradients through Gloo like DDP's");
    throughputFigure(report, "training throughput, 2-rank DDP, studio's default transport",
                     v["studio_ddp2_shm"], v["python_ddp2"], "pytorch ddp2",
                     "transports differ: studio's shared-memory all-reduce vs DDP's Gloo");
    const double ours =
        v["studio_ddp2_shm"].throughput.best() / (2 * v["studio_single"].throughput.best());
    const double theirs =
        v["python_ddp2"].throughput.best() / (2 * v["python_single"].throughput.best());
    report.figure({"scaling efficiency, 2 ranks", "fraction", ours, theirs, "pytorch ddp2",
                   bench::Goal::valueAtLeast(0.90),
                   "2-rank throughput (pinned, default transport) / 2 x 1-process throughput "
                   "(unpinned); the anchor is PyTorch's own efficiency"});
    report.figure({"peak resident memory, 1 process", "MiB", v["studio_single"].peakMiB,
                   v["python_single"].peakMiB, "pytorch single", bench::Goal::ratioAtMost(1.0),
                   "studio-train's VmHWM vs the Python process's ru_maxrss, largest over rounds"});
    report.figure({"peak resident memory, rank 0 of 2-rank DDP", "MiB",
                   v["studio_ddp2_shm"].peakMiB, v["python_ddp2"].peakMiB, "pytorch ddp2",
                   bench::Goal::ratioAtMost(1.0),
                   "rank 0's VmHWM vs the Python rank 0's ru_maxrss, largest over rounds"});
}

} // namespace

int main(int argc, char** argv) {
    const bench::Options opt = bench::Options::parse(argc, argv);
    bench::Report report("trainer", opt);
    Plan plan;
    plan.warmup = opt.quick ? 2 : 10;
    plan.steps = opt.pick(0, 4, 100);
    plan.rounds = opt.pick(1, 1, 3);
    std::string torch;
    auto v = measure(plan, torch);
    for (const char* name : kVariants)
        report.check(v[name].failures == 0 &&
                         static_cast<int>(v[name].throughput.size()) == plan.rounds,
                     std::string(name) + ": every round ran and measured its steps");
    report.check(v["studio_ddp2_shm"].transport == "shared memory",
                 "studio's default 2-rank run all-reduced through shared memory");
    report.check(v["studio_ddp2_gloo"].transport == "Gloo",
                 "studio's run with STUDIO_SHM_ALLREDUCE=0 all-reduced through Gloo");
    const std::vector<int> rank0Cpus = launcherCpus(2, 0);
    report.check(rank0Cpus.empty() || v["python_ddp2"].cpus == rank0Cpus,
                 "the Python DDP rank 0 ran on the CPUs studio-launcher gives its rank 0");
    const std::string ddpPinning = "rank 0: " + cpuList(rank0Cpus) +
                                   ", rank 1: " + cpuList(launcherCpus(2, 1)) +
                                   " (studio-launcher --bind-cores auto, its default; the Python "
                                   "ranks get the same masks)";
    anchors(report, plan, torch, ddpPinning);
    figures(report, v);

    const nlohmann::json probe = trainerProbe();
    std::error_code ec;
    const std::string blas =
        std::filesystem::canonical("/usr/lib/x86_64-linux-gnu/libblas.so.3", ec).string();
    bench::Json& d = report.details();
    d["studio_libtorch"] = probe.value("libtorch", std::string());
    d["blas"] = probe.value("blas", std::string()) == "mkl"
                    ? std::string("MKL, inside the wheel's LibTorch (both sides)")
                    : blas + " (both sides)";
    d["ours"] =
        "studio-train (1 process: unpinned; 2 ranks: under studio-launcher, " + ddpPinning + ")";
    d["threads_per_rank"] = 1;
    d["measured_steps"] = plan.steps;
    d["warmup_steps"] = plan.warmup;
    d["rounds"] = plan.rounds;
    for (const char* name : kVariants) {
        d["samples_per_s"][name] = v[name].throughput.json();
        d["peak_rss_mib"][name] = v[name].peakMiB;
    }
    return report.finish();
}
