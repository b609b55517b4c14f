// mlstudio list / show / metrics / export / stop / interrupt / billing: read the store, print text
// or JSON.
#include "app/cli/cli.h"
#include "app/present/json_views.h"
#include "app/present/progress_bar.h"
#include "app/present/terminal.h"

#include "engine/control/control_channel.h"
#include "engine/control/orphans.h"
#include "engine/control/studio_home.h"
#include "engine/report/what_ran.h"
#include "engine/spot/job_billing.h"
#include "engine/store/analytics.h"
#include "engine/store/store_reader.h"
#include "engine/wire/event.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>
#include <unistd.h>

namespace studio::cli {

store::StoreReader openReader() {
    const std::string home = control::studioHome();
    if (std::filesystem::exists(control::databasePath(home)))
        settleLostJobs(home);
    return store::StoreReader(control::databasePath(home));
}

namespace {

void printJson(const nlohmann::ordered_json& j) {
    std::printf("%s\n", j.dump(2).c_str());
}

double durationOf(const store::ComponentRow& r) {
    if (r.started <= 0)
        return 0;
    return (r.ended > 0 ? r.ended : wire::nowSeconds()) - r.started;
}

// One line per node that has a journal: its host, launcher and the link to its journal.
void printNodes(const store::ComponentDetail& d) {
    if (d.nodes.empty() && d.journals.empty())
        return;
    std::printf("\n%-6s %-24s %12s %6s %5s %6s  %s\n", "Node", "host", "launcher pid", "cores",
                "gpus", "exit", "link");
    for (const auto& j : d.journals) {
        store::NodeRow n;
        n.node = j.node;
        n.host = j.host;
        n.launcherPid = j.launcherPid;
        for (const auto& row : d.nodes)
            if (row.node == j.node)
                n = row;
        std::string link = j.state;
        if (j.state == "reconnecting")
            link += " since " + present::formatTime(j.stateSince);
        std::printf("  %-4d %-24s %12lld %6d %5d %6s  %s\n", n.node, n.host.c_str(),
                    static_cast<long long>(n.launcherPid), n.cores, n.gpus,
                    n.exitCode ? std::to_string(*n.exitCode).c_str() : "-", link.c_str());
    }
}

// One line per rank: where it ran, how it ended, and the device its trainer reported ("-" for
// none: a user's own script reports no device).
void printRanks(const std::vector<store::RankRow>& ranks) {
    if (ranks.empty())
        return;
    std::printf("\n%-6s %5s %6s %9s  %-9s  %s\n", "Rank", "node", "local", "pid", "exit", "device");
    for (const auto& k : ranks) {
        const std::string exit = k.signal     ? "signal " + std::to_string(k.signal)
                                 : k.exitCode ? std::to_string(*k.exitCode)
                                              : "running";
        std::printf("  %-4d %5d %6d %9lld  %-9s  %s\n", k.rank, k.node, k.localRank,
                    static_cast<long long>(k.pid), exit.c_str(),
                    k.device.empty() ? "-" : k.device.c_str());
    }
}

// Slurm's state, with the reason while it says something ("PENDING (Resources)").
std::string slurmState(const store::SlurmJobRow& j) {
    if (j.reason.empty() || j.reason == "None")
        return j.state;
    return j.state + " (" + j.reason + ")";
}

// One line per Slurm job submitted for the job (a resubmission adds one), oldest first.
void printSlurmJobs(const store::ComponentDetail& d) {
    if (d.slurmJobs.empty())
        return;
    std::printf("\nSlurm        cluster %s (mlstudio show %s --script prints the batch script)\n",
                d.slurmJobs.back().cluster.c_str(), d.row.name.c_str());
    std::printf("  %-10s %7s  %-12s %-28s %-14s %8s %5s  %-19s  %-19s  %s\n", "job id", "attempt",
                "partition", "state", "nodes", "restarts", "exit", "submitted", "started", "ended");
    for (const auto& j : d.slurmJobs)
        std::printf("  %-10lld %7d  %-12s %-28s %-14s %8d %5s  %-19s  %-19s  %s\n",
                    static_cast<long long>(j.jobId), j.attempt, j.partition.c_str(),
                    slurmState(j).c_str(), j.nodes.empty() ? "-" : j.nodes.c_str(), j.restarts,
                    j.exitCode ? std::to_string(*j.exitCode).c_str() : "-",
                    present::formatTime(j.submitted).c_str(),
                    present::formatTime(j.started).c_str(), present::formatTime(j.ended).c_str());
}

// The list's SLURM cell: the newest Slurm job's id, and why Slurm keeps it waiting.
std::string slurmCell(const std::map<store::ComponentId, store::SlurmJobRow>& newest,
                      store::ComponentId id) {
    const auto it = newest.find(id);
    if (it == newest.end())
        return "-";
    const auto& j = it->second;
    const bool waiting = j.state == "PENDING" && !j.reason.empty() && j.reason != "None";
    return std::to_string(j.jobId) + (waiting ? " (" + j.reason + ")" : std::string());
}

} // namespace

namespace {

void listExperiments(store::StoreReader& reader, bool json) {
    auto rows = reader.experiments();
    if (json) {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const auto& e : rows)
            out.push_back({{"name", e.name},
                           {"created", e.created},
                           {"trials", e.trials},
                           {"jobs", e.components}});
        printJson(out);
        return;
    }
    std::printf("%-40s %-19s %7s %6s\n", "EXPERIMENT", "CREATED", "TRIALS", "JOBS");
    for (const auto& e : rows)
        std::printf("%-40s %-19s %7d %6d\n", e.name.c_str(), present::formatTime(e.created).c_str(),
                    e.trials, e.components);
}

void listTrials(store::StoreReader& reader, const std::string& experiment, bool json) {
    auto rows = reader.trials(experiment);
    if (json) {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const auto& t : rows)
            out.push_back({{"name", t.name},
                           {"experiment", t.experiment},
                           {"created", t.created},
                           {"jobs", t.components}});
        printJson(out);
        return;
    }
    std::printf("%-44s %-28s %-19s %5s\n", "TRIAL", "EXPERIMENT", "CREATED", "JOBS");
    for (const auto& t : rows)
        std::printf("%-44s %-28s %-19s %5d\n", t.name.c_str(), t.experiment.c_str(),
                    present::formatTime(t.created).c_str(), t.components);
}

