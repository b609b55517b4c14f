// Remote runs over SSH on two network-namespace hosts against the same jobs on this machine
// (cluster "local"): the same spec, ranks, data, steps and threads, only the cluster differs, and
// rounds alternate which side goes first.
//  - throughput: the built-in trainer, 2 hosts x 2 ranks, against 2 local nodes x 2 ranks; goal
//    ratio >= 0.95;
//  - start: submit -> every rank of 2 nodes started, with the SSH masters warm; goal <= 2 s
//    (the worst round);
//  - latency: a rank's event (stamped when written) -> the studio window's engine bridge, through
//    the launcher, its journal, the follower (and SSH); goal p99 <= 500 ms;
//  - journal follow: a finished job's journal of N events followed again from byte 0 by a studio
//    that takes the job over (follower, SSH, decoding, store commits); goal >= 50k events/s. The
//    anchor takes over the same job's journal on this machine; `ssh host cat` of the journal
//    through the same master is reported as the transport's floor.
// Sizes: full (the default) 3 throughput rounds of 120 steps, 8 start rounds (the first not
// counted), 2 latency rounds of 10 s at 50 events/s, a 300,000-event journal: about 5 minutes
// on 2 cores. --quick (ctest): 1 round of 20 steps, 2 start rounds, 1 latency round of 2 s,
// 20,000 events; it checks that every job completes and no event is lost.
// Usage: bench_remote [--quick] [--json FILE]. Needs root (network namespaces); reports
// "skipped" in its details elsewhere.
#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/plot/stats.h"
#include "engine/remote/host_executor.h"
#include "engine/spec/spec_parser.h"
#include "engine/store/store_reader.h"
#include "models/live/engine_bridge.h"
#include "tests/bench/bench_support.h"
#include "tests/support/netns_hosts.h"
#include "tests/support/remote_cluster.h"

#include <QCoreApplication>
#include <QTemporaryDir>

#include <SQLiteCpp/Database.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <vector>

using namespace studio;

namespace {

constexpr const char* kLocal = "local"; // the anchor: this machine
constexpr const char* kRemote = "ns";   // ours: the two namespace hosts over SSH

double now() {
    return wire::nowSeconds();
}

// The percentile p (0..1), NumPy's linear definition as everywhere in the studio; NaN for no
// values.
double percentile(const std::vector<double>& v, double p) {
    return plot::percentile(v, p * 100);
}

spec::JobSpec parse(const std::string& json) {
    auto r = spec::parseSpecText(json, STUDIO_SOURCE_DIR "/tests/bench/python");
    if (!r.ok())
        throw std::runtime_error("spec: " + r.errors.front().text());
    return *r.spec;
}

std::string burstSpec(const std::string& cluster, int nodes, const std::string& env) {
    return R"({"name": "bench-events", "entry_point": ["/usr/bin/python3", "event_burst.py"],
        "cluster": ")" +
           cluster + R"(", "instance_count": )" + std::to_string(nodes) + R"(,
        "profiler_config": {"system_monitor_interval_millis": 1000},
        "environment": )" +
           env + "}";
}

// Collects, on the GUI side of the engine bridge, when each job's "latency" events arrived.
struct LatencyProbe : QObject {
    std::map<std::string, std::vector<double>> latencies; // by job
    explicit LatencyProbe(models::EngineBridge& bridge) {
        QObject::connect(&bridge, &models::EngineBridge::batchReady, this,
                         [this](const models::LiveBatch& b) {
                             const double t = now();
                             for (const auto& m : b.metrics)
                                 if (m.name == QStringLiteral("latency"))
                                     latencies[m.job.toStdString()].push_back(t - m.time);
                         });
    }
};

// When each job first reached Training (every rank of every node started).
struct StartProbe : control::JobObserver {
    std::mutex mutex;
    std::map<std::string, double> training;
    void jobStatus(const control::JobStatusUpdate& u) override {
        if (u.secondaryStatus != "Training")
            return;
        std::lock_guard lock(mutex);
        training.emplace(u.job, u.time);
    }
    double at(const std::string& job) {
        std::lock_guard lock(mutex);
        const auto it = training.find(job);
        return it == training.end() ? NAN : it->second;
    }
};

// Runs the Qt event loop until the job ends (the bridge delivers on this thread).
std::string runUntilDone(control::Controller& c, const std::string& job, double limit) {
    const double end = now() + limit;
    while (now() < end) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        const auto r = c.runningJobs();
        if (std::find(r.begin(), r.end(), job) == r.end())
            break;
    }
    QCoreApplication::processEvents(QEventLoop::AllEvents, 100);
    return waitForJob(c, job, 5);
}

