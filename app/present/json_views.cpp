#include "app/present/json_views.h"

#include "engine/control/orphans.h"
#include "engine/spec/mpi_launch.h"
#include "engine/spec/spec_parser.h"

#include <cmath>

namespace studio::present {

using nlohmann::ordered_json;

ordered_json numberJson(double v) {
    if (std::isnan(v))
        return "NaN";
    if (std::isinf(v))
        return v > 0 ? "Infinity" : "-Infinity";
    return v;
}

ordered_json billingJson(const spot::BillingSummary& b) {
    auto money = [](const std::optional<double>& v) {
        return v ? ordered_json(*v) : ordered_json(nullptr);
    };
    return ordered_json{{"training_time_s", b.trainingTimeSeconds},
                        {"billable_time_s", b.billableTimeSeconds},
                        {"savings_percent", b.savingsPercent},
                        {"spot_cost_usd", money(b.spotCostUsd)},
                        {"on_demand_cost_usd", money(b.onDemandCostUsd)},
                        {"interruptions", b.interruptions},
                        {"attempts", b.attempts},
                        {"lost_steps", b.lostSteps},
                        {"waiting_time_s", b.waitingTimeSeconds}};
}

namespace {
ordered_json timeJson(double t) {
    return t > 0 ? ordered_json(t) : ordered_json(nullptr);
}

// "ranks", one object per rank, and "exit_codes", a rank's code by its number.
void addRanksJson(ordered_json& j, const std::vector<store::RankRow>& rows) {
    ordered_json ranks = ordered_json::array();
    ordered_json exitCodes = ordered_json::object();
    for (const auto& k : rows) {
        ordered_json code = nullptr;
        if (k.signal)
            code = -k.signal; // Python's convention: minus the signal number
        else if (k.exitCode)
            code = *k.exitCode;
        ranks.push_back(
            {{"rank", k.rank},
             {"node", k.node},
             {"local_rank", k.localRank},
             {"pid", k.pid},
             {"device", k.device},
             {"started", timeJson(k.started)},
             {"ended", timeJson(k.ended)},
             {"exit_code", k.exitCode ? ordered_json(*k.exitCode) : ordered_json(nullptr)},
             {"signal", k.signal}});
        exitCodes[std::to_string(k.rank)] = code;
    }
    j["ranks"] = ranks;
    j["exit_codes"] = exitCodes;
}
} // namespace

ordered_json slurmJobJson(const store::SlurmJobRow& s, bool withScript) {
    ordered_json j{{"job_id", s.jobId},
                   {"attempt", s.attempt},
                   {"cluster", s.cluster},
                   {"partition", s.partition},
                   {"state", s.state},
                   {"reason", s.reason},
                   {"nodes", s.nodes},
                   {"restarts", s.restarts},
                   {"exit_code", s.exitCode ? ordered_json(*s.exitCode) : ordered_json(nullptr)},
                   {"submitted", timeJson(s.submitted)},
                   {"started", timeJson(s.started)},
                   {"ended", timeJson(s.ended)},
                   {"updated", timeJson(s.updated)}};
    if (withScript)
        j["script"] = s.script;
    return j;
}

ordered_json rulesJson(const std::vector<store::RuleStatusRow>& rules) {
    ordered_json out = ordered_json::array();
    for (const auto& r : rules) {
        ordered_json details = ordered_json::parse(r.details, nullptr, false);
        if (details.is_discarded())
            details = ordered_json::object();
        out.push_back({{"rule", r.rule},
                       {"kind", r.kind},
                       {"status", r.status},
                       {"message", r.message},
                       {"fired", r.fired},
                       {"datapoints", r.datapoints},
                       {"parameters", r.parameters},
                       {"actions", r.actions},
                       {"criteria", r.criteria},
                       {"updated", timeJson(r.updated)},
                       {"details", details}});
    }
    return out;
}

ordered_json findingsJson(const std::vector<store::FindingRow>& findings) {
    ordered_json out = ordered_json::array();
    for (const auto& f : findings)
        out.push_back({{"rule", f.rule},
                       {"time", f.time},
                       {"step", f.step >= 0 ? ordered_json(f.step) : ordered_json(nullptr)},
                       {"node", f.node >= 0 ? ordered_json(f.node) : ordered_json(nullptr)},
                       {"device", f.device},
                       {"message", f.message},
                       {"recommendation", f.recommendation},
                       {"criteria", f.criteria}});
    return out;
}

ordered_json summaryJson(const store::MetricSummary& s) {
    const bool any = s.hasFinite();
    return ordered_json{{"min", any ? numberJson(s.min) : ordered_json(nullptr)},
                        {"max", any ? numberJson(s.max) : ordered_json(nullptr)},
                        {"avg", any ? numberJson(s.average()) : ordered_json(nullptr)},
                        {"std", any ? numberJson(s.stddev()) : ordered_json(nullptr)},
                        {"last", s.count ? numberJson(s.last) : ordered_json(nullptr)},
                        {"count", s.count}};
}

ordered_json componentRowJson(const store::ComponentRow& r) {
    return ordered_json{{"name", r.name},
                        {"display_name", r.displayName},
                        {"status", r.status},
                        {"secondary_status", r.secondaryStatus},
                        {"experiment", r.experiment},
                        {"trial", r.trial},
                        {"instance_type", r.instanceType},
                        {"instance_count", r.instanceCount},
                        {"processes_per_host", r.processesPerHost},
                        {"entry_point", r.entryPoint},
                        {"created", timeJson(r.created)},
                        {"started", timeJson(r.started)},
                        {"ended", timeJson(r.ended)},
                        {"failure_reason", r.failureReason},
                        {"job_dir", r.jobDir},
                        {"cluster", r.cluster},
                        {"orphaned", control::isOrphaned(r)}};
}

// Which launcher started the job's ranks, from its stored spec (null when it does not parse).
static ordered_json launcherJson(const std::string& specJson, const std::string& jobDir) {
    spec::ParseOptions noFiles;
    noFiles.checkFiles = false;
    const auto parsed = spec::parseSpecText(specJson, jobDir, {}, noFiles);
    if (!parsed.ok())
        return nullptr;
    const spec::RankLauncher l = spec::rankLauncher(*parsed.spec);
    return ordered_json{{"name", l.name}, {"reason", l.reason}};
}

ordered_json jobJson(const store::ComponentDetail& d) {
    const store::ComponentRow& r = d.row;
    ordered_json j = componentRowJson(r);
    ordered_json transitions = ordered_json::array();
    for (const auto& t : d.transitions)
        transitions.push_back({{"status", t.status},
                               {"secondary_status", t.secondaryStatus},
                               {"start_time", t.startTime},
                               {"end_time", timeJson(t.endTime)},
                               {"message", t.message}});
    j["status_transitions"] = transitions;
    j["launcher"] = launcherJson(d.specJson, r.jobDir);
    ordered_json params = ordered_json::object();
    for (const auto& p : d.parameters)
        params[p.name] = p.number ? numberJson(*p.number) : ordered_json(p.value);
    j["parameters"] = params;
    ordered_json metrics = ordered_json::object();
    for (const auto& [name, s] : d.metrics)
        metrics[name] = summaryJson(s);
    j["metrics"] = metrics;
    ordered_json nodes = ordered_json::array();
    for (const auto& n : d.nodes)
        nodes.push_back(
            {{"node", n.node},
             {"host", n.host},
             {"launcher_pid", n.launcherPid},
             {"cores", n.cores},
             {"gpus", n.gpus},
             {"started", timeJson(n.started)},
             {"ended", timeJson(n.ended)},
             {"exit_code", n.exitCode ? ordered_json(*n.exitCode) : ordered_json(nullptr)}});
    j["nodes"] = nodes;
    ordered_json journals = ordered_json::array();
    for (const auto& x : d.journals)
        journals.push_back({{"node", x.node},
                            {"host", x.host},
                            {"journal", x.path},
                            {"offset", x.offset},
                            {"launcher_pid", x.launcherPid},
                            {"state", x.state},
                            {"state_since", timeJson(x.stateSince)},
                            {"message", x.message}});
    j["journals"] = journals;
    ordered_json slurm = ordered_json::array();
    for (const auto& s : d.slurmJobs)
        slurm.push_back(slurmJobJson(s, true));
    j["slurm_jobs"] = slurm;
    addRanksJson(j, d.ranks);
    ordered_json logs = ordered_json::array();
    for (const auto& l : d.logs)
        logs.push_back({{"node", l.node}, {"rank", l.rank}, {"path", l.path}, {"lines", l.lines}});
    j["logs"] = logs;
    ordered_json checkpoints = ordered_json::array();
    for (const auto& c : d.checkpoints)
        checkpoints.push_back({{"step", c.step},
                               {"node", c.node},
                               {"rank", c.rank},
                               {"time", c.time},
                               {"path", c.path},
                               {"sha256", c.sha256},
                               {"bytes", c.bytes}});
    j["checkpoints"] = checkpoints;
    ordered_json artifacts = ordered_json::array();
    for (const auto& a : d.artifacts)
        artifacts.push_back(
            {{"name", a.name}, {"kind", a.kind}, {"value", a.value}, {"media_type", a.mediaType}});
    j["artifacts"] = artifacts;
    j["rules"] = rulesJson(d.rules);
    j["findings"] = findingsJson(d.findings);
    j["tags"] = d.tags;
    j["notes"] = r.notes;
    j["protocol_errors"] = r.protocolErrors;
    return j;
}

ordered_json metricPointsJson(const std::vector<store::MetricPoint>& points) {
    ordered_json out = ordered_json::array();
    for (const auto& p : points)
        out.push_back({{"step", p.step},
                       {"time", p.time},
                       {"value", numberJson(p.value)},
                       {"node", p.node},
                       {"rank", p.rank}});
    return out;
}

} // namespace studio::present
