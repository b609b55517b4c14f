"""The engine's built-in Debugger rules (engine/debugger/rule_catalog.cpp), with SageMaker's
parameter names, types and defaults. tests/python/test_rule_configs.py reads the C++ catalogue
and checks that this table matches it rule for rule and parameter for parameter.
"""

# Parameter types, as the catalogue names them: N number, I integer, B boolean, T text,
# R regular expression, NP "min,max" number pair.
_SCAN = ("scan_interval_us", "I", "60000000")

MODEL_RULES = {
    "VanishingGradient": [("threshold", "N", "0.0000001")],
    "ExplodingTensor": [("collection_names", "T", ""), ("tensor_regex", "R", ""),
                        ("only_nan", "B", "False")],
    "PoorWeightInitialization": [("activation_inputs_regex", "R", ".*relu_input"),
                                 ("threshold", "N", "10.0"), ("distribution_range", "N", "0.001"),
                                 ("patience", "I", "5"), ("steps", "I", "10")],
    "SaturatedActivation": [("tensor_regex", "R", ".*tanh_input|.*sigmoid_input"),
                            ("threshold_tanh", "NP", "-9.4999,9.4999"),
                            ("threshold_sigmoid", "NP", "-23,16.99999"),
                            ("threshold_inactivity", "N", "1.0"),
                            ("threshold_layer", "N", "50.0")],
    "DeadRelu": [("tensor_regex", "R", ".*relu_output"), ("threshold_inactivity", "N", "1.0"),
                 ("threshold_layer", "N", "50.0")],
    "WeightUpdateRatio": [("num_steps", "I", ""), ("large_threshold", "N", "10.0"),
                          ("small_threshold", "N", "0.00000001"),
                          ("epsilon", "N", "0.000000001")],
    "AllZero": [("collection_names", "T", ""), ("tensor_regex", "R", ""),
                ("threshold", "N", "100")],
    "UnchangedTensor": [("collection_names", "T", ""), ("tensor_regex", "R", ""),
                        ("num_steps", "I", "3"), ("rtol", "N", "1e-05"), ("atol", "N", "1e-08"),
                        ("equal_nan", "B", "False")],
    "TensorVariance": [("collection_names", "T", ""), ("tensor_regex", "R", ""),
                       ("max_threshold", "N", ""), ("min_threshold", "N", "")],
    "ClassImbalance": [("threshold_imbalance", "N", "10"),
                       ("threshold_misprediction", "N", "0.7"), ("samples", "I", "500"),
                       ("argmax", "B", "False"), ("labels_regex", "R", ".*labels"),
                       ("predictions_regex", "R", ".*predictions")],
    "LossNotDecreasing": [("collection_names", "T", ""), ("tensor_regex", "R", ""),
                          ("use_losses_collection", "B", "True"), ("num_steps", "I", "10"),
                          ("diff_percent", "N", "0.0"), ("mode", "T", "")],
    "Overfit": [("tensor_regex", "R", ""), ("start_step", "I", "0"), ("patience", "I", "1"),
                ("ratio_threshold", "N", "0.1")],
    "Overtraining": [("patience_train", "I", "5"), ("patience_validation", "I", "10"),
                     ("delta", "N", "0.1")],
    "StalledTrainingRule": [("threshold", "N", "1800"), ("stop_training_on_fire", "B", "False"),
                            ("training_job_name_prefix", "T", "")],
    "CheckInputImages": [("threshold_mean", "N", "0.2"), ("threshold_samples", "I", "500"),
                         ("regex", "R", ".*hybridsequential0_input_0"), ("channel", "I", "1")],
}

PROFILER_RULES = {
    "BatchSize": [("cpu_threshold_p95", "N", "70"), ("gpu_threshold_p95", "N", "70"),
                  ("gpu_memory_threshold_p95", "N", "70"), ("patience", "I", "1000"),
                  ("window", "I", "500"), _SCAN],
    "CPUBottleneck": [("threshold", "N", "50"), ("gpu_threshold", "N", "10"),
                      ("cpu_threshold", "N", "90"), ("patience", "I", "1000"), _SCAN],
    "Dataloader": [("min_threshold", "N", "70"), ("max_threshold", "N", "200"),
                   ("patience", "I", "10"), _SCAN],
    "GPUMemoryIncrease": [("increase", "N", "5"), ("patience", "I", "1000"),
                          ("window", "I", "10"), _SCAN],
    "IOBottleneck": [("threshold", "N", "50"), ("gpu_threshold", "N", "10"),
                     ("io_threshold", "N", "50"), ("patience", "I", "1000"), _SCAN],
    "LoadBalancing": [("threshold", "N", "0.5"), ("patience", "I", "1000"), _SCAN],
    "LowGPUUtilization": [("threshold_p95", "N", "70"), ("threshold_p5", "N", "10"),
                          ("window", "I", "500"), ("patience", "I", "1000"), _SCAN],
    "MaxInitializationTime": [("threshold", "N", "20"), _SCAN],
    "OverallSystemUsage": [_SCAN],
    "OverallFrameworkMetrics": [_SCAN],
    "StepOutlier": [("stddev", "N", "3"), ("mode", "T", ""), ("n_outliers", "I", "10"), _SCAN],
}

# The collections SageMaker's rule configurations ask for (smdebug_rulesconfig's
# collections.json): every one saved every 500 steps.
RULE_COLLECTIONS = {
    "VanishingGradient": ["gradients"],
    "LossNotDecreasing": ["losses"],
    "WeightUpdateRatio": ["weights"],
    "DeadRelu": ["relu_output"],
    "PoorWeightInitialization": ["relu_input"],
    "CheckInputImages": ["input_image"],
}


def parameters_of(rule):
    """The (name, type, default) rows of a built-in rule; None for an unknown rule."""
    if rule in MODEL_RULES:
        return MODEL_RULES[rule]
    return PROFILER_RULES.get(rule)
