// The reductions the debugger hook computes over a tensor: SageMaker's (min, max, mean, std,
// variance, sum, prod, l1_norm, l2_norm, each also as abs_) and the statistics rules read
// (engine/debugger/hook_plan.h): counts of non-finite values, share of zeros, percentiles,
// inactive units, per-channel means.
#pragma once

#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

namespace studio::train {

struct ReductionOptions {
    // inactive_units_percent: a unit counts as inactive when active in less than this % of the
    // batch; activity is value > 0, or value inside activeRange when one is given.
    double inactivityPercent = 1.0;
    bool hasActiveRange = false;
    std::pair<double, double> activeRange{0, 0};
    int channelAxis = 1; // channel_mean_<c>
};

// Reductions of t in the order asked; names that are not reductions are skipped. "channel_mean_"
// expands to channel_mean_0..C-1 plus "samples".
std::vector<std::pair<std::string, double>> reduceTensor(const torch::Tensor& t,
                                                         const std::vector<std::string>& names,
                                                         const ReductionOptions& options = {});

// Class counts of a batch: "class_<k>" of the targets and, for the labels tensor,
// "mispredicted_<k>"; predictions are the arg-max of the model's output over its last dimension.
std::vector<std::pair<std::string, double>> labelCounts(const torch::Tensor& target,
                                                        const torch::Tensor& predicted);
std::vector<std::pair<std::string, double>> predictionCounts(const torch::Tensor& predicted);

} // namespace studio::train
