// Rows of hyperparameter tuning jobs: a tuning job and the training jobs it launched.
#pragma once

#include "engine/store/records.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace studio::store {

using TuningId = std::int64_t;

// A tuning job's training jobs by how they ended (SageMaker's TrainingJobStatusCounters and
// ObjectiveStatusCounters, with the early-stopped ones apart).
struct TuningCounters {
    int completed = 0;    // ended Completed
    int stoppedEarly = 0; // stopped by early stopping (median rule or Hyperband)
    int stopped = 0;      // stopped otherwise (the user, the tuning job's Stop)
    int failed = 0;
    int inProgress = 0;         // launched, not ended
    int resumed = 0;            // Hyperband: jobs continuing a stopped one's configuration
    int objectiveSucceeded = 0; // ended with an objective value
    int total = 0;
};

struct NewTuningJob {
    std::string name;
    std::string strategy;      // Bayesian | Random | Grid | Hyperband
    std::string objectiveName; // the objective metric
    std::string objectiveType; // Maximize | Minimize
    int maxJobs = 1;
    int maxParallelJobs = 1;
    std::string earlyStopping = "Off"; // Off | Auto
    std::uint64_t randomSeed = 0;
    std::string specJson; // the tuning spec after overrides
    std::string owner;    // "host:pid:start" of the studio process running it
    double created = 0;
};

struct TuningJobRow {
    TuningId id = 0;
    std::string name;
    std::string status = "InProgress"; // InProgress, Completed, Failed, Stopping, Stopped
    std::string statusMessage;         // why it ended ("max_jobs reached", a failure's reason)
    std::string strategy;
    std::string objectiveName;
    std::string objectiveType;
    int maxJobs = 1;
    int maxParallelJobs = 1;
    std::string earlyStopping;
    std::uint64_t randomSeed = 0;
    double created = 0;
    double ended = 0; // 0 while it runs
    std::string owner;
    std::string specJson;
    // The best training job so far (objective compared as objectiveType says); empty when none
    // has an objective.
    std::string bestJob;
    ComponentId bestComponent = 0;
    std::optional<double> bestObjective;
    TuningCounters counters;
};

// A training job of a tuning job. state: the search's view: Pending (launched, running),
// Completed, Stopped, Failed.
struct TuningTrainingJobRow {
    int ordinal = 0; // launch order, from 0
    ComponentId component = 0;
    std::string job;                                    // the training job's name
    std::map<std::string, std::string> hyperparameters; // the tuned ones, as passed to the job
    std::vector<double> point; // the search's coordinates (categorical: the value's index)
    int bracket = -1;          // Hyperband's bracket; -1 for the other strategies
    // Hyperband: the ordinal of the stopped job whose configuration this one continues from its
    // checkpoint (a promotion); -1 for a new configuration.
    int resumedFrom = -1;
    std::string state = "Pending";
    std::optional<double> objective; // final (or last reported, for a stopped job)
    bool stoppedEarly = false;
    std::string stopReason;
    // From the training job itself.
    std::string status;
    double created = 0;
    double started = 0;
    double ended = 0;
};

} // namespace studio::store
