// Launcher overhead: the time from spawning studio-launcher until every one of its ranks runs,
// against the same ranks started by a plain shell loop (the anchor). Each rank is bash printing
// its own start time (EPOCHREALTIME) into <dir>/<RANK>; a run's figure is the latest start minus
// the moment the launcher (or the loop) was spawned.
//
// Two figures, each against the same shell loop, measured in the same interleaved rounds:
//   sampling off:      --monitor-interval-ms 0
//   default sampling:  no flag, as users run it (system samples every 500 ms)
// The shell loop counts with builtins only (no `seq`), so it pays for bash and nothing else.
// Goal: launcher / shell loop <= 1.2 for both. Rounds alternate the order of the three sides;
// the first two rounds warm the caches and are not counted. A figure compares the two sides'
// best rounds (the least disturbed by other work on the machine, which only ever adds time);
// its note gives the medians' ratio too, and details every side's samples.
//
// Usage: bench_launcher_overhead [--quick] [--json FILE] [ranks] [rounds] [launcher]
//        (quick: 4 ranks, 3 rounds; full: 4 ranks, 200 rounds; launcher: this build's
//        studio-launcher, or another build's to compare two of them)
#include "engine/process/process.h"
#include "tests/bench/bench_support.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace studio;
namespace fs = std::filesystem;

namespace {

constexpr int kWarmupRounds = 2;

// The rank: bash prints its own start time into <dir>/<RANK>.
const char* kRank = "echo $EPOCHREALTIME > \"$BENCH_DIR/$RANK\"";

// The latest start the ranks recorded, or -1 when one of them recorded none.
double latestStart(const fs::path& dir, int ranks) {
    double latest = 0;
    for (int r = 0; r < ranks; ++r) {
        std::ifstream in(dir / std::to_string(r));
        double t = 0;
        in >> t;
        if (t == 0)
            return -1;
        latest = std::max(latest, t);
    }
    return latest;
}

struct Run {
    double seconds = -1; // spawn to the last rank's start; -1: a rank recorded nothing
    int exitCode = -1;
};

Run runOnce(const std::vector<std::string>& argv, const fs::path& dir, int ranks) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    process::SpawnOptions o;
    o.argv = argv;
    o.env = process::currentEnvironment();
    o.env["BENCH_DIR"] = dir.string();
    o.captureStderr = false;
    const double t0 = bench::wallSeconds();
    process::Process p = process::Process::spawn(o);
    char buf[4096];
    while (::read(p.stdoutFd(), buf, sizeof buf) > 0) {
    } // the launcher's events are not the subject here
    Run run;
    run.exitCode = p.wait().code;
    const double latest = latestStart(dir, ranks);
    run.seconds = latest < 0 ? -1 : latest - t0;
    return run;
}

std::vector<std::string> launcherCommand(const std::string& launcher, int ranks, bool sampling) {
    std::vector<std::string> argv = {launcher, "--nproc-per-node", std::to_string(ranks)};
    if (!sampling)
        argv.insert(argv.end(), {"--monitor-interval-ms", "0"});
    argv.insert(argv.end(), {"--", "/bin/bash", "-c", kRank});
    return argv;
}

std::vector<std::string> shellCommand(int ranks) {
    const std::string loop = "i=0; while [ $i -lt " + std::to_string(ranks) +
                             " ]; do RANK=$i /bin/bash -c '" + kRank + "' & i=$((i+1)); done; wait";
    return {"/bin/sh", "-c", loop};
}

// One side of the comparison: its command and its counted runs.
struct Side {
    std::string name;
    std::vector<std::string> argv;
    bench::Samples seconds = bench::lowerIsBetter();
    int failedRuns = 0; // a rank recorded no start, or the command failed
};

// "<n> rounds; medians 12.3 ms / 10.1 ms = 1.22".
std::string mediansNote(const Side& ours, const Side& shell) {
    char text[96];
    std::snprintf(text, sizeof text, "%zu rounds; medians %.2f ms / %.2f ms = %.2f",
                  ours.seconds.size(), ours.seconds.median() * 1000, shell.seconds.median() * 1000,
                  ours.seconds.median() / shell.seconds.median());
    return text;
}

void addFigures(bench::Report& report, const Side& off, const Side& sampling, const Side& shell,
                int ranks) {
    const std::string what = ", " + std::to_string(ranks) + " ranks: spawn to all ranks running";
    report.anchor({"shell loop",
                   "/bin/sh starting the same bash ranks in the background and waiting for them "
                   "(a while loop of builtins)",
                   "", 0, "none", "", std::to_string(ranks) + " bash ranks on this machine"});
    report.figure({"launcher start-up, sampling off" + what, "ms", off.seconds.best() * 1000,
                   shell.seconds.best() * 1000, "shell loop", bench::Goal::ratioAtMost(1.2),
                   "--monitor-interval-ms 0; best of " + mediansNote(off, shell)});
    report.figure({"launcher start-up, default sampling" + what, "ms",
                   sampling.seconds.best() * 1000, shell.seconds.best() * 1000, "shell loop",
                   bench::Goal::ratioAtMost(1.2),
                   "no --monitor-interval-ms (500 ms, as users run it); best of " +
                       mediansNote(sampling, shell)});
}

} // namespace

int main(int argc, char** argv) {
    const bench::Options options = bench::Options::parse(argc, argv);
    const int ranks = options.pick(0, 4, 4);
    const int rounds = options.pick(1, 3, 200);
    const std::string launcher = options.args.size() > 2
                                     ? options.args[2]
                                     : std::string(STUDIO_BIN_DIR) + "/studio-launcher";
    bench::Report report("launcher_overhead", options);
    const fs::path dir = fs::temp_directory_path() / ("bench-launch-" + std::to_string(::getpid()));

    Side off{"sampling off", launcherCommand(launcher, ranks, false)};
    Side sampling{"default sampling", launcherCommand(launcher, ranks, true)};
    Side shell{"shell loop", shellCommand(ranks)};
    auto measure = [&](Side& side) {
        return [&side, &dir, ranks](int round) {
            const Run run = runOnce(side.argv, dir, ranks);
            if (run.seconds < 0 || run.exitCode != 0)
                ++side.failedRuns;
            else if (round >= kWarmupRounds)
                side.seconds.add(run.seconds);
        };
    };
    bench::interleave(rounds + kWarmupRounds, {measure(off), measure(sampling), measure(shell)});
    fs::remove_all(dir);

    for (const Side* side : {&off, &sampling, &shell})
        report.check(side->failedRuns == 0, side->name + ": every run exited 0 and all " +
                                                std::to_string(ranks) +
                                                " ranks recorded their start (" +
                                                std::to_string(side->failedRuns) + " runs failed)");
    addFigures(report, off, sampling, shell, ranks);
    report.details() = {{"launcher", launcher},
                        {"ranks", ranks},
                        {"rounds", rounds},
                        {"warmup_rounds", kWarmupRounds},
                        {"sampling_off_ms", off.seconds.json(1000)},
                        {"default_sampling_ms", sampling.seconds.json(1000)},
                        {"shell_loop_ms", shell.seconds.json(1000)}};
    return report.finish();
}
