// The commands the Python SDK's data side reads and writes through (mlstudio.experiments,
// mlstudio.analytics, mlstudio.debugger.trials): `record` (a Run, written live from JSON lines on
// stdin), `analytics` (ExperimentAnalytics and HyperparameterTuningJobAnalytics tables), and the
// Debugger's data of a job: `tensors` (saved reductions and where raw tensors are), `samples`
// (system samples) and `steps` (step timings and framework events). Each prints text, or with
// --json one object whose shape README's "JSON output" documents.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace studio::cli {

// `mlstudio record --experiment E --run R`: the trial component "<E>-<R>" in trial trial (default
// "Default-Run-Group-<E>"), InProgress while stdin stays open. With load, a component that is a
// training job may be logged to (its status stays as it is).
struct RecordOptions {
    std::string experiment;
    std::string run;
    std::string trial;
    std::string displayName;
    std::vector<std::string> tags; // KEY=VALUE
    bool load = false;
};
int cmdRecord(const RecordOptions& o);

// `mlstudio analytics`: an experiment's table (every trial component's when experiment is
// empty) with artifact columns, or a tuning job's.
struct AnalyticsQuery {
    std::string experiment;
    std::string tuningJob;
    std::vector<std::string> metrics;
    std::vector<std::string> parameters;
    std::vector<std::string> inputArtifacts;
    std::vector<std::string> outputArtifacts;
    bool json = false;
};
int cmdAnalytics(const AnalyticsQuery& q);

// `mlstudio tensors JOB [--name N]`: the tensors the Debugger's hook saved.
int cmdTensors(const std::string& job, const std::string& name, bool json);
// `mlstudio samples JOB [--since T]`: system samples per node, device and metric.
int cmdSamples(const std::string& job, double since, bool json);
// `mlstudio steps JOB`: each rank's step timings per phase and its framework events.
int cmdSteps(const std::string& job, bool json);

// A parsed subcommand and what it runs (cli_main.cpp runs the one the command line named).
struct DataCommand {
    CLI::App* parsed = nullptr;
    std::function<int()> run;
};
// Registers record, analytics, tensors, samples and steps on app.
void addDataCommands(CLI::App& app, std::vector<DataCommand>& commands);

} // namespace studio::cli
