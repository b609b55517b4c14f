// Jobs on a real Slurm (the test fixture: slurmctld, a slurmd per network-namespace host,
// slurmrestd with JWT) against Slurm's own start and against an idle studio:
//  - start: submit -> the first rank's output line in the studio (its observer), for a job of
//    2 nodes x 1 rank running `/bin/sh -c 'echo hello'`. The anchor is Slurm alone: the same
//    REST client submits a batch script that runs the same command with srun on 2 nodes, and
//    its output file is polled every 10 ms. Same cluster, default partition, node count and
//    command; rounds interleave the two sides (the side going first alternates), and every round
//    of either side starts on an idle cluster (the previous job ended in Slurm's eyes). Goal: the
//    studio's overhead (median ours - median anchor) <= 1 s.
//  - follow: N concurrent Slurm jobs (1 node x 1 rank, a line a second) followed by one
//    Controller; the studio's CPU time (this process and its journal followers) over a steady
//    window, as % of one core. Goal <= 2 % for N = 50. Measured twice: with the launcher's
//    default system sampling (every 500 ms: ~19 events a second per job, stored and seen by the
//    profiler rules), and with sampling off (status, the job's lines and Slurm's word). The
//    anchor is the same process idle over a window of the same length, after the same 2 s of
//    settling.
// Sizes: full (the default) 5 rounds, 50 jobs, a 30 s window: about 3 minutes here; --quick
// (ctest) 1 round, 5 jobs, a 5 s window, which checks that every job starts, writes and stops.
// Usage: bench_slurm [--quick] [--json FILE] [--rounds N] [--jobs N] [--window S]. Needs root
// (network namespaces); reports "skipped" in its details elsewhere.
#include "engine/control/controller.h"
#include "engine/control/slurm_jobs_cache.h"
#include "engine/control/studio_home.h"
#include "engine/remote/slurm_client.h"
#include "engine/spec/spec_parser.h"
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"
#include "tests/bench/bench_support.h"
#include "tests/support/slurm_cluster.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <dirent.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <unistd.h>

using namespace studio;
using studio::testing::SlurmCluster;
namespace fs = std::filesystem;

namespace {

double now() {
    return wire::nowSeconds();
}

void sleepSeconds(double s) {
    std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<long>(s * 1000)));
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

// Waits (bounded) until Slurm runs no job, so that the next round starts on an idle cluster
// whichever side went before. False when a job is still there after 60 s.
bool waitForIdleCluster(remote::SlurmClient& client) {
    for (int i = 0; i < 1200; ++i) {
        const auto jobs = client.jobs();
        if (std::all_of(jobs.begin(), jobs.end(),
                        [](const remote::SlurmJobInfo& j) { return j.ended(); }))
            return true;
        sleepSeconds(0.05);
    }
    return false;
}

// Slurm alone: submit -> "hello" in the srun step's output file (NaN: nothing in 60 s).
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
        sleepSeconds(0.01);
    }
    return NAN;
}

// Why a job failed, as the store has it.
std::string failureReason(control::Controller& c, const std::string& job) {
    c.writer().flush();
    store::StoreReader r(c.writer().path());
    const auto row = r.component(job);
    return row ? row->failureReason : std::string("(not in the store)");
}

// Ours: submit -> the first rank's line in the studio (NaN, with `failure` set, when the job
// did not complete with a line).
double studioStart(control::Controller& c, FirstLine& probe, std::string& failure) {
    const double t0 = now();
    const auto job = c.submit(parse(R"({"name": "bench-start", "cluster": "bench",
        "entry_point": ["/bin/sh", "-c", "echo hello"], "instance_count": 2,
        "disable_profiler": true, "debugger_hook_config": false})"));
    for (int i = 0; i < 6000 && probe.get(job.name) <= 0; ++i)
        sleepSeconds(0.01);
    const double first = probe.get(job.name);
    if (const std::string status = c.wait(job.name); status != "Completed" || first <= 0) {
        failure =
            "the studio's job " + job.name + " ended " + status + ": " + failureReason(c, job.name);
        return NAN;
    }
    return first - t0;
}

struct Sizes {
    int rounds = 5;
    int jobs = 50;
    double window = 30;
};

