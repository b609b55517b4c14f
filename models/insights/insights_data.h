// The figures of a job's Insights dashboard, read from the store in a worker and handed to the
// view as one value: the job summary (engine/report's split into initialization, training loop
// and finalization), every system sample so far (read incrementally while the job runs), the
// resource summary (min, max, p99, p90, p50 per node), rule views with findings, billing
// segments, step timings. Plain functions, no widgets; thread-compatible.
#pragma once

#include "engine/report/report_data.h"
#include "engine/store/records.h"
#include "engine/store/store_reader.h"

#include <QString>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace studio::models {

// One row of the resource summary: a resource of a node over the whole run.
struct ResourceStat {
    int node = 0;
    std::string resource; // "CPU", "GPU", "CPU memory", "GPU memory", "I/O wait", "Network"
    std::string unit;     // "%", "MB/s", ...
    std::size_t count = 0;
    double min = 0, max = 0, p99 = 0, p90 = 0, p50 = 0; // in unit; NaN when no sample
};

// CPU (total), GPU (every GPU's samples together), CPU memory, GPU memory, I/O wait and network
// (received + sent) per node, in that order; resources without samples are left out.
std::vector<ResourceStat> resourceSummary(const std::vector<store::SystemSeries>& series);

// The steps of the first rank (lowest node, then rank) in step order, train steps when there
// are any: what "time spent in training" shows.
std::vector<store::StepTiming> leadRankSteps(const std::vector<store::StepTiming>& steps);
// The last `count` of leadRankSteps.
std::vector<store::StepTiming> lastSteps(const std::vector<store::StepTiming>& steps, int count);
// The steps of every rank that ran (at least partly) inside [from, to]; a step ran from its
// time less its duration to its time.
std::vector<store::StepTiming> stepsOverlapping(const std::vector<store::StepTiming>& steps,
                                                double from, double to);
// The lead rank's steps that ran (at least partly) inside [from, to]; a step ran from its time
// less its duration to its time.
std::vector<store::StepTiming> stepsInWindow(const std::vector<store::StepTiming>& steps,
                                             double from, double to);

// Appends to `series` the samples of `fresh` newer than each series' last one (new series are
// added); returns what was new, series by series. Samples at or before a series' last time
// are dropped (a re-read overlaps the previous one).
std::vector<store::SystemSeries> mergeSamples(std::vector<store::SystemSeries>& series,
                                              const std::vector<store::SystemSeries>& fresh);

struct InsightsData {
    store::ComponentRow job;
    report::JobSummary summary;
    // Every sample so far, shared between successive reads (never changed once handed over).
    std::shared_ptr<const std::vector<store::SystemSeries>> series;
    // The samples this read added (everything on the first read).
    std::vector<store::SystemSeries> added;
    bool incremental = false;
    std::vector<store::StepTiming> steps;
    std::vector<report::RuleView> rules; // in report::statusOrder
    std::vector<store::BillingSegment> billing;
    std::vector<store::StatusTransition> transitions;
    std::vector<ResourceStat> resources;
    // A remote job's nodes: node -> the cluster's name for its host (empty on this machine).
    std::map<int, std::string> hosts;

    // InProgress or Stopping.
    bool running() const;
    // Nodes of the series, ascending.
    std::vector<int> nodes() const;
    // "node 1", or "node 1 · ana@10.0.0.12" for a node on a cluster host.
    QString nodeName(int node) const;
};

// Reads a job's dashboard figures. With `previous` (of the same job), only samples from the
// oldest of its series' last times on are read, and appended to a copy of its series. Throws
// std::runtime_error naming the job when it does not exist.
InsightsData loadInsights(store::StoreReader& reader, const std::string& job,
                          const InsightsData* previous = nullptr);

} // namespace studio::models