void listJobs(store::StoreReader& reader, const store::ComponentFilter& f, bool json) {
    auto rows = reader.components(f);
    const auto slurm = reader.newestSlurmJobs();
    if (json) {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const auto& r : rows) {
            auto j = present::componentRowJson(r);
            const auto it = slurm.find(r.id);
            j["slurm_job"] = it == slurm.end() ? nlohmann::ordered_json(nullptr)
                                               : present::slurmJobJson(it->second, false);
            out.push_back(std::move(j));
        }
        printJson(out);
        return;
    }
    // The SLURM column only where some listed job ran on Slurm.
    const bool anySlurm = std::any_of(rows.begin(), rows.end(),
                                      [&slurm](const auto& r) { return slurm.count(r.id) > 0; });
    const auto slurmColumn = [anySlurm](std::string text) {
        if (anySlurm)
            text.resize(std::max<std::size_t>(text.size() + 1, 22), ' ');
        return anySlurm ? text : std::string();
    };
    std::printf("%-46s %-10s %-13s %-19s %9s  %-12s %s%s\n", "JOB", "STATUS", "SECONDARY",
                "CREATED", "DURATION", "CLUSTER", slurmColumn("SLURM").c_str(), "EXPERIMENT");
    bool anyOrphaned = false;
    const bool color = present::terminalModeOf(STDOUT_FILENO).color;
    for (const auto& r : rows) {
        const bool orphaned = control::isOrphaned(r);
        anyOrphaned = anyOrphaned || orphaned;
        std::printf("%-46s %s %-13s %-19s %9s  %-12s %s%s\n", r.name.c_str(),
                    present::statusCell(r.status, 10, color).c_str(),
                    (r.secondaryStatus + (orphaned ? "*" : "")).c_str(),
                    present::formatTime(r.created).c_str(),
                    present::formatDuration(durationOf(r)).c_str(), r.cluster.c_str(),
                    slurmColumn(slurmCell(slurm, r.id)).c_str(), r.experiment.c_str());
    }
    if (anyOrphaned)
        std::printf("* no studio process follows the job; its launchers may still run (mlstudio "
                    "attach JOB follows it again)\n");
}

