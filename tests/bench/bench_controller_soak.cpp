// The controller over a long stream: one job of 4 bash ranks on one node, each writing 10 metric
// events, one step event and one stdout line every 100 ms (about 450 events a second in all,
// with the launcher's system samples) for a set duration, ingested by the engine's Controller
// inside this process (a real store in a private temporary home). The resident memory of this
// process (VmRSS) is sampled every few seconds while the job runs.
//
// Figures: the growth, RSS at the end minus RSS once the warm-up is over (the first minute in
// full mode, the first 10 % in quick mode, never more than a third of the run), and the slope
// of a least-squares line through the samples after the warm-up, in MiB per hour. Goal: flat,
// growth <= 8 MiB over a 30-minute run (the same bound holds a shorter run to a stricter
// standard). No anchor: nothing else does this work. Checks: the job completes, and the store
// holds every metric and step event the ranks say they wrote.
//
// Usage: bench_controller_soak [--quick] [--json FILE] [seconds] [ranks] [sample interval s]
//        (quick: 20 s, 4 ranks, a sample a second; full: 1800 s, 4 ranks, a sample every 5 s)
#include "tests/bench/controller_stream.h"

#include <condition_variable>
#include <mutex>
#include <thread>

using namespace studio;

namespace {

constexpr double kGrowthBoundMiB = 8;

struct RssSample {
    double t = 0; // seconds since submission
    double mib = 0;
};

// The slope of the least-squares line through the samples, per second.
double slopePerSecond(const std::vector<RssSample>& s) {
    if (s.size() < 2)
        return NAN;
    double mt = 0, mm = 0;
    for (const auto& x : s) {
        mt += x.t;
        mm += x.mib;
    }
    mt /= static_cast<double>(s.size());
    mm /= static_cast<double>(s.size());
    double num = 0, den = 0;
    for (const auto& x : s) {
        num += (x.t - mt) * (x.mib - mm);
        den += (x.t - mt) * (x.t - mt);
    }
    return den > 0 ? num / den : NAN;
}

struct Soak {
    int seconds = 1800;
    int ranks = 4;
    double sampleEvery = 5;
    double warmup = 60;
};

struct SoakRun {
    std::vector<RssSample> samples;
    std::string jobDir;
    bench::StoredCounts stored;
    bench::SentCounts sent;
    double peakMiB = 0; // VmHWM when the job ended, before the bench reads the store
    long long events = 0;
    double databaseMiB = 0;
};

// Samples VmRSS until the job ends.
std::vector<RssSample> sampleUntilEnd(control::Controller& controller, const std::string& job,
                                      double every) {
    std::mutex mutex;
    std::condition_variable ended;
    bool done = false;
    std::thread waiter([&] {
        controller.wait(job);
        std::lock_guard lock(mutex);
        done = true;
        ended.notify_all();
    });
    std::vector<RssSample> samples;
    const auto start = bench::Clock::now();
    std::unique_lock lock(mutex);
    while (!done) {
        samples.push_back({bench::secondsSince(start), bench::procStatusMiB(0, "VmRSS")});
        ended.wait_for(lock, std::chrono::duration<double>(every), [&] { return done; });
    }
    lock.unlock();
    waiter.join();
    return samples;
}

SoakRun runSoak(const Soak& soak) {
    const testing::TempDir home;
    bench::EventCounter counter;
    bench::RankStream stream;
    stream.seconds = soak.seconds;
    stream.pauseSeconds = 0.1;
    SoakRun run;
    {
        control::Controller controller(bench::controllerOptions(home.path()));
        controller.addObserver(&counter);
        const auto job = controller.submit(
            bench::streamingJob("bench-soak", 1, soak.ranks, stream, home.path()));
        run.jobDir = job.jobDir;
        run.samples = sampleUntilEnd(controller, job.name, soak.sampleEvery);
        run.peakMiB = bench::procStatusMiB(0, "VmHWM");
        controller.removeObserver(&counter);
        run.stored = bench::storedCounts(home.path(), job.name);
    }
    run.events = counter.events;
    run.databaseMiB = bench::databaseMiB(home.path());
    // The ranks' own counts, before the home goes.
    run.sent = bench::sentCounts(run.jobDir, soak.ranks, stream.batch);
    return run;
}

void report(bench::Report& r, const Soak& soak, const SoakRun& run) {
    std::vector<RssSample> after;
    for (const auto& s : run.samples)
        if (s.t >= soak.warmup)
            after.push_back(s);
    const bool enough = r.check(after.size() >= 3, "at least 3 RSS samples after the warm-up (" +
                                                       std::to_string(after.size()) + ")");
    const double growth = enough ? after.back().mib - after.front().mib : NAN;
    const double slope = enough ? slopePerSecond(after) * 3600 : NAN;
    const std::string job =
        std::to_string(soak.ranks) + " ranks streaming for " + std::to_string(soak.seconds) + " s";
    r.figure({"controller RSS growth after warm-up, " + job, "MiB", growth, std::nullopt, "",
              bench::Goal::valueAtMost(kGrowthBoundMiB),
              "flat: at most 8 MiB over a 30-minute run; warm-up " +
                  std::to_string(static_cast<int>(soak.warmup)) + " s"});
    r.figure({"controller RSS slope after warm-up, " + job, "MiB/h", slope, std::nullopt, "",
              std::nullopt, "least-squares fit over " + std::to_string(after.size()) + " samples"});
    r.check(run.stored.status == "Completed",
            "the job completed (it ended " + run.stored.status + ")");
    bench::checkNothingLost(r, run.stored, run.sent);
    bench::Json samples = bench::Json::array();
    for (const auto& s : run.samples)
        samples.push_back({s.t, s.mib});
    r.details() = {{"seconds", soak.seconds},
                   {"ranks", soak.ranks},
                   {"warmup_s", soak.warmup},
                   {"sample_interval_s", soak.sampleEvery},
                   {"rss_after_warmup_mib", enough ? after.front().mib : NAN},
                   {"rss_end_mib", run.samples.empty() ? NAN : run.samples.back().mib},
                   {"peak_rss_mib", run.peakMiB},
                   {"events_ingested", run.events},
                   {"metric_events_sent", run.sent.metricEvents},
                   {"database_mib", run.databaseMiB},
                   {"rss_samples_t_s_mib", samples}};
}

} // namespace

int main(int argc, char** argv) {
    const bench::Options options = bench::Options::parse(argc, argv);
    Soak soak;
    soak.seconds = options.pick(0, 20, 1800);
    soak.ranks = options.pick(1, 4, 4);
    soak.sampleEvery = options.number(2, options.quick ? 1 : 5);
    soak.warmup = std::min(options.quick ? 0.1 * soak.seconds : 60.0, soak.seconds / 3.0);
    bench::Report r("controller_soak", options);
    try {
        report(r, soak, runSoak(soak));
    } catch (const std::exception& e) {
        r.check(false, std::string("the soak ran: ") + e.what());
    }
    return r.finish();
}
