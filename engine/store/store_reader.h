// Read-only queries over the studio database through the reader's own connection; list views
// read summaries, never raw series. Not thread-safe: one StoreReader per thread.
#pragma once

#include "engine/store/records.h"
#include "engine/store/tuning_records.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace studio::store {

struct ComponentFilter {
    std::string experiment; // empty: all
    std::string trial;
    std::string status;
    int limit = 0; // 0: no limit
};

class StoreReader {
public:
    // Creates and migrates the file first when needed; throws std::runtime_error naming it.
    explicit StoreReader(const std::string& path);
    ~StoreReader();
    StoreReader(const StoreReader&) = delete;
    StoreReader& operator=(const StoreReader&) = delete;

    std::vector<ExperimentRow> experiments();
    std::vector<TrialRow> trials(const std::string& experiment = {});
    std::vector<ComponentRow> components(const ComponentFilter& filter = {});
    std::optional<ComponentRow> component(const std::string& name);
    std::optional<ComponentDetail> detail(const std::string& name);

    // A job by exact name, else by unique prefix; throws std::runtime_error listing the
    // candidates when the prefix is ambiguous, or saying none matched.
    ComponentRow resolveJob(const std::string& nameOrPrefix);

    std::vector<std::string> metricNames(ComponentId id);
    std::vector<MetricPoint> metricPoints(ComponentId id, const std::string& metric);
    std::map<std::string, MetricSummary> metricSummaries(ComponentId id);
    // Summaries of many components at once (leaderboards): component -> metric -> summary.
    std::map<ComponentId, std::map<std::string, MetricSummary>>
    metricSummaries(const std::vector<ComponentId>& ids);
    std::map<ComponentId, std::vector<ParameterRow>>
    parameters(const std::vector<ComponentId>& ids);

    std::vector<StatusTransition> transitions(ComponentId id);
    std::vector<NodeRow> nodes(ComponentId id);
    std::vector<RankRow> ranks(ComponentId id);
    std::vector<LogFileRow> logFiles(ComponentId id);
    std::vector<SystemSeries> systemSeries(ComponentId id, double fromTime = 0);
    std::vector<StepTiming> stepTimings(ComponentId id);
    std::vector<TensorReduction> tensorReductions(ComponentId id, const std::string& tensor = {});
    std::vector<FrameworkEventRow> frameworkEvents(ComponentId id);
    std::vector<CheckpointRow> checkpoints(ComponentId id);
    std::vector<RuleStatusRow> ruleStatuses(ComponentId id);
    std::vector<FindingRow> findings(ComponentId id);
    std::vector<NotificationRow> notifications(double sinceTime = 0);
    std::vector<BillingSegment> billingSegments(ComponentId id);
    std::vector<ArtifactRow> artifacts(ComponentId id);
    // The job's documents, by topic, node and rank; topic "" for all.
    std::vector<FactsRow> facts(ComponentId id, const std::string& topic = {});
    std::map<std::string, std::string> tags(ComponentId id);
    // Tags of many components at once (leaderboards): component -> key -> value; components
    // without tags are absent.
    std::map<ComponentId, std::map<std::string, std::string>>
    tags(const std::vector<ComponentId>& ids);

    std::vector<ClusterRow> clusters();
    std::optional<ClusterRow> cluster(const std::string& name);
    std::vector<JournalRow> journals(ComponentId id);
    std::vector<SlurmJobRow> slurmJobs(ComponentId id); // in the order submitted
    // The newest Slurm job of every component that has one, without its script (list views).
    std::map<ComponentId, SlurmJobRow> newestSlurmJobs();
    std::string runState(ComponentId id);

    // Tuning jobs, newest first, with their counters and best training job.
    std::vector<TuningJobRow> tuningJobs();
    // By exact name, else by unique prefix; none when nothing matches; throws
    // std::runtime_error listing the candidates when a prefix is ambiguous.
    std::optional<TuningJobRow> tuningJob(const std::string& nameOrPrefix);
    // Just its status ("" for an unknown id): what a running tuning job polls.
    std::string tuningStatus(TuningId id);
    // The tuning job that launched a training job; none for a job of its own.
    std::optional<TuningJobRow> tuningJobOf(ComponentId training);
    // Its training jobs in launch order.
    std::vector<TuningTrainingJobRow> tuningTrainingJobs(TuningId id);
    // The objective's series of each of those jobs (the intermediate values).
    std::map<ComponentId, std::vector<MetricPoint>> tuningCurves(TuningId id);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace studio::store
