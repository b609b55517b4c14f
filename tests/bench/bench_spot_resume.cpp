// Spot resume latency: a built-in trainer job on a simulated market (no interruptions of its
// own, capacity waits of mean 2 s) is interrupted by hand N times; for each notice the figure is
// the first training step of the next attempt minus the notice, minus the simulated capacity
// wait (the waiting segment). Anchor: the same job's cold start (submission -> first step).
// Goal: resume <= 3 s (reported, never failed on). Checks: the job completes after exactly the
// interruptions asked for, and loses at most the checkpoint interval of steps per interruption.
// Usage: bench_spot_resume [--quick] [--json FILE] [interruptions]   (quick: 1, full: 5)
#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/spec/spec_parser.h"
#include "engine/spot/job_billing.h"
#include "engine/store/store_reader.h"
#include "tests/bench/bench_controller.h"
#include "tests/bench/bench_support.h"
#include "tests/support/temp_dir.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <thread>
#include <unistd.h>

using namespace studio;

namespace {

constexpr int kCheckpointInterval = 50;

// Notices and the first step of every attempt, as the controller reports them.
struct Timeline : control::JobObserver {
    std::mutex mutex;
    std::condition_variable changed;
    double submitted = 0;
    std::vector<double> notices;
    std::vector<double> firstSteps; // one per attempt
    bool awaitingStep = true;
    std::int64_t step = 0;

    void jobStatus(const control::JobStatusUpdate& u) override {
        std::lock_guard lock(mutex);
        if (u.secondaryStatus == "Interrupted" && u.message.rfind("Spot interruption", 0) == 0)
            notices.push_back(u.time);
        if (u.secondaryStatus == "Starting")
            awaitingStep = true;
        changed.notify_all();
    }
    void jobEvent(const std::string&, store::ComponentId, const wire::Event& e) override {
        const auto* s = e.as<wire::StepEvent>();
        if (!s)
            return;
        std::lock_guard lock(mutex);
        step = s->step;
        if (awaitingStep) {
            firstSteps.push_back(e.t);
            awaitingStep = false;
        }
        changed.notify_all();
    }
};

// The built-in trainer on a simulated market that never interrupts on its own.
// Quick mode trains a smaller net for fewer steps: one interruption, and the job completes.
std::string benchSpecText(bool quick) {
    return R"({"name": "bench-spot", "entry_point": "builtin:mlp",
        "hyperparameters": {"max-steps": )" +
           std::string(quick ? "150" : "400") + R"(, "checkpoint-interval": )" +
           std::to_string(kCheckpointInterval) + R"(, "log-interval": 10,
            "hidden": )" +
           std::string(quick ? "256" : "1024") + R"(, "depth": 4, "batch-size": 128, "threads": 1,
            "eval-samples": 200},
        "instance_type": "ml.g5.xlarge", "use_spot_instances": true,
        "max_run": 600, "max_wait": 1200, "disable_profiler": true,
        "debugger_hook_config": false,
        "spot_simulation": {"interruptions_per_hour": 0, "mean_capacity_wait_s": 2,
                            "seed": 11}})";
}

// Interrupts each attempt once it has run 40 steps past its first.
void interruptAttempts(control::Controller& controller, Timeline& timeline, const std::string& job,
                       int interruptions) {
    for (int i = 0; i < interruptions; ++i) {
        std::unique_lock lock(timeline.mutex);
        const std::size_t attempt = static_cast<std::size_t>(i) + 1;
        timeline.changed.wait(lock, [&] { return timeline.firstSteps.size() >= attempt; });
        const std::int64_t from = timeline.step;
        timeline.changed.wait(lock, [&] { return timeline.step >= from + 40; });
        lock.unlock();
        controller.interrupt(job, "bench");
    }
}

// The figures of a finished run: each resume against the cold start, lost steps, the bill.
void summarize(bench::Report& report, const std::string& home, const std::string& job,
               const std::string& status, const Timeline& timeline, int interruptions) {
    store::StoreReader reader(control::databasePath(home));
    const auto row = reader.resolveJob(job);
    std::vector<double> waits;
    for (const auto& s : reader.billingSegments(row.id))
        if (s.kind == "waiting")
            waits.push_back(s.end - s.start);
    const auto billing = spot::jobBilling(reader, job);
    bench::Json resumes = bench::Json::array();
    bench::Samples resume = bench::lowerIsBetter();
    for (std::size_t i = 0; i < timeline.notices.size() && i + 1 < timeline.firstSteps.size();
         ++i) {
        const double wait = i < waits.size() ? waits[i] : 0;
        const double r = timeline.firstSteps[i + 1] - timeline.notices[i] - wait;
        resume.add(r);
        resumes.push_back(
            {{"notice_to_first_step_s", r + wait}, {"capacity_wait_s", wait}, {"resume_s", r}});
    }
    const double cold =
        timeline.firstSteps.empty() ? -1 : timeline.firstSteps.front() - timeline.submitted;
    report.anchor({"cold start", "the same job's cold start: submission to its first step", "", 1,
                   "none", "", "builtin:mlp, one rank, on this machine"});
    report.figure({"spot resume, worst (notice to first step, less the capacity wait)", "s",
                   resume.max(), cold, "cold start", bench::Goal::valueAtMost(3.0),
                   "the worst of " + std::to_string(resume.size()) + " resumes"});
    report.figure(
        {"spot resume, median", "s", resume.median(), cold, "cold start", std::nullopt, ""});
    report.check(status == "Completed", "the job completed (it ended " + status + ")");
    report.check(billing.interruptions == interruptions,
                 "the job was interrupted " + std::to_string(interruptions) +
                     " times (the bill "
                     "counts " +
                     std::to_string(billing.interruptions) + ")");
    report.check(resume.size() == static_cast<std::size_t>(interruptions),
                 "every interruption was followed by a resumed attempt");
    report.check(billing.lostSteps <=
                     static_cast<std::int64_t>(kCheckpointInterval) * billing.interruptions,
                 "lost steps (" + std::to_string(billing.lostSteps) +
                     ") within the checkpoint interval per interruption");
    report.details() = {{"resumes", resumes},
                        {"resume_s", resume.json()},
                        {"lost_steps", billing.lostSteps},
                        {"checkpoint_interval", kCheckpointInterval},
                        {"training_time_s", billing.trainingTimeSeconds},
                        {"billable_time_s", billing.billableTimeSeconds},
                        {"savings_percent", billing.savingsPercent}};
}

} // namespace

int main(int argc, char** argv) {
    const bench::Options options = bench::Options::parse(argc, argv);
    const int interruptions = options.pick(0, 1, 5);
    bench::Report report("spot_resume", options);
    const testing::TempDir temp;
    const std::string& home = temp.path();
    Timeline timeline;
    {
        control::Controller controller(bench::controllerOptions(home));
        controller.addObserver(&timeline);
        auto parsed = spec::parseSpecText(benchSpecText(options.quick), home);
        if (!parsed.ok()) {
            std::fprintf(stderr, "%s\n", parsed.errors.front().text().c_str());
            return 2;
        }
        timeline.submitted = wire::nowSeconds();
        auto job = controller.submit(*parsed.spec);
        interruptAttempts(controller, timeline, job.name, interruptions);
        const std::string status = controller.wait(job.name);
        controller.removeObserver(&timeline);
        summarize(report, home, job.name, status, timeline, interruptions);
    }
    return report.finish();
}
