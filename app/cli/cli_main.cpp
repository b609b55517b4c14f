#include "app/cli/cli.h"

#include "engine/tune/tuning_parser.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace studio::cli {

int runCli(const std::vector<std::string>& args, const QtHooks& hooks) {
    CLI::App app{"ML Studio: train deep-learning models on this machine, record every run, and "
                 "inspect it.\nData lives in $MLSTUDIO_HOME (default $XDG_DATA_HOME/mlstudio).",
                 "mlstudio"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string(STUDIO_VERSION));

    RunOptions run;
    auto* runCmd = app.add_subcommand("run", "run a job spec here, with a progress line; Ctrl-C "
                                             "stops it gracefully (exit 0 only if Completed)");
    runCmd->add_option("spec", run.specPath, "job spec (JSON)")->required();
    runCmd->add_option("--set", run.overrides, "override a field: key.path=value");
    runCmd->add_flag("--logs", run.streamLogs,
                     "stream the ranks' logs as [node,rank]<stream>:text");
    runCmd->add_flag("-q,--quiet", run.quiet, "no progress line or summary");

    std::string insightsJob;
    auto* studioCmd = app.add_subcommand(
        "studio",
        "open the studio window (also what mlstudio does with no arguments on a display)");
    auto* guiCmd = app.add_subcommand("gui", "open the studio window, optionally on a job's "
                                             "Debugger insights");
    guiCmd->add_option("--insights", insightsJob,
                       "job name or unique prefix whose Debugger insights dashboard opens");

    std::string validateSpec;
    std::vector<std::string> validateSets;
    auto* validateCmd =
        app.add_subcommand("validate", "check a job spec; prints ok or every error");
    validateCmd->add_option("spec", validateSpec, "job spec (JSON)")->required();
    validateCmd->add_option("--set", validateSets, "override a field: key.path=value");

    std::string listWhat = "jobs", listExperiment, listStatus;
    bool listJson = false;
    auto* listCmd = app.add_subcommand("list", "list experiments, trials, jobs or tuning jobs");
    listCmd->add_option("what", listWhat, "experiments, trials, jobs or tuning-jobs")
        ->check(CLI::IsMember({"experiments", "trials", "jobs", "tuning-jobs"}));
    listCmd->add_option("--experiment", listExperiment, "only this experiment");
    listCmd->add_option("--status", listStatus, "only jobs with this status");
    listCmd->add_flag("--json", listJson, "JSON output");

    std::string job;
    bool json = false;
    bool showScript = false;
    auto* showCmd = app.add_subcommand("show", "a job: status, transitions, parameters, metric "
                                               "summaries, Slurm jobs, nodes, ranks, exit codes");
    showCmd->add_option("job", job, "job name or a unique prefix")->required();
    auto* showJson =
        showCmd->add_flag("--json", json, "JSON output (a stable contract, see README)");
    showCmd
        ->add_flag("--script", showScript,
                   "only the batch script of the job's newest Slurm job, as submitted")
        ->excludes(showJson);

    int rank = -1;
    bool follow = false;
    auto* logsCmd = app.add_subcommand("logs", "a job's logs as [node,rank]<stream>:text");
    logsCmd->add_option("job", job, "job name or a unique prefix")->required();
    logsCmd->add_option("--rank", rank, "only this rank");
    logsCmd->add_flag("-f,--follow", follow, "keep printing until the job ends");

    std::string metric;
    auto* metricsCmd = app.add_subcommand("metrics", "one metric's series");
    metricsCmd->add_option("job", job, "job name or a unique prefix")->required();
    metricsCmd->add_option("name", metric, "metric name, e.g. train:loss")->required();
    metricsCmd->add_flag("--json", json, "JSON: [{step, time, value, node, rank}]");

    auto* stopCmd =
        app.add_subcommand("stop", "stop a running job, or a tuning job and its training "
                                   "jobs, gracefully");
    stopCmd->add_option("job", job, "job or tuning job name, or a unique prefix")->required();

    bool attachLogs = false;
    auto* attachCmd = app.add_subcommand(
        "attach", "follow a running job from this shell (also one whose studio was closed or "
                  "killed: it is taken over); Ctrl-C leaves it running");
    attachCmd->add_option("job", job, "job name or a unique prefix")->required();
    attachCmd->add_flag("--logs", attachLogs, "stream the ranks' logs as [node,rank]<stream>:text");

    ClusterAddOptions clusterAdd;
    std::string clusterName;
    bool clusterJson = false;
    auto* clusterCmd = app.add_subcommand(
        "cluster", "named sets of SSH hosts, or Slurm clusters, to run jobs on (\"cluster\": NAME "
                   "in a spec); \"local\" is this machine");
    clusterCmd->require_subcommand(1);
    auto* clusterAddCmd = clusterCmd->add_subcommand(
        "add", "define a cluster of SSH hosts (--ssh) or a Slurm cluster (--slurm), then check "
               "it (a host key seen for the first time is refused unless "
               "--accept-new-host-keys)");
    clusterAddCmd->add_option("name", clusterAdd.name, "cluster name")->required();
    auto* sshOption = clusterAddCmd->add_option("--ssh", clusterAdd.ssh,
                                                "[user@]host[:port], once per host, in order");
    auto* slurmOption = clusterAddCmd->add_option(
        "--slurm", clusterAdd.slurm,
        "slurmrestd's address: http(s)://HOST:PORT (JWT) or unix:/PATH/TO/SOCKET (local auth)");
    sshOption->excludes(slurmOption);
    auto* tokenFileOption =
        clusterAddCmd
            ->add_option("--token-file", clusterAdd.tokenFile,
                         "Slurm: file holding the JWT (as `scontrol token` prints it); read at "
                         "each use, never stored")
            ->needs(slurmOption);
    clusterAddCmd
        ->add_option("--token-env", clusterAdd.tokenEnv,
                     "Slurm: environment variable holding the JWT")
        ->needs(slurmOption)
        ->excludes(tokenFileOption);
    clusterAddCmd
        ->add_option("--user", clusterAdd.user,
                     "Slurm: the user the token is for (default: this user)")
        ->needs(slurmOption);
    clusterAddCmd->add_option("--partition", clusterAdd.partition, "Slurm: default partition")
        ->needs(slurmOption);
    clusterAddCmd->add_option("--account", clusterAdd.account, "Slurm: default account")
        ->needs(slurmOption);
    clusterAddCmd->add_option("--qos", clusterAdd.qos, "Slurm: default QOS")->needs(slurmOption);
    clusterAddCmd
        ->add_option("--api-version", clusterAdd.apiVersion,
                     "Slurm: the REST API version to speak, v0.0.NN (default: the highest both "
                     "sides speak)")
        ->needs(slurmOption);
    clusterAddCmd->add_option("--identity", clusterAdd.identity,
                              "private key file (kept as a path; no password prompt ever)");
    clusterAddCmd->add_option("--known-hosts", clusterAdd.knownHosts,
                              "known_hosts file to verify host keys against (default: the user's)");
    clusterAddCmd->add_option("--workdir", clusterAdd.workdir,
                              "the studio's folder on each host (default ~/.mlstudio); Slurm: a "
                              "folder on the filesystem this machine shares with the nodes");
    clusterAddCmd->add_option("--rendezvous-address", clusterAdd.rendezvousAddress,
                              "node 0's address as the other hosts see it (default: its address "
                              "on the SSH connection)");
    clusterAddCmd->add_option("--socket-ifname", clusterAdd.socketIfname,
                              "interface Gloo and NCCL bind to (default: the one that reaches "
                              "node 0)");
    clusterAddCmd->add_option("--install-dir", clusterAdd.installDir,
                              "folder holding studio-launcher and studio-train on the hosts "
                              "(default: the login PATH)");
    clusterAddCmd
        ->add_option("--host-timeout", clusterAdd.hostTimeout,
                     "seconds a host may stay unreachable before its job fails")
        ->check(CLI::PositiveNumber);
    clusterAddCmd->add_flag("--accept-new-host-keys", clusterAdd.acceptNewHostKeys,
                            "trust and record the key of a host never seen before");
    clusterAddCmd->add_flag("--no-check", clusterAdd.noCheck, "do not connect to the hosts now");
    clusterAddCmd->add_flag("--replace", clusterAdd.replace, "redefine an existing cluster");
    clusterAddCmd->add_flag("--json", clusterAdd.json, "JSON: {cluster, check}");
    auto* clusterListCmd = clusterCmd->add_subcommand("list", "the clusters and their last check");
    clusterListCmd->add_flag("--json", clusterJson, "JSON output");
    auto* clusterShowCmd = clusterCmd->add_subcommand("show", "a cluster's hosts and settings");
    clusterShowCmd->add_option("name", clusterName, "cluster name")->required();
    clusterShowCmd->add_flag("--json", clusterJson, "JSON output");
    auto* clusterRemoveCmd = clusterCmd->add_subcommand("remove", "forget a cluster");
    clusterRemoveCmd->add_option("name", clusterName, "cluster name")->required();
    clusterRemoveCmd->add_flag("--json", clusterJson, "JSON output");
    auto* clusterCheckCmd = clusterCmd->add_subcommand(
        "check", "connect to every host in parallel: reachable, launcher version, cores, "
                 "memory, free disk, GPUs, clock offset; Slurm: API versions, token, "
                 "partitions, and a test job that shows the workdir is shared");
    clusterCheckCmd->add_option("name", clusterName, "cluster name")->required();
    clusterCheckCmd->add_flag("--json", clusterJson, "JSON output");

    auto* interruptCmd = app.add_subcommand(
        "interrupt", "send a spot interruption notice to a running spot job (it resumes)");
    interruptCmd->add_option("job", job, "job name or a unique prefix")->required();

    std::string billingExperiment;
    auto* billingCmd = app.add_subcommand(
        "billing",
        "training and billable time, savings, cost, interruptions of a job or experiment");
    auto* billingJob = billingCmd->add_option("job", job, "job name or a unique prefix");
    billingCmd->add_option("--experiment", billingExperiment, "every job of this experiment")
        ->excludes(billingJob);
    billingCmd->add_flag("--json", json, "JSON: {job, billing} or {experiment, jobs, total}");

    std::string exportExperiment, exportTuning, csv;
    auto* exportCmd =
        app.add_subcommand("export", "an experiment's (ExperimentAnalytics) or a tuning job's "
                                     "(HyperparameterTuningJobAnalytics) table as CSV");
    auto* exportExp = exportCmd->add_option("--experiment", exportExperiment, "experiment name");
    exportCmd->add_option("--tuning-job", exportTuning, "tuning job name")->excludes(exportExp);
    exportCmd->add_option("--csv", csv, "output file")->required();

    TuneOptions tune;
    auto* tuneCmd = app.add_subcommand(
        "tune", "run a hyperparameter tuning job (a tuning spec: {\"tuning\": ..., \"training\": "
                "...}) here, with a progress line; Ctrl-C stops it and its training jobs");
    auto* tuneSpec = tuneCmd->add_option("spec", tune.specPath, "tuning spec file (JSON)");
    tuneCmd->add_option("--set", tune.overrides,
                        "override a field: key.path=value (tuning.max_jobs=8, "
                        "training.hyperparameters.epochs=2)");
    tuneCmd
        ->add_option("--resume", tune.resume,
                     "go on with a tuning job whose studio process died (its running training "
                     "jobs are taken over)")
        ->excludes(tuneSpec);
    tuneCmd->add_flag("--quiet", tune.quiet, "no progress line");

    auto* findingsCmd = app.add_subcommand(
        "findings", "the Debugger's rules of a job: status, times fired, findings with advice");
    findingsCmd->add_option("job", job, "job name or a unique prefix")->required();
    findingsCmd->add_flag("--json", json, "JSON: {job, status, rules, findings}");

    std::string reportOut;
    auto* reportCmd = app.add_subcommand(
        "report", "write a job's profiler report (one HTML file) and print its path");
    reportCmd->add_option("job", job, "job name or a unique prefix")->required();
    reportCmd->add_option("--out", reportOut, "folder (default: the job's profiler-output/)");

    bool doctorJson = false;
    auto* doctorCmd = app.add_subcommand(
        "doctor", "what this machine can train with: the trainer's LibTorch, CUDA and its "
                  "devices, NCCL, Gloo, BLAS, threads, and the Python of script jobs with its "
                  "torch (exit 1 when the trainer cannot be probed; $MLSTUDIO_TRAINER names "
                  "another trainer to probe)");
    doctorCmd->add_flag("--json", doctorJson,
                        "JSON: {version, ok, studio_launcher, studio_train, trainer, "
                        "trainer_error, python, torch_matches_libtorch, warnings}");

    NotebookRunOptions nbrun;
    auto* nbrunCmd = app.add_subcommand(
        "nbrun", "run a notebook's code cells headless (JavaScript, .ipynb) and write the "
                 "outputs; waits for the jobs it started");
    nbrunCmd->add_option("notebook", nbrun.notebook, "notebook file (.ipynb)")->required();
    nbrunCmd->add_option("--out", nbrun.out,
                         "write the executed notebook here (default: in place)");
    nbrunCmd->add_flag("--allow-errors", nbrun.allowErrors,
                       "run the remaining cells after one fails (the exit code is still 1)");
    nbrunCmd->add_option("--timeout", nbrun.cellTimeout, "seconds a cell may run (0: no limit)");
    nbrunCmd->add_flag("--stop-jobs", nbrun.stopJobs,
                       "stop the notebook's jobs still running after the last cell instead of "
                       "waiting for them");

    std::vector<std::string> reversed(args.rbegin(), args.rend());
    try {
        app.parse(reversed);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? kExitOk : kExitUsage;
    }

    try {
        if (*runCmd)
            return cmdRun(run);
        if (*validateCmd) {
            std::ifstream in(validateSpec);
            const std::string text((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
            if (tune::isTuningDocument(text))
                return cmdValidateTuning(validateSpec, validateSets);
            return cmdValidate(validateSpec, validateSets);
        }
        if (*listCmd)
            return listWhat == "tuning-jobs"
                       ? cmdListTuningJobs(listJson)
                       : cmdList(listWhat, listJson, listExperiment, listStatus);
        if (*showCmd) {
            if (showScript)
                return cmdShowScript(job);
            if (auto code = cmdShowTuning(job, json))
                return *code;
            return cmdShow(job, json);
        }
        if (*tuneCmd) {
            if (tune.specPath.empty() && tune.resume.empty()) {
                std::fprintf(stderr, "mlstudio tune: give a tuning spec, or --resume NAME\n");
                return kExitUsage;
            }
            return cmdTune(tune);
        }
        if (*logsCmd)
            return cmdLogs(job, rank, follow);
        if (*metricsCmd)
            return cmdMetrics(job, metric, json);
        if (*stopCmd) {
            if (auto code = cmdStopTuning(job))
                return *code;
            return cmdStop(job);
        }
        if (*interruptCmd)
            return cmdInterrupt(job);
        if (*attachCmd)
            return cmdAttach(job, attachLogs);
        if (*clusterAddCmd)
            return cmdClusterAdd(clusterAdd);
        if (*clusterListCmd)
            return cmdClusterList(clusterJson);
        if (*clusterShowCmd)
            return cmdClusterShow(clusterName, clusterJson);
        if (*clusterRemoveCmd)
            return cmdClusterRemove(clusterName, clusterJson);
        if (*clusterCheckCmd)
            return cmdClusterCheck(clusterName, clusterJson);
        if (*billingCmd) {
            if (job.empty() && billingExperiment.empty()) {
                std::fprintf(stderr, "mlstudio billing: name a JOB or --experiment NAME\n");
                return kExitUsage;
            }
            return cmdBilling(job, billingExperiment, json);
        }
        if (*exportCmd) {
            if (!exportTuning.empty())
                return cmdExportTuning(exportTuning, csv);
            if (exportExperiment.empty()) {
                std::fprintf(stderr, "mlstudio export: name --experiment NAME or --tuning-job "
                                     "NAME\n");
                return kExitUsage;
            }
            return cmdExport(exportExperiment, csv);
        }
        if (*studioCmd || *guiCmd) {
            if (!hooks.openStudio) {
                std::fprintf(stderr, "mlstudio: this build has no studio window (configured with "
                                     "STUDIO_GUI=OFF); use the commands above\n");
                return kExitUsage;
            }
            return hooks.openStudio(insightsJob);
        }
        if (*nbrunCmd) {
            if (!hooks.runNotebook) {
                std::fprintf(stderr, "mlstudio: this build has no notebook runtime (configured "
                                     "with STUDIO_GUI=OFF, without Qt)\n");
                return kExitUsage;
            }
            return hooks.runNotebook(nbrun);
        }
        if (*findingsCmd)
            return cmdFindings(job, json);
        if (*reportCmd)
            return cmdReport(job, reportOut);
        if (*doctorCmd)
            return cmdDoctor(doctorJson);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mlstudio: %s\n", e.what());
        return kExitFailed;
    }
    return kExitUsage;
}

} // namespace studio::cli
