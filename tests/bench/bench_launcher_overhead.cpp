// Launcher overhead: time from start until every rank runs, for studio-launcher against the same
// ranks started by a plain shell loop (the anchor). Each rank records when it started; the
// figure is the latest start minus the moment the launcher (or the loop) was spawned.
// Goal: launcher / shell loop <= 1.2. Usage: bench_launcher_overhead [ranks] [repeats]
#include "engine/process/process.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace studio;
namespace fs = std::filesystem;

namespace {

double now() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// The rank: bash prints its own start time (EPOCHREALTIME) into <dir>/<RANK>.
const char* kRank = "echo $EPOCHREALTIME > \"$BENCH_DIR/$RANK\"";

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

double runOnce(const std::vector<std::string>& argv, const fs::path& dir, int ranks) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    process::SpawnOptions o;
    o.argv = argv;
    o.env = process::currentEnvironment();
    o.env["BENCH_DIR"] = dir.string();
    o.captureStderr = false;
    const double t0 = now();
    process::Process p = process::Process::spawn(o);
    char buf[4096];
    while (::read(p.stdoutFd(), buf, sizeof buf) > 0) {
    } // the launcher's events are not the subject here
    p.wait();
    const double latest = latestStart(dir, ranks);
    return latest < 0 ? -1 : latest - t0;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
    const int ranks = argc > 1 ? std::atoi(argv[1]) : 4;
    const int repeats = argc > 2 ? std::atoi(argv[2]) : 15;
    const fs::path dir = fs::temp_directory_path() / ("bench-launch-" + std::to_string(::getpid()));
    const std::vector<std::string> launcher = {std::string(STUDIO_BIN_DIR) + "/studio-launcher",
                                               "--nproc-per-node",
                                               std::to_string(ranks),
                                               "--monitor-interval-ms",
                                               "0",
                                               "--",
                                               "/bin/bash",
                                               "-c",
                                               kRank};
    std::string loop = "for i in $(seq 0 " + std::to_string(ranks - 1) +
                       "); do RANK=$i /bin/bash -c '" + kRank + "' & done; wait";
    const std::vector<std::string> shell = {"/bin/sh", "-c", loop};

    std::vector<double> viaLauncher, viaShell;
    for (int i = 0; i < repeats + 2; ++i) { // the first two rounds warm the caches
        const double a = runOnce(launcher, dir, ranks);
        const double b = runOnce(shell, dir, ranks);
        if (a < 0 || b < 0) {
            std::fprintf(stderr, "a rank did not record its start\n");
            return 1;
        }
        if (i >= 2) {
            viaLauncher.push_back(a);
            viaShell.push_back(b);
        }
    }
    fs::remove_all(dir);
    const double l = median(viaLauncher), s = median(viaShell);
    nlohmann::ordered_json out = {
        {"bench", "launcher_overhead"},
        {"ranks", ranks},
        {"repeats", repeats},
        {"launcher_all_started_ms", l * 1000},
        {"anchor", "the same ranks started by a plain shell loop"},
        {"shell_loop_all_started_ms", s * 1000},
        {"ratio", l / s},
        {"goal_ratio_at_most", 1.2},
        {"meets_goal", l / s <= 1.2},
    };
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
}
