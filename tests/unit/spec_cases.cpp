// The invalid-spec table of test_spec: each case names the JSON path and message it expects.
// A file of its own so that test_spec.cpp stays short.
#include "tests/unit/spec_cases.h"

std::vector<SpecCase> invalidSpecCases() {
    std::vector<SpecCase> cases;
    const std::string ok = R"("entry_point": ["/bin/true"])";
    auto row = [&](const char* tag, const std::string& body, const char* path, const char* msg) {
        cases.push_back({tag, body, path, msg});
    };
    auto with = [&](const std::string& extra) {
        return "{" + ok + ", " + extra + "}";
    };
    auto builtin = [&](const std::string& extra) {
        return std::string(R"({"entry_point": "builtin:fmnist-cnn", )") + extra + "}";
    };
    auto modelParallel = [&](const std::string& params, int ppn) {
        return R"("distribution": {"smdistributed": {"modelparallel": {"enabled": true, "parameters": )" +
               params + R"(}}, "mpi": {"enabled": true, "processes_per_host": )" +
               std::to_string(ppn) + "}}";
    };

    row("empty", "{}", "entry_point", "required");
    row("root array", "[]", "", "must be a JSON object");
    row("entry number", R"({"entry_point": 42})", "entry_point", "must be \"builtin:<model>\"");
    row("builtin typo", R"({"entry_point": "builtin:resnet19"})", "entry_point",
        "did you mean \"resnet18\"");
    row("argv empty", R"({"entry_point": []})", "entry_point", "must not be empty");
    row("argv blank program", R"({"entry_point": ["", "x"]})", "entry_point[0]",
        "non-empty string");
    row("script missing", R"({"entry_point": "missing.py"})", "entry_point", "does not exist");
    row("unknown key", with(R"("instance_cont": 2)"), "instance_cont",
        "did you mean \"instance_count\"");
    row("unknown key no match", with(R"("zzzz": 2)"), "zzzz", "allowed keys:");
    row("bad name", with(R"("name": "bad name!")"), "name", "letters, digits and hyphens");
    row("long name", with(R"("name": "a123456789012345678901234567890123456789")"), "name",
        "up to 38");
    row("hyperparameters array", with(R"("hyperparameters": [1])"), "hyperparameters",
        "must be an object");
    row("hyperparameter null", with(R"("hyperparameters": {"lr": null})"), "hyperparameters.lr",
        "a string, number or boolean");
    row("hyperparameter space", with(R"("hyperparameters": {"a b": 1})"), "hyperparameters.a b",
        "without spaces");
    row("builtin unknown hp", builtin(R"("hyperparameters": {"learning-rate": 0.1})"),
        "hyperparameters.learning-rate", "unknown hyperparameter");
    row("builtin hp typo", builtin(R"("hyperparameters": {"epoch": 2})"), "hyperparameters.epoch",
        "did you mean \"epochs\"");
    row("builtin epochs 0", builtin(R"("hyperparameters": {"epochs": 0})"),
        "hyperparameters.epochs", "must be an integer >= 1");
    row("builtin optimizer", builtin(R"("hyperparameters": {"optimizer": "adagrad"})"),
        "hyperparameters.optimizer", "must be one of \"sgd\", \"adam\", \"adamw\"");
    row("builtin batch text", builtin(R"("hyperparameters": {"batch-size": "big"})"),
        "hyperparameters.batch-size", "must be an integer");
    row("builtin other model hp", builtin(R"("hyperparameters": {"seq-len": 64})"),
        "hyperparameters.seq-len", "not a hyperparameter of builtin:fmnist-cnn");
    row("instance type typo", with(R"("instance_type": "ml.p3.2xlarg")"), "instance_type",
        "did you mean \"ml.p3.2xlarge\"");
    row("instance count 0", with(R"("instance_count": 0)"), "instance_count",
        "between 1 and 256, got 0");
    row("instance count string", with(R"("instance_count": "2")"), "instance_count",
        "must be an integer");
    row("distribution string", with(R"("distribution": "ddp")"), "distribution",
        "must be an object");
    row("ppn two",
        with(R"("distribution": {"mpi": {"enabled": true, "processes_per_host": "two"}})"),
        "distribution.mpi.processes_per_host", "must be an integer >= 1, got \"two\"");
    row("enabled missing", with(R"("distribution": {"torch_distributed": {}})"),
        "distribution.torch_distributed.enabled", "required");
    row("enabled yes", with(R"("distribution": {"pytorchddp": {"enabled": "yes"}})"),
        "distribution.pytorchddp.enabled", "true or false");
    row("two strategies",
        with(
            R"("distribution": {"torch_distributed": {"enabled": true}, "smdistributed": {"dataparallel": {"enabled": true}}})"),
        "distribution", "only one strategy");
    row("tensorflow", with(R"("distribution": {"parameter_server": {"enabled": true}})"),
        "distribution.parameter_server", "TensorFlow");
    row("modelparallel without mpi",
        with(
            R"("distribution": {"smdistributed": {"modelparallel": {"enabled": true, "parameters": {"partitions": 2}}}})"),
        "distribution.mpi", "runs under mpi");
    row("pipeline gpipe", with(modelParallel(R"({"partitions": 2, "pipeline": "gpipe"})", 2)),
        "distribution.smdistributed.modelparallel.parameters.pipeline",
        "\"interleaved\" or \"simple\"");
    row("partitions missing", with(modelParallel("{}", 2)),
        "distribution.smdistributed.modelparallel.parameters.partitions", "required");
    row("partitions not dividing", with(modelParallel(R"({"partitions": 3})", 2)),
        "distribution.smdistributed.modelparallel.parameters.partitions",
        "must be a multiple of partitions (3)");
    row("ddp false replicas", with(modelParallel(R"({"partitions": 2})", 4)),
        "distribution.smdistributed.modelparallel.parameters.ddp",
        "set ddp to true for 2 data-parallel replicas");
    row("microbatches", builtin(modelParallel(R"({"partitions": 2, "microbatches": 3})", 2)),
        "distribution.smdistributed.modelparallel.parameters.microbatches",
        "must divide evenly into 3 microbatches");
    row("partitions beyond blocks", builtin(modelParallel(R"({"partitions": 6})", 6)),
        "distribution.smdistributed.modelparallel.parameters.partitions",
        "builtin:fmnist-cnn has 4 blocks");
    row("placement", with(modelParallel(R"({"partitions": 2, "placement_strategy": "XYZ"})", 2)),
        "distribution.smdistributed.modelparallel.parameters.placement_strategy", "D, P (and T)");
    row("mp key typo", with(modelParallel(R"({"partitions": 2, "microbatch": 2})", 2)),
        "distribution.smdistributed.modelparallel.parameters.microbatch",
        "did you mean \"microbatches\"");
    row("default partition",
        with(modelParallel(R"({"partitions": 2, "auto_partition": false, "default_partition": 2})",
                           2)),
        "distribution.smdistributed.modelparallel.parameters.default_partition",
        "must be < partitions (2)");
    row("batch per replica",
        builtin(
            R"("hyperparameters": {"batch-size": 10}, "distribution": {"mpi": {"enabled": true, "processes_per_host": 3}})"),
        "hyperparameters.batch-size", "must divide evenly among 3");
    row("input number", with(R"("inputs": {"train": 5})"), "inputs.train", "must be a string");
    row("input missing", with(R"("inputs": {"train": "/nonexistent/fmnist"})"), "inputs.train",
        "does not exist");
    row("input s3", with(R"("inputs": {"train": "s3://bucket/data"})"), "inputs.train",
        "S3 inputs");
    row("input channel name", with(R"("inputs": {"tr ain": "/tmp"})"), "inputs.tr ain",
        "channel names");
    row("tensorboard not object", with(R"("tensorboard_output_config": "/tmp/tb")"),
        "tensorboard_output_config", "must be an object");
    row("tensorboard path number", with(R"("tensorboard_output_config": {"local_path": 3})"),
        "tensorboard_output_config.local_path", "must be a string");
    row("tensorboard path empty", with(R"("tensorboard_output_config": {"local_path": ""})"),
        "tensorboard_output_config.local_path", "must be a folder's path");
    row("tensorboard s3 only",
        with(R"("tensorboard_output_config": {"s3_output_path": "s3://bucket/tb"})"),
        "tensorboard_output_config.s3_output_path", "S3 uploads are not available");
    row("tensorboard nothing", with(R"("tensorboard_output_config": {})"),
        "tensorboard_output_config.local_path", "required");
    row("tensorboard key typo", with(R"("tensorboard_output_config": {"local_pth": "tb"})"),
        "tensorboard_output_config.local_pth", "did you mean \"local_path\"");
    row("env reserved", with(R"("environment": {"RANK": "3"})"), "environment.RANK", "reserved");
    row("env sm reserved", with(R"("environment": {"SM_MODEL_DIR": "/x"})"),
        "environment.SM_MODEL_DIR", "reserved");
    row("env bad name", with(R"("environment": {"1BAD": "x"})"), "environment.1BAD",
        "not a valid environment variable name");
    row("env number", with(R"("environment": {"SEED": 3})"), "environment.SEED",
        "must be a string");
    row("metric defs object", with(R"("metric_definitions": {"Name": "x"})"), "metric_definitions",
        "an array of");
    row("metric regex missing", with(R"("metric_definitions": [{"Name": "loss"}])"),
        "metric_definitions[0].Regex", "required");
    row("metric regex invalid",
        with(R"("metric_definitions": [{"Name": "loss", "Regex": "loss=(["}])"),
        "metric_definitions[0].Regex", "not a valid regular expression");
    row("metric regex no group",
        with(R"("metric_definitions": [{"Name": "loss", "Regex": "loss=[0-9]+"}])"),
        "metric_definitions[0].Regex", "needs a capture group");
    row("metric duplicate",
        with(
            R"j("metric_definitions": [{"Name": "a", "Regex": "(a)"}, {"Name": "a", "Regex": "(b)"}])j"),
        "metric_definitions[1].Name", "duplicate");
    row("metric key case", with(R"j("metric_definitions": [{"name": "a", "Regex": "(a)"}])j"),
        "metric_definitions[0].name", "did you mean \"Name\"");
    row("spot not bool", with(R"("use_spot_instances": "yes")"), "use_spot_instances",
        "true or false");
    row("max_run zero", with(R"("max_run": 0)"), "max_run", "must be an integer between 1 and");
    row("max_wait below max_run",
        with(R"("use_spot_instances": true, "max_run": 3600, "max_wait": 1800)"), "max_wait",
        "must be >= max_run (3600)");
    row("max_wait without spot", with(R"("max_wait": 7200)"), "max_wait",
        "set use_spot_instances to true");
    row("spot without max_wait", with(R"("use_spot_instances": true)"), "max_wait",
        "required with use_spot_instances");
    row("retries", with(R"("max_retry_attempts": 31)"), "max_retry_attempts", "between 1 and 30");
    row("hook string", with(R"("debugger_hook_config": "off")"), "debugger_hook_config",
        "must be an object");
    row("collection typo",
        with(R"("debugger_hook_config": {"collection_configs": [{"name": "gradiants"}]})"),
        "debugger_hook_config.collection_configs[0].name", "did you mean \"gradients\"");
    row("custom collection",
        with(R"("debugger_hook_config": {"collection_configs": [{"name": "relus"}]})"),
        "debugger_hook_config.collection_configs[0].name", "needs parameters.include_regex");
    row("reduction median",
        with(
            R"("debugger_hook_config": {"collection_configs": [{"name": "weights", "parameters": {"reductions": "mean,median"}}]})"),
        "debugger_hook_config.collection_configs[0].parameters.reductions",
        "unknown reduction \"median\"");
    row("save interval 0",
        with(
            R"("debugger_hook_config": {"collection_configs": [{"name": "losses", "parameters": {"save_interval": "0"}}]})"),
        "debugger_hook_config.collection_configs[0].parameters.save_interval",
        "must be an integer between 1");
    row("end before start",
        with(
            R"("debugger_hook_config": {"collection_configs": [{"name": "losses", "parameters": {"start_step": "10", "end_step": "5"}}]})"),
        "debugger_hook_config.collection_configs[0].parameters.end_step",
        "greater than start_step (10)");
    row("monitor interval", with(R"("profiler_config": {"system_monitor_interval_millis": 250})"),
        "profiler_config.system_monitor_interval_millis",
        "one of 100, 200, 500, 1000, 5000, 60000");
    row("profile pairs",
        with(
            R"("profiler_config": {"framework_profile_params": {"start_step": 5, "duration": 10}})"),
        "profiler_config.framework_profile_params", "mutually exclusive");
    row("rule typo", with(R"("rules": [{"name": "LossNotDecreasng"}])"), "rules[0].name",
        "did you mean \"LossNotDecreasing\"");
    row("rule param typo",
        with(R"("rules": [{"name": "LossNotDecreasing", "parameters": {"num_step": "10"}}])"),
        "rules[0].parameters.num_step", "did you mean \"num_steps\"");
    row("rule param type",
        with(R"("rules": [{"name": "VanishingGradient", "parameters": {"threshold": "high"}}])"),
        "rules[0].parameters.threshold", "must be a number");
    row("rule action typo",
        with(R"("rules": [{"name": "ExplodingTensor", "actions": ["StopTrainig"]}])"),
        "rules[0].actions[0]", "did you mean \"StopTraining\"");
    row("rule duplicate", with(R"("rules": [{"name": "AllZero"}, {"name": "AllZero"}])"),
        "rules[1].name", "listed twice");
    const std::string custom = R"("rules": [{"name": "mine", "source": "scripts/ddp_train.py", )";
    row("custom rule source missing",
        with(R"("rules": [{"name": "mine", "source": "nope.py", "rule_to_invoke": "R"}])"),
        "rules[0].source", "does not exist");
    row("custom rule without class",
        with(R"("rules": [{"name": "mine", "source": "scripts/ddp_train.py"}])"),
        "rules[0].rule_to_invoke", "required with source");
    row("custom rule without file", with(R"("rules": [{"name": "mine", "rule_to_invoke": "R"}])"),
        "rules[0].source", "required with rule_to_invoke");
    row("custom rule class not an identifier", with(custom + R"("rule_to_invoke": "my rule"}])"),
        "rules[0].rule_to_invoke", "must be a Python class name");
    row("custom rule named as a built-in",
        with(R"("rules": [{"name": "AllZero", "source": "scripts/ddp_train.py", )"
             R"("rule_to_invoke": "R"}])"),
        "rules[0].name", "is a built-in rule");
    row("custom rule unknown key",
        with(custom + R"("rule_to_invoke": "R", "parameters": {"a": 1}}])"), "rules[0].parameters",
        "\"rule_to_invoke\", \"rule_parameters\", ");
    row("custom rule parameter type",
        with(custom + R"("rule_to_invoke": "R", "rule_parameters": {"a": [1]}}])"),
        "rules[0].rule_parameters.a", "a string, number or boolean");
    row("custom rule collection",
        with(custom + R"("rule_to_invoke": "R", "collections_to_save": [{"name": "acts"}]}])"),
        "rules[0].collections_to_save[0].name", "needs parameters.include_regex");
    row("tensor variance without thresholds",
        with(R"("rules": [{"name": "TensorVariance", "parameters": {"tensor_regex": ".*"}}])"),
        "rules[0].parameters", "max_threshold or min_threshold");
    row("tensor variance range upside down",
        with(
            R"("rules": [{"name": "TensorVariance", "parameters": {"max_threshold": "1", "min_threshold": "2"}}])"),
        "rules[0].parameters.min_threshold", "must be below max_threshold");
    row("pair parameter",
        with(
            R"("rules": [{"name": "SaturatedActivation", "parameters": {"threshold_tanh": "9"}}])"),
        "rules[0].parameters.threshold_tanh", "two numbers");
    row("profiler report param",
        with(R"("rules": [{"name": "ProfilerReport", "parameters": {"Bogus_threshold": "1"}}])"),
        "rules[0].parameters.Bogus_threshold", "<ProfilerRule>_<parameter>");
    row("trial without experiment", with(R"("experiment_config": {"TrialName": "t1"})"),
        "experiment_config.TrialName", "needs ExperimentName");
    row("experiment name", with(R"("experiment_config": {"ExperimentName": "has space"})"),
        "experiment_config.ExperimentName", "up to 120 letters");
    row("experiment key typo", with(R"("experiment_config": {"Experiment": "x"})"),
        "experiment_config.Experiment", "did you mean \"ExperimentName\"");
    row("spot simulation alone", with(R"("spot_simulation": {"interruptions_per_hour": 2})"),
        "spot_simulation", "use_spot_instances");
    row("tag without key", with(R"("tags": [{"Value": "x"}])"), "tags[0].Key", "required");
    row("source dir", with(R"("source_dir": "/nonexistent/src")"), "source_dir", "does not exist");
    row("local prices",
        with(R"("instance_type": "ml.m5.large", "local_prices": {"spot_per_hour": 0.1})"),
        "local_prices", "only for instance_type \"local\"");

    row("too many processes per host",
        with(R"("distribution": {"mpi": {"enabled": true, "processes_per_host": 4294967297}})"),
        "distribution.mpi.processes_per_host", "at most 256 processes per host");
    row("too many instances", with(R"("instance_count": 100000)"), "instance_count", "an integer");
    row("nested too deep", with(R"("tags": )" + std::string(40, '[') + std::string(40, ']')), "",
        "nests deeper than 32 levels");

    row("slurm not an object", with(R"("slurm": 3)"), "slurm", "must be an object");
    row("slurm unknown key", with(R"("slurm": {"partitions": "a"})"), "slurm.partitions",
        "did you mean \"partition\"");
    row("slurm time limit", with(R"("slurm": {"time_limit": "soon"})"), "slurm.time_limit",
        "a Slurm time");
    row("slurm time limit zero", with(R"("slurm": {"time_limit": 0})"), "slurm.time_limit",
        "minutes");
    row("slurm partition newline", with(R"("slurm": {"partition": "a\nb"})"), "slurm.partition",
        "one line");
    row("slurm exclusive", with(R"("slurm": {"exclusive": "yes"})"), "slurm.exclusive",
        "true or false");
    row("slurm extra owned", with(R"("slurm": {"extra_sbatch": {"nodes": 3}})"),
        "slurm.extra_sbatch.nodes", "the studio sets this field");
    row("slurm extra name", with(R"("slurm": {"extra_sbatch": {"Mail-Type": "END"}})"),
        "slurm.extra_sbatch.Mail-Type", "snake_case");
    row("slurm extra object", with(R"("slurm": {"extra_sbatch": {"mail_type": {}}})"),
        "slurm.extra_sbatch.mail_type", "a string, number, boolean or array");
    return cases;
}
