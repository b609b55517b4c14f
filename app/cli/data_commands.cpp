// Registration of the data commands the Python SDK reads and writes through.
#include "app/cli/data_commands.h"

#include <CLI/CLI.hpp>

#include <memory>

namespace studio::cli {

namespace {

void addRecordCommand(CLI::App& app, std::vector<DataCommand>& commands) {
    auto o = std::make_shared<RecordOptions>();
    auto* cmd = app.add_subcommand(
        "record", "record an experiment run (what mlstudio.experiments.Run uses): the trial "
                  "component <experiment>-<run>, InProgress while stdin is open; JSON lines "
                  "on stdin log to it ({\"kind\": \"param\"|\"metric\"|\"artifact\"|\"file\"|"
                  "\"graph\"|\"end\", ...}); prints one JSON line when ready and one when "
                  "ended");
    cmd->add_option("--experiment", o->experiment, "experiment name")->required();
    cmd->add_option("--run", o->run, "run name")->required();
    cmd->add_option("--trial", o->trial,
                    "trial (run group) the run joins (default Default-Run-Group-<experiment>)");
    cmd->add_option("--display-name", o->displayName, "the run's display name");
    cmd->add_option("--tag", o->tags, "a tag KEY=VALUE (repeatable)");
    cmd->add_flag("--load", o->load,
                  "also log to a training job of that name (its status stays as it is)");
    commands.push_back({cmd, [o] {
                            return cmdRecord(*o);
                        }});
}

void addAnalyticsCommand(CLI::App& app, std::vector<DataCommand>& commands) {
    auto q = std::make_shared<AnalyticsQuery>();
    auto* cmd = app.add_subcommand(
        "analytics", "an experiment's table (one row per trial component: parameters, "
                     "<metric> - Min|Max|Avg|StdDev|Last|Count, artifacts) or a tuning job's "
                     "(one row per training job), as CSV or JSON");
    auto* experiment = cmd->add_option("--experiment", q->experiment,
                                       "experiment name (default: every trial component)");
    cmd->add_option("--tuning-job", q->tuningJob, "tuning job name or unique prefix")
        ->excludes(experiment);
    cmd->add_option("--metric", q->metrics, "only this metric (repeatable)");
    cmd->add_option("--parameter", q->parameters, "only this parameter (repeatable)");
    cmd->add_option("--input-artifact", q->inputArtifacts, "only this input artifact (repeatable)");
    cmd->add_option("--output-artifact", q->outputArtifacts,
                    "only this output artifact (repeatable)");
    cmd->add_flag("--json", q->json,
                  "JSON: {columns, rows, components} (tuning: {columns, rows, "
                  "tuning_job, status})");
    commands.push_back({cmd, [q] {
                            return cmdAnalytics(*q);
                        }});
}

void addDebugDataCommands(CLI::App& app, std::vector<DataCommand>& commands) {
    struct Args {
        std::string job, name;
        double since = 0;
        bool json = false;
    };
    auto a = std::make_shared<Args>();
    auto* tensors = app.add_subcommand(
        "tensors", "the tensors a job's Debugger hook saved: reductions per step and rank, "
                   "and the folder of its raw tensors");
    tensors->add_option("job", a->job, "job name or a unique prefix")->required();
    tensors->add_option("--name", a->name, "only this tensor");
    tensors->add_flag("--json", a->json,
                      "JSON: {job, status, debug_output, tensors: [{name, collections, values: "
                      "[{step, phase, node, rank, reductions}]}]}");
    commands.push_back({tensors, [a] {
                            return cmdTensors(a->job, a->name, a->json);
                        }});

    auto* samples = app.add_subcommand(
        "samples", "a job's system samples (CPU, GPU, memory, network, disk) per node");
    samples->add_option("job", a->job, "job name or a unique prefix")->required();
    samples->add_option("--since", a->since, "only samples from this unix time on");
    samples->add_flag("--json", a->json,
                      "JSON: {job, status, nodes, series: [{node, device, metric, samples: "
                      "[[time, value]]}]}");
    commands.push_back({samples, [a] {
                            return cmdSamples(a->job, a->since, a->json);
                        }});

    auto* steps = app.add_subcommand(
        "steps", "a job's step timings per phase (data, forward, backward, comm, optimizer) "
                 "and its framework events");
    steps->add_option("job", a->job, "job name or a unique prefix")->required();
    steps->add_flag("--json", a->json, "JSON: {job, status, nodes, steps, events}");
    commands.push_back({steps, [a] {
                            return cmdSteps(a->job, a->json);
                        }});
}

} // namespace

void addDataCommands(CLI::App& app, std::vector<DataCommand>& commands) {
    addRecordCommand(app, commands);
    addAnalyticsCommand(app, commands);
    addDebugDataCommands(app, commands);
}

} // namespace studio::cli
