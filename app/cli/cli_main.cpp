#include "app/cli/cli.h"
#include "app/cli/data_commands.h"
#include "app/cli/studio_url.h"

#include "engine/tune/tuning_parser.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <stdexcept>

namespace studio::cli {

namespace {

// A subcommand and what it runs once parsed. Each group of subcommands keeps its options in one
// shared struct that its actions capture, so the options outlive the registering function.
struct Command {
    CLI::App* parsed;
    std::function<int()> run;
};
using Commands = std::vector<Command>;

int usageError(const char* message) {
    std::fputs(message, stderr);
    return kExitUsage;
}

void addRunCommand(CLI::App& app, Commands& commands) {
    auto o = std::make_shared<RunOptions>();
    auto* cmd = app.add_subcommand("run", "run a job spec here, with a progress line; Ctrl-C "
                                          "stops it gracefully (exit 0 only if Completed)");
    cmd->add_option("spec", o->specPath, "job spec (JSON)")->required();
    cmd->add_option("--set", o->overrides, "override a field: key.path=value");
    cmd->add_flag("--logs", o->streamLogs, "stream the ranks' logs as [node,rank]<stream>:text");
    cmd->add_flag("-q,--quiet", o->quiet, "no progress line or summary");
    cmd->add_option("--job-name", o->jobName,
                    "the job's exact name (1-63 letters, digits and hyphens, unique); default: "
                    "the spec's name and a timestamp");
    commands.push_back({cmd, [o] {
                            return cmdRun(*o);
                        }});
}

void addWindowCommands(CLI::App& app, const QtHooks& hooks, Commands& commands) {
    auto insightsJob = std::make_shared<std::string>();
    auto* studioCmd = app.add_subcommand(
        "studio",
        "open the studio window (also what mlstudio does with no arguments on a display)");
    auto* guiCmd = app.add_subcommand("gui", "open the studio window, optionally on a job's "
                                             "Debugger insights");
    guiCmd->add_option("--insights", *insightsJob,
                       "job name or unique prefix whose Debugger insights dashboard opens");
    const auto open = [&hooks, insightsJob] {
        if (!hooks.openStudio)
            return usageError("mlstudio: this build has no studio window (configured with "
                              "STUDIO_GUI=OFF); use the commands above\n");
        return hooks.openStudio(*insightsJob);
    };
    commands.push_back({studioCmd, open});
    commands.push_back({guiCmd, open});
}

void addValidateCommand(CLI::App& app, Commands& commands) {
    struct Args {
        std::string spec;
        std::vector<std::string> sets;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app.add_subcommand("validate", "check a job spec; prints ok or every error");
    cmd->add_option("spec", a->spec, "job spec (JSON)")->required();
    cmd->add_option("--set", a->sets, "override a field: key.path=value");
    commands.push_back({cmd, [a] {
                            std::ifstream in(a->spec);
                            const std::string text((std::istreambuf_iterator<char>(in)),
                                                   std::istreambuf_iterator<char>());
                            if (tune::isTuningDocument(text))
                                return cmdValidateTuning(a->spec, a->sets);
                            return cmdValidate(a->spec, a->sets);
                        }});
}

// list, show, logs, metrics: reading the store.
void addInspectCommands(CLI::App& app, Commands& commands) {
    struct Args {
        std::string what = "jobs", experiment, status, job, metric;
        bool json = false, script = false, follow = false;
        int rank = -1;
    };
    auto a = std::make_shared<Args>();
    auto* listCmd = app.add_subcommand("list", "list experiments, trials, jobs or tuning jobs");
    listCmd->add_option("what", a->what, "experiments, trials, jobs or tuning-jobs")
        ->check(CLI::IsMember({"experiments", "trials", "jobs", "tuning-jobs"}));
    listCmd->add_option("--experiment", a->experiment, "only this experiment");
    listCmd->add_option("--status", a->status, "only jobs with this status");
    listCmd->add_flag("--json", a->json, "JSON output");
    commands.push_back({listCmd, [a] {
                            return a->what == "tuning-jobs"
                                       ? cmdListTuningJobs(a->json)
                                       : cmdList(a->what, a->json, a->experiment, a->status);
                        }});

    auto* showCmd = app.add_subcommand("show", "a job: status, transitions, parameters, metric "
                                               "summaries, Slurm jobs, nodes, ranks, exit codes");
    showCmd->add_option("job", a->job, "job name or a unique prefix")->required();
    auto* showJson =
        showCmd->add_flag("--json", a->json, "JSON output (a stable contract, see README)");
    showCmd
        ->add_flag("--script", a->script,
                   "only the batch script of the job's newest Slurm job, as submitted")
        ->excludes(showJson);
    commands.push_back({showCmd, [a] {
                            if (a->script)
                                return cmdShowScript(a->job);
                            if (auto code = cmdShowTuning(a->job, a->json))
                                return *code;
                            return cmdShow(a->job, a->json);
                        }});

    auto* diffCmd = app.add_subcommand(
        "diff", "what differs between two jobs: code (file and line), runtime, packages, "
                "hyperparameters, environment variable names");
    auto other = std::make_shared<std::string>();
    diffCmd->add_option("job_a", a->job, "job name or a unique prefix")->required();
    diffCmd->add_option("job_b", *other, "job name or a unique prefix")->required();
    diffCmd->add_flag("--json", a->json,
                      "JSON: {same, differences: [{section, name, a, b, diff}]}");
    commands.push_back({diffCmd, [a, other] {
                            return cmdDiff(a->job, *other, a->json);
                        }});

    auto* logsCmd = app.add_subcommand("logs", "a job's logs as [node,rank]<stream>:text");
    logsCmd->add_option("job", a->job, "job name or a unique prefix")->required();
    logsCmd->add_option("--rank", a->rank, "only this rank");
    logsCmd->add_flag("-f,--follow", a->follow, "keep printing until the job ends");
    commands.push_back({logsCmd, [a] {
                            return cmdLogs(a->job, a->rank, a->follow);
                        }});

    auto* metricsCmd = app.add_subcommand("metrics", "one metric's series");
    metricsCmd->add_option("job", a->job, "job name or a unique prefix")->required();
    metricsCmd->add_option("name", a->metric, "metric name, e.g. train:loss")->required();
    metricsCmd->add_flag("--json", a->json, "JSON: [{step, time, value, node, rank}]");
    commands.push_back({metricsCmd, [a] {
                            return cmdMetrics(a->job, a->metric, a->json);
                        }});
}

// stop, attach: a running job.
void addRunningJobCommands(CLI::App& app, Commands& commands) {
    struct Args {
        std::string job;
        bool logs = false;
    };
    auto a = std::make_shared<Args>();
    auto* stopCmd =
        app.add_subcommand("stop", "stop a running job, or a tuning job and its training "
                                   "jobs, gracefully");
    stopCmd->add_option("job", a->job, "job or tuning job name, or a unique prefix")->required();
    commands.push_back({stopCmd, [a] {
                            if (auto code = cmdStopTuning(a->job))
                                return *code;
                            return cmdStop(a->job);
                        }});

    auto* attachCmd = app.add_subcommand(
        "attach", "follow a running job from this shell (also one whose studio was closed or "
                  "killed: it is taken over); Ctrl-C leaves it running");
    attachCmd->add_option("job", a->job, "job name or a unique prefix")->required();
    attachCmd->add_flag("--logs", a->logs, "stream the ranks' logs as [node,rank]<stream>:text");
    commands.push_back({attachCmd, [a] {
                            return cmdAttach(a->job, a->logs);
                        }});
}

// cluster add's Slurm options; they need --slurm.
void addSlurmOptions(CLI::App& add, ClusterAddOptions& o, CLI::Option* slurm) {
    auto* tokenFile = add.add_option("--token-file", o.tokenFile,
                                     "Slurm: file holding the JWT (as `scontrol token` prints "
                                     "it); read at each use, never stored")
                          ->needs(slurm);
    add.add_option("--token-env", o.tokenEnv, "Slurm: environment variable holding the JWT")
        ->needs(slurm)
        ->excludes(tokenFile);
    add.add_option("--user", o.user, "Slurm: the user the token is for (default: this user)")
        ->needs(slurm);
    add.add_option("--partition", o.partition, "Slurm: default partition")->needs(slurm);
    add.add_option("--account", o.account, "Slurm: default account")->needs(slurm);
    add.add_option("--qos", o.qos, "Slurm: default QOS")->needs(slurm);
    add.add_option("--api-version", o.apiVersion,
                   "Slurm: the REST API version to speak, v0.0.NN (default: the highest both "
                   "sides speak)")
        ->needs(slurm);
}

// cluster add's options of the hosts: keys, folders, addresses, timeout.
void addHostOptions(CLI::App& add, ClusterAddOptions& o) {
    add.add_option("--identity", o.identity,
                   "private key file (kept as a path; no password prompt ever)");
    add.add_option("--known-hosts", o.knownHosts,
                   "known_hosts file to verify host keys against (default: the user's)");
    add.add_option("--workdir", o.workdir,
                   "the studio's folder on each host (default ~/.mlstudio); Slurm: a "
                   "folder on the filesystem this machine shares with the nodes");
    add.add_option("--rendezvous-address", o.rendezvousAddress,
                   "node 0's address as the other hosts see it (default: its address "
                   "on the SSH connection)");
    add.add_option("--socket-ifname", o.socketIfname,
                   "interface Gloo and NCCL bind to (default: the one that reaches "
                   "node 0)");
    add.add_option("--install-dir", o.installDir,
                   "folder holding studio-launcher and studio-train on the hosts "
                   "(default: the login PATH)");
    add.add_option("--host-timeout", o.hostTimeout,
                   "seconds a host may stay unreachable before its job fails")
        ->check(CLI::PositiveNumber);
}

void addClusterAddCommand(CLI::App& cluster, Commands& commands) {
    auto o = std::make_shared<ClusterAddOptions>();
    auto* add = cluster.add_subcommand(
        "add", "define a cluster of SSH hosts (--ssh) or a Slurm cluster (--slurm), then check "
               "it (a host key seen for the first time is refused unless "
               "--accept-new-host-keys)");
    add->add_option("name", o->name, "cluster name")->required();
    auto* ssh = add->add_option("--ssh", o->ssh, "[user@]host[:port], once per host, in order");
    auto* slurm = add->add_option(
        "--slurm", o->slurm,
        "slurmrestd's address: http(s)://HOST:PORT (JWT) or unix:/PATH/TO/SOCKET (local auth)");
    ssh->excludes(slurm);
    addSlurmOptions(*add, *o, slurm);
    addHostOptions(*add, *o);
    add->add_flag("--accept-new-host-keys", o->acceptNewHostKeys,
                  "trust and record the key of a host never seen before");
    add->add_flag("--no-check", o->noCheck, "do not connect to the hosts now");
    add->add_flag("--replace", o->replace, "redefine an existing cluster");
    add->add_flag("--json", o->json, "JSON: {cluster, check}");
    commands.push_back({add, [o] {
                            return cmdClusterAdd(*o);
                        }});
}

void addClusterCommands(CLI::App& app, Commands& commands) {
    auto* cluster = app.add_subcommand(
        "cluster", "named sets of SSH hosts, or Slurm clusters, to run jobs on (\"cluster\": NAME "
                   "in a spec); \"local\" is this machine");
    cluster->require_subcommand(1);
    addClusterAddCommand(*cluster, commands);
    struct Args {
        std::string name;
        bool json = false;
    };
    auto a = std::make_shared<Args>();
    auto* listCmd = cluster->add_subcommand("list", "the clusters and their last check");
    listCmd->add_flag("--json", a->json, "JSON output");
    commands.push_back({listCmd, [a] {
                            return cmdClusterList(a->json);
                        }});
    // show, remove and check take the same arguments.
    const auto addNamed = [&](const char* name, const char* help,
                              int (*command)(const std::string&, bool)) {
        auto* cmd = cluster->add_subcommand(name, help);
        cmd->add_option("name", a->name, "cluster name")->required();
        cmd->add_flag("--json", a->json, "JSON output");
        commands.push_back({cmd, [a, command] {
                                return command(a->name, a->json);
                            }});
    };
    addNamed("show", "a cluster's hosts and settings", cmdClusterShow);
    addNamed("remove", "forget a cluster", cmdClusterRemove);
    addNamed("check",
             "connect to every host in parallel: reachable, launcher version, cores, "
             "memory, free disk, GPUs, clock offset; Slurm: API versions, token, "
             "partitions, and a test job that shows the workdir is shared",
             cmdClusterCheck);
}

// interrupt, billing: spot training.
void addSpotCommands(CLI::App& app, Commands& commands) {
    struct Args {
        std::string job, experiment;
        bool json = false;
    };
    auto a = std::make_shared<Args>();
    auto* interruptCmd = app.add_subcommand(
        "interrupt", "send a spot interruption notice to a running spot job (it resumes)");
    interruptCmd->add_option("job", a->job, "job name or a unique prefix")->required();
    commands.push_back({interruptCmd, [a] {
                            return cmdInterrupt(a->job);
                        }});

    auto* billingCmd = app.add_subcommand(
        "billing",
        "training and billable time, savings, cost, interruptions of a job or experiment");
    auto* billingJob = billingCmd->add_option("job", a->job, "job name or a unique prefix");
    billingCmd->add_option("--experiment", a->experiment, "every job of this experiment")
        ->excludes(billingJob);
    billingCmd->add_flag("--json", a->json, "JSON: {job, billing} or {experiment, jobs, total}");
    commands.push_back({billingCmd, [a] {
                            if (a->job.empty() && a->experiment.empty())
                                return usageError(
                                    "mlstudio billing: name a JOB or --experiment NAME\n");
                            return cmdBilling(a->job, a->experiment, a->json);
                        }});
}

void addExportCommand(CLI::App& app, Commands& commands) {
    struct Args {
        std::string experiment, tuning, csv, tensorboard;
        std::vector<std::string> jobs;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app.add_subcommand(
        "export", "an experiment's (ExperimentAnalytics) or a tuning job's "
                  "(HyperparameterTuningJobAnalytics) table as CSV, or jobs' metrics and "
                  "hyperparameters as TensorBoard event files");
    auto* experiment = cmd->add_option("--experiment", a->experiment, "experiment name");
    cmd->add_option("--tuning-job", a->tuning, "tuning job name")->excludes(experiment);
    auto* csv = cmd->add_option("--csv", a->csv, "write the table to this CSV file");
    cmd->add_option("--tensorboard", a->tensorboard,
                    "write TensorBoard event files into this folder: one run per job (per node "
                    "and rank where they differ), values as 32-bit floats, hyperparameters for "
                    "the HParams tab")
        ->excludes(csv);
    cmd->add_option("jobs", a->jobs, "jobs to export with --tensorboard (names or prefixes)");
    commands.push_back({cmd, [a] {
                            if (!a->tensorboard.empty()) {
                                if (!a->tuning.empty())
                                    return usageError("mlstudio export: --tensorboard exports "
                                                      "training jobs; name them or "
                                                      "--experiment, not --tuning-job\n");
                                return cmdExportTensorboard(a->tensorboard, a->experiment, a->jobs);
                            }
                            if (a->csv.empty())
                                return usageError("mlstudio export: name --csv FILE or "
                                                  "--tensorboard DIR\n");
                            if (!a->jobs.empty())
                                return usageError("mlstudio export: JOB names go with "
                                                  "--tensorboard; --csv exports an experiment "
                                                  "or a tuning job\n");
                            if (!a->tuning.empty())
                                return cmdExportTuning(a->tuning, a->csv);
                            if (a->experiment.empty())
                                return usageError("mlstudio export: name --experiment NAME or "
                                                  "--tuning-job NAME\n");
                            return cmdExport(a->experiment, a->csv);
                        }});
}

void addImportCommand(CLI::App& app, Commands& commands) {
    auto o = std::make_shared<ImportOptions>();
    auto* cmd = app.add_subcommand(
        "import", "read a TensorBoard log folder's runs (scalars, wall times, steps, "
                  "hyperparameters) into the studio as jobs with status Imported");
    cmd->add_option("--tensorboard", o->tensorboard, "the TensorBoard log folder")->required();
    cmd->add_option("--experiment", o->experiment,
                    "the experiment the jobs join (default: the folder's name)");
    cmd->add_flag("--rename", o->rename,
                  "give a job whose name is taken a suffix (-2, -3, ...) instead of refusing");
    cmd->add_flag("--json", o->json, "print the summary as one JSON object");
    commands.push_back({cmd, [o] {
                            return cmdImport(*o);
                        }});
}

void addTuneCommand(CLI::App& app, Commands& commands) {
    auto o = std::make_shared<TuneOptions>();
    auto* cmd = app.add_subcommand(
        "tune", "run a hyperparameter tuning job (a tuning spec: {\"tuning\": ..., \"training\": "
                "...}) here, with a progress line; Ctrl-C stops it and its training jobs");
    auto* spec = cmd->add_option("spec", o->specPath, "tuning spec file (JSON)");
    cmd->add_option("--set", o->overrides,
                    "override a field: key.path=value (tuning.max_jobs=8, "
                    "training.hyperparameters.epochs=2)");
    cmd->add_option("--resume", o->resume,
                    "go on with a tuning job whose studio process died (its running training "
                    "jobs are taken over)")
        ->excludes(spec);
    cmd->add_flag("--quiet", o->quiet, "no progress line");
    cmd->add_option("--job-name", o->jobName,
                    "the tuning job's exact name (1-32 letters, digits and hyphens, unique; its "
                    "training jobs are NAME-001-...); default: the spec's name and a timestamp")
        ->excludes("--resume");
    commands.push_back({cmd, [o] {
                            if (o->specPath.empty() && o->resume.empty())
                                return usageError(
                                    "mlstudio tune: give a tuning spec, or --resume NAME\n");
                            return cmdTune(*o);
                        }});
}

// findings, report: the Debugger.
void addDebuggerCommands(CLI::App& app, Commands& commands) {
    struct Args {
        std::string job, out;
        bool json = false;
    };
    auto a = std::make_shared<Args>();
    auto* findingsCmd = app.add_subcommand(
        "findings", "the Debugger's rules of a job: status, times fired, findings with advice");
    findingsCmd->add_option("job", a->job, "job name or a unique prefix")->required();
    findingsCmd->add_flag("--json", a->json, "JSON: {job, status, rules, findings}");
    commands.push_back({findingsCmd, [a] {
                            return cmdFindings(a->job, a->json);
                        }});

    auto* reportCmd = app.add_subcommand(
        "report", "write a job's profiler report (one HTML file) and print its path");
    reportCmd->add_option("job", a->job, "job name or a unique prefix")->required();
    reportCmd->add_option("--out", a->out, "folder (default: the job's profiler-output/)");
    commands.push_back({reportCmd, [a] {
                            return cmdReport(a->job, a->out);
                        }});
}

void addDoctorCommand(CLI::App& app, Commands& commands) {
    auto json = std::make_shared<bool>(false);
    auto* cmd = app.add_subcommand(
        "doctor", "what this machine can train with: the trainer's LibTorch, CUDA and its "
                  "devices, NCCL, Gloo, BLAS, threads, and the Python of script jobs with its "
                  "torch (exit 1 when the trainer cannot be probed; $MLSTUDIO_TRAINER names "
                  "another trainer to probe)");
    cmd->add_flag("--json", *json,
                  "JSON: {version, ok, studio_launcher, studio_train, trainer, "
                  "trainer_error, python, resources, torch_matches_libtorch, "
                  "warnings}");
    commands.push_back({cmd, [json] {
                            return cmdDoctor(*json);
                        }});
}

// store compact: retention of old jobs' system samples.
void addStoreCommands(CLI::App& app, Commands& commands) {
    auto* store = app.add_subcommand("store", "the studio database's size");
    store->require_subcommand(1);
    auto o = std::make_shared<StoreCompactOptions>();
    auto* compact = store->add_subcommand(
        "compact", "merge the system samples (CPU, GPU, memory, network, disk) of jobs that "
                   "ended long ago into one mean per series and window, then VACUUM the "
                   "database (skipped while a job runs); the percentiles and peaks of a "
                   "compacted job are those of its window means");
    compact->add_option("--older-than", o->olderThanDays, "days since the job ended (default 7)")
        ->check(CLI::NonNegativeNumber);
    compact->add_option("--window", o->windowSeconds, "seconds per merged sample (default 60)")
        ->check(CLI::PositiveNumber);
    compact->add_flag("--no-vacuum", o->noVacuum,
                      "leave the freed pages in the file for new rows (no rewrite)");
    compact->add_flag("--json", o->json,
                      "JSON: {jobs, samples_before, samples_after, bytes_before, bytes_after, "
                      "reusable_bytes, vacuumed, vacuum_skipped}");
    commands.push_back({compact, [o] {
                            return cmdStoreCompact(*o);
                        }});
}

void addNotebookCommand(CLI::App& app, const QtHooks& hooks, Commands& commands) {
    auto o = std::make_shared<present::NotebookRunOptions>();
    auto* cmd = app.add_subcommand(
        "nbrun", "run a notebook's code cells headless on its Jupyter kernel and write the "
                 "outputs; waits for the jobs it started");
    cmd->add_option("notebook", o->notebook, "notebook file (.ipynb)")->required();
    cmd->add_option("--out", o->out, "write the executed notebook here (default: in place)");
    cmd->add_flag("--allow-errors", o->allowErrors,
                  "run the remaining cells after one fails (the exit code is still 1)");
    cmd->add_option("--timeout", o->cellTimeout, "seconds a cell may run (0: no limit)");
    cmd->add_flag("--stop-jobs", o->stopJobs,
                  "stop the notebook's jobs still running after the last cell instead of "
                  "waiting for them");
    commands.push_back({cmd, [&hooks, o] {
                            if (!hooks.runNotebook)
                                return usageError("mlstudio: this build has no notebook runtime "
                                                  "(configured with STUDIO_GUI=OFF, without "
                                                  "Qt)\n");
                            return hooks.runNotebook(*o);
                        }});
}

} // namespace

int runCli(const std::vector<std::string>& args, const QtHooks& hooks) {
    CLI::App app{"ML Studio: train deep-learning models on this machine, record every run, and "
                 "inspect it.\nData lives in $MLSTUDIO_HOME (default $XDG_DATA_HOME/mlstudio).",
                 "mlstudio"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "mlstudio " + std::string(STUDIO_VERSION));

    // Registered in the order the help lists them.
    Commands commands;
    addRunCommand(app, commands);
    addWindowCommands(app, hooks, commands);
    addValidateCommand(app, commands);
    addInspectCommands(app, commands);
    addRunningJobCommands(app, commands);
    addClusterCommands(app, commands);
    addSpotCommands(app, commands);
    addExportCommand(app, commands);
    addImportCommand(app, commands);
    addTuneCommand(app, commands);
    addDebuggerCommands(app, commands);
    addDoctorCommand(app, commands);
    addStoreCommands(app, commands);
    addNotebookCommand(app, hooks, commands);
    std::vector<DataCommand> dataCommands; // record, analytics, tensors, samples, steps
    addDataCommands(app, dataCommands);
    for (auto& d : dataCommands)
        commands.push_back({d.parsed, std::move(d.run)});

    // The desktop runs `mlstudio %u` for a clicked mlstudio:// link.
    if (args.size() == 1 && isStudioUrl(args.front()))
        return cmdOpenUrl(args.front(), hooks);

    std::vector<std::string> reversed(args.rbegin(), args.rend());
    try {
        app.parse(reversed);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? kExitOk : kExitUsage;
    }

    try {
        for (const Command& c : commands)
            if (*c.parsed)
                return c.run();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mlstudio: %s\n", e.what());
        return kExitFailed;
    }
    return kExitUsage;
}

} // namespace studio::cli
