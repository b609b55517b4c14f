// Jobs on a real Slurm (the test fixture: slurmctld, a slurmd per network-namespace host,
// slurmrestd with JWT) against Slurm's own start and against an idle studio:
//  - start: submit -> the first rank's output line in the studio (its observer), for a job of
//    2 nodes x 1 rank running `/bin/sh -c 'echo hello'`. The anchor is Slurm alone: the same
//    REST client submits a batch script that runs the same command with srun on 2 nodes, and
//    its output file is polled every 10 ms. Same cluster, partition, node count and command;
//    rounds interleave the two sides. Goal: the studio's overhead (median ours - median anchor)
//    <= 1 s.
//  - follow: N concurrent Slurm jobs (1 node x 1 rank, a line a second) followed by one
//    Controller; the studio's CPU time (this process and its journal followers) over a steady
//    window, as % of one core. Goal <= 2 % for N = 50. Measured twice: with the launcher's
//    default system sampling (every 500 ms: ~19 events a second per job, stored and seen by the
//    profiler rules), and with sampling off (status, the job's lines and Slurm's word). The
//    anchor is the same process idle over a window of the same length.
// Prints one JSON object. --quick: 1 round, 5 jobs, a 5 s window, for ctest (never fails on a
// time); --rounds N, --jobs N and --window S set each. Needs root (network namespaces); prints
// {"skipped": reason} elsewhere.
#include "engine/control/controller.h"
#include "engine/control/slurm_jobs_cache.h"
#include "engine/control/studio_home.h"
#include "engine/remote/slurm_client.h"
#include "engine/spec/spec_parser.h"
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"
#include "tests/support/slurm_cluster.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <dirent.h>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>
#include <unistd.h>

using namespace studio;
using studio::testing::SlurmCluster;
namespace fs = std::filesystem;

