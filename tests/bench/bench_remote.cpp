// Remote runs over SSH on two network-namespace hosts against the same work on this machine:
//  - throughput: the built-in trainer, 2 hosts x 2 ranks, against the same job on "local"
//    (2 nodes x 2 ranks here): the same ranks, data, steps and threads; goal ratio >= 0.95;
//  - start: submit -> every rank of 2 hosts started, with the SSH masters warm; goal <= 2 s;
//  - latency: a rank's event (stamped when written) -> the studio window's engine bridge, through
//    the launcher, its journal, the follower and SSH; goal p99 <= 500 ms;
//  - journal follow: a finished job's journal of N events followed again from offset 0 by a
//    studio that takes the job over (follower, SSH, decoding, store commits); goal >= 50k events/s;
//    the anchor is the same bytes read by `ssh host cat`.
// Prints one JSON object. --quick: small sizes, for ctest (never fails on a time). Needs root
// (network namespaces); prints {"skipped": reason} elsewhere.
#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/remote/host_executor.h"
#include "engine/spec/spec_parser.h"
#include "engine/store/store_reader.h"
#include "models/live/engine_bridge.h"
#include "tests/support/netns_hosts.h"
#include "tests/support/remote_cluster.h"

#include <QCoreApplication>
#include <QTemporaryDir>

#include <SQLiteCpp/Database.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>

using namespace studio;

namespace {

double now() {
    return wire::nowSeconds();
}

double percentile(std::vector<double> v, double p) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const auto i =
        static_cast<std::size_t>(std::min<double>(v.size() - 1, p * (v.size() - 1) + 0.5));
    return v[i];
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

// Collects, on the GUI side of the engine bridge, when each "latency" event arrived.
struct LatencyProbe : QObject {
    std::vector<double> latencies;
    void attach(models::EngineBridge& bridge) {
        QObject::connect(&bridge, &models::EngineBridge::batchReady, this,
                         [this](const models::LiveBatch& b) {
                             const double t = now();
                             for (const auto& m : b.metrics)
                                 if (m.name == QStringLiteral("latency"))
                                     latencies.push_back(t - m.time);
                         });
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
    return pts.empty() ? 0 : sum / static_cast<double>(pts.size());
}

using Json = nlohmann::ordered_json;

// 1. Throughput, interleaved rounds: local, remote, local, remote.
Json measureThroughput(control::Controller& c, const std::string& db, bool quick) {
    const int steps = quick ? 20 : 120;
    const std::string train =
        R"({"name": "bench-tput", "entry_point": "builtin:fmnist-cnn", "instance_count": 2,
        "distribution": {"torch_distributed": {"enabled": true},
                         "mpi": {"enabled": true, "processes_per_host": 2}},
        "hyperparameters": {"max-steps": )" +
        std::to_string(steps) + R"(, "batch-size": 128,
            "threads": 1, "log-interval": 10, "train-samples": 20000, "eval-samples": 500},
        "inputs": {"train": "/usr/share/datasets/fashion-mnist"})";
    std::vector<double> local, remote;
    for (int round = 0; round < (quick ? 1 : 3); ++round)
        for (const char* cluster : {"local", "ns"}) {
            const auto job = c.submit(parse(train + R"(, "cluster": ")" + cluster + "\"}"));
            if (runUntilDone(c, job.name, 900) != "Completed")
                throw std::runtime_error(std::string("the throughput job on ") + cluster +
                                         " did not complete");
            (std::string(cluster) == "local" ? local : remote)
                .push_back(meanThroughput(db, job.name));
        }
    const double l = percentile(local, 0.5);
    const double r = percentile(remote, 0.5);
    return {{"job", "builtin:fmnist-cnn, 2 nodes x 2 ranks, batch 128, threads 1, " +
                        std::to_string(steps) +
                        " steps; mean train:throughput "
                        "after 2 log points"},
            {"anchor", "the same job on cluster local (4 ranks on this machine), "
                       "rounds interleaved"},
            {"local_samples_per_s", local},
            {"remote_samples_per_s", remote},
            {"ratio_of_medians", r / l},
            {"ratio_of_bests", *std::max_element(remote.begin(), remote.end()) /
                                   *std::max_element(local.begin(), local.end())},
            {"goal_ratio_at_least", 0.95},
            {"meets_goal", r / l >= 0.95}};
}

// 2. Submit -> all ranks of both hosts started, masters warm (the throughput jobs opened them).
Json measureStart(control::Controller& c, bool quick) {
    std::vector<double> starts;
    for (int i = 0; i < (quick ? 2 : 8); ++i) {
        struct Started : control::JobObserver {
            std::atomic<double> at{0};
            void jobStatus(const control::JobStatusUpdate& u) override {
                if (u.secondaryStatus == "Training" && at == 0)
                    at = u.time;
            }
        } started;
        c.addObserver(&started);
        const double t0 = now();
        const auto job = c.submit(parse(burstSpec("ns", 2, R"({"BURST_COUNT": "10"})")));
        runUntilDone(c, job.name, 120);
        c.removeObserver(&started);
        if (started.at > 0 && i > 0) // the first round stages the script
            starts.push_back(started.at - t0);
    }
    return {{"what", "submit() -> Training (every rank of 2 hosts started)"},
            {"seconds", starts},
            {"median_s", percentile(starts, 0.5)},
            {"max_s", percentile(starts, 1.0)},
            {"goal_s_at_most", 2.0},
            {"meets_goal", percentile(starts, 1.0) <= 2.0}};
}