// Name, status, times, placement, billing and why it ended.
void printJobHeader(const store::ComponentRow& r, const spot::BillingSummary& billing) {
    std::printf("Job          %s\n", r.name.c_str());
    std::printf(
        "Status       %s (%s)\n",
        present::statusCell(r.status, 0, present::terminalModeOf(STDOUT_FILENO).color).c_str(),
        r.secondaryStatus.c_str());
    if (control::isOrphaned(r))
        std::printf("Follower     none: the studio process that ran it is gone; its launchers "
                    "may still run (mlstudio attach %s follows it again)\n",
                    r.name.c_str());
    std::printf("Experiment   %s / trial %s\n", r.experiment.c_str(), r.trial.c_str());
    std::printf("Created      %s   started %s   ended %s   training %s\n",
                present::formatTime(r.created).c_str(), present::formatTime(r.started).c_str(),
                present::formatTime(r.ended).c_str(),
                present::formatDuration(durationOf(r)).c_str());
    std::printf("Instances    %s x %d, %d process%s per host\n", r.instanceType.c_str(),
                r.instanceCount, r.processesPerHost, r.processesPerHost > 1 ? "es" : "");
    std::printf("Cluster      %s\n", r.cluster.c_str());
    std::printf("Entry point  %s\n", r.entryPoint.c_str());
    std::printf("Job folder   %s\n", r.jobDir.c_str());
    std::printf("Billing      training %s, billable %s, savings %.1f %%, %d interruption(s)\n",
                present::formatDuration(billing.trainingTimeSeconds).c_str(),
                present::formatDuration(billing.billableTimeSeconds).c_str(),
                billing.savingsPercent, billing.interruptions);
    if (!r.failureReason.empty())
        std::printf("Reason       %s\n", r.failureReason.c_str());
    if (r.protocolErrors)
        std::printf("Protocol     %d malformed event line(s), kept as log lines\n",
                    r.protocolErrors);
}

// One line per status transition: when it began and how long it lasted.
void printTransitions(const store::ComponentDetail& d) {
    const auto& r = d.row;
    std::printf("\nStatus transitions\n");
    for (const auto& t : d.transitions) {
        const double end = t.endTime > 0 ? t.endTime : (r.ended > 0 ? r.ended : t.startTime);
        std::printf("  %-13s %-10s %s  %7s  %s\n", t.secondaryStatus.c_str(), t.status.c_str(),
                    present::formatTime(t.startTime).c_str(),
                    present::formatDuration(end - t.startTime).c_str(),
                    t.message.substr(0, t.message.find('\n')).c_str());
    }
}

// The job's parameters and its metrics' summaries.
void printParametersAndMetrics(const store::ComponentDetail& d) {
    if (!d.parameters.empty()) {
        std::printf("\nParameters\n");
        for (const auto& p : d.parameters)
            std::printf("  %-24s %s\n", p.name.c_str(), p.value.c_str());
    }
    if (!d.metrics.empty()) {
        std::printf("\n%-26s %12s %12s %12s %12s %12s %7s\n", "Metrics", "min", "max", "avg", "std",
                    "last", "count");
        for (const auto& [name, s] : d.metrics) {
            const auto finite = [&s](double v) {
                return s.hasFinite() ? present::formatValue(v) : std::string("-");
            };
            std::printf("  %-24s %12s %12s %12s %12s %12s %7lld\n", name.c_str(),
                        finite(s.min).c_str(), finite(s.max).c_str(), finite(s.average()).c_str(),
                        finite(s.stddev()).c_str(), present::formatValue(s.last).c_str(),
                        static_cast<long long>(s.count));
        }
    }
}

