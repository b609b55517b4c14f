// TuningSpec: a hyperparameter tuning job as the user wrote it, with the SageMaker Python SDK's
// HyperparameterTuner names. Produced only by the parser (tuning_parser.h): every field here has
// been validated against SageMaker's limits.
#pragma once

#include "engine/spec/job_spec.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace studio::tune {

enum class ParameterType { Continuous, Integer, Categorical };
enum class Scaling { Auto, Linear, Logarithmic, ReverseLogarithmic };
enum class SearchStrategy { Bayesian, Random, Grid, Hyperband };
enum class WarmStartType { IdenticalDataAndAlgorithm, TransferLearning };

const char* parameterTypeName(ParameterType t);
const char* scalingName(Scaling s);
const char* strategyName(SearchStrategy s);
const char* warmStartTypeName(WarmStartType t);

// One tunable hyperparameter: ContinuousParameter, IntegerParameter or CategoricalParameter.
struct ParameterRange {
    std::string name;
    ParameterType type = ParameterType::Continuous;
    double minValue = 0; // Continuous and Integer
    double maxValue = 0;
    std::vector<std::string> values; // Categorical: the values as passed to the job
    Scaling scaling = Scaling::Auto;
};

// strategy_config.hyperband. resource: the training hyperparameter Hyperband sets ("epochs",
// "max-steps", ...); maxResource 0 before the parser infers it from the training spec.
struct HyperbandConfig {
    std::int64_t minResource = 1;
    std::int64_t maxResource = 0;
    std::string resource;
    int reductionFactor = 3;
};

struct WarmStartConfig {
    std::vector<std::string> parents; // tuning job names, 1 to 5
    WarmStartType type = WarmStartType::IdenticalDataAndAlgorithm;
};

// completion_criteria (TuningJobCompletionCriteria).
struct CompletionCriteria {
    std::optional<double> targetObjectiveMetricValue;
    int maxNumberOfTrainingJobsNotImproving = 0; // 0: not set
    bool completeOnConvergence = false;
};

struct TuningSpec {
    std::string name; // base name; the tuning job's name adds a timestamp
    std::string objectiveMetricName;
    bool maximize = true;               // objective_type: Maximize (default) | Minimize
    std::vector<ParameterRange> ranges; // in the spec's order
    SearchStrategy strategy = SearchStrategy::Bayesian;
    int maxJobs = 1; // for Grid: the grid's size
    int maxParallelJobs = 1;
    bool earlyStoppingAuto = false; // early_stopping_type: Off | Auto
    HyperbandConfig hyperband;      // Hyperband only
    std::optional<WarmStartConfig> warmStart;
    std::uint64_t randomSeed = 0; // random_seed; 0 when not given (then drawn and recorded)
    bool randomSeedGiven = false;
    CompletionCriteria completion;
    std::int64_t maxRuntimeSeconds = 0; // 0: no limit
    // hyperparameters_to_keep_static: training hyperparameters that stay as the training spec
    // gives them (recorded for warm start's limits).
    std::vector<std::string> staticHyperparameters;
    spec::JobSpec training; // the training job template (its hyperparameters are the static ones)

    std::string baseDir;
    std::string effectiveJson; // the whole tuning document after overrides
};

} // namespace studio::tune
