// mlstudio's command line: run, tune, validate, list, show, logs, metrics, stop, attach, interrupt,
// billing, export, findings, report, cluster, doctor, store.
// Exit codes: 0 success (a run that Completed), 1 failure, 2 usage or invalid spec, 3 stopped.
#pragma once

#include "app/present/notebook_run_options.h"
#include "engine/report/what_ran.h"
#include "engine/store/records.h"
#include "engine/store/store_reader.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace studio::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitStopped = 3;

// What only GUI builds (Qt) can do; a missing hook makes its commands say the build has none.
struct QtHooks {
    // Opens the studio window, with a job whose Debugger insights to show ("" for none).
    std::function<int(const std::string& insightsJob)> openStudio;
    // `mlstudio nbrun`: runs a notebook's code cells headless and writes their outputs.
    std::function<int(const present::NotebookRunOptions&)> runNotebook;
    // Opens the studio window on a job's tab; set only when a window can be shown.
    std::function<int(const std::string& job)> openJob;
};

// Runs a subcommand; args excludes the program name.
int runCli(const std::vector<std::string>& args, const QtHooks& hooks = {});

// `mlstudio mlstudio://job/NAME` (studio_url.h): the window on that job through hooks.openJob,
// else (no display) what it would open and the job's `show` summary. 2 for a bad address.
int cmdOpenUrl(const std::string& url, const QtHooks& hooks);

// Subcommands, callable directly (the GUI build's main dispatches to them too).
struct RunOptions {
    std::string specPath;
    std::vector<std::string> overrides;
    bool streamLogs = false;
    bool quiet = false;
    std::string jobName; // --job-name: the exact name (SageMaker's job_name); empty: timestamped
};
int cmdRun(const RunOptions& o);
int cmdValidate(const std::string& specPath, const std::vector<std::string>& overrides);
int cmdList(const std::string& what, bool json, const std::string& experiment,
            const std::string& status);
int cmdShow(const std::string& job, bool json);
// The batch script of the job's newest Slurm job, as submitted; 1 for a job not run on Slurm.
int cmdShowScript(const std::string& job);
// What differs between two jobs' code, runtime, packages, hyperparameters and environment names.
int cmdDiff(const std::string& jobA, const std::string& jobB, bool json);
int cmdMetrics(const std::string& job, const std::string& name, bool json);
int cmdLogs(const std::string& job, int rank, bool follow);
int cmdStop(const std::string& job);
// Follows a running job here: another process's job from the store, an orphaned one (its
// studio process gone, its launchers running) by taking it over. Ctrl-C leaves it running.
int cmdAttach(const std::string& job, bool streamLogs);
// stop / interrupt through the job's studio process, or by taking the job over here.
int sendToRunningJob(const std::string& job, const std::string& action);
// Readers call this first: a job whose studio process died is shown as it really is (ended,
// when its launchers on this machine have ended too), not as a live InProgress.
void settleLostJobs(const std::string& home);

struct ClusterAddOptions {
    std::string name;
    std::vector<std::string> ssh;
    std::string identity, knownHosts, workdir, rendezvousAddress, socketIfname, installDir;
    // A Slurm cluster: slurmrestd's URL, where its JWT is (never the token) and job defaults.
    std::string slurm, tokenFile, tokenEnv, user, partition, account, qos, apiVersion;
    double hostTimeout = 300;
    bool acceptNewHostKeys = false;
    bool noCheck = false;
    bool replace = false;
    bool json = false;
};
int cmdClusterAdd(const ClusterAddOptions& o);
int cmdClusterList(bool json);
int cmdClusterShow(const std::string& name, bool json);
int cmdClusterRemove(const std::string& name, bool json);
int cmdClusterCheck(const std::string& name, bool json);
// Sends a spot interruption notice to a running spot job (the manual interruption source).
int cmdInterrupt(const std::string& job);
// One job's billing, or every job of an experiment with a total (job empty).
int cmdBilling(const std::string& job, const std::string& experiment, bool json);
int cmdExport(const std::string& experiment, const std::string& csvPath);
int cmdFindings(const std::string& job, bool json);
// Writes the profiler report (default: the job's profiler-output/) and prints its path.
int cmdReport(const std::string& job, const std::string& outDir);

// `mlstudio store compact`: the system samples of jobs that ended more than olderThanDays ago,
// one mean per series and window, then VACUUM unless a job runs (engine/store/retention.h).
struct StoreCompactOptions {
    double olderThanDays = 7;
    double windowSeconds = 60;
    bool noVacuum = false;
    bool json = false;
};
int cmdStoreCompact(const StoreCompactOptions& o);

// What this machine can train with (the trainer's LibTorch, CUDA devices, NCCL, Gloo, the
// Python of script jobs): text, or one JSON object. 1 when the trainer's probe failed.
int cmdDoctor(bool json);

// The studio database for reading, after settling the jobs whose studio process died.
store::StoreReader openReader();

// A job's record of what ran (cmd_what_ran.cpp), and its part of `show`.
report::WhatRan whatRanOf(store::StoreReader& reader, const store::ComponentRow& row);
void printWhatRan(const report::WhatRan& w);

// Hyperparameter tuning jobs (cmd_tune.cpp).
struct TuneOptions {
    std::string specPath;
    std::vector<std::string> overrides;
    std::string resume; // a tuning job whose studio process died: go on with it here
    bool quiet = false;
    std::string jobName; // --job-name: the exact name (also its training jobs' base name)
};
// Runs a tuning job here with a progress line (jobs done/total, best so far); Ctrl-C stops it
// and its training jobs. Exit codes as for run.
int cmdTune(const TuneOptions& o);
int cmdValidateTuning(const std::string& specPath, const std::vector<std::string>& overrides);
int cmdListTuningJobs(bool json);
// show / stop for a tuning job: none when the key names no tuning job (a training job then).
std::optional<int> cmdShowTuning(const std::string& key, bool json);
std::optional<int> cmdStopTuning(const std::string& key);
// HyperparameterTuningJobAnalytics as CSV.
int cmdExportTuning(const std::string& name, const std::string& csvPath);

// TensorBoard (cmd_tensorboard.cpp): jobs' metrics and hyperparameters out to a log folder
// (an experiment's jobs, or the named ones), and a log folder's runs in as Imported jobs.
int cmdExportTensorboard(const std::string& dir, const std::string& experiment,
                         const std::vector<std::string>& jobs);
struct ImportOptions {
    std::string tensorboard; // the log folder
    std::string experiment;  // "": the folder's name
    bool rename = false;
    bool json = false;
};
int cmdImport(const ImportOptions& o);

} // namespace studio::cli
