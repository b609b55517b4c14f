// JobSpec: a training job as the user wrote it, with SageMaker Python SDK estimator names.
// Produced only by the parser (spec_parser.h), so every field here has been validated.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace studio::spec {

enum class EntryKind { Builtin, Script, Argv };

struct EntryPoint {
    EntryKind kind = EntryKind::Script;
    std::string builtinModel;      // Builtin: "fmnist-cnn", "resnet18", "mlp", "transformer-lm"
    std::string script;            // Script: path as written (resolved in JobSpec::command)
    std::vector<std::string> argv; // Argv: the command as given
};

// A hyperparameter value: the text passed to the job, and its number when it is one.
struct HyperValue {
    std::string text;
    std::optional<double> number;
    bool isBool = false;
};

enum class Strategy { None, TorchDistributed, PyTorchDdp, SmDataParallel, SmModelParallel, Mpi };
const char* strategyName(Strategy s);

// distribution.smdistributed.modelparallel.parameters, with the library's defaults.
struct ModelParallelParams {
    int partitions = 1;
    int microbatches = 1;
    std::string pipeline = "interleaved"; // "interleaved" (1F1B) | "simple" (GPipe)
    std::string optimize = "memory";      // "memory" | "speed"
    bool autoPartition = true;
    int defaultPartition = 0;
    bool ddp = false;
    std::string placementStrategy = "cluster"; // "cluster" | "spread" | a D/P/T order
    int activeMicrobatches = 0;                // 0: partitions + 2
    double memoryWeight = -1;                  // < 0: 0.2 when optimize is speed, else 0.8
    int tensorParallelDegree = 1;
    bool prescaledBatch = false;
    bool fp16Params = false;
    bool shardOptimizerState = false;
    bool skipTracing = false;
    bool offloadActivations = false;
    int activationLoadingHorizon = 4;
};

struct Distribution {
    Strategy strategy = Strategy::None;
    int processesPerHost = 1;
    bool mpiEnabled = false; // distribution.mpi.enabled (see mpi_launch.h)
    std::string customMpiOptions;
    std::optional<ModelParallelParams> modelParallel;
};

struct MetricDefinition {
    std::string name;
    std::string regex;
};

struct CollectionConfig {
    std::string name;
    std::vector<std::string> includeRegex;
    int saveInterval = 0; // 0: the hook's default
    std::vector<std::int64_t> saveSteps;
    std::int64_t startStep = 0;
    std::int64_t endStep = -1;           // -1: no end
    std::vector<std::string> reductions; // "min", "abs_mean", "l2_norm", ...
    bool saveRawTensor = false;
    bool saveHistogram = true;
};

struct DebuggerHookConfig {
    bool enabled = true; // debugger_hook_config: false turns it off
    bool given = false;  // the spec has debugger_hook_config (a script's hook then attaches itself)
    std::string localPath;
    std::map<std::string, std::string> hookParameters;
    std::vector<CollectionConfig> collections;
};

struct ProfilerConfig {
    bool disabled = false;
    int systemMonitorIntervalMillis = 500;
    bool frameworkProfiling = false; // framework_profile_params given: detailed step timings
    std::int64_t startStep = -1;     // framework profiling window; -1: not set
    std::int64_t numSteps = -1;
    double startUnixTime = -1;
    double durationSeconds = -1;
};

struct RuleConfig {
    std::string name;
    std::map<std::string, std::string> parameters; // as SageMaker: every value is a string
    std::vector<std::string> actions;              // "StopTraining" | "Notify"
};

// A rule written in Python (SageMaker's Rule.custom): a rules entry with "source". The controller
// runs its class in a rule process beside the job (engine/control/python_rule.h), and the hook
// saves its collections_to_save like the spec's own collections.
struct CustomRuleConfig {
    std::string name;
    std::string source;                            // absolute path of the Python file
    std::string ruleToInvoke;                      // the rule class in it
    std::map<std::string, std::string> parameters; // rule_parameters, as strings
    std::vector<CollectionConfig> collectionsToSave;
    std::vector<std::string> actions; // "StopTraining" | "Notify"
};

struct ExperimentConfig {
    std::string experimentName; // empty: the job goes to "Unassigned"
    std::string trialName;
    std::string displayName;
};

struct SpotSimulation {
    double interruptionsPerHour = 0;
    double meanCapacityWaitSeconds = 0;
    std::uint64_t seed = 0;
};

// A job on a Slurm cluster: the batch job's options; what is empty falls back to the
// cluster's defaults, and the time limit to max_run.
struct SlurmOptions {
    std::string partition;
    std::string account;
    std::string qos;
    std::int64_t timeLimitMinutes = 0; // 0: max_run, rounded up to whole minutes
    std::string gres;                  // per node, e.g. "gpu:2"
    std::string constraint;            // node features, e.g. "a100&ib"
    bool exclusive = false;
    // Further fields of slurmrestd's job description ("mail_type", "comment", ...): name ->
    // the value's JSON text.
    std::map<std::string, std::string> extra;
};

struct JobSpec {
    std::string name; // base name; the job's name adds a timestamp
    EntryPoint entryPoint;
    std::string sourceDir; // absolute; the ranks' working directory
    std::map<std::string, HyperValue> hyperparameters;
    std::string instanceType = "local";
    int instanceCount = 1;
    std::string cluster = "local";     // where the nodes run: this machine or a cluster's hosts
    std::optional<SlurmOptions> slurm; // the "slurm" section (Slurm clusters only)
    Distribution distribution;
    std::map<std::string, std::string> inputs; // channel -> absolute path
    std::map<std::string, std::string> environment;
    // Secret variables: name -> the variable of the launching studio's own environment that
    // holds the value ({"secret": true, "from_env": "HF_TOKEN"}). The value is read at launch,
    // handed to the launcher through a pipe, and never written anywhere.
    std::map<std::string, std::string> secretEnvironment;
    std::vector<MetricDefinition> metricDefinitions;
    bool useSpotInstances = false;
    std::int64_t maxRun = 86400;
    std::int64_t maxWait = 0; // 0: not set
    int maxRetryAttempts = 1;
    std::string checkpointLocalPath; // empty: jobs/<job>/checkpoints
    // tensorboard_output_config.local_path, absolute: the folder on this machine where the studio
    // writes the job's metrics as TensorBoard event files while it runs (empty: none).
    std::string tensorboardLocalPath;
    DebuggerHookConfig debugger;
    ProfilerConfig profiler;
    std::vector<RuleConfig> rules;
    std::vector<CustomRuleConfig> customRules;
    ExperimentConfig experiment;
    std::optional<SpotSimulation> spotSimulation;
    std::map<std::string, std::string> tags;
    std::map<std::string, double> localPrices; // "on_demand_per_hour", "spot_per_hour" for local

    std::string baseDir;       // directory the spec's relative paths were resolved against
    std::string effectiveJson; // the spec document after overrides, pretty-printed

    int worldSize() const { return instanceCount * distribution.processesPerHost; }
    bool isBuiltin() const { return entryPoint.kind == EntryKind::Builtin; }
    // The rank command without hyperparameter arguments: argv for Argv, the interpreter and the
    // script for Script. Builtin jobs are resolved by the controller (studio-train).
    std::vector<std::string> command() const;
    // SageMaker's convention: "--name value" for every hyperparameter, sorted by name.
    std::vector<std::string> hyperparameterArgs() const;
};

// The Python that .py script jobs run with: $MLSTUDIO_PYTHON, else the build's Python
// when it exists, else python3 on PATH.
std::string defaultPythonInterpreter();

} // namespace studio::spec
