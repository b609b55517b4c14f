// The controller's memory under a wide job: one job of 64 bash ranks (4 nodes of 16, so four
// launchers and four journals) that stream metric and step events and stdout lines as fast as
// they can, ingested by the engine's Controller inside this process (a real store in a private
// temporary home). Figures: the peak resident memory of this process, which hosts the
// controller (VmHWM), and the events the controller ingested per second (all kinds its
// observers saw, between the first and the last). No anchor: nothing else does this work; no
// goal in the issue for either figure (the soak, bench_controller_soak, has the flatness goal).
// Checks: the job completes and the store holds every metric and step event each rank wrote.
//
// Usage: bench_controller_memory [--quick] [--json FILE] [ranks per node] [nodes] [steps]
//        (quick: 16 × 4 ranks, 100 metric events each; full: 16 × 4 ranks, 10000 each)
#include "tests/bench/controller_stream.h"

#include <cstdio>

using namespace studio;

namespace {

struct Setup {
    int ranksPerNode = 16;
    int nodes = 4;
    bench::RankStream stream;
    int ranks() const { return ranksPerNode * nodes; }
};

struct Outcome {
    double rssBeforeMiB = 0;     // this process before the controller exists
    double rssControllerMiB = 0; // with the controller up, before the job
    double peakMiB = 0;          // VmHWM after the job
    double seconds = 0;          // submission to the job's end
    bench::StoredCounts stored;
    bench::SentCounts sent;
    long long events = 0;
    double eventsPerSecond = 0;
    double databaseMiB = 0;
};

Outcome runJob(const Setup& setup) {
    Outcome out;
    out.rssBeforeMiB = bench::procStatusMiB(0, "VmRSS");
    const testing::TempDir home;
    bench::EventCounter counter;
    std::string jobDir;
    {
        control::Controller controller(bench::controllerOptions(home.path()));
        out.rssControllerMiB = bench::procStatusMiB(0, "VmRSS");
        controller.addObserver(&counter);
        const auto spec = bench::streamingJob("bench-memory", setup.nodes, setup.ranksPerNode,
                                              setup.stream, home.path());
        const auto start = bench::Clock::now();
        const auto job = controller.submit(spec);
        controller.wait(job.name);
        out.seconds = bench::secondsSince(start);
        controller.removeObserver(&counter);
        out.peakMiB = bench::procStatusMiB(0, "VmHWM");
        out.stored = bench::storedCounts(home.path(), job.name);
        jobDir = job.jobDir;
    }
    // The ranks' logs are complete once the controller has closed them.
    out.sent = bench::sentCounts(jobDir, setup.ranks(), setup.stream.batch);
    out.events = counter.events;
    out.eventsPerSecond = counter.rate();
    out.databaseMiB = bench::databaseMiB(home.path());
    return out;
}

void report(bench::Report& r, const Setup& s, const Outcome& o) {
    const std::string job = std::to_string(s.ranks()) + " ranks streaming (" +
                            std::to_string(s.nodes) + " nodes of " +
                            std::to_string(s.ranksPerNode) + ")";
    r.figure({"controller peak RSS, " + job, "MiB", o.peakMiB, std::nullopt, "", std::nullopt,
              "VmHWM of the process hosting the controller; " + std::to_string(o.rssControllerMiB) +
                  " MiB with the controller idle"});
    r.figure({"controller ingest, " + job, "events/s", o.eventsPerSecond, std::nullopt, "",
              std::nullopt, "every event the controller's observers saw, first to last"});
    r.check(o.stored.status == "Completed", "the job completed (it ended " + o.stored.status + ")");
    const long long expected = static_cast<long long>(s.ranks()) * s.stream.steps;
    r.check(o.sent.metricEvents == expected, "the ranks sent " + std::to_string(expected) +
                                                 " metric events in all (" +
                                                 std::to_string(o.sent.metricEvents) + ")");
    bench::checkNothingLost(r, o.stored, o.sent);
    r.details() = {{"ranks", s.ranks()},
                   {"nodes", s.nodes},
                   {"ranks_per_node", s.ranksPerNode},
                   {"metric_events_per_rank", s.stream.steps},
                   {"step_events_per_rank", s.stream.steps / s.stream.batch},
                   {"events_ingested", o.events},
                   {"job_seconds", o.seconds},
                   {"rss_before_controller_mib", o.rssBeforeMiB},
                   {"rss_controller_idle_mib", o.rssControllerMiB},
                   {"peak_rss_mib", o.peakMiB},
                   {"database_mib", o.databaseMiB}};
}

} // namespace

int main(int argc, char** argv) {
    const bench::Options options = bench::Options::parse(argc, argv);
    Setup setup;
    setup.ranksPerNode = options.pick(0, 16, 16);
    setup.nodes = options.pick(1, 4, 4);
    setup.stream.steps = options.pick(2, 100, 10000);
    bench::Report r("controller_memory", options);
    try {
        report(r, setup, runJob(setup));
    } catch (const std::exception& e) {
        r.check(false, std::string("the job ran: ") + e.what());
    }
    return r.finish();
}