// Mean global samples/s after the first log points (warm-up) of a finished builtin job.
double meanThroughput(const std::string& db, const std::string& job) {
    store::StoreReader r(db);
    auto pts = r.metricPoints(r.component(job)->id, "train:throughput");
    if (pts.size() > 3)
        pts.erase(pts.begin(), pts.begin() + 2);
    double sum = 0;
    for (const auto& p : pts)
        sum += p.value;
    return pts.empty() ? NAN : sum / static_cast<double>(pts.size());
}

// What every section shares.
struct Bench {
    control::Controller& c;
    models::EngineBridge& bridge;
    StartProbe& starts;
    std::string db;
    std::string home;
    remote::ClusterConfig cluster;
    const bench::Options& options;
    bench::Report& report;
};

// Jobs of one section that did not complete, for its check.
struct Completion {
    int submitted = 0;
    std::vector<std::string> failed; // "cluster: status"
    void add(const char* cluster, const std::string& status) {
        ++submitted;
        if (status != "Completed")
            failed.push_back(std::string(cluster) + ": " + status);
    }
    void check(bench::Report& report, const std::string& what) const {
        std::string text = "every " + what + " job completed (" +
                           std::to_string(submitted - static_cast<int>(failed.size())) + " of " +
                           std::to_string(submitted);
        for (const auto& f : failed)
            text += "; " + f;
        report.check(failed.empty(), text + ")");
    }
};

// 1. Throughput, interleaved rounds: local, remote; remote, local; ...
void measureThroughput(Bench& b) {
    const int steps = b.options.quick ? 20 : 120;
    const int rounds = b.options.quick ? 1 : 3;
    const std::string train =
        R"({"name": "bench-tput", "entry_point": "builtin:fmnist-cnn", "instance_count": 2,
        "distribution": {"torch_distributed": {"enabled": true},
                         "mpi": {"enabled": true, "processes_per_host": 2}},
        "hyperparameters": {"max-steps": )" +
        std::to_string(steps) + R"(, "batch-size": 128,
            "threads": 1, "log-interval": 10, "train-samples": 20000, "eval-samples": 500},
        "inputs": {"train": "/usr/share/datasets/fashion-mnist"})";
    bench::Samples local = bench::higherIsBetter(), remote = bench::higherIsBetter();
    Completion done;
    const auto side = [&](const char* cluster, bench::Samples* into) {
        return [&, cluster, into](int) {
            const auto job = b.c.submit(parse(train + R"(, "cluster": ")" + cluster + "\"}"));
            const std::string status = runUntilDone(b.c, job.name, 900);
            done.add(cluster, status);
            if (status == "Completed")
                into->add(meanThroughput(b.db, job.name));
        };
    };
    bench::interleave(rounds, {side(kLocal, &local), side(kRemote, &remote)});
    done.check(b.report, "throughput");
    const std::string job = "builtin:fmnist-cnn, 2 nodes x 2 ranks, batch 128, threads 1, " +
                            std::to_string(steps) + " steps, 20,000 training samples";
    b.report.anchor({"local 2x2", "the same job on cluster local: 2 launchers x 2 ranks here", "",
                     1, "each launcher binds its ranks to its share of the CPUs (as ours)",
                     "Gloo over loopback between the nodes, shared memory within one", job});
    b.report.figure({"training throughput, 2 hosts x 2 ranks over SSH", "samples/s",
                     remote.median(), local.median(), "local 2x2", bench::Goal::ratioAtLeast(0.95),
                     "medians of " + std::to_string(rounds) +
                         " interleaved rounds of mean train:throughput after 2 log points; ours: "
                         "Gloo between the namespace hosts over the fixture's bridge"});
    b.report.details()["throughput"] = {{"job", job},
                                        {"local_samples_per_s", local.json()},
                                        {"remote_samples_per_s", remote.json()},
                                        {"ratio_of_bests", remote.best() / local.best()}};
}

// One burst job of 10 events on 2 nodes: submit -> Training, in seconds (NaN: never started).
double startSeconds(Bench& b, const char* cluster, Completion& done) {
    const double t0 = now();
    const auto job = b.c.submit(parse(burstSpec(cluster, 2, R"({"BURST_COUNT": "10"})")));
    done.add(cluster, runUntilDone(b.c, job.name, 120));
    return b.starts.at(job.name) - t0;
}

