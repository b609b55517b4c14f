// mlstudio tune / list tuning-jobs / show TUNING_JOB / export --tuning-job / stop TUNING_JOB.
#include "app/cli/cli.h"
#include "app/present/progress_bar.h"
#include "app/present/terminal.h"

#include "engine/control/studio_home.h"
#include "engine/control/tuner.h"
#include "engine/store/store_reader.h"
#include "engine/store/tuning_analytics.h"
#include "engine/tune/tuning_parser.h"
#include "engine/wire/codec.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <unistd.h>

namespace studio::cli {

namespace {

std::atomic<int> g_tuneInterrupts{0};

void onTuneInterrupt(int) {
    g_tuneInterrupts.fetch_add(1);
}

std::string bestText(const std::optional<double>& best, const std::string& metric) {
    return best ? "best " + metric + " " + present::formatValue(*best)
                : std::string("no objective yet");
}

std::string progressLine(const control::TuningProgress& p, const std::string& metric) {
    return p.name + ": " + store::countersText(p.counters, p.maxJobs) + "; " +
           bestText(p.best, metric);
}

// Prints progress lines: in place on a terminal, one per change otherwise.
class TuningPrinter : public control::TuningObserver {
public:
    TuningPrinter(std::string metric, bool quiet)
        : m_metric(std::move(metric))
        , m_quiet(quiet)
        , m_tty(present::terminalModeOf(STDERR_FILENO).interactive) {}

    void tuningProgress(const control::TuningProgress& p) override {
        std::lock_guard lock(m_mutex);
        const std::string line = progressLine(p, m_metric);
        if (m_quiet || line == m_last)
            return;
        m_last = line;
        if (m_tty)
            std::fprintf(stderr, "\r\033[K%s", line.c_str());
        else
            std::fprintf(stderr, "%s\n", line.c_str());
        std::fflush(stderr);
    }
    void finish() {
        std::lock_guard lock(m_mutex);
        if (m_tty && !m_last.empty() && !m_quiet)
            std::fprintf(stderr, "\n");
    }

private:
    std::string m_metric;
    bool m_quiet;
    bool m_tty;
    std::mutex m_mutex;
    std::string m_last;
};

int exitCodeOf(const std::string& status) {
    return status == "Completed" ? kExitOk : status == "Stopped" ? kExitStopped : kExitFailed;
}

void printTuningSummary(const std::string& name) {
    auto reader = openReader();
    auto t = reader.tuningJob(name);
    if (!t)
        return;
    std::fprintf(stderr, "Tuning job %s %s%s\n", t->name.c_str(), t->status.c_str(),
                 t->statusMessage.empty() ? "" : (": " + t->statusMessage).c_str());
    const store::TuningCounters& c = t->counters;
    std::fprintf(stderr, "  %d completed, %d stopped early, %d stopped, %d failed\n", c.completed,
                 c.stoppedEarly, c.stopped, c.failed);
    if (!t->bestObjective)
        return;
    std::fprintf(stderr, "  best %s %s: %s\n", t->objectiveName.c_str(),
                 present::formatValue(*t->bestObjective).c_str(), t->bestJob.c_str());
    for (const auto& r : reader.tuningTrainingJobs(t->id))
        if (r.component == t->bestComponent)
            for (const auto& [k, v] : r.hyperparameters)
                std::fprintf(stderr, "    %s = %s\n", k.c_str(), v.c_str());
}

// Follows a tuning job run by this process until it ends; Ctrl-C stops it gracefully.
int followTuning(control::Tuner& tuner, const std::string& name, TuningPrinter& printer) {
    struct sigaction sa {};
    sa.sa_handler = onTuneInterrupt;
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGTERM, &sa, nullptr);
    int handled = g_tuneInterrupts.load();
    std::atomic<bool> ended{false};
    std::string status;
    std::thread waiter([&] {
        status = tuner.wait(name);
        ended = true;
    });
    while (!ended) {
        if (const int n = g_tuneInterrupts.load(); n > handled) {
            handled = n;
            std::fprintf(stderr, "\nStopping tuning job %s and its training jobs...\n",
                         name.c_str());
            tuner.stop(name);
        }
        ::usleep(100 * 1000);
    }
    waiter.join();
    printer.finish();
    printTuningSummary(name);
    return exitCodeOf(status);
}

} // namespace

