// The figures of a job's profiler report: gathered once from the store, computed by plain
// functions (tested on their own), then rendered as HTML (report_html.h) and written as JSON
// (profiler-reports/report.json). Not thread-safe: a ReportData is built and read by one thread.
#pragma once

#include "engine/plot/stats.h"
#include "engine/report/report_math.h"
#include "engine/store/store_reader.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace studio::report {

// Section 1: where the job's wall time went. Times in unix seconds, durations in seconds.
struct JobSummary {
    double created = 0;
    double start = 0; // when every rank ran, else when the job was created
    double end = 0;   // when it ended, else (still running) its last recorded data
    bool running = false;
    double jobDuration = 0;
    bool hasSteps = false; // the loop figures are set only with step timings
    double loopStart = 0;  // the first step's start (its end time less its duration)
    double loopEnd = 0;    // the last step's end
    double loopDuration = 0;
    double initialization = 0; // start -> loop start
    double finalization = 0;   // loop end -> end
};
// lastDataTime: the newest sample or step time, the end of a job still running.
JobSummary summarizeJob(const store::ComponentRow& row, const std::vector<store::StepTiming>& steps,
                        double lastDataTime);

// A step's duration: the sum of its phases, in ms.
double stepDurationMs(const store::StepTiming& t);

// Section 2: one row per node and metric, in the metric's display unit.
struct SystemStatRow {
    int node = 0;
    std::string metric;      // "CPU total", "CPU per core", "GPU gpu0", ...
    std::string device;      // the series' device ("cpu*" for every core together)
    std::string key;         // the series' metric: util, iowait, used, rx, tx, read, write, mem
    std::string unit;        // "%", "MB/s", ...
    plot::SampleStats stats; // already divided into unit
};
std::vector<SystemStatRow> systemStatistics(const std::vector<store::SystemSeries>& series);

// Section 5: step durations (ms) of one rank: train steps, or every step when none is train.
struct StepStatRow {
    int node = 0;
    int rank = 0;
    plot::SampleStats stats;
    std::vector<double> durationsMs; // in step order
    std::vector<XY> byStep;          // (step, duration ms)
};
std::vector<StepStatRow> stepStatistics(const std::vector<store::StepTiming>& steps);

// Section 3: time per phase over every step of every rank (ms), and train vs eval.
struct PhaseTotals {
    double dataMs = 0, forwardMs = 0, backwardMs = 0, commMs = 0, optimizerMs = 0;
    double trainMs = 0, evalMs = 0, otherMs = 0;
    std::int64_t trainSteps = 0, evalSteps = 0, otherSteps = 0;
};
PhaseTotals phaseTotals(const std::vector<store::StepTiming>& steps);

// Section 3: framework events grouped by name and category, largest cumulative time first.
struct EventStatRow {
    std::string name;
    std::string category;
    std::int64_t count = 0;
    double totalMs = 0, meanMs = 0, maxMs = 0;
    double share = 0; // of every event's total
};
std::vector<EventStatRow> eventStatistics(const std::vector<store::FrameworkEventRow>& events);

// Section 6 and 11: per GPU of a node.
struct GpuStatRow {
    int node = 0;
    std::string device; // "gpu0"
    plot::SampleStats utilization;
    plot::SampleStats memory;
};

// "name=value, name=value" (as rules store their parameters) -> name -> value; a piece without
// "name=" belongs to the previous value (values may hold ", ").
std::map<std::string, std::string> parseRuleParameters(const std::string& text);
// A rule's details object as key/value rows; nested objects become "a.b", arrays of objects
// "a[0].b", short arrays of scalars one "[1, 2, 3]" value.
std::vector<std::pair<std::string, std::string>> flattenDetails(const nlohmann::json& details);

// Of the samples of `busy`, how many have a `gpu` sample within toleranceSeconds, and of
// those how many have busy > busyAbove while gpu < gpuBelow (CPU or I/O bottleneck time).
struct Coincidence {
    std::size_t matched = 0;
    std::size_t both = 0;
};
Coincidence coincidence(const std::vector<store::SystemSample>& busy, double busyAbove,
                        const std::vector<store::SystemSample>& gpu, double gpuBelow,
                        double toleranceSeconds);
// Per timestamp, the largest value among the series (samples of one sampling share a time).
std::vector<store::SystemSample>
maxByTime(const std::vector<const std::vector<store::SystemSample>*>& series);

struct RuleView {
    store::RuleStatusRow status;
    std::string description; // from the rule catalog; "" for a custom rule
    std::vector<store::FindingRow> findings;
};
// IssuesFound, Error, InProgress, NoIssuesFound, NotApplicable; then by name.
int statusOrder(const std::string& status);
// A job's rules with their catalog descriptions and findings, in statusOrder.
std::vector<RuleView> loadRuleViews(store::StoreReader& reader, store::ComponentId id);

struct ReportData {
    store::ComponentRow job;
    JobSummary summary;
    std::vector<store::StatusTransition> transitions;
    std::vector<store::NodeRow> nodes;
    std::vector<store::RankRow> ranks;
    std::vector<store::SystemSeries> series;
    std::vector<store::StepTiming> steps;
    std::vector<store::FrameworkEventRow> frameworkEvents;
    std::vector<store::ParameterRow> parameters; // hyperparameters and placement
    std::vector<SystemStatRow> system;
    std::vector<StepStatRow> stepStats;
    PhaseTotals phases;
    std::vector<EventStatRow> events;
    std::vector<GpuStatRow> gpus;
    std::vector<RuleView> rules; // in statusOrder
    // The top operators of a script's profiled window (torch.profiler), from the first rank
    // that sent them: {"start_step", "num_steps", "trace", "ops": [...]}; null when none.
    nlohmann::json operators;

    bool hasGpu() const { return !gpus.empty(); }
    // Nodes known from the node table or from series, ascending.
    std::vector<int> nodeIds() const;
    std::string nodeLabel(int node) const; // "node 0 (host)"
    const store::SystemSeries* seriesOf(int node, std::string_view device,
                                        std::string_view metric) const;
    // The GPU series of a node for one metric ("util" or "mem"), in GPU order.
    std::vector<const store::SystemSeries*> gpuSeries(int node, std::string_view metric) const;
    const RuleView* rule(std::string_view name) const;
    // The batch size hyperparameter ("batch-size", "batch_size", ...), nullptr when none.
    const store::ParameterRow* batchSize() const;
};

// Reads everything the report shows about a job; throws std::runtime_error naming the job.
ReportData gatherReport(store::StoreReader& reader, const std::string& job);

// The figures as JSON (profiler-reports/report.json); NaN becomes null.
nlohmann::json reportJson(const ReportData& data);

} // namespace studio::report
