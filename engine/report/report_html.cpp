// The report page and its first four sections: training job summary, system usage statistics,
// framework metrics summary and the rules summary.
#include "engine/report/report_html.h"

#include "engine/report/svg_chart.h"

#include <algorithm>
#include <ctime>
#include <map>
#include <tuple>

namespace studio::report {
namespace {

constexpr const char* kCss = R"css(
:root { --ink:#1f2933; --muted:#66717f; --line:#e3e7ed; --bg:#f4f6f9; --card:#fff;
  --accent:#2f6fde; --head:#1b2635; }
* { box-sizing:border-box; }
body { margin:0; background:var(--bg); color:var(--ink);
  font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif; }
header { background:var(--head); color:#fff; padding:22px 0 18px; }
.wrap { max-width:1240px; margin:0 auto; padding:0 24px; }
header .kicker { text-transform:uppercase; letter-spacing:.08em; font-size:11px; color:#9fb3c8; }
header h1 { margin:2px 0 6px; font-size:24px; font-weight:650; word-break:break-all; }
header .meta { color:#c5d1de; font-size:13px; }
header .meta span { margin-right:18px; }
nav.toc { background:#fff; border-bottom:1px solid var(--line); font-size:12.5px; }
nav.toc .wrap { display:flex; flex-wrap:wrap; gap:4px 16px; padding-top:8px; padding-bottom:8px; }
nav.toc a { color:var(--accent); text-decoration:none; }
section { background:var(--card); border:1px solid var(--line); border-radius:8px;
  margin:18px 0; padding:18px 22px 20px; }
h2 { font-size:18px; margin:0 0 4px; display:flex; align-items:center; gap:10px; }
h2 .num { display:inline-flex; width:26px; height:26px; border-radius:50%; background:var(--accent);
  color:#fff; font-size:13px; align-items:center; justify-content:center; }
h3 { font-size:14.5px; margin:18px 0 6px; }
p.explain { color:var(--muted); margin:0 0 12px; max-width:920px; }
.table-wrap { overflow-x:auto; margin:8px 0 12px; }
table { border-collapse:collapse; width:100%; font-size:13px; }
th { text-align:left; font-weight:600; background:#eef1f5; color:#3b4552; padding:6px 10px;
  border-bottom:1px solid #d5dbe3; white-space:nowrap; }
td { padding:5px 10px; border-bottom:1px solid var(--line); vertical-align:top; }
tbody tr:nth-child(even) td { background:#f8f9fb; }
th.num, td.num { text-align:right; font-variant-numeric:tabular-nums; white-space:nowrap; }
table.kv { width:auto; min-width:420px; }
table.summary td:first-child { color:var(--muted); width:190px; }
.cols { display:grid; grid-template-columns:1fr 1fr; gap:0 24px; }
table.rules td { font-size:12.5px; }
table.rules td:first-child { white-space:nowrap; font-weight:600; }
code { font:12px ui-monospace,"SFMono-Regular",Menlo,Consolas,monospace; background:#f1f3f6;
  padding:1px 4px; border-radius:3px; word-break:break-word; }
.badge { display:inline-block; padding:1px 8px; border-radius:10px; font-size:11.5px;
  font-weight:600; white-space:nowrap; border:1px solid transparent; }
.s-IssuesFound { background:#fdecec; color:#b42318; border-color:#f5c2c0; }
.s-NoIssuesFound, .s-Completed { background:#e8f6ee; color:#1c7a46; border-color:#b9e3c9; }
.s-InProgress, .s-Training { background:#e8f0fd; color:#1f5bc4; border-color:#bed2f6; }
.s-Error, .s-Failed { background:#fff1e6; color:#b54708; border-color:#f9d2ac; }
.s-NotApplicable, .s-Stopped, .s-Stopping { background:#f0f2f5; color:#5b6573; border-color:#dde1e6; }
header .badge { vertical-align:middle; margin-left:8px; }
.charts { display:flex; flex-wrap:wrap; gap:14px; margin:10px 0; }
.charts figure { margin:0; border:1px solid var(--line); border-radius:6px; padding:8px;
  background:#fff; max-width:100%; }
svg.chart { display:block; max-width:100%; height:auto; }
.note { border-left:4px solid var(--accent); background:#f3f7fe; padding:8px 12px; margin:10px 0;
  border-radius:0 4px 4px 0; }
.note.na { border-left-color:#9aa5b1; background:#f4f5f7; color:#4a5562; }
.note.warn { border-left-color:#d64550; background:#fdf1f1; }
.rule { border:1px solid var(--line); border-radius:6px; padding:10px 14px; margin:12px 0;
  background:#fcfcfd; }
.rule-head { display:flex; flex-wrap:wrap; align-items:center; gap:10px; }
.rule-name { font-weight:650; font-size:14.5px; }
.rule p { margin:6px 0; }
.rule-desc { color:#3b4552; }
.label { display:inline-block; min-width:118px; color:var(--muted); font-size:12px;
  text-transform:uppercase; letter-spacing:.04em; margin-right:6px; }
.advice { background:#fff8e6; border-radius:4px; padding:6px 10px; }
details summary { cursor:pointer; color:var(--muted); font-size:12.5px; margin-top:6px; }
.muted { color:var(--muted); font-size:12.5px; }
p.rule-absent { margin:10px 0 0; }
.small { font-size:12px; }
footer { color:var(--muted); font-size:12px; padding:6px 0 30px; }
@media print { section { break-inside:avoid-page; } body { background:#fff; } }
)css";

struct SectionLink {
    const char* id;
    const char* title;
};
constexpr SectionLink kSections[] = {
    {"summary", "Training job summary"},
    {"system", "System usage statistics"},
    {"framework", "Framework metrics summary"},
    {"rules", "Rules summary"},
    {"steps", "Step duration statistics"},
    {"gpu", "GPU utilization"},
    {"batch", "Batch size"},
    {"cpu", "CPU bottlenecks"},
    {"io", "I/O bottlenecks"},
    {"balance", "Load balancing"},
    {"gpumem", "GPU memory"},
    {"dataloading", "Data loading analysis"},
};

std::string counted(std::size_t n, const std::string& noun) {
    return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string nowText() {
    const std::time_t now = std::time(nullptr);
    return formatTimestamp(static_cast<double>(now));
}

} // namespace

namespace html {

std::string sectionSummary(const ReportData& d) {
    const auto& s = d.summary;
    const auto& j = d.job;
    std::string out = sectionOpen(
        1, kSections[0].id, kSections[0].title,
        "When the job ran and where its time went: initialization is the time from the job's "
        "start (every rank running) to the first training step, the training loop runs from the "
        "first step's start to the last step's end, and finalization is what follows it.");
    auto row = [](const std::string& k, const std::string& v) {
        return std::vector<std::string>{esc(k), v};
    };
    std::vector<std::vector<std::string>> job;
    job.push_back(row("Job name", esc(j.name)));
    job.push_back(row("Status", statusBadge(j.status) +
                                    (j.secondaryStatus == j.status || j.secondaryStatus.empty()
                                         ? std::string()
                                         : " " + esc(j.secondaryStatus))));
    if (!j.failureReason.empty())
        job.push_back(row("Failure reason", "<code>" + esc(j.failureReason) + "</code>"));
    job.push_back(row("Instance type", esc(j.instanceType)));
    job.push_back(row("Instance count", std::to_string(j.instanceCount) + " &times; " +
                                            std::to_string(j.processesPerHost) +
                                            " processes per host"));
    job.push_back(row("Nodes, ranks",
                      counted(d.nodes.size(), "node") + ", " + counted(d.ranks.size(), "rank")));
    job.push_back(row("Created", esc(formatTimestamp(s.created))));
    std::vector<std::vector<std::string>> time;
    time.push_back(row("Start time", esc(formatTimestamp(s.start))));
    time.push_back(
        row(s.running ? "Last data (still running)" : "End time", esc(formatTimestamp(s.end))));
    time.push_back(row("Job duration", "<b>" + esc(formatDuration(s.jobDuration)) +
                                           "</b> <span class=\"muted\">(" +
                                           formatNumber(s.jobDuration, 1) + " s)</span>"));
    if (s.hasSteps) {
        time.push_back(row("Training loop start", esc(formatTimestamp(s.loopStart))));
        time.push_back(row("Training loop end", esc(formatTimestamp(s.loopEnd))));
        time.push_back(row("Training loop duration", esc(formatDuration(s.loopDuration))));
    } else {
        time.push_back(row("Training loop", "no step timings were recorded"));
    }
    time.push_back(row("Initialization", esc(formatDuration(s.initialization))));
    time.push_back(row("Finalization", esc(formatDuration(s.finalization))));
    out += "<div class=\"cols\">" + table({{"Job"}, {""}}, job, "summary") +
           table({{"Timeline"}, {""}}, time, "summary") + "</div>";
    out += "<h3>Where the time went</h3>";
    out += stackedBar({{"Initialization", s.initialization, "#ef8a17"},
                       {"Training loop", s.loopDuration, "#2f6fde"},
                       {"Finalization", s.finalization, "#8a5cd1"}},
                      "s", 1100);
    if (!d.transitions.empty()) {
        std::vector<std::vector<std::string>> tr;
        for (const auto& t : d.transitions)
            tr.push_back({statusBadge(t.status), esc(t.secondaryStatus),
                          esc(formatTimestamp(t.startTime)),
                          t.endTime > 0 ? esc(formatDuration(t.endTime - t.startTime)) : "current",
                          esc(t.message)});
        out += "<h3>Status transitions</h3>" +
               table({{"Status"}, {"Secondary status"}, {"Start"}, {"Duration"}, {"Message"}}, tr);
    }
    out += ruleBlock(d, "MaxInitializationTime");
    return out + sectionClose();
}

std::string sectionSystemUsage(const ReportData& d) {
    std::string out = sectionOpen(
        2, kSections[1].id, kSections[1].title,
        "Statistics of every system metric the launcher sampled on each node. <i>CPU per "
        "core</i> pools every core's samples; network and disk are throughputs over each "
        "sampling interval.");
    if (d.system.empty())
        return out + note("No system samples were recorded for this job.", "na") + sectionClose();
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : d.system)
        rows.push_back({esc(d.nodeLabel(r.node)), esc(r.metric), esc(r.unit),
                        formatNumber(r.stats.max), formatNumber(r.stats.p99),
                        formatNumber(r.stats.p95), formatNumber(r.stats.p50),
                        formatNumber(r.stats.min)});
    out += table({{"Node"},
                  {"Metric"},
                  {"Unit"},
                  {"Max", true},
                  {"p99", true},
                  {"p95", true},
                  {"p50", true},
                  {"Min", true}},
                 rows);
    const plot::RelativeTime axis = timeAxis(d);
    std::vector<std::string> charts;
    for (int node : d.nodeIds()) {
        std::vector<LineSeries> util;
        if (const auto* s = d.seriesOf(node, "cpu", "util"))
            util.push_back({"CPU total", paletteColor(0), timePoints(s->samples, axis)});
        if (const auto* s = d.seriesOf(node, "mem", "used"))
            util.push_back({"memory", paletteColor(7), timePoints(s->samples, axis)});
        std::size_t i = 0;
        for (const auto* s : d.gpuSeries(node, "util"))
            util.push_back({s->device, paletteColor(1 + (i++ % 6)), timePoints(s->samples, axis)});
        charts.push_back(lineChart(
            {d.nodeLabel(node) + ": utilization", timeAxisLabel(axis), "utilization (%)", 540, 250},
            util, 0.0, 100.0));
        std::vector<LineSeries> io;
        double top = 0;
        for (const char* dev : {"net", "disk"})
            for (const auto& s : d.series)
                if (s.node == node && s.device == dev)
                    for (const auto& v : s.samples)
                        top = std::max(top, v.value);
        const ScaledUnit unit = byteRateUnit(top);
        std::size_t c = 0;
        for (const auto& [dev, metric, name] :
             {std::tuple{"net", "rx", "network in"}, std::tuple{"net", "tx", "network out"},
              std::tuple{"disk", "read", "disk read"}, std::tuple{"disk", "write", "disk write"}}) {
            if (const auto* s = d.seriesOf(node, dev, metric))
                io.push_back({name, paletteColor(c), timePoints(s->samples, axis, unit.divisor)});
            ++c;
        }
        if (!io.empty())
            charts.push_back(
                lineChart({d.nodeLabel(node) + ": network and disk", timeAxisLabel(axis),
                           "throughput (" + unit.unit + ")", 540, 250},
                          io));
    }
    out += chartGrid(charts);
    out += ruleBlock(d, "OverallSystemUsage", false);
    return out + sectionClose();
}

namespace {

// A script's torch.profiler window: its top operators by self CPU time.
std::string operatorsBlock(const nlohmann::json& ops) {
    if (!ops.is_object() || !ops.contains("ops") || !ops["ops"].is_array() || ops["ops"].empty())
        return {};
    const auto start = ops.value("start_step", std::int64_t{0});
    const auto count = ops.value("num_steps", std::int64_t{1});
    std::string out = "<h3>Top operators, steps " + std::to_string(start) + " to " +
                      std::to_string(start + std::max<std::int64_t>(count, 1) - 1) +
                      " (torch.profiler)</h3>";
    std::vector<std::vector<std::string>> rows;
    for (const auto& o : ops["ops"]) {
        if (!o.is_object() || rows.size() >= 20)
            continue;
        rows.push_back(
            {esc(o.value("name", std::string())), std::to_string(o.value("calls", std::int64_t{0})),
             formatNumber(o.value("self_cpu_ms", 0.0)), formatNumber(o.value("cpu_total_ms", 0.0)),
             formatNumber(o.value("self_cuda_ms", 0.0)),
             formatNumber(o.value("cuda_total_ms", 0.0))});
    }
    out += table({{"Operator"},
                  {"Calls", true},
                  {"Self CPU (ms)", true},
                  {"CPU total (ms)", true},
                  {"Self CUDA (ms)", true},
                  {"CUDA total (ms)", true}},
                 rows);
    if (ops.contains("trace") && ops["trace"].is_string())
        out += "<p class=\"muted\">The window's trace: <code>debug-output/" +
               esc(ops["trace"].get<std::string>()) +
               "</code> (Chrome's or Perfetto's trace viewer reads it).</p>";
    return out;
}

} // namespace

std::string sectionFramework(const ReportData& d) {
    std::string out = sectionOpen(
        3, kSections[2].id, kSections[2].title,
        "How training steps spent their time, from every rank's per-step phase timings, and "
        "which framework events took the most time in the profiled window.");
    const auto& p = d.phases;
    if (d.steps.empty()) {
        out += note("No step timings were recorded: the training script did not report phase "
                    "timings (the built-in trainer does).",
                    "na");
    } else {
        // Totals over every rank's steps, in seconds.
        std::vector<std::string> charts;
        charts.push_back(pieChart({"Step phases (all ranks)", "", "", 360, 180},
                                  {{"data loading", p.dataMs / 1000, paletteColor(1)},
                                   {"forward", p.forwardMs / 1000, paletteColor(0)},
                                   {"backward", p.backwardMs / 1000, paletteColor(2)},
                                   {"communication", p.commMs / 1000, paletteColor(3)},
                                   {"optimizer", p.optimizerMs / 1000, paletteColor(4)}},
                                  "s"));
        std::vector<PieItem> phases = {{"train steps", p.trainMs / 1000, paletteColor(0)},
                                       {"eval steps", p.evalMs / 1000, paletteColor(1)}};
        if (p.otherSteps > 0)
            phases.push_back({"other steps", p.otherMs / 1000, paletteColor(7)});
        charts.push_back(pieChart({"Train vs eval", "", "", 350, 180}, phases, "s"));
        charts.push_back(pieChart({"Forward vs backward", "", "", 350, 180},
                                  {{"forward", p.forwardMs / 1000, paletteColor(0)},
                                   {"backward", p.backwardMs / 1000, paletteColor(2)}},
                                  "s"));
        out += chartGrid(charts);
        out += "<p class=\"muted\">" + std::to_string(p.trainSteps) + " train and " +
               std::to_string(p.evalSteps) + " eval step timings over " +
               counted(d.ranks.empty() ? d.stepStats.size() : d.ranks.size(), "rank") + ".</p>";
    }
    out += "<h3>Top framework events by cumulative time</h3>";
    if (d.events.empty()) {
        out += note("Framework profiling was not enabled for this job, so no framework events "
                    "were recorded. Enable it with <code>profiler_config.framework_profile_params"
                    "</code> in the job spec, e.g. <code>{\"start_step\": 5, \"num_steps\": 3}"
                    "</code>.",
                    "na");
    } else {
        std::vector<std::vector<std::string>> rows;
        for (std::size_t i = 0; i < d.events.size() && i < 15; ++i) {
            const auto& e = d.events[i];
            rows.push_back({esc(e.name), esc(e.category), std::to_string(e.count),
                            formatNumber(e.totalMs), formatNumber(e.meanMs), formatNumber(e.maxMs),
                            formatPercent(e.share)});
        }
        out += table({{"Event"},
                      {"Category"},
                      {"Count", true},
                      {"Total (ms)", true},
                      {"Mean (ms)", true},
                      {"Max (ms)", true},
                      {"Share", true}},
                     rows);
        if (d.events.size() > 15)
            out += "<p class=\"muted\">" + std::to_string(d.events.size() - 15) +
                   " more event kinds, not shown.</p>";
        std::map<std::string, double> byCategory;
        for (const auto& e : d.events)
            byCategory[e.category] += e.totalMs;
        std::vector<PieItem> cats;
        for (const auto& [cat, ms] : byCategory)
            cats.push_back({cat, ms, paletteColor(cats.size())});
        out +=
            chartGrid({pieChart({"Framework events by category", "", "", 360, 180}, cats, "ms")});
    }
    out += operatorsBlock(d.operators);
    out += ruleBlock(d, "OverallFrameworkMetrics", false);
    return out + sectionClose();
}

std::string sectionRules(const ReportData& d) {
    std::string out = sectionOpen(
        4, kSections[3].id, kSections[3].title,
        "Every rule that watched this job, those that found issues first. A rule's advice comes "
        "from its first finding.");
    if (d.rules.empty())
        return out + note("No rules ran on this job.", "na") + sectionClose();
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : d.rules) {
        const auto& st = r.status;
        const std::string advice =
            r.findings.empty() ? std::string() : r.findings.front().recommendation;
        const std::string criteria = !st.criteria.empty() ? st.criteria
                                     : r.findings.empty() ? std::string()
                                                          : r.findings.front().criteria;
        rows.push_back(
            {esc(st.rule) + "<div class=\"muted small\">" + esc(st.kind) + "</div>",
             statusBadge(st.status) +
                 (st.message.empty() ? std::string()
                                     : "<div class=\"muted small\">" + esc(st.message) + "</div>"),
             std::to_string(st.fired), std::to_string(st.datapoints), esc(r.description),
             esc(advice), esc(criteria),
             st.parameters.empty() ? "" : "<code>" + esc(st.parameters) + "</code>"});
    }
    out += table({{"Rule"},
                  {"Status"},
                  {"Fired", true},
                  {"Datapoints", true},
                  {"Description"},
                  {"Advice"},
                  {"Trigger criteria"},
                  {"Parameters"}},
                 rows, "rules");
    return out + sectionClose();
}

} // namespace html

std::string renderReportHtml(const ReportData& d) {
    using namespace html;
    const auto& j = d.job;
    std::string s = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                    "<title>Profiler report: " +
                    esc(j.name) + "</title><style>" + kCss + "</style></head><body>\n";
    s += "<header><div class=\"wrap\"><div class=\"kicker\">ML Studio &middot; Profiler report"
         "</div><h1>" +
         esc(j.name) + statusBadge(j.status) + "</h1><div class=\"meta\"><span>" +
         esc(j.instanceType) + " &times; " + std::to_string(j.instanceCount) + "</span>";
    if (!j.experiment.empty())
        s += "<span>experiment " + esc(j.experiment) + "</span>";
    if (!j.trial.empty())
        s += "<span>trial " + esc(j.trial) + "</span>";
    s += "<span>" + esc(formatTimestamp(d.summary.start)) + " &middot; " +
         esc(formatDuration(d.summary.jobDuration)) + "</span></div></div></header>\n";
    s += "<nav class=\"toc\"><div class=\"wrap\">";
    int n = 1;
    for (const auto& sec : kSections)
        s += "<a href=\"#" + std::string(sec.id) + "\">" + std::to_string(n++) + ". " + sec.title +
             "</a>";
    s += "</div></nav>\n<main class=\"wrap\">\n";
    s += sectionSummary(d) + sectionSystemUsage(d) + sectionFramework(d) + sectionRules(d) +
         sectionStepDurations(d) + sectionGpuUtilization(d) + sectionBatchSize(d) +
         sectionCpuBottlenecks(d) + sectionIoBottlenecks(d) + sectionLoadBalancing(d) +
         sectionGpuMemory(d) + sectionDataLoading(d);
    s += "</main><footer><div class=\"wrap\">Generated by ML Studio " STUDIO_VERSION " on " +
         esc(nowText()) +
         " from the studio database. Times are local; statistics are NumPy-style linear "
         "percentiles.</div></footer>\n</body></html>\n";
    return s;
}

} // namespace studio::report