namespace {

double now() {
    return wire::nowSeconds();
}

double median(std::vector<double> v) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// utime + stime of a process, in seconds (0 when it is gone).
double cpuSeconds(int pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto close = text.rfind(')');
    if (close == std::string::npos)
        return 0;
    std::istringstream rest(text.substr(close + 2));
    std::string field;
    double ticks = 0;
    for (int i = 3; i <= 15 && rest >> field; ++i)
        if (i == 14 || i == 15)
            ticks += std::stod(field);
    return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// This process and its children (the journal followers), by pid.
std::map<int, double> studioCpu() {
    std::map<int, double> out;
    const int self = ::getpid();
    out[self] = cpuSeconds(self);
    if (DIR* tasks = ::opendir("/proc/self/task")) {
        while (dirent* t = ::readdir(tasks)) {
            if (t->d_name[0] == '.')
                continue;
            std::ifstream in(std::string("/proc/self/task/") + t->d_name + "/children");
            int pid;
            while (in >> pid)
                out[pid] = cpuSeconds(pid);
        }
        ::closedir(tasks);
    }
    return out;
}

// CPU seconds spent between two readings by the processes alive at both.
double spent(const std::map<int, double>& a, const std::map<int, double>& b) {
    double s = 0;
    for (const auto& [pid, t] : b)
        if (auto it = a.find(pid); it != a.end())
            s += t - it->second;
    return s;
}

struct FirstLine : control::JobObserver {
    std::mutex m;
    std::map<std::string, double> at;
    std::atomic<std::int64_t> events{0};
    void jobEvent(const std::string& job, store::ComponentId, const wire::Event& e) override {
        ++events;
        if (e.rank < 0 || !e.as<wire::LogEvent>())
            return;
        std::lock_guard lock(m);
        at.emplace(job, now());
    }
    double get(const std::string& job) {
        std::lock_guard lock(m);
        auto it = at.find(job);
        return it == at.end() ? 0 : it->second;
    }
};

std::string g_specDir; // an empty folder: the jobs' source_dir

spec::JobSpec parse(const std::string& json) {
    auto r = spec::parseSpecText(json, g_specDir);
    if (!r.ok())
        throw std::runtime_error("spec: " + r.errors.front().text());
    return *r.spec;
}

remote::ClusterConfig clusterOf(const SlurmCluster& s, const std::string& workdir) {
    remote::ClusterConfig c;
    c.name = "bench";
    c.kind = "slurm";
    c.slurm.url = s.restUrl();
    c.slurm.tokenFile = s.tokenFile();
    c.slurm.user = s.tokenUser();
    c.workdir = workdir;
    c.installDir = STUDIO_BIN_DIR;
    c.socketIfname = s.socketIfname();
    return c;
}

// Slurm alone: submit -> "hello" in the srun step's output file.
double anchorStart(remote::SlurmClient& client, const std::string& dir, int round) {
    const std::string out = dir + "/anchor-" + std::to_string(round) + ".out";
    remote::SlurmJobRequest job;
    job.name = "anchor";
    job.script = "#!/bin/bash\nexec srun --nodes=2 --ntasks=2 --ntasks-per-node=1 --output=" + out +
                 " /bin/sh -c 'echo hello'\n";
    job.nodes = 2;
    job.timeLimitMinutes = 5;
    job.workingDirectory = dir;
    job.standardOutput = dir + "/anchor-batch.out";
    job.environment = {{"PATH", "/usr/local/bin:/usr/bin:/bin"}};
    const double t0 = now();
    client.submit(job);
    for (int i = 0; i < 6000; ++i) {
        std::ifstream in(out);
        std::string line;
        if (std::getline(in, line) && line == "hello")
            return now() - t0;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    throw std::runtime_error("the anchor job wrote nothing in 60 s");
}

double studioStart(control::Controller& c, FirstLine& probe) {
    const double t0 = now();
    const auto job = c.submit(parse(R"({"name": "bench-start", "cluster": "bench",
        "entry_point": ["/bin/sh", "-c", "echo hello"], "instance_count": 2,
        "disable_profiler": true, "debugger_hook_config": false})"));
    for (int i = 0; i < 6000 && probe.get(job.name) <= 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const double first = probe.get(job.name);
    if (const std::string status = c.wait(job.name); status != "Completed" || first <= 0) {
        c.writer().flush();
        store::StoreReader r(c.writer().path());
        const auto row = r.component(job.name);
        throw std::runtime_error("the studio's job " + job.name + " ended " + status + ": " +
                                 (row ? row->failureReason : std::string()));
    }
    return first - t0;
}

// sampling: the launcher's system sampling as users get it by default (every 500 ms), or off
// (the job's own lines, status and Slurm's word only).
nlohmann::json follow(control::Controller& c, FirstLine& probe, int jobs, double window,
                      bool sampling) {
    std::vector<std::string> names;
    const std::string spec = R"({"name": "bench-follow", "cluster": "bench",
        "entry_point": ["/bin/sh", "-c", "i=0; while [ $i -lt 600 ]; do echo tick $i; i=$((i+1)); sleep 1; done"],
        "slurm": {"partition": "shared"}, "debugger_hook_config": false,
        "disable_profiler": )" +
                             std::string(sampling ? "false" : "true") + "}";
    for (int i = 0; i < jobs; ++i)
        names.push_back(c.submit(parse(spec)).name);
    // Steady: every job's rank has written a line.
    const std::string db = c.writer().path();
    for (int i = 0; i < 1200; ++i) {
        store::StoreReader r(db);
        int training = 0;
        for (const auto& n : names)
            if (auto row = r.component(n); row && row->secondaryStatus == "Training")
                ++training;
        if (training == jobs)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    std::this_thread::sleep_for(std::chrono::seconds(2));
    const std::int64_t requestsBefore = control::SlurmJobsCache::instance().requests();
    std::fprintf(stderr, "bench_slurm: measuring %d followed jobs for %.0f s\n", jobs, window);
    const auto a = studioCpu();
    const std::int64_t eventsBefore = probe.events;
    const double t0 = now();
    std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<long>(window * 1000)));
    const auto b = studioCpu();
    const double elapsed = now() - t0;
    const double cpu = spent(a, b);
    const double events = static_cast<double>(probe.events - eventsBefore);
    const int self = ::getpid();
    const double selfCpu = b.at(self) - a.at(self);
    const std::int64_t requests = control::SlurmJobsCache::instance().requests() - requestsBefore;
    int running = 0;
    for (const auto& n : c.runningJobs())
        running += std::find(names.begin(), names.end(), n) != names.end();
    for (const auto& n : names)
        c.stop(n, "benchmark done");
    for (const auto& n : names)
        c.wait(n);
    // The anchor: the same process, nothing followed, over a window as long.
    const auto ia = studioCpu();
    std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<long>(window * 1000)));
    const double idle = spent(ia, studioCpu());
    return {{"jobs", jobs},
            {"running_in_window", running},
            {"window_s", elapsed},
            {"studio_cpu_s", cpu},
            {"this_process_cpu_s", selfCpu},
            {"followers_cpu_s", cpu - selfCpu},
            {"events_per_s", events / elapsed},
            {"core_percent", 100.0 * cpu / elapsed},
            {"idle_core_percent", 100.0 * idle / elapsed},
            {"slurm_requests_per_s", static_cast<double>(requests) / elapsed},
            {"goal_core_percent", 2.0},
            {"conditions",
             std::string("one Controller in this process; each job 1 node x 1 rank writing a "
                         "line a second; ") +
                 (sampling ? "the launcher's default system sampling (every 500 ms) and the "
                             "default profiler rules"
                           : "system sampling off (disable_profiler)") +
                 "; CPU = utime+stime of this process and its child processes (journal "
                 "followers); the launchers and ranks run under slurmstepd and are not counted"}};
}

} // namespace