// 1. Start: ours and Slurm alone in interleaved rounds, each on an idle cluster.
void measureStart(bench::Report& report, control::Controller& c, FirstLine& probe,
                  remote::SlurmClient& client, const std::string& work, int rounds) {
    bench::Samples ours = bench::lowerIsBetter(), anchor = bench::lowerIsBetter();
    std::vector<std::string> failures;
    bool idle = true;
    bench::interleave(rounds, {[&](int) {
                                   std::string failure;
                                   ours.add(studioStart(c, probe, failure));
                                   if (!failure.empty())
                                       failures.push_back(failure);
                                   idle = waitForIdleCluster(client) && idle;
                               },
                               [&](int round) {
                                   anchor.add(anchorStart(client, work, round));
                                   idle = waitForIdleCluster(client) && idle;
                               }});
    std::string failed;
    for (const auto& f : failures)
        failed += "; " + f;
    report.check(failures.empty(), "every studio start round completed with its line" + failed);
    report.check(std::all_of(anchor.values.begin(), anchor.values.end(),
                             [](double v) { return std::isfinite(v); }),
                 "every Slurm-alone round wrote its line within 60 s");
    report.check(idle, "every round ended in Slurm before the next began");
    report.anchor({"Slurm alone",
                   "REST submit of a batch script whose srun runs the same "
                   "command on 2 nodes; its output file polled every 10 ms",
                   "Slurm " + client.release(), 0, "none", "Slurm (srun)",
                   "2 nodes x 1 rank, `/bin/sh -c 'echo hello'`, default partition"});
    report.figure({"start on Slurm, submit to the first rank's line (median)", "s", ours.median(),
                   anchor.median(), "Slurm alone", std::nullopt,
                   "ours: submit (API and partition checks) -> the line through launcher, "
                   "journal, follower and runner"});
    report.figure({"studio overhead on a Slurm start (median ours - median Slurm alone)", "s",
                   ours.median() - anchor.median(), std::nullopt, "", bench::Goal::valueAtMost(1.0),
                   "the anchor's 10 ms polling adds up to 10 ms to its side"});
    report.details()["start"] = {
        {"rounds", rounds}, {"studio_s", ours.json()}, {"slurm_alone_s", anchor.json()}};
}

// Waits (bounded) until every job's rank has written a line (Training), then 2 s more.
void waitForSteady(const std::string& db, const std::vector<std::string>& names) {
    for (int i = 0; i < 1200; ++i) {
        store::StoreReader r(db);
        const auto training = std::count_if(names.begin(), names.end(), [&](const auto& n) {
            const auto row = r.component(n);
            return row && row->secondaryStatus == "Training";
        });
        if (training == static_cast<long>(names.size()))
            break;
        sleepSeconds(0.1);
    }
    sleepSeconds(2);
}

// What one follow window measured.
struct Window {
    double elapsed = 0;
    double cpu = 0;
    double selfCpu = 0;
    double events = 0;
    std::int64_t requests = 0;
};

// The studio's CPU (this process and its followers) over `seconds`, and what it received.
Window measureWindow(FirstLine& probe, double seconds) {
    Window w;
    const std::int64_t requestsBefore = control::SlurmJobsCache::instance().requests();
    const auto a = studioCpu();
    const std::int64_t eventsBefore = probe.events;
    const double t0 = now();
    sleepSeconds(seconds);
    const auto b = studioCpu();
    w.elapsed = now() - t0;
    w.cpu = spent(a, b);
    const int self = ::getpid();
    w.selfCpu = b.at(self) - a.at(self);
    w.events = static_cast<double>(probe.events - eventsBefore);
    w.requests = control::SlurmJobsCache::instance().requests() - requestsBefore;
    return w;
}