// 3. Event latency to the engine bridge (what the studio window paints from).
Json measureLatency(control::Controller& c, models::EngineBridge& bridge, bool quick) {
    LatencyProbe probe;
    probe.attach(bridge);
    const auto lat = c.submit(parse(burstSpec("ns", 1,
                                              quick ? R"({"RATE": "50", "SECONDS": "2"})"
                                                    : R"({"RATE": "50", "SECONDS": "20"})")));
    runUntilDone(c, lat.name, 300);
    return {{"what", "rank writes an event -> EngineBridge batch on the GUI thread, "
                     "via launcher, journal, follower, ssh, controller"},
            {"events", probe.latencies.size()},
            {"p50_ms", percentile(probe.latencies, 0.5) * 1000},
            {"p99_ms", percentile(probe.latencies, 0.99) * 1000},
            {"max_ms", percentile(probe.latencies, 1.0) * 1000},
            {"goal_p99_ms_at_most", 500},
            {"meets_goal", percentile(probe.latencies, 0.99) <= 0.5}};
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

// 4. Journal follow: a burst job, then the same journal followed again from offset 0; the
// anchor reads the same bytes through the same SSH master with cat. The section goes into out
// before a lost event fails the bench.
void measureJournalFollow(control::Controller& c, const std::string& db, const std::string& home,
                          const remote::ClusterConfig& cluster, bool quick, Json& out) {
    const int count = quick ? 20000 : 300000;
    const auto burst = c.submit(
        parse(burstSpec("ns", 1, R"({"BURST_COUNT": ")" + std::to_string(count) + R"("})")));
    if (runUntilDone(c, burst.name, 600) != "Completed")
        throw std::runtime_error("the burst job did not complete");
    store::ComponentId id;
    std::string journal;
    {
        store::StoreReader reader(db);
        id = reader.component(burst.name)->id;
        journal = reader.journals(id).at(0).path;
    }
    rewindJournal(db, id);
    const double t0 = now();
    if (c.takeOver(burst.name).size() != 1)
        throw std::runtime_error("the burst job was not taken over");
    runUntilDone(c, burst.name, 600);
    const double followed = now() - t0;
    const std::size_t stored = store::StoreReader(db).metricPoints(id, "burst").size();
    auto exec = remote::makeExecutor(remote::clusterFromJson("ns", remote::clusterToJson(cluster)),
                                     0, remote::controlDirectory(home));
    const double a0 = now();
    const auto cat = remote::runOnHost(*exec, {"cat", journal}, 300);
    const double catSeconds = now() - a0;
    out["journal_follow"] = {
        {"what", "take over a finished job and follow its journal from byte 0 over SSH: "
                 "follower, decode, store (one transaction per chunk with its offset)"},
        {"events", count},
        {"stored", stored},
        {"seconds", followed},
        {"events_per_s", count / followed},
        {"anchor", "ssh host cat JOURNAL through the same master"},
        {"anchor_bytes", cat.out.size()},
        {"anchor_seconds", catSeconds},
        {"goal_events_per_s_at_least", 50000},
        {"meets_goal", count / followed >= 50000}};
    if (stored != static_cast<std::size_t>(count))
        throw std::runtime_error("the followed journal stored " + std::to_string(stored) + " of " +
                                 std::to_string(count) + " events");
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
    if (const std::string why = testing::NetnsHosts::unavailableReason(); !why.empty()) {
        std::printf("%s\n", nlohmann::json{{"bench", "remote"}, {"skipped", why}}.dump().c_str());
        return 0;
    }
    testing::NetnsHosts hosts;
    SharedWorkRoot work;
    QTemporaryDir home;
    const std::string db = control::databasePath(home.path().toStdString());
    const remote::ClusterConfig cluster = fixtureCluster(hosts, "ns", work.path);
    saveCluster(db, cluster);
    control::ControllerOptions o;
    o.home = home.path().toStdString();
    o.launcherPath = STUDIO_BIN_DIR "/studio-launcher";
    o.trainerPath = STUDIO_BIN_DIR "/studio-train";
    o.imdsEndpoint = "off";
    Json out = {{"bench", "remote"},
                {"mode", quick ? "quick (correctness only)" : "full"},
                {"hosts", "2 network namespaces on this machine, sshd each"}};
    try {
        control::Controller c(o);
        models::EngineBridge bridge(c);
        out["throughput"] = measureThroughput(c, db, quick);
        out["start"] = measureStart(c, quick);
        out["latency"] = measureLatency(c, bridge, quick);
        measureJournalFollow(c, db, o.home, cluster, quick, out);
    } catch (const std::exception& e) {
        out["error"] = e.what();
        std::printf("%s\n", out.dump(2).c_str());
        return 1;
    }
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
}