// 2. Submit -> all ranks of both nodes started, masters warm (the throughput jobs opened them).
void measureStart(Bench& b) {
    const int rounds = b.options.quick ? 2 : 8;
    bench::Samples local = bench::lowerIsBetter(), remote = bench::lowerIsBetter();
    Completion done;
    bench::interleave(rounds, {[&](int round) {
                                   const double s = startSeconds(b, kLocal, done);
                                   if (round > 0) // the first round warms caches, not counted
                                       local.add(s);
                               },
                               [&](int round) {
                                   const double s = startSeconds(b, kRemote, done);
                                   if (round > 0) // and stages the script on the hosts
                                       remote.add(s);
                               }});
    done.check(b.report, "start");
    const auto started = [](const bench::Samples& s) {
        return std::all_of(s.values.begin(), s.values.end(),
                           [](double v) { return std::isfinite(v) && v > 0; });
    };
    b.report.check(started(local) && started(remote), "every start round reached Training");
    const std::string work = "a 10-event burst script, 2 nodes x 1 rank";
    b.report.anchor({"local start", "the same job on cluster local (2 launchers here)", "", 0,
                     "none", "", work});
    b.report.figure({"start, submit to every rank of 2 hosts started, worst round", "s",
                     remote.max(), local.max(), "local start", bench::Goal::valueAtMost(2.0),
                     std::to_string(remote.size()) + " rounds after a first, uncounted one"});
    b.report.figure({"start, submit to every rank of 2 hosts started, median", "s", remote.median(),
                     local.median(), "local start", std::nullopt, ""});
    b.report.details()["start"] = {{"what", "submit() -> Training (every rank started)"},
                                   {"local_s", local.json()},
                                   {"remote_s", remote.json()},
                                   {"remote_rounds_s", remote.values}};
}

// 3. Event latency to the engine bridge (what the studio window paints from).
void measureLatency(Bench& b) {
    const int rounds = b.options.quick ? 1 : 2;
    const int rate = 50, seconds = b.options.quick ? 2 : 10;
    const std::string env = R"({"RATE": ")" + std::to_string(rate) + R"(", "SECONDS": ")" +
                            std::to_string(seconds) + "\"}";
    LatencyProbe probe(b.bridge);
    std::vector<double> local, remote;
    Completion done;
    bool complete = true;
    const auto side = [&](const char* cluster, std::vector<double>* into) {
        return [&, cluster, into](int) {
            const auto job = b.c.submit(parse(burstSpec(cluster, 1, env)));
            done.add(cluster, runUntilDone(b.c, job.name, 300));
            // The job leaves the running list when its launchers exit; the follower may still be
            // reading the journal's tail then. Wait (bounded) for the last batches to arrive.
            const std::size_t want = static_cast<std::size_t>(rate * seconds);
            for (const double end = now() + 30;
                 probe.latencies[job.name].size() < want && now() < end;)
                QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
            const auto& got = probe.latencies[job.name];
            complete = complete && got.size() == want;
            into->insert(into->end(), got.begin(), got.end());
        };
    };
    bench::interleave(rounds, {side(kLocal, &local), side(kRemote, &remote)});
    done.check(b.report, "latency");
    b.report.check(complete, "every latency event reached the engine bridge");
    const std::string work = std::to_string(rate) + " events/s for " + std::to_string(seconds) +
                             " s from one rank, " + std::to_string(rounds) + " round(s)";
    b.report.anchor({"local latency",
                     "the same job on cluster local: launcher, journal, "
                     "follower and bridge without SSH",
                     "", 0, "none", "", work});
    b.report.figure({"event latency, rank to the studio window over SSH, p99", "ms",
                     percentile(remote, 0.99) * 1000, percentile(local, 0.99) * 1000,
                     "local latency", bench::Goal::valueAtMost(500), ""});
    b.report.figure({"event latency, rank to the studio window over SSH, p50", "ms",
                     percentile(remote, 0.5) * 1000, percentile(local, 0.5) * 1000, "local latency",
                     std::nullopt, ""});
    b.report.details()["latency"] = {
        {"what", "rank writes an event -> EngineBridge batch on the GUI thread, via launcher, "
                 "journal, follower, ssh, controller"},
        {"remote_events", remote.size()},
        {"local_events", local.size()},
        {"remote_max_ms", percentile(remote, 1.0) * 1000},
        {"local_max_ms", percentile(local, 1.0) * 1000}};
}

// A finished job made to look unfinished with its journal unread, as after a studio that died
// before following it: the next takeOver() follows the journal again from byte 0.
void rewindJournal(const std::string& db, store::ComponentId id) {
    SQLite::Database w(db, SQLite::OPEN_READWRITE);
    w.setBusyTimeout(10000);
    w.exec("UPDATE trial_components SET status='InProgress', secondary_status='Training', "
           "owner='', ended=NULL WHERE id=" +
           std::to_string(id));
    w.exec("UPDATE journals SET byte_offset=0, state='following' WHERE component_id=" +
           std::to_string(id));
    w.exec("DELETE FROM metric_points WHERE series_id IN (SELECT id FROM metric_series "
           "WHERE component_id=" +
           std::to_string(id) + ")");
    w.exec("DELETE FROM metric_summaries WHERE series_id IN (SELECT id FROM metric_series "
           "WHERE component_id=" +
           std::to_string(id) + ")");
}