// The newest checkpoint and the Debugger's rules.
void printCheckpointsAndRules(const store::ComponentDetail& d) {
    const auto& r = d.row;
    if (!d.checkpoints.empty())
        std::printf("\nCheckpoints  %zu, newest at step %lld: %s\n", d.checkpoints.size(),
                    static_cast<long long>(d.checkpoints.back().step),
                    d.checkpoints.back().path.c_str());
    if (!d.rules.empty()) {
        int issues = 0;
        for (const auto& rule : d.rules)
            issues += rule.status == "IssuesFound";
        std::printf("\nRules        %zu evaluated, %d found issues (mlstudio findings %s)\n",
                    d.rules.size(), issues, r.name.c_str());
        for (const auto& rule : d.rules)
            if (rule.kind == "model" || rule.status == "IssuesFound")
                std::printf("  %-26s %-14s fired %lld\n", rule.rule.c_str(), rule.status.c_str(),
                            static_cast<long long>(rule.fired));
    }
}

} // namespace

int cmdList(const std::string& what, bool json, const std::string& experiment,
            const std::string& status) {
    auto reader = openReader();
    if (what == "experiments") {
        listExperiments(reader, json);
        return kExitOk;
    }
    if (what == "trials") {
        listTrials(reader, experiment, json);
        return kExitOk;
    }
    store::ComponentFilter f;
    f.experiment = experiment;
    f.status = status;
    listJobs(reader, f, json);
    return kExitOk;
}

int cmdShow(const std::string& job, bool json) {
    auto reader = openReader();
    const store::ComponentRow row = reader.resolveJob(job);
    auto d = reader.detail(row.name);
    const spot::BillingSummary billing =
        spot::jobBilling(*d, reader.billingSegments(row.id), wire::nowSeconds());
    const report::WhatRan whatRan = whatRanOf(reader, row);
    if (json) {
        auto j = present::jobJson(*d);
        j["billing"] = present::billingJson(billing);
        j["what_ran"] = report::whatRanJson(whatRan);
        printJson(j);
        return kExitOk;
    }
    printJobHeader(d->row, billing);
    printTransitions(*d);
    printParametersAndMetrics(*d);
    printSlurmJobs(*d);
    printNodes(*d);
    printRanks(d->ranks);
    printCheckpointsAndRules(*d);
    printWhatRan(whatRan);
    return kExitOk;
}

int cmdShowScript(const std::string& job) {
    auto reader = openReader();
    const store::ComponentRow row = reader.resolveJob(job);
    const auto slurm = reader.slurmJobs(row.id);
    if (slurm.empty()) {
        std::fprintf(stderr, "mlstudio: job %s did not run on Slurm; it has no batch script\n",
                     row.name.c_str());
        return kExitFailed;
    }
    const std::string& script = slurm.back().script;
    std::fwrite(script.data(), 1, script.size(), stdout);
    if (!script.empty() && script.back() != '\n')
        std::fputc('\n', stdout);
    return kExitOk;
}

int cmdMetrics(const std::string& job, const std::string& name, bool json) {
    auto reader = openReader();
    const store::ComponentRow row = reader.resolveJob(job);
    auto names = reader.metricNames(row.id);
    if (std::find(names.begin(), names.end(), name) == names.end()) {
        std::string known;
        for (const auto& n : names)
            known += (known.empty() ? "" : ", ") + n;
        std::fprintf(stderr, "mlstudio: job %s has no metric \"%s\"%s%s\n", row.name.c_str(),
                     name.c_str(), names.empty() ? "" : "; it has: ", known.c_str());
        return kExitFailed;
    }
    auto points = reader.metricPoints(row.id, name);
    if (json) {
        printJson(present::metricPointsJson(points));
        return kExitOk;
    }
    std::printf("%10s  %-23s %14s %5s %5s\n", "STEP", "TIME", "VALUE", "NODE", "RANK");
    for (const auto& p : points) {
        char ms[8];
        std::snprintf(ms, sizeof ms, ".%03d",
                      static_cast<int>((p.time - static_cast<long>(p.time)) * 1000));
        std::printf("%10lld  %-23s %14s %5d %5d\n", static_cast<long long>(p.step),
                    (present::formatTime(p.time) + ms).c_str(),
                    present::formatValue(p.value).c_str(), p.node, p.rank);
    }
    return kExitOk;
}

