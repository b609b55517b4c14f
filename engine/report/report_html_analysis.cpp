// The report's analysis sections (5-12): step durations, GPU utilization, batch size, CPU and
// I/O bottlenecks, load balancing, GPU memory and data loading; each pairs its rule's outcome
// with a chart drawn from the raw samples.
#include "engine/report/report_html.h"

#include "engine/report/svg_chart.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

namespace studio::report::html {
namespace {

constexpr const char* kNoGpu = "Not applicable: no GPU was recorded on this job's nodes.";
constexpr std::size_t kMaxHistograms = 16;

// A numeric parameter of a rule as it ran, else the given default (SageMaker's).
double ruleParam(const ReportData& d, const std::string& rule, const std::string& name,
                 double fallback) {
    const RuleView* r = d.rule(rule);
    if (!r)
        return fallback;
    const auto params = parseRuleParameters(r->status.parameters);
    const auto it = params.find(name);
    if (it == params.end())
        return fallback;
    double v = 0;
    const auto& t = it->second;
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    return ec == std::errc() && end == t.data() + t.size() ? v : fallback;
}

std::string rankLabel(const StepStatRow& r) {
    return "rank " + std::to_string(r.rank) + " (node " + std::to_string(r.node) + ")";
}

// A pie of the time a condition held, for a node with GPUs; empty without samples to compare.
std::string bottleneckPie(const ReportData& d, int node, const store::SystemSeries* busy,
                          double busyAbove, double gpuBelow, const std::string& what) {
    const auto gpus = d.gpuSeries(node, "util");
    if (!busy || gpus.empty())
        return {};
    std::vector<const std::vector<store::SystemSample>*> lists;
    for (const auto* g : gpus)
        lists.push_back(&g->samples);
    const auto gpuMax = maxByTime(lists);
    const Coincidence c = coincidence(busy->samples, busyAbove, gpuMax, gpuBelow, 1.0);
    if (c.matched == 0)
        return {};
    return pieChart({d.nodeLabel(node) + ": share of samples", "", "", 540, 150},
                    {{what + " > " + formatNumber(busyAbove, 0) + "% while every GPU < " +
                          formatNumber(gpuBelow, 0) + "%",
                      static_cast<double>(c.both), paletteColor(3)},
                     {"other samples", static_cast<double>(c.matched - c.both), paletteColor(2)}},
                    "samples", 0);
}

// One line per GPU of a node for a GPU metric ("util", "mem") in percent; "" without GPUs.
std::string gpuLineChart(const ReportData& d, int node, const char* metric,
                         const std::string& title, const std::string& yLabel,
                         const plot::RelativeTime& axis) {
    std::vector<LineSeries> lines;
    for (const auto* s : d.gpuSeries(node, metric))
        lines.push_back({s->device, paletteColor(lines.size()), timePoints(s->samples, axis)});
    if (lines.empty())
        return {};
    return lineChart({d.nodeLabel(node) + ": " + title, timeAxisLabel(axis), yLabel, 540, 240},
                     lines, 0.0, 100.0);
}

} // namespace

std::string sectionStepDurations(const ReportData& d) {
    std::string out = sectionOpen(
        5, "steps", "Step duration statistics",
        "Duration of every training step on each rank (the sum of its data loading, forward, "
        "backward, communication and optimizer phases), in milliseconds. Steps far above the "
        "others are what the StepOutlier rule looks for.");
    if (d.stepStats.empty())
        return out + note("No step timings were recorded for this job.", "na") +
               ruleBlock(d, "StepOutlier") + sectionClose();
    std::vector<std::vector<std::string>> rows;
    std::vector<double> all; // every rank's histogram shares the bins of the pooled durations
    for (const auto& r : d.stepStats) {
        all.insert(all.end(), r.durationsMs.begin(), r.durationsMs.end());
        const auto& s = r.stats;
        rows.push_back({std::to_string(r.node), std::to_string(r.rank), std::to_string(s.count),
                        formatNumber(s.mean), formatNumber(s.max), formatNumber(s.p99),
                        formatNumber(s.p95), formatNumber(s.p50), formatNumber(s.min),
                        formatNumber(s.stddev)});
    }
    out += table({{"Node", true},
                  {"Rank", true},
                  {"Steps", true},
                  {"Mean (ms)", true},
                  {"Max (ms)", true},
                  {"p99 (ms)", true},
                  {"p95 (ms)", true},
                  {"p50 (ms)", true},
                  {"Min (ms)", true},
                  {"Std dev (ms)", true}},
                 rows);
    std::vector<LineSeries> lines;
    for (std::size_t i = 0; i < d.stepStats.size(); ++i)
        lines.push_back({"rank " + std::to_string(d.stepStats[i].rank), paletteColor(i),
                         d.stepStats[i].byStep});
    out += chartGrid(
        {lineChart({"Step duration by step", "step", "duration (ms)", 1100, 260}, lines)});
    out += "<h3>Histograms</h3>";
    const DisplayRange range = histogramRange(all);
    const auto edges = binEdges(range.lo, range.hi, 30);
    std::vector<std::string> charts;
    for (std::size_t i = 0; i < d.stepStats.size() && i < kMaxHistograms; ++i) {
        const auto& r = d.stepStats[i];
        charts.push_back(histogramChart({rankLabel(r), "step duration (ms)", "steps", 350, 210},
                                        histogram(r.durationsMs, edges), paletteColor(i),
                                        {{"p50", r.stats.p50}, {"p95", r.stats.p95}}));
    }
    out += chartGrid(charts);
    if (d.stepStats.size() > kMaxHistograms)
        out += "<p class=\"muted\">Histograms of the first " + std::to_string(kMaxHistograms) +
               " ranks; the table lists them all.</p>";
    out += ruleBlock(d, "StepOutlier");
    return out + sectionClose();
}

std::string sectionGpuUtilization(const ReportData& d) {
    std::string out = sectionOpen(
        6, "gpu", "GPU utilization",
        "Utilization of each GPU: a low p95 means the GPU is under-used (a larger batch or a "
        "smaller instance may fit), a high p95 with a low p5 means it fluctuates, often waiting "
        "on data or on other ranks.");
    if (!d.hasGpu())
        return out + note(kNoGpu, "na") + ruleBlock(d, "LowGPUUtilization") + sectionClose();
    std::vector<std::vector<std::string>> rows;
    for (const auto& g : d.gpus)
        rows.push_back({esc(d.nodeLabel(g.node)), esc(g.device), formatNumber(g.utilization.mean),
                        formatNumber(g.utilization.p95), formatNumber(g.utilization.p5),
                        formatNumber(g.utilization.max), formatNumber(g.utilization.min)});
    out += table({{"Node"},
                  {"GPU"},
                  {"Mean (%)", true},
                  {"p95 (%)", true},
                  {"p5 (%)", true},
                  {"Max (%)", true},
                  {"Min (%)", true}},
                 rows);
    const plot::RelativeTime axis = timeAxis(d);
    std::vector<std::string> charts;
    for (int node : d.nodeIds()) {
        if (std::string chart =
                gpuLineChart(d, node, "util", "GPU utilization", "utilization (%)", axis);
            !chart.empty())
            charts.push_back(std::move(chart));
    }
    out += chartGrid(charts) + ruleBlock(d, "LowGPUUtilization");
    return out + sectionClose();
}

std::string sectionBatchSize(const ReportData& d) {
    std::string out = sectionOpen(
        7, "batch", "Batch size",
        "Spread of CPU, GPU and GPU memory utilization per node: boxes span p25 to p75 with the "
        "median marked, whiskers reach p5 and p95. When all of them stay low the batch is small "
        "for the instance: a larger batch, or a smaller instance, would use it better.");
    if (const auto* batch = d.batchSize())
        out += "<p>Batch size: <b>" + esc(batch->value) + "</b> <span class=\"muted\">(" +
               "hyperparameter <code>" + esc(batch->name) + "</code>, per rank)</span></p>";
    std::vector<std::string> charts;
    for (int node : d.nodeIds()) {
        std::vector<BoxItem> boxes;
        if (const auto* s = d.seriesOf(node, "cpu", "util")) {
            std::vector<double> v;
            for (const auto& x : s->samples)
                v.push_back(x.value);
            boxes.push_back({"CPU", plot::summarize(v), paletteColor(0)});
        }
        for (const auto& g : d.gpus)
            if (g.node == node)
                boxes.push_back({g.device, g.utilization, paletteColor(1)});
        for (const auto& g : d.gpus)
            if (g.node == node)
                boxes.push_back({g.device + " mem", g.memory, paletteColor(4)});
        if (!boxes.empty())
            charts.push_back(boxPlotChart(
                {d.nodeLabel(node), "", "utilization (%)",
                 static_cast<int>(std::clamp<std::size_t>(140 + 80 * boxes.size(), 300, 1100)),
                 240},
                boxes, 0.0, 100.0));
    }
    out += chartGrid(charts);
    if (!d.hasGpu())
        out += note("GPU and GPU memory: not applicable, no GPU was recorded on this job's nodes.",
                    "na");
    out += ruleBlock(d, "BatchSize");
    return out + sectionClose();
}

std::string sectionCpuBottlenecks(const ReportData& d) {
    const double cpuAbove = ruleParam(d, "CPUBottleneck", "cpu_threshold", 90);
    const double gpuBelow = ruleParam(d, "CPUBottleneck", "gpu_threshold", 10);
    std::string out =
        sectionOpen(8, "cpu", "CPU bottlenecks",
                    "Time when the CPU was busy (above " + formatNumber(cpuAbove, 0) +
                        "%) while the GPUs idled (below " + formatNumber(gpuBelow, 0) +
                        "%): the GPUs wait on work the CPU prepares, typically data loading or "
                        "pre-processing. The bars show each core's mean utilization.");
    std::vector<std::string> charts;
    for (int node : d.nodeIds()) {
        const std::string pie =
            bottleneckPie(d, node, d.seriesOf(node, "cpu", "util"), cpuAbove, gpuBelow, "CPU");
        if (!pie.empty())
            charts.push_back(pie);
        std::vector<BarItem> cores;
        for (int core = 0;; ++core) {
            const auto* s = d.seriesOf(node, "cpu" + std::to_string(core), "util");
            if (!s)
                break;
            std::vector<double> v;
            for (const auto& x : s->samples)
                v.push_back(x.value);
            cores.push_back({std::to_string(core), plot::summarize(v).mean, paletteColor(0)});
        }
        if (!cores.empty())
            charts.push_back(barChart({d.nodeLabel(node) + ": mean utilization per core", "core",
                                       "utilization (%)", 540, 220},
                                      cores, 0));
    }
    out += chartGrid(charts);
    if (!d.hasGpu())
        out += note("The GPU condition is not applicable: no GPU was recorded on this job's "
                    "nodes.",
                    "na");
    out += ruleBlock(d, "CPUBottleneck");
    return out + sectionClose();
}

std::string sectionIoBottlenecks(const ReportData& d) {
    const double ioAbove = ruleParam(d, "IOBottleneck", "io_threshold", 50);
    const double gpuBelow = ruleParam(d, "IOBottleneck", "gpu_threshold", 10);
    std::string out = sectionOpen(
        9, "io", "I/O bottlenecks",
        "Time when the CPUs waited on I/O (I/O wait above " + formatNumber(ioAbove, 0) +
            "%) while the GPUs idled (below " + formatNumber(gpuBelow, 0) +
            "%): training waits on storage. Reading data from local disk, prefetching or more "
            "loader workers usually helps.");
    const plot::RelativeTime axis = timeAxis(d);
    std::vector<LineSeries> lines;
    std::vector<std::string> pies;
    for (int node : d.nodeIds()) {
        const auto* s = d.seriesOf(node, "cpu", "iowait");
        if (s)
            lines.push_back(
                {d.nodeLabel(node), paletteColor(lines.size()), timePoints(s->samples, axis)});
        const std::string pie = bottleneckPie(d, node, s, ioAbove, gpuBelow, "I/O wait");
        if (!pie.empty())
            pies.push_back(pie);
    }
    std::vector<std::string> charts;
    if (!lines.empty())
        charts.push_back(lineChart(
            {"I/O wait over time", timeAxisLabel(axis), "I/O wait (%)", 540, 240}, lines, 0.0));
    charts.insert(charts.end(), pies.begin(), pies.end());
    out += chartGrid(charts);
    if (!d.hasGpu())
        out += note("The GPU condition is not applicable: no GPU was recorded on this job's "
                    "nodes.",
                    "na");
    out += ruleBlock(d, "IOBottleneck");
    return out + sectionClose();
}

std::string sectionLoadBalancing(const ReportData& d) {
    std::string out = sectionOpen(
        10, "balance", "Load balancing",
        "Whether work is spread evenly: mean step duration per rank (a slow rank holds every "
        "other one back at each gradient synchronization), and the distribution of each GPU's "
        "utilization on a node (curves far apart mean unevenly used GPUs).");
    std::vector<std::string> charts;
    if (!d.stepStats.empty()) {
        std::vector<BarItem> bars;
        for (const auto& r : d.stepStats)
            bars.push_back({"r" + std::to_string(r.rank), r.stats.mean, paletteColor(r.node)});
        charts.push_back(barChart(
            {"Mean step duration per rank", "rank (colour: node)", "duration (ms)",
             static_cast<int>(std::clamp<std::size_t>(200 + 60 * bars.size(), 360, 1100)), 240},
            bars, 1));
    }
    const auto edges = binEdges(0, 100, 20);
    for (int node : d.nodeIds()) {
        std::vector<LineSeries> curves;
        for (const auto* s : d.gpuSeries(node, "util")) {
            std::vector<double> v;
            for (const auto& x : s->samples)
                v.push_back(x.value);
            const Histogram h = histogram(v, edges);
            LineSeries ls{s->device, paletteColor(curves.size()), {}};
            for (std::size_t i = 0; i < h.counts.size(); ++i)
                ls.points.push_back({(h.edges[i] + h.edges[i + 1]) / 2,
                                     v.empty() ? 0.0
                                               : 100.0 * static_cast<double>(h.counts[i]) /
                                                     static_cast<double>(v.size())});
            curves.push_back(std::move(ls));
        }
        if (!curves.empty())
            charts.push_back(lineChart({d.nodeLabel(node) + ": GPU utilization distribution",
                                        "utilization (%)", "share of samples (%)", 540, 240},
                                       curves, 0.0));
    }
    out += chartGrid(charts);
    if (!d.hasGpu())
        out += note(kNoGpu, "na");
    out += ruleBlock(d, "LoadBalancing");
    return out + sectionClose();
}

std::string sectionGpuMemory(const ReportData& d) {
    std::string out = sectionOpen(
        11, "gpumem", "GPU memory",
        "GPU memory used, in percent of each GPU's memory: its spread per GPU and its course "
        "over time. Memory that keeps growing points to a leak (tensors kept across steps) and "
        "ends in an out-of-memory error.");
    if (!d.hasGpu())
        return out + note(kNoGpu, "na") + ruleBlock(d, "GPUMemoryIncrease") + sectionClose();
    const plot::RelativeTime axis = timeAxis(d);
    std::vector<std::string> charts;
    for (int node : d.nodeIds()) {
        std::vector<BoxItem> boxes;
        for (const auto& g : d.gpus)
            if (g.node == node)
                boxes.push_back({g.device, g.memory, paletteColor(4)});
        if (boxes.empty())
            continue;
        charts.push_back(boxPlotChart(
            {d.nodeLabel(node) + ": GPU memory", "", "memory used (%)",
             static_cast<int>(std::clamp<std::size_t>(160 + 80 * boxes.size(), 300, 540)), 240},
            boxes, 0.0, 100.0));
        charts.push_back(
            gpuLineChart(d, node, "mem", "GPU memory over time", "memory used (%)", axis));
    }
    out += chartGrid(charts) + ruleBlock(d, "GPUMemoryIncrease");
    return out + sectionClose();
}

std::string sectionDataLoading(const ReportData& d) {
    std::string out = sectionOpen(
        12, "dataloading", "Data loading analysis",
        "Time each step waited for its batch (the data phase of the step timings). Data loading "
        "that takes a large share of the step, or that varies a lot, starves the model: more "
        "loader workers (about one per core), pinned memory and prefetching help.");
    std::vector<double> all;
    std::map<std::pair<int, int>, std::pair<std::vector<double>, double>> perRank;
    for (const auto& t : d.steps) {
        all.push_back(t.dataMs);
        auto& pr = perRank[{t.rank, t.node}];
        pr.first.push_back(t.dataMs);
        pr.second += stepDurationMs(t);
    }
    if (all.empty()) {
        out += note("No step timings were recorded, so the data loading time is unknown.", "na");
    } else {
        const plot::SampleStats s = plot::summarize(all);
        const DisplayRange range = histogramRange(all);
        out += chartGrid({histogramChart(
            {"Data loading time per step (all ranks)", "data loading (ms)", "steps", 540, 240},
            histogram(all, binEdges(range.lo, range.hi, 30)), paletteColor(1),
            {{"p50", s.p50}, {"p95", s.p95}})});
        std::vector<std::vector<std::string>> rows;
        for (const auto& [key, v] : perRank) {
            const plot::SampleStats rs = plot::summarize(v.first);
            double sum = 0;
            for (double x : v.first)
                sum += x;
            rows.push_back({std::to_string(key.second), std::to_string(key.first),
                            formatNumber(rs.mean), formatNumber(rs.p95), formatNumber(rs.max),
                            formatPercent(v.second > 0 ? sum / v.second : NAN)});
        }
        out += table({{"Node", true},
                      {"Rank", true},
                      {"Mean (ms)", true},
                      {"p95 (ms)", true},
                      {"Max (ms)", true},
                      {"Share of step time", true}},
                     rows);
    }
    std::vector<std::vector<std::string>> events;
    for (const auto& e : d.events)
        if (e.category == "dataloader")
            events.push_back({esc(e.name), std::to_string(e.count), formatNumber(e.totalMs),
                              formatNumber(e.meanMs), formatNumber(e.maxMs)});
    if (!events.empty())
        out += "<h3>Data loader events</h3>" + table({{"Event"},
                                                      {"Count", true},
                                                      {"Total (ms)", true},
                                                      {"Mean (ms)", true},
                                                      {"Max (ms)", true}},
                                                     events);
    std::string cores;
    for (const auto& n : d.nodes)
        if (n.cores > 0)
            cores += (cores.empty() ? "" : ", ") + d.nodeLabel(n.node) + ": " +
                     std::to_string(n.cores) + " cores";
    if (!cores.empty())
        out += "<p class=\"muted\">" + esc(cores) + ".</p>";
    out += ruleBlock(d, "Dataloader");
    return out + sectionClose();
}

} // namespace studio::report::html