int cmdTune(const TuneOptions& o) {
    control::Controller controller;
    control::Tuner tuner(controller);
    std::string name = o.resume;
    std::string metric;
    if (!o.resume.empty()) {
        auto reader = openReader();
        auto row = reader.tuningJob(o.resume);
        if (!row) {
            std::fprintf(stderr,
                         "mlstudio: no tuning job named \"%s\" (see: mlstudio list "
                         "tuning-jobs)\n",
                         o.resume.c_str());
            return kExitFailed;
        }
        name = row->name;
        metric = row->objectiveName;
        if (!store::isLiveStatus(row->status)) {
            std::fprintf(stderr, "mlstudio: tuning job %s has ended (%s); nothing to resume\n",
                         name.c_str(), row->status.c_str());
            return exitCodeOf(row->status);
        }
    } else {
        auto result = tune::parseTuningSpecFile(o.specPath, o.overrides);
        if (!result.ok()) {
            for (const auto& e : result.errors)
                std::fprintf(stderr, "%s\n", e.text().c_str());
            return kExitUsage;
        }
        metric = result.spec->objectiveMetricName;
        tune::TuningSpec spec = *result.spec;
        if (!o.jobName.empty()) {
            // SageMaker's limit for tuning job names; the training jobs take it as their base.
            static const std::regex pattern("[A-Za-z0-9](-*[A-Za-z0-9]){0,31}");
            if (!std::regex_match(o.jobName, pattern)) {
                std::fprintf(stderr,
                             "--job-name: 1 to 32 letters, digits and hyphens, starting and ending "
                             "with a letter or digit, got \"%s\"\n",
                             o.jobName.substr(0, 80).c_str());
                return kExitUsage;
            }
            spec.name = o.jobName;
        }
        try {
            name = tuner.submit(spec, o.jobName).name;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "mlstudio: %s\n", e.what());
            return kExitFailed;
        }
        if (!o.quiet)
            std::fprintf(stderr, "Tuning job %s: %s search, %d training jobs, %d at a time\n",
                         name.c_str(), tune::strategyName(result.spec->strategy),
                         result.spec->maxJobs, result.spec->maxParallelJobs);
    }
    TuningPrinter printer(metric, o.quiet);
    tuner.addObserver(&printer);
    if (!o.resume.empty()) {
        const auto resumed = tuner.resume(name);
        if (resumed.empty()) {
            tuner.removeObserver(&printer);
            std::fprintf(stderr, "mlstudio: tuning job %s is run by another studio process\n",
                         name.c_str());
            return kExitFailed;
        }
        if (!o.quiet)
            std::fprintf(stderr, "Resumed tuning job %s\n", name.c_str());
    }
    const int code = followTuning(tuner, name, printer);
    tuner.removeObserver(&printer);
    return code;
}

int cmdValidateTuning(const std::string& specPath, const std::vector<std::string>& overrides) {
    auto result = tune::parseTuningSpecFile(specPath, overrides);
    if (!result.ok()) {
        for (const auto& e : result.errors)
            std::fprintf(stderr, "%s\n", e.text().c_str());
        return kExitUsage;
    }
    std::printf("ok (tuning spec: %s search, %d training jobs)\n",
                tune::strategyName(result.spec->strategy), result.spec->maxJobs);
    return kExitOk;
}

int cmdListTuningJobs(bool json) {
    auto reader = openReader();
    const auto rows = reader.tuningJobs();
    if (json) {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const auto& t : rows)
            out.push_back(
                {{"name", t.name},
                 {"status", t.status},
                 {"strategy", t.strategy},
                 {"objective", t.objectiveName},
                 {"objective_type", t.objectiveType},
                 {"max_jobs", t.maxJobs},
                 {"jobs", t.counters.total},
                 {"completed", t.counters.completed},
                 {"stopped_early", t.counters.stoppedEarly},
                 {"failed", t.counters.failed},
                 {"best_job", t.bestJob},
                 {"best_objective", t.bestObjective ? nlohmann::ordered_json(*t.bestObjective)
                                                    : nlohmann::ordered_json(nullptr)},
                 {"created", t.created}});
        std::printf("%s\n", out.dump(2).c_str());
        return kExitOk;
    }
    std::printf("%-44s %-10s %-9s %7s %6s %-16s %s\n", "NAME", "STATUS", "STRATEGY", "JOBS",
                "EARLY", "BEST", "CREATED");
    for (const auto& t : rows) {
        const std::string jobs = std::to_string(t.counters.total) + "/" + std::to_string(t.maxJobs);
        const std::string best = t.bestObjective ? present::formatValue(*t.bestObjective) : "-";
        std::printf("%-44s %-10s %-9s %7s %6d %-16s %s\n", t.name.c_str(), t.status.c_str(),
                    t.strategy.c_str(), jobs.c_str(), t.counters.stoppedEarly, best.c_str(),
                    present::formatTime(t.created).c_str());
    }
    return kExitOk;
}