int cmdExport(const std::string& experiment, const std::string& csvPath) {
    auto reader = openReader();
    store::AnalyticsOptions o;
    o.experiment = experiment;
    const store::AnalyticsTable t = store::experimentAnalytics(reader, o);
    std::ofstream out(csvPath, std::ios::binary);
    out << store::toCsv(t);
    if (!out) {
        std::fprintf(stderr, "mlstudio: cannot write %s\n", csvPath.c_str());
        return kExitFailed;
    }
    std::fprintf(stderr, "%zu job(s), %zu columns -> %s\n", t.rows.size(), t.columns.size(),
                 csvPath.c_str());
    return kExitOk;
}

namespace {

std::string money(const std::optional<double>& v) {
    if (!v)
        return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "$%.4f", *v);
    return buf;
}

} // namespace

int cmdStop(const std::string& job) {
    return sendToRunningJob(job, "stop");
}

int cmdInterrupt(const std::string& job) {
    return sendToRunningJob(job, "interrupt");
}

int cmdBilling(const std::string& job, const std::string& experiment, bool json) {
    auto reader = openReader();
    std::vector<store::ComponentRow> rows;
    if (!job.empty()) {
        rows.push_back(reader.resolveJob(job));
    } else {
        store::ComponentFilter f;
        f.experiment = experiment;
        rows = reader.components(f);
        if (rows.empty())
            throw std::runtime_error("experiment " + experiment + " has no jobs");
    }
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    spot::BillingSummary total;
    std::optional<double> spotTotal, onDemandTotal;
    if (!json)
        std::printf("%-40s %10s %10s %8s %12s %12s %5s %6s %9s\n", "Job", "training", "billable",
                    "savings", "spot", "on-demand", "intr", "lost", "waiting");
    for (const auto& row : rows) {
        auto d = reader.detail(row.name);
        if (!d)
            continue;
        const auto b = spot::jobBilling(*d, reader.billingSegments(row.id), wire::nowSeconds());
        total.trainingTimeSeconds += b.trainingTimeSeconds;
        total.billableTimeSeconds += b.billableTimeSeconds;
        total.waitingTimeSeconds += b.waitingTimeSeconds;
        total.interruptions += b.interruptions;
        total.lostSteps += b.lostSteps;
        if (b.spotCostUsd)
            spotTotal = spotTotal.value_or(0) + *b.spotCostUsd;
        if (b.onDemandCostUsd)
            onDemandTotal = onDemandTotal.value_or(0) + *b.onDemandCostUsd;
        if (json) {
            all.push_back({{"job", row.name}, {"billing", present::billingJson(b)}});
            continue;
        }
        std::printf("%-40s %10s %10s %7.1f%% %12s %12s %5d %6lld %9s\n", row.name.c_str(),
                    present::formatDuration(b.trainingTimeSeconds).c_str(),
                    present::formatDuration(b.billableTimeSeconds).c_str(), b.savingsPercent,
                    money(b.spotCostUsd).c_str(), money(b.onDemandCostUsd).c_str(), b.interruptions,
                    static_cast<long long>(b.lostSteps),
                    present::formatDuration(b.waitingTimeSeconds).c_str());
    }
    if (total.trainingTimeSeconds > 0)
        total.savingsPercent =
            (1.0 - total.billableTimeSeconds / total.trainingTimeSeconds) * 100.0;
    total.spotCostUsd = spotTotal;
    total.onDemandCostUsd = onDemandTotal;
    if (json) {
        if (!job.empty())
            printJson(all.front());
        else
            printJson(nlohmann::ordered_json{
                {"experiment", experiment}, {"jobs", all}, {"total", present::billingJson(total)}});
        return kExitOk;
    }
    if (job.empty())
        std::printf("%-40s %10s %10s %7.1f%% %12s %12s %5d %6lld %9s\n", "total",
                    present::formatDuration(total.trainingTimeSeconds).c_str(),
                    present::formatDuration(total.billableTimeSeconds).c_str(),
                    total.savingsPercent, money(total.spotCostUsd).c_str(),
                    money(total.onDemandCostUsd).c_str(), total.interruptions,
                    static_cast<long long>(total.lostSteps),
                    present::formatDuration(total.waitingTimeSeconds).c_str());
    return kExitOk;
}

} // namespace studio::cli
