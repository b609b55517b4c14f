// The table of test_model_rules' rule rows: each runs one rule with parameters over a named
// stream (model_rule_streams.h) and says what must come out.
#include "tests/unit/model_rule_cases.h"

namespace studio::testing {

std::vector<ModelRuleCase> modelRuleCases() {
    std::vector<ModelRuleCase> cases;
    auto row = [&](const char* tag, const char* rule, const char* params, const char* stream,
                   const char* status, const char* text, const char* criteria = "",
                   const char* device = "") {
        cases.push_back({tag, rule, params, stream, status, text, criteria, device});
    };
    const char* fires = "IssuesFound";
    const char* quiet = "NoIssuesFound";
    const char* na = "NotApplicable";

    row("VanishingGradient fires", "VanishingGradient", "", "grads_vanishing", fires,
        "1 of 2 gradients have a mean |gradient| below 1e-07 at step 20", "threshold=1e-07",
        "gradient/fc1.fc.weight");
    row("VanishingGradient quiet", "VanishingGradient", "", "grads_healthy", quiet, "");
    row("VanishingGradient threshold", "VanishingGradient", "threshold=0.01", "grads_healthy",
        fires, "2 of 2 gradients", "threshold=0.01", "gradient/fc1.fc.weight");
    row("VanishingGradient no data", "VanishingGradient", "", "losses_only", na,
        "add the gradients collection");

    row("ExplodingTensor fires", "ExplodingTensor", "", "nan_in_weights", fires,
        "1 tensor holds NaN or infinite values at step 2: fc1.fc.weight (5)", "every saved",
        "fc1.fc.weight");
    row("ExplodingTensor inf", "ExplodingTensor", "", "inf_in_weights", fires, "fc1.fc.weight");
    row("ExplodingTensor nan loss", "ExplodingTensor", "", "nan_loss", fires, "loss", "", "loss");
    row("ExplodingTensor quiet", "ExplodingTensor", "", "healthy_weights", quiet, "");
    row("ExplodingTensor only_nan", "ExplodingTensor", "only_nan=True", "inf_in_weights", quiet, "",
        "only_nan=True");
    row("ExplodingTensor tensor_regex", "ExplodingTensor", "tensor_regex=fc2", "nan_in_weights",
        quiet, "", "matching 'fc2'");
    row("ExplodingTensor collection_names", "ExplodingTensor", "collection_names=gradients",
        "nan_in_weights", na, "collection gradients");
    row("ExplodingTensor no data", "ExplodingTensor", "", "no_tensors", na, "no tensor was saved");

    row("PoorWeightInitialization fires", "PoorWeightInitialization", "", "poor_init", fires,
        "differs 100-fold across 2 layers", "threshold=10", "fc1_relu_input");
    row("PoorWeightInitialization quiet", "PoorWeightInitialization", "", "good_init", quiet, "");
    row("PoorWeightInitialization threshold", "PoorWeightInitialization", "threshold=200",
        "poor_init", quiet, "", "threshold=200");
    row("PoorWeightInitialization flat loss", "PoorWeightInitialization", "", "good_init_flat_loss",
        fires, "has not decreased over the last 5 saved values");
    row("PoorWeightInitialization patience", "PoorWeightInitialization", "patience=20",
        "good_init_flat_loss", quiet, "", "patience=20");
    row("PoorWeightInitialization narrow gradients", "PoorWeightInitialization", "",
        "good_init_narrow_grads", fires, "p95 - p5 below 0.001");
    row("PoorWeightInitialization distribution_range", "PoorWeightInitialization",
        "distribution_range=0.0001", "good_init_narrow_grads", quiet, "");
    row("PoorWeightInitialization late", "PoorWeightInitialization", "", "poor_init_late", quiet,
        "", "steps=10");
    row("PoorWeightInitialization steps", "PoorWeightInitialization", "steps=15", "poor_init_late",
        fires, "at step 12");
    row("PoorWeightInitialization no data", "PoorWeightInitialization", "", "no_tensors", na,
        "none of the first 10 saved steps");

    row("SaturatedActivation fires", "SaturatedActivation", "", "tanh_saturated", fires,
        "block1_tanh_input (80)", "threshold_layer=50", "block1_tanh_input");
    row("SaturatedActivation quiet", "SaturatedActivation", "", "tanh_healthy", quiet, "");
    row("SaturatedActivation threshold_layer", "SaturatedActivation", "threshold_layer=15",
        "tanh_healthy", fires, "block1_tanh_input (20)", "threshold_layer=15");
    row("SaturatedActivation no data", "SaturatedActivation", "", "relu_dead", na, "ReLU only");

    row("DeadRelu fires", "DeadRelu", "", "relu_dead", fires,
        "1 of 2 ReLU outputs have more than 50% of their units dead at step 5", "relu_output",
        "conv1_relu_output");
    row("DeadRelu quiet", "DeadRelu", "", "relu_healthy", quiet, "");
    row("DeadRelu threshold_layer", "DeadRelu", "threshold_layer=90", "relu_dead", quiet, "",
        "threshold_layer=90");
    row("DeadRelu tensor_regex", "DeadRelu", "tensor_regex=fc1_relu", "relu_dead", quiet, "");
    row("DeadRelu no data", "DeadRelu", "", "losses_only", na, "no ReLU output");

    row("WeightUpdateRatio large", "WeightUpdateRatio", "", "updates_large", fires,
        "1 weight above 10: fc1.fc.weight (50)", "large_threshold=10", "fc1.fc.weight");
    row("WeightUpdateRatio small", "WeightUpdateRatio", "", "updates_small", fires, "below 1e-08",
        "small_threshold=1e-08");
    row("WeightUpdateRatio quiet", "WeightUpdateRatio", "", "updates_healthy", quiet, "");
    row("WeightUpdateRatio large_threshold", "WeightUpdateRatio", "large_threshold=0.005",
        "updates_healthy", fires, "2 weights above 0.005");
    row("WeightUpdateRatio num_steps", "WeightUpdateRatio", "num_steps=2", "updates_large", quiet,
        "", "every num_steps=2 steps");
    row("WeightUpdateRatio no data", "WeightUpdateRatio", "", "losses_only", na,
        "no weights were saved");

    row("AllZero fires", "AllZero", "", "zeros_all", fires,
        "1 of 2 tensors have at least 100% zeros at step 0", "threshold=100", "fc1.fc.bias");
    row("AllZero quiet", "AllZero", "", "zeros_some", quiet, "");
    row("AllZero threshold", "AllZero", "threshold=30", "zeros_some", fires, "fc1.fc.bias (40)");
    row("AllZero collection_names", "AllZero", "collection_names=weights", "zeros_all", quiet, "",
        "collection weights");
    row("AllZero no data", "AllZero", "", "no_tensors", na, "no tensor was saved");

    row("UnchangedTensor fires", "UnchangedTensor", "", "unchanged_weights", fires,
        "1 tensor did not change over the last 3 saved steps (up to step 200): fc1.fc.weight",
        "num_steps=3", "fc1.fc.weight");
    row("UnchangedTensor quiet", "UnchangedTensor", "", "changing_weights", quiet, "");
    row("UnchangedTensor num_steps", "UnchangedTensor", "num_steps=5", "unchanged_weights", quiet,
        "", "num_steps=5");
    row("UnchangedTensor slow change", "UnchangedTensor", "", "slow_change", quiet, "");
    row("UnchangedTensor rtol", "UnchangedTensor", "rtol=0.01", "slow_change", fires,
        "fc1.fc.weight", "rtol=0.01");
    row("UnchangedTensor no data", "UnchangedTensor", "", "no_tensors", na, "no tensor");

    row("TensorVariance max", "TensorVariance", "max_threshold=10", "variance_high", fires,
        "have a variance above max_threshold=10 at step 2: fc1.fc.weight (50)",
        "above max_threshold=10", "fc1.fc.weight");
    row("TensorVariance quiet", "TensorVariance", "max_threshold=10;min_threshold=0.01",
        "variance_normal", quiet, "", "outside [min_threshold=0.01, max_threshold=10]");
    row("TensorVariance min", "TensorVariance", "min_threshold=1.2", "variance_normal", fires,
        "below min_threshold=1.2");
    row("TensorVariance no data", "TensorVariance", "max_threshold=1", "no_tensors", na,
        "no tensor");

    row("ClassImbalance fires", "ClassImbalance", "", "labels_imbalanced", fires,
        "class 0 has 480 samples and class 1 32 (imbalance 15 > 10)", "threshold_imbalance=10",
        "labels");
    row("ClassImbalance quiet", "ClassImbalance", "", "labels_balanced", quiet, "");
    row("ClassImbalance threshold_imbalance", "ClassImbalance", "threshold_imbalance=20",
        "labels_imbalanced", quiet, "", "threshold_imbalance=20");
    row("ClassImbalance mispredicted", "ClassImbalance", "", "labels_mispredicted", fires,
        "mostly mispredicted (share > 0.7): class 1 93.75%");
    row("ClassImbalance threshold_misprediction", "ClassImbalance", "threshold_misprediction=0.95",
        "labels_mispredicted", quiet, "");
    row("ClassImbalance samples", "ClassImbalance", "samples=100000", "labels_balanced", na,
        "only 640 of the samples=100000");
    row("ClassImbalance no data", "ClassImbalance", "", "losses_only", na,
        "no labels matching labels_regex='.*labels'");

    row("LossNotDecreasing fires", "LossNotDecreasing", "", "loss_rising", fires,
        "train loss loss went from 0.8 at step 20 to 0.85 at step 30", "num_steps=10", "loss");
    row("LossNotDecreasing quiet", "LossNotDecreasing", "", "loss_falling", quiet, "");
    row("LossNotDecreasing slow quiet", "LossNotDecreasing", "", "loss_falling_slowly", quiet, "");
    row("LossNotDecreasing diff_percent", "LossNotDecreasing", "diff_percent=5",
        "loss_falling_slowly", fires, "less than diff_percent 5%", "diff_percent=5");
    row("LossNotDecreasing num_steps", "LossNotDecreasing", "num_steps=50", "loss_falling_slowly",
        quiet, "");
    row("LossNotDecreasing NaN", "LossNotDecreasing", "", "nan_loss", fires, "to nan");
    row("LossNotDecreasing eval by default", "LossNotDecreasing", "", "eval_rising_train_falling",
        fires, "eval loss loss", "mode=None");
    row("LossNotDecreasing mode TRAIN", "LossNotDecreasing", "mode=TRAIN",
        "eval_rising_train_falling", quiet, "", "mode=TRAIN");
    row("LossNotDecreasing script metrics", "LossNotDecreasing", "", "script_metrics", fires,
        "eval loss validation:loss", "", "validation:loss");
    row("LossNotDecreasing no data", "LossNotDecreasing", "", "no_tensors", na, "no loss");

    row("Overfit fires", "Overfit", "", "overfit", fires,
        "validation loss 0.8 vs training loss 0.5 at step 10", "ratio_threshold=0.1", "loss");
    row("Overfit quiet", "Overfit", "", "fit_ok", quiet, "");
    row("Overfit ratio_threshold", "Overfit", "ratio_threshold=1", "overfit", quiet, "",
        "ratio_threshold=1");
    row("Overfit patience", "Overfit", "patience=4", "overfit", quiet, "", "patience=4");
    row("Overfit patience met", "Overfit", "patience=3", "overfit", fires, "at step 30");
    row("Overfit start_step", "Overfit", "start_step=1000", "overfit", na, "start_step=1000");
    row("Overfit no data", "Overfit", "", "loss_falling", na, "no validation loss");

    row("Overtraining fires", "Overtraining", "", "loss_plateau", fires,
        "training loss loss has not improved on its best 0.5 (step 0) by 0.1 for 5 saved values",
        "patience_train=5", "loss");
    row("Overtraining quiet", "Overtraining", "", "loss_falling", quiet, "");
    row("Overtraining patience_train", "Overtraining", "patience_train=20", "loss_plateau", quiet,
        "");
    row("Overtraining slow", "Overtraining", "", "loss_falling_slowly", fires, "training loss");
    row("Overtraining delta", "Overtraining", "delta=0.001", "loss_falling_slowly", quiet, "",
        "delta=0.001");
    row("Overtraining validation", "Overtraining", "", "val_plateau", fires,
        "validation loss loss has not improved", "patience_validation=10");
    row("Overtraining patience_validation", "Overtraining", "patience_validation=20", "val_plateau",
        quiet, "");
    row("Overtraining no data", "Overtraining", "", "no_tensors", na, "no loss");

    row("StalledTrainingRule fires", "StalledTrainingRule", "", "stall_long", fires,
        "for 1820 s (threshold 1800 s); the last data was for step 10", "threshold=1800");
    row("StalledTrainingRule quiet", "StalledTrainingRule", "", "steady", quiet, "");
    row("StalledTrainingRule gap under default", "StalledTrainingRule", "", "steady_gap100", quiet,
        "");
    row("StalledTrainingRule threshold", "StalledTrainingRule", "threshold=60", "steady_gap100",
        fires, "threshold 60 s", "threshold=60");
    row("StalledTrainingRule no ticks", "StalledTrainingRule", "", "losses_only", na,
        "no clock tick");

    row("CheckInputImages fires", "CheckInputImages", "", "hybrid_unnormalized", fires,
        "input images are not normalized: channel means over the last 512 samples: channel 0 "
        "0.45",
        "threshold_mean=0.2", "hybridsequential0_input_0");
    row("CheckInputImages quiet", "CheckInputImages", "", "hybrid_normalized", quiet, "");
    row("CheckInputImages default regex", "CheckInputImages", "", "builtin_unnormalized", na,
        "(this job saved 'mnistnet_input_0'), so set parameters.regex to '.*_input_0'");
    row("CheckInputImages regex", "CheckInputImages", "regex=.*_input_0", "builtin_unnormalized",
        fires, "not normalized", "regex='.*_input_0'", "mnistnet_input_0");
    row("CheckInputImages regex quiet", "CheckInputImages", "regex=.*_input_0",
        "builtin_normalized", quiet, "");
    row("CheckInputImages threshold_mean", "CheckInputImages", "regex=.*_input_0;threshold_mean=1",
        "builtin_unnormalized", quiet, "", "threshold_mean=1");
    row("CheckInputImages threshold_samples", "CheckInputImages",
        "regex=.*_input_0;threshold_samples=1000", "builtin_unnormalized", na,
        "only 640 input samples");
    return cases;
}

} // namespace studio::testing
