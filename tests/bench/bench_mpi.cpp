// distribution.mpi's cost: an 8 MB all-reduce in mpi4py with the ranks under the studio (node 0's
// studio-launcher --mpi runs mpirun, each rank's shim gets its environment from the launcher)
// against the same script under a bare mpirun; and a job's start, the same trivial mpi4py script
// (MPI_Init, MPI_Finalize) from spawn to exit both ways.
//
// Same conditions on both sides: 2 ranks on this host, each bound to its own core (the launcher's
// --bind-cores auto; mpirun --map-by core --bind-to core), OMP_NUM_THREADS=1, Open MPI's
// shared-memory transport, the same script and sizes. The all-reduce time of an iteration is
// the slowest rank's; rounds interleave the two sides, reversing their order every other round.
// The studio runs twice: with the launcher's default system sampling, as users run it, and with
// sampling off, which leaves the data path alone.
// Goals: the studio's all-reduce bandwidth >= 0.95 x bare mpirun's; the start <= 0.3 s over it.
//
// Usage: bench_mpi [--quick] [--json FILE] [rounds] [iterations]
//        (quick: 2 rounds of 3 iterations; full: 10 rounds of 30 iterations)
#include "engine/process/process.h"
#include "tests/bench/bench_support.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <unistd.h>

using namespace studio;
using Json = nlohmann::json;