int main(int argc, char** argv) {
    const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
    if (const std::string why = SlurmCluster::unavailableReason(); !why.empty()) {
        std::printf("%s\n", nlohmann::json{{"bench", "slurm"}, {"skipped", why}}.dump().c_str());
        return 0;
    }
    int rounds = quick ? 1 : 5;
    int jobs = quick ? 5 : 50;
    double window = quick ? 5 : 30;
    for (int i = 1; i + 1 < argc; ++i) { // --rounds N, --jobs N, --window S
        const std::string a = argv[i];
        if (a == "--rounds")
            rounds = std::stoi(argv[i + 1]);
        else if (a == "--jobs")
            jobs = std::stoi(argv[i + 1]);
        else if (a == "--window")
            window = std::stod(argv[i + 1]);
    }
    nlohmann::json out{{"bench", "slurm"}, {"quick", quick}};
    try {
        SlurmCluster slurm;
        const std::string home = slurm.dir() + "/home";
        g_specDir = slurm.dir() + "/spec";
        fs::create_directories(g_specDir);
        const std::string work = slurm.sharedDir() + "/work";
        fs::create_directories(work);
        auto options = control::ControllerOptions{};
        options.home = home;
        options.launcherPath = STUDIO_BIN_DIR "/studio-launcher";
        options.trainerPath = STUDIO_BIN_DIR "/studio-train";
        options.imdsEndpoint = "off";
        {
            store::StoreWriter w(control::databasePath(home));
            const double t = now();
            w.saveCluster(
                {"bench", "slurm", remote::clusterToJson(clusterOf(slurm, work)), t, t, ""});
        }
        control::Controller c(options);
        FirstLine probe;
        c.addObserver(&probe);
        remote::SlurmClient client(clusterOf(slurm, work), 10);
        client.negotiate();
        std::vector<double> ours, anchor;
        for (int r = 0; r < rounds; ++r) { // interleaved, the side going first alternating
            if (r % 2 == 0) {
                ours.push_back(studioStart(c, probe));
                anchor.push_back(anchorStart(client, work, r));
            } else {
                anchor.push_back(anchorStart(client, work, r));
                ours.push_back(studioStart(c, probe));
            }
        }
        out["start"] = {{"rounds", rounds},
                        {"studio_s", ours},
                        {"anchor_slurm_alone_s", anchor},
                        {"studio_median_s", median(ours)},
                        {"anchor_median_s", median(anchor)},
                        {"overhead_s", median(ours) - median(anchor)},
                        {"goal_overhead_s", 1.0},
                        {"conditions",
                         "2 nodes x 1 rank, partition debug, the same REST client and Slurm; "
                         "ours: submit (with its API and partition checks) -> the rank's line "
                         "through launcher, journal, follower and runner; anchor: REST submit -> "
                         "the line in srun's output file, polled every 10 ms"}};
        out["follow"] = follow(c, probe, jobs, window, true);
        out["follow_without_sampling"] = follow(c, probe, jobs, window, false);
        c.removeObserver(&probe);
    } catch (const std::exception& e) {
        out["error"] = e.what();
        std::printf("%s\n", out.dump(2).c_str());
        return 1;
    }
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
}