// 2. Follow: `jobs` Slurm jobs followed over a steady window, then the same process idle.
// sampling: the launcher's system sampling as users get it by default (every 500 ms), or off
// (the job's own lines, status and Slurm's word only).
void measureFollow(bench::Report& report, control::Controller& c, FirstLine& probe,
                   const Sizes& sizes, bool sampling) {
    const std::string what = sampling ? "default sampling" : "sampling off";
    std::vector<std::string> names;
    const std::string spec = R"({"name": "bench-follow", "cluster": "bench",
        "entry_point": ["/bin/sh", "-c", "i=0; while [ $i -lt 600 ]; do echo tick $i; i=$((i+1)); sleep 1; done"],
        "slurm": {"partition": "shared"}, "debugger_hook_config": false,
        "disable_profiler": )" +
                             std::string(sampling ? "false" : "true") + "}";
    for (int i = 0; i < sizes.jobs; ++i)
        names.push_back(c.submit(parse(spec)).name);
    waitForSteady(c.writer().path(), names);
    std::fprintf(stderr, "bench_slurm: measuring %d followed jobs for %.0f s\n", sizes.jobs,
                 sizes.window);
    const Window busy = measureWindow(probe, sizes.window);
    int running = 0;
    for (const auto& n : c.runningJobs())
        running += std::find(names.begin(), names.end(), n) != names.end();
    for (const auto& n : names)
        c.stop(n, "benchmark done");
    int stopped = 0;
    std::string firstOther; // the first job that ended otherwise, and why
    for (const auto& n : names) {
        const std::string status = c.wait(n);
        stopped += status == "Stopped";
        if (status != "Stopped" && firstOther.empty())
            firstOther = "; " + n + " ended " + status + ": " + failureReason(c, n);
    }
    sleepSeconds(2); // the same settling as before the busy window
    const Window idle = measureWindow(probe, sizes.window);
    report.check(running == sizes.jobs, what + ": every followed job ran through the window (" +
                                            std::to_string(running) + " of " +
                                            std::to_string(sizes.jobs) + ")");
    report.check(busy.events >= 0.5 * sizes.jobs * busy.elapsed,
                 what + ": the jobs' lines reached the studio (" +
                     std::to_string(static_cast<long>(busy.events)) + " events)");
    report.check(stopped == sizes.jobs, what + ": every followed job stopped when asked (" +
                                            std::to_string(stopped) + " of " +
                                            std::to_string(sizes.jobs) + firstOther + ")");
    report.figure({"studio CPU following " + std::to_string(sizes.jobs) + " Slurm jobs, " + what,
                   "% of a core", 100.0 * busy.cpu / busy.elapsed, 100.0 * idle.cpu / idle.elapsed,
                   "idle studio", bench::Goal::valueAtMost(2.0),
                   "this process and its journal followers; the launchers and ranks run under "
                   "slurmstepd and are not counted"});
    report.details()[sampling ? "follow" : "follow_without_sampling"] = {
        {"jobs", sizes.jobs},
        {"running_in_window", running},
        {"window_s", busy.elapsed},
        {"studio_cpu_s", busy.cpu},
        {"this_process_cpu_s", busy.selfCpu},
        {"followers_cpu_s", busy.cpu - busy.selfCpu},
        {"events_per_s", busy.events / busy.elapsed},
        {"idle_cpu_s", idle.cpu},
        {"idle_window_s", idle.elapsed},
        {"slurm_requests_per_s", static_cast<double>(busy.requests) / busy.elapsed},
        {"conditions",
         std::string("one Controller in this process; each job 1 node x 1 rank writing a line "
                     "a second, partition shared; ") +
             (sampling ? "the launcher's default system sampling (every 500 ms) and the default "
                         "profiler rules"
                       : "system sampling off (disable_profiler)")}};
}

Sizes parseSizes(const bench::Options& options) {
    Sizes s;
    if (options.quick)
        s = {1, 5, 5};
    const auto& a = options.args;
    for (std::size_t i = 0; i + 1 < a.size(); ++i) {
        if (a[i] == "--rounds")
            s.rounds = std::stoi(a[++i]);
        else if (a[i] == "--jobs")
            s.jobs = std::stoi(a[++i]);
        else if (a[i] == "--window")
            s.window = std::stod(a[++i]);
    }
    return s;
}

void runBench(bench::Report& report, const Sizes& sizes) {
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
        w.saveCluster({"bench", "slurm", remote::clusterToJson(clusterOf(slurm, work)), t, t, ""});
    }
    FirstLine probe; // declared first: it outlives the controller that calls it
    control::Controller c(options);
    c.addObserver(&probe);
    remote::SlurmClient client(clusterOf(slurm, work), 10);
    client.negotiate();
    measureStart(report, c, probe, client, work, sizes.rounds);
    measureFollow(report, c, probe, sizes, true);
    measureFollow(report, c, probe, sizes, false);
    c.removeObserver(&probe);
}

} // namespace

int main(int argc, char** argv) {
    const bench::Options options = bench::Options::parse(argc, argv);
    bench::Report report("slurm", options);
    if (const std::string why = SlurmCluster::unavailableReason(); !why.empty()) {
        report.details() = {{"skipped", why}};
        return report.finish();
    }
    const Sizes sizes = parseSizes(options);
    report.details() = {
        {"sizes", {{"rounds", sizes.rounds}, {"jobs", sizes.jobs}, {"window_s", sizes.window}}}};
    try {
        runBench(report, sizes);
    } catch (const std::exception& e) {
        report.check(false, std::string("the bench ran to its end: ") + e.what());
    }
    return report.finish();
}
