// What the built-in trainer's debugger hook saves, worked out from a spec: the collections
// (debugger_hook_config plus the ones the listed rules ask for, as SageMaker's rule configs do),
// which tensors each takes, when, and which reductions. Also the names of the tensors and of the
// extra reductions the rules read, shared by the hook (engine/train) and the rules.
// Torch-free; plain values.
#pragma once

#include "engine/spec/job_spec.h"

#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace studio::debugger {

// Reductions beyond SageMaker's (min, max, mean, std, variance, sum, prod, l1_norm, l2_norm and
// abs_ forms) that the hook computes when a rule needs them.
namespace reduction {
inline constexpr const char* kValue = "value";                 // a scalar's value (losses, metrics)
inline constexpr const char* kNonFinite = "nonfinite";         // count of NaN and +-Inf values
inline constexpr const char* kNan = "nan";                     // count of NaN values
inline constexpr const char* kZeroPercent = "zero_percent";    // % of values equal to 0
inline constexpr const char* kP5 = "p5";                       // 5th percentile of the values
inline constexpr const char* kP95 = "p95";                     // 95th percentile
inline constexpr const char* kUpdateL2Norm = "update_l2_norm"; // ||w after - w before|| of a step
// % of units (channels or features) active less than threshold_inactivity % of the time in the
// batch: ReLU outputs > 0 (DeadRelu), tanh/sigmoid inputs inside the thresholds
// (SaturatedActivation).
inline constexpr const char* kInactiveUnitsPercent = "inactive_units_percent";
inline constexpr const char* kSamples = "samples";                  // samples in the batch
inline constexpr const char* kClassPrefix = "class_";               // "class_3": count of class 3
inline constexpr const char* kMispredictedPrefix = "mispredicted_"; // labels of class k missed
inline constexpr const char* kChannelMeanPrefix = "channel_mean_";  // input mean of channel c
} // namespace reduction

// Names of the tensors the built-in trainer saves (SageMaker's PyTorch naming where one exists).
namespace tensor {
inline constexpr const char* kLoss = "loss";                // losses; train and eval mode
inline constexpr const char* kAccuracy = "accuracy";        // metrics; eval mode
inline constexpr const char* kLabels = "labels";            // class counts of a batch's targets
inline constexpr const char* kPredictions = "predictions";  // class counts of its predictions
inline constexpr const char* kGradientPrefix = "gradient/"; // "gradient/fc1.fc.weight"
// "<block>_output_0", "<block>_relu_input", "<block>_relu_output", "<model>_input_0"
} // namespace tensor

struct CollectionPlan {
    std::string name;
    std::vector<std::string> includeRegex; // matched with regex_search against tensor names
    int saveInterval = 500;
    std::vector<std::int64_t> saveSteps; // when given, only these steps
    std::int64_t startStep = 0;
    std::int64_t endStep = -1; // -1: no end
    std::vector<std::string> reductions;
    // The spec listed no reductions: the hook adds its default set (min, max, mean, std,
    // l2_norm) to whatever the rules ask for.
    bool defaultReductions = true;
    bool saveRawTensor = false;
    bool everyEval = true; // eval-mode tensors are saved at every evaluation

    // Whether a train step (0-based, as the hook counts) is saved.
    bool savesStep(std::int64_t step) const;
    bool matches(const std::string& tensorName) const;
    bool hasReduction(const std::string& r) const;

private:
    mutable std::vector<std::regex> m_compiled; // includeRegex, compiled on first use
};

struct HookPlan {
    bool enabled = false;
    bool allWorkers = false; // hook_parameters.include_workers "all": every rank saves
    std::vector<CollectionPlan> collections;
    // Rule parameters the hook needs to reduce activations the way the rules read them.
    double reluInactivityPercent = 1.0;       // DeadRelu threshold_inactivity
    double saturationInactivityPercent = 1.0; // SaturatedActivation threshold_inactivity
    std::pair<double, double> tanhRange{-9.4999, 9.4999};
    std::pair<double, double> sigmoidRange{-23, 16.99999};
    int inputChannelAxis = 1; // CheckInputImages channel

    const CollectionPlan* find(const std::string& name) const;
    // The collections a tensor belongs to (a tensor can be in several).
    std::vector<const CollectionPlan*> collectionsOf(const std::string& tensorName) const;
    // Whether any collection saves something at this train step.
    bool savesAnything(std::int64_t step) const;
};

// The regex a built-in collection matches tensor names with ("" for an unknown name).
std::string builtinCollectionRegex(const std::string& name);

// Throws std::invalid_argument naming the field for a rule parameter the hook cannot use.
HookPlan planHook(const spec::JobSpec& spec);

} // namespace studio::debugger
