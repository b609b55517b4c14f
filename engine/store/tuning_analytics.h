// HyperparameterTuningJobAnalytics: one row per training job of a tuning job with its tuned
// hyperparameters, TrainingJobName, TrainingJobStatus, FinalObjectiveValue, TrainingStartTime,
// TrainingEndTime and TrainingElapsedTimeSeconds as the SageMaker SDK's DataFrame, plus how the
// search saw the job (StoppedEarly, StopReason, Bracket).
#pragma once

#include "engine/store/analytics.h"
#include "engine/store/tuning_records.h"

#include <nlohmann/json.hpp>

namespace studio::store {

// Rows in launch order; the tuned hyperparameters' columns come first, in the order the tuning
// spec lists them (the names found in the rows, sorted, when the spec cannot be read).
AnalyticsTable tuningAnalytics(StoreReader& reader, const TuningJobRow& tuningJob);

// DescribeHyperParameterTuningJob's fields (HyperParameterTuningJobName, ...Status,
// HyperParameterTuningJobConfig, TrainingJobStatusCounters, ObjectiveStatusCounters,
// BestTrainingJob, WarmStartConfig, times), with the studio's StoppedEarly counter.
nlohmann::ordered_json describeTuningJob(StoreReader& reader, const TuningJobRow& tuningJob);

// "4/6 jobs done, 2 running, 1 stopped early, 1 resumed from a checkpoint, 1 failed".
std::string countersText(const TuningCounters& counters, int maxJobs);

// The tuned hyperparameters' names in the spec's order.
std::vector<std::string> tunedNames(const TuningJobRow& tuningJob);

} // namespace studio::store