namespace {

const std::string kScript =
    std::string(STUDIO_SOURCE_DIR) + "/tests/bench/python/mpi_allreduce_bench.py";
const std::string kPython = "/usr/bin/python3";
constexpr double kSizeMb = 8;

struct Output {
    std::string out;
    process::ExitStatus status;
    double seconds = 0;
};

Output run(const std::vector<std::string>& argv) {
    process::SpawnOptions o;
    o.argv = argv;
    o.env = process::currentEnvironment();
    o.env["OMP_NUM_THREADS"] = "1";
    o.captureStderr = false;
    const auto start = bench::Clock::now();
    process::Process p = process::Process::spawn(o);
    Output r;
    char buf[65536];
    ssize_t n;
    while ((n = ::read(p.stdoutFd(), buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
        if (n > 0)
            r.out.append(buf, static_cast<std::size_t>(n));
    r.status = p.wait();
    r.seconds = bench::secondsSince(start);
    return r;
}

std::vector<std::string> bareMpirun(const std::vector<std::string>& program) {
    std::vector<std::string> argv = {"mpirun",   "-np",  "2",         "--host", "localhost:2",
                                     "--map-by", "core", "--bind-to", "core"};
    if (::geteuid() == 0)
        argv.push_back("--allow-run-as-root");
    argv.insert(argv.end(), program.begin(), program.end());
    return argv;
}

// sampling: the launcher's default system sampling (every 500 ms), else none.
std::vector<std::string> underStudio(const std::vector<std::string>& program, int round,
                                     bool sampling) {
    std::vector<std::string> argv = {std::string(STUDIO_BIN_DIR) + "/studio-launcher",
                                     "--nproc-per-node",
                                     "2",
                                     "--run-id",
                                     "bench-mpi-" + std::to_string(::getpid()) + "-" +
                                         std::to_string(round) + (sampling ? "s" : ""),
                                     "--monitor-interval-ms",
                                     sampling ? "500" : "0",
                                     "--mpi",
                                     "--"};
    argv.insert(argv.end(), program.begin(), program.end());
    return argv;
}

// The script's "BENCH {...}" line: in mpirun's output as it is, in the launcher's events as the
// text of rank 0's log line.
Json benchLine(const std::string& out) {
    for (std::size_t at = 0; at < out.size();) {
        const std::size_t end = std::min(out.find('\n', at), out.size());
        std::string line = out.substr(at, end - at);
        at = end + 1;
        const Json event = Json::parse(line, nullptr, false);
        if (event.is_object() && event.value("kind", "") == "log" && event.value("rank", -1) == 0)
            line = event.value("text", "");
        if (line.rfind("BENCH ", 0) == 0)
            return Json::parse(line.substr(6), nullptr, false);
    }
    return nullptr;
}

struct Side {
    std::string name;
    bench::Samples bandwidth = bench::higherIsBetter(); // GB/s per iteration
    bench::Samples start = bench::lowerIsBetter();      // seconds
    int failures = 0;
    std::string lastError;
};

void measureAllreduce(Side& side, const std::vector<std::string>& argv) {
    const Output r = run(argv);
    const Json b = benchLine(r.out);
    if (!r.status.success() || !b.is_object() || b.value("world", 0) != 2 ||
        !b.value("correct", false)) {
        ++side.failures;
        side.lastError = r.status.describe() + ": " + r.out.substr(0, 2000);
        return;
    }
    const double bytes = b["bytes"].get<double>();
    for (double s : b["seconds"])
        side.bandwidth.add(bytes / s / 1e9);
}

void measureStart(Side& side, const std::vector<std::string>& argv) {
    const Output r = run(argv);
    if (!r.status.success()) {
        ++side.failures;
        side.lastError = r.status.describe() + ": " + r.out.substr(0, 2000);
        return;
    }
    side.start.add(r.seconds);
}

void bandwidthFigures(bench::Report& report, const Side& studio, const Side& bare,
                      const std::string& how, const std::string& note) {
    for (bool median : {false, true}) {
        bench::Figure f;
        f.name = "8 MB all-reduce bandwidth, 2 ranks, " + how + " (" +
                 (median ? "median" : "best") + " iteration)";
        f.unit = "GB/s";
        f.ours = median ? studio.bandwidth.median() : studio.bandwidth.best();
        f.anchor = median ? bare.bandwidth.median() : bare.bandwidth.best();
        f.anchorName = "bare-mpirun";
        f.goal = bench::Goal::ratioAtLeast(0.95);
        f.note = note;
        report.figure(f);
    }
}

void startFigures(bench::Report& report, const Side& studio, const Side& bare) {
    bench::Figure start;
    start.name = "job start to end, trivial mpi4py script, 2 ranks (median run)";
    start.unit = "s";
    start.ours = studio.start.median();
    start.anchor = bare.start.median();
    start.anchorName = "bare-mpirun";
    report.figure(start);
    bench::Figure overhead;
    overhead.name = "start overhead over bare mpirun (medians' difference)";
    overhead.unit = "s";
    overhead.ours = studio.start.median() - bare.start.median();
    overhead.goal = bench::Goal::valueAtMost(0.3);
    overhead.note = "studio-launcher --mpi on one node with default sampling: the launcher, "
                    "mpirun, the ranks' shims; the controller's own work (store, job folder) "
                    "is not in it";
    report.figure(overhead);
}

} // namespace

int main(int argc, char** argv) {
    const bench::Options options = bench::Options::parse(argc, argv);
    const int rounds = options.pick(0, 2, 10);
    const int iters = options.pick(1, 3, 30);
    bench::Report report("mpi", options);
    const std::vector<std::string> allreduce = {
        kPython, kScript, "--size-mb", std::to_string(kSizeMb), "--iters", std::to_string(iters)};
    const std::vector<std::string> trivial = {kPython, "-c", "from mpi4py import MPI"};
    Side sampled, quiet, bare;
    sampled.name = "studio, default sampling";
    quiet.name = "studio, sampling off";
    bare.name = "bare mpirun";
    bench::interleave(
        rounds, {[&](int round) { measureAllreduce(sampled, underStudio(allreduce, round, true)); },
                 [&](int round) { measureAllreduce(quiet, underStudio(allreduce, round, false)); },
                 [&](int) {
                     measureAllreduce(bare, bareMpirun(allreduce));
                 }});
    bench::interleave(rounds + 1, {[&](int round) {
                                       if (round > 0) // the first round warms the caches
                                           measureStart(sampled,
                                                        underStudio(trivial, 100 + round, true));
                                   },
                                   [&](int round) {
                                       if (round > 0)
                                           measureStart(bare, bareMpirun(trivial));
                                   }});
    for (const Side* s : {&sampled, &quiet, &bare})
        report.check(s->failures == 0, s->name +
                                           ": every run exited 0, with world size 2 and "
                                           "correct sums (" +
                                           std::to_string(s->failures) +
                                           " failed; last: " + s->lastError + ")");
    report.anchor({"bare-mpirun",
                   "the same mpi4py script under mpirun -np 2 --map-by core --bind-to core, no "
                   "studio",
                   "Open MPI 4.1 (Debian 12), mpi4py 3.1", 1, "one core per rank",
                   "Open MPI shared memory (vader)",
                   "an 8 MB float64 MPI_Allreduce (SUM) over 2 ranks; and MPI_Init + Finalize"});
    bandwidthFigures(report, sampled, bare, "default sampling",
                     "the launcher samples the node every 500 ms; with 2 ranks on 2 cores each "
                     "wake-up takes a core from a rank that is polling for its peer");
    bandwidthFigures(report, quiet, bare, "sampling off", "the data path alone");
    startFigures(report, sampled, bare);
    report.details() = {{"rounds", rounds},
                        {"iterations", iters},
                        {"studio_sampling_gbps", sampled.bandwidth.json()},
                        {"studio_quiet_gbps", quiet.bandwidth.json()},
                        {"bare_gbps", bare.bandwidth.json()},
                        {"studio_start_s", sampled.start.json()},
                        {"bare_start_s", bare.start.json()}};
    return report.finish();
}
