#include "engine/debugger/rule_catalog.h"

#include <charconv>
#include <cmath>
#include <regex>

namespace studio::debugger {
namespace {

using P = RuleParam;
constexpr auto N = ParamType::Number;
constexpr auto I = ParamType::Integer;
constexpr auto B = ParamType::Boolean;
constexpr auto T = ParamType::Text;
constexpr auto R = ParamType::Regex;
constexpr auto NP = ParamType::NumberPair;

std::vector<RuleInfo> buildCatalog() {
    const P scan{"scan_interval_us", I, "60000000"};
    std::vector<RuleInfo> rules = {
        // Model rules (SageMaker Debugger built-in rules).
        {"VanishingGradient",
         RuleKind::Model,
         "Mean absolute gradient falls below a threshold.",
         {{"threshold", N, "0.0000001"}}},
        {"ExplodingTensor",
         RuleKind::Model,
         "A tensor holds NaN or infinite values.",
         {{"collection_names", T, ""}, {"tensor_regex", R, ""}, {"only_nan", B, "False"}}},
        {"PoorWeightInitialization",
         RuleKind::Model,
         "Activation-input variance differs too much across layers, gradients barely spread, or "
         "the loss does not decrease early on.",
         {{"activation_inputs_regex", R, ".*relu_input"},
          {"threshold", N, "10.0"},
          {"distribution_range", N, "0.001"},
          {"patience", I, "5"},
          {"steps", I, "10"}}},
        {"SaturatedActivation",
         RuleKind::Model,
         "Too many tanh or sigmoid units of a layer are saturated.",
         {{"tensor_regex", R, ".*tanh_input|.*sigmoid_input"},
          {"threshold_tanh", NP, "-9.4999,9.4999"},
          {"threshold_sigmoid", NP, "-23,16.99999"},
          {"threshold_inactivity", N, "1.0"},
          {"threshold_layer", N, "50.0"}}},
        {"DeadRelu",
         RuleKind::Model,
         "Too many ReLUs of a layer are inactive.",
         {{"tensor_regex", R, ".*relu_output"},
          {"threshold_inactivity", N, "1.0"},
          {"threshold_layer", N, "50.0"}}},
        {"WeightUpdateRatio",
         RuleKind::Model,
         "The ratio of weight updates to weights is too large or too small.",
         {{"num_steps", I, ""},
          {"large_threshold", N, "10.0"},
          {"small_threshold", N, "0.00000001"},
          {"epsilon", N, "0.000000001"}}},
        {"AllZero",
         RuleKind::Model,
         "A share of a tensor's values are all zero.",
         {{"collection_names", T, ""}, {"tensor_regex", R, ""}, {"threshold", N, "100"}}},
        {"UnchangedTensor",
         RuleKind::Model,
         "A tensor stops changing across steps.",
         {{"collection_names", T, ""},
          {"tensor_regex", R, ""},
          {"num_steps", I, "3"},
          {"rtol", N, "1e-05"},
          {"atol", N, "1e-08"},
          {"equal_nan", B, "False"}}},
        {"TensorVariance",
         RuleKind::Model,
         "A tensor's variance leaves the allowed range.",
         {{"collection_names", T, ""},
          {"tensor_regex", R, ""},
          {"max_threshold", N, ""},
          {"min_threshold", N, ""}}},
        {"ClassImbalance",
         RuleKind::Model,
         "Training classes are imbalanced, or one class is mostly mispredicted.",
         {{"threshold_imbalance", N, "10"},
          {"threshold_misprediction", N, "0.7"},
          {"samples", I, "500"},
          {"argmax", B, "False"},
          {"labels_regex", R, ".*labels"},
          {"predictions_regex", R, ".*predictions"}}},
        {"LossNotDecreasing",
         RuleKind::Model,
         "The loss has not decreased by diff_percent over num_steps.",
         {{"collection_names", T, ""},
          {"tensor_regex", R, ""},
          {"use_losses_collection", B, "True"},
          {"num_steps", I, "10"},
          {"diff_percent", N, "0.0"},
          {"mode", T, ""}}},
        {"Overfit",
         RuleKind::Model,
         "Validation loss pulls away from training loss.",
         {{"tensor_regex", R, ""},
          {"start_step", I, "0"},
          {"patience", I, "1"},
          {"ratio_threshold", N, "0.1"}}},
        {"Overtraining",
         RuleKind::Model,
         "Training and validation loss stopped improving.",
         {{"patience_train", I, "5"}, {"patience_validation", I, "10"}, {"delta", N, "0.1"}}},
        {"StalledTrainingRule",
         RuleKind::Model,
         "No new data for threshold seconds.",
         {{"threshold", N, "1800"},
          {"stop_training_on_fire", B, "False"},
          {"training_job_name_prefix", T, ""}}},
        {"CheckInputImages",
         RuleKind::Model,
         "Input images are not normalized.",
         {{"threshold_mean", N, "0.2"},
          {"threshold_samples", I, "500"},
          {"regex", R, ".*hybridsequential0_input_0"},
          {"channel", I, "1"}}},
        // Profiler rules (SageMaker Debugger profiler rules); every one takes scan_interval_us.
        {"BatchSize",
         RuleKind::Profiler,
         "CPU, GPU and GPU memory are all lightly used: the batch is small for the instance.",
         {{"cpu_threshold_p95", N, "70"},
          {"gpu_threshold_p95", N, "70"},
          {"gpu_memory_threshold_p95", N, "70"},
          {"patience", I, "1000"},
          {"window", I, "500"},
          scan}},
        {"CPUBottleneck",
         RuleKind::Profiler,
         "The CPU is busy while the GPU idles.",
         {{"threshold", N, "50"},
          {"gpu_threshold", N, "10"},
          {"cpu_threshold", N, "90"},
          {"patience", I, "1000"},
          scan}},
        {"Dataloader",
         RuleKind::Profiler,
         "The number of data-loading workers does not fit the cores.",
         {{"min_threshold", N, "70"}, {"max_threshold", N, "200"}, {"patience", I, "10"}, scan}},
        {"GPUMemoryIncrease",
         RuleKind::Profiler,
         "GPU memory use keeps growing.",
         {{"increase", N, "5"}, {"patience", I, "1000"}, {"window", I, "10"}, scan}},
        {"IOBottleneck",
         RuleKind::Profiler,
         "I/O wait is high while the GPU idles.",
         {{"threshold", N, "50"},
          {"gpu_threshold", N, "10"},
          {"io_threshold", N, "50"},
          {"patience", I, "1000"},
          scan}},
        {"LoadBalancing",
         RuleKind::Profiler,
         "GPUs are unevenly used.",
         {{"threshold", N, "0.5"}, {"patience", I, "1000"}, scan}},
        {"LowGPUUtilization",
         RuleKind::Profiler,
         "GPUs are under-used or fluctuate.",
         {{"threshold_p95", N, "70"},
          {"threshold_p5", N, "10"},
          {"window", I, "500"},
          {"patience", I, "1000"},
          scan}},
        {"MaxInitializationTime",
         RuleKind::Profiler,
         "Training takes too long to start.",
         {{"threshold", N, "20"}, scan}},
        {"OverallSystemUsage", RuleKind::Profiler, "Per-node system usage statistics.", {scan}},
        {"OverallFrameworkMetrics", RuleKind::Profiler, "Framework phase statistics.", {scan}},
        {"StepOutlier",
         RuleKind::Profiler,
         "Step durations far above the mean.",
         {{"stddev", N, "3"}, {"mode", T, ""}, {"n_outliers", I, "10"}, scan}},
    };
    return rules;
}

bool parsesAsNumber(std::string_view s) {
    double v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && end == s.data() + s.size() && std::isfinite(v);
}

} // namespace

const std::vector<RuleInfo>& ruleCatalog() {
    static const std::vector<RuleInfo> catalog = buildCatalog();
    return catalog;
}

const RuleInfo* findRule(std::string_view name) {
    for (const auto& r : ruleCatalog())
        if (r.name == name)
            return &r;
    return nullptr;
}

std::vector<std::string> ruleNames() {
    std::vector<std::string> names;
    for (const auto& r : ruleCatalog())
        names.push_back(r.name);
    return names;
}

bool paramValueValid(ParamType type, const std::string& text) {
    if (text.empty())
        return true;
    switch (type) {
    case ParamType::Number:
        return parsesAsNumber(text);
    case ParamType::Integer: {
        long long v = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        return ec == std::errc() && end == text.data() + text.size();
    }
    case ParamType::Boolean:
        return text == "True" || text == "False" || text == "true" || text == "false";
    case ParamType::Text:
        return true;
    case ParamType::Regex:
        if (text.size() > kMaxRegexLength)
            return false;
        try {
            std::regex re(text);
            return true;
        } catch (const std::regex_error&) {
            return false;
        }
    case ParamType::NumberPair: {
        auto comma = text.find(',');
        return comma != std::string::npos && parsesAsNumber(text.substr(0, comma)) &&
               parsesAsNumber(text.substr(comma + 1));
    }
    }
    return false;
}

const char* paramTypeDescription(ParamType type) {
    switch (type) {
    case ParamType::Number:
        return "a number";
    case ParamType::Integer:
        return "an integer";
    case ParamType::Boolean:
        return "\"True\" or \"False\"";
    case ParamType::Text:
        return "a string";
    case ParamType::Regex:
        return "a valid regular expression of at most 1024 characters";
    case ParamType::NumberPair:
        return "two numbers separated by a comma (\"min,max\")";
    }
    return "a value";
}

} // namespace studio::debugger