// One follow: a burst job of `count` events, then its journal followed again from byte 0.
struct Follow {
    double seconds = NAN;
    std::size_t stored = 0;
    std::string journal;
};

Follow followOnce(Bench& b, const char* cluster, int count, Completion& done) {
    Follow f;
    const auto burst = b.c.submit(
        parse(burstSpec(cluster, 1, R"({"BURST_COUNT": ")" + std::to_string(count) + R"("})")));
    const std::string status = runUntilDone(b.c, burst.name, 600);
    done.add(cluster, status);
    if (status != "Completed")
        return f;
    store::ComponentId id;
    {
        store::StoreReader reader(b.db);
        id = reader.component(burst.name)->id;
        f.journal = reader.journals(id).at(0).path;
    }
    rewindJournal(b.db, id);
    const double t0 = now();
    if (b.c.takeOver(burst.name).size() != 1)
        return f;
    done.add(cluster, runUntilDone(b.c, burst.name, 600));
    f.seconds = now() - t0;
    f.stored = store::StoreReader(b.db).metricPoints(id, "burst").size();
    return f;
}

// 4. Journal follow over SSH against the same follow of a local job's journal.
void measureJournalFollow(Bench& b) {
    const int count = b.options.quick ? 20000 : 300000;
    Follow local, remote;
    Completion done;
    bench::interleave(1, {[&](int) { remote = followOnce(b, kRemote, count, done); },
                          [&](int) {
                              local = followOnce(b, kLocal, count, done);
                          }});
    done.check(b.report, "journal follow (burst and takeover)");
    b.report.check(remote.stored == static_cast<std::size_t>(count) &&
                       local.stored == static_cast<std::size_t>(count),
                   "the followed journals stored every event (" + std::to_string(remote.stored) +
                       " and " + std::to_string(local.stored) + " of " + std::to_string(count) +
                       ")");
    double catSeconds = NAN;
    std::size_t catBytes = 0;
    if (!remote.journal.empty()) {
        auto exec =
            remote::makeExecutor(remote::clusterFromJson(kRemote, remote::clusterToJson(b.cluster)),
                                 0, remote::controlDirectory(b.home));
        const double a0 = now();
        catBytes = remote::runOnHost(*exec, {"cat", remote.journal}, 300).out.size();
        catSeconds = now() - a0;
    }
    b.report.anchor({"local follow",
                     "the same takeover of the same job's journal on cluster "
                     "local: follower, decoding and store without SSH",
                     "", 0, "none", "local file", std::to_string(count) + " events"});
    b.report.figure({"journal follow from byte 0 after a takeover, over SSH", "events/s",
                     count / remote.seconds, count / local.seconds, "local follow",
                     bench::Goal::valueAtLeast(50000),
                     "follower, SSH, decoding and store commits"});
    b.report.details()["journal_follow"] = {
        {"events", count},
        {"remote_seconds", remote.seconds},
        {"local_seconds", local.seconds},
        {"transport_floor",
         {{"what", "ssh host cat JOURNAL through the same master: the bytes alone"},
          {"bytes", catBytes},
          {"seconds", catSeconds},
          {"events_per_s", count / catSeconds}}}};
}

void runSections(Bench& b) {
    measureThroughput(b);
    measureStart(b);
    measureLatency(b);
    measureJournalFollow(b);
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const bench::Options options = bench::Options::parse(argc, argv);
    bench::Report report("remote", options);
    if (const std::string why = testing::NetnsHosts::unavailableReason(); !why.empty()) {
        report.details() = {{"skipped", why}};
        return report.finish();
    }
    report.details() = {{"hosts", "2 network namespaces on this machine, an sshd each"}};
    try {
        testing::NetnsHosts hosts;
        SharedWorkRoot work;
        QTemporaryDir home;
        const std::string db = control::databasePath(home.path().toStdString());
        const remote::ClusterConfig cluster = fixtureCluster(hosts, kRemote, work.path);
        saveCluster(db, cluster);
        control::ControllerOptions o;
        o.home = home.path().toStdString();
        o.launcherPath = STUDIO_BIN_DIR "/studio-launcher";
        o.trainerPath = STUDIO_BIN_DIR "/studio-train";
        o.imdsEndpoint = "off";
        StartProbe starts; // declared first: it outlives the controller that calls it
        control::Controller c(o);
        models::EngineBridge bridge(c);
        c.addObserver(&starts);
        Bench b{c, bridge, starts, db, o.home, cluster, options, report};
        runSections(b);
        c.removeObserver(&starts);
    } catch (const std::exception& e) {
        report.check(false, std::string("the bench ran to its end: ") + e.what());
    }
    return report.finish();
}