namespace {

// A tuning job by exact name, or by a prefix no training job answers to.
std::optional<store::TuningJobRow> findTuningJob(store::StoreReader& reader,
                                                 const std::string& key) {
    try {
        if (auto t = reader.tuningJob(key); t && t->name == key)
            return t;
    } catch (const std::runtime_error&) {
        // A prefix of several tuning jobs: a training job may still answer to it, below.
    }
    try {
        reader.resolveJob(key);
        return std::nullopt; // a training job has it
    } catch (const std::runtime_error&) {
        return reader.tuningJob(key);
    }
}

int showTuningJob(store::StoreReader& reader, const store::TuningJobRow& t, bool json) {
    nlohmann::ordered_json d = store::describeTuningJob(reader, t);
    if (json) {
        nlohmann::ordered_json jobs = nlohmann::ordered_json::array();
        for (const auto& r : reader.tuningTrainingJobs(t.id))
            jobs.push_back(
                {{"TrainingJobName", r.job},
                 {"TrainingJobStatus", r.status},
                 {"TunedHyperParameters", r.hyperparameters},
                 {"FinalObjectiveValue", r.objective ? nlohmann::ordered_json(*r.objective)
                                                     : nlohmann::ordered_json(nullptr)},
                 {"StoppedEarly", r.stoppedEarly},
                 {"StopReason", r.stopReason},
                 {"Bracket", r.bracket},
                 {"ResumedFrom", r.resumedFrom >= 0 ? nlohmann::ordered_json(r.resumedFrom + 1)
                                                    : nlohmann::ordered_json(nullptr)}});
        d["TrainingJobSummaries"] = jobs;
        std::printf("%s\n", d.dump(2).c_str());
        return kExitOk;
    }
    std::printf("Tuning job   %s\nStatus       %s%s\n", t.name.c_str(), t.status.c_str(),
                t.statusMessage.empty() ? "" : ("  (" + t.statusMessage + ")").c_str());
    std::printf("Strategy     %s, objective %s %s, early stopping %s, seed %llu\n",
                t.strategy.c_str(), t.objectiveType.c_str(), t.objectiveName.c_str(),
                t.earlyStopping.c_str(), static_cast<unsigned long long>(t.randomSeed));
    const store::TuningCounters& c = t.counters;
    std::printf("Jobs         %d of %d launched: %d completed, %d stopped early, %d stopped, %d "
                "failed, %d running (%d at a time)\n",
                c.total, t.maxJobs, c.completed, c.stoppedEarly, c.stopped, c.failed, c.inProgress,
                t.maxParallelJobs);
    std::printf("Created      %s%s\n", present::formatTime(t.created).c_str(),
                t.ended > 0 ? ("   ended " + present::formatTime(t.ended)).c_str() : "");
    if (t.bestObjective)
        std::printf("Best job     %s  %s = %s\n", t.bestJob.c_str(), t.objectiveName.c_str(),
                    present::formatValue(*t.bestObjective).c_str());
    const auto names = store::tunedNames(t);
    std::printf("\n%-4s %-46s %-10s %12s", "#", "TRAINING JOB", "STATUS", "OBJECTIVE");
    for (const auto& n : names)
        std::printf(" %14s", n.substr(0, 14).c_str());
    std::printf("\n");
    const auto rows = reader.tuningTrainingJobs(t.id);
    for (const auto& r : rows) {
        const std::string status = r.stoppedEarly ? "Early" : r.status;
        std::printf("%-4d %-46s %-10s %12s", r.ordinal + 1, r.job.c_str(), status.c_str(),
                    r.objective ? present::formatValue(*r.objective).c_str() : "-");
        for (const auto& n : names) {
            auto v = r.hyperparameters.find(n);
            std::printf(" %14s",
                        v == r.hyperparameters.end() ? "-" : v->second.substr(0, 14).c_str());
        }
        const std::string from =
            r.resumedFrom >= 0 ? "  (goes on from #" + std::to_string(r.resumedFrom + 1) + ")" : "";
        std::printf("%s%s\n", r.component == t.bestComponent ? "  *best" : "", from.c_str());
    }
    return kExitOk;
}

} // namespace

std::optional<int> cmdShowTuning(const std::string& key, bool json) {
    auto reader = openReader();
    auto t = findTuningJob(reader, key);
    if (!t)
        return std::nullopt;
    return showTuningJob(reader, *t, json);
}

int cmdExportTuning(const std::string& name, const std::string& csvPath) {
    auto reader = openReader();
    auto t = reader.tuningJob(name);
    if (!t)
        throw std::runtime_error("no tuning job named \"" + name +
                                 "\" (see: mlstudio list tuning-jobs)");
    const store::AnalyticsTable table = store::tuningAnalytics(reader, *t);
    std::ofstream out(csvPath, std::ios::binary);
    out << store::toCsv(table);
    if (!out) {
        std::fprintf(stderr, "mlstudio: cannot write %s\n", csvPath.c_str());
        return kExitFailed;
    }
    std::fprintf(stderr, "%zu training job(s), %zu columns -> %s\n", table.rows.size(),
                 table.columns.size(), csvPath.c_str());
    return kExitOk;
}

std::optional<int> cmdStopTuning(const std::string& key) {
    std::string name;
    {
        auto reader = openReader();
        auto t = findTuningJob(reader, key);
        if (!t)
            return std::nullopt;
        if (!store::isLiveStatus(t->status)) {
            std::fprintf(stderr, "mlstudio: tuning job %s has ended (%s)\n", t->name.c_str(),
                         t->status.c_str());
            return kExitFailed;
        }
        name = t->name;
    }
    control::Controller controller;
    control::Tuner tuner(controller);
    if (!tuner.stop(name)) {
        std::fprintf(stderr, "mlstudio: tuning job %s is not running\n", name.c_str());
        return kExitFailed;
    }
    std::fprintf(stderr, "Stopping tuning job %s and its training jobs\n", name.c_str());
    return kExitOk;
}

} // namespace studio::cli
