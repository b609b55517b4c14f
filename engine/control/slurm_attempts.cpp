// Jobs on Slurm clusters: each attempt is a Slurm batch job (submitted through slurmrestd)
// whose script starts one launcher per node with srun; the launchers write their journals on
// the cluster's shared filesystem, which this machine mounts, and the runner follows them as
// it follows any node. Slurm's own states drive the job's: PENDING with its reason, RUNNING,
// the final states; a requeue, a node failure or a preemption interrupts the attempt and the
// next one resumes from the newest checkpoint, like a spot interruption.
#include "engine/control/job_runner_state.h"
#include "engine/control/slurm_jobs_cache.h"
#include "engine/control/slurm_script.h"
#include "engine/debugger/hook_config_json.h"
#include "engine/spec/mpi_launch.h"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <pwd.h>
#include <unistd.h>

namespace studio::control {

namespace fs = std::filesystem;

namespace {

constexpr int kMaxResubmits = 5;
constexpr double kDrainSeconds = 5;   // journals' last lines after Slurm ended a run
constexpr double kSettleSeconds = 30; // Slurm's final word after every journal ended
// A running job's journals carry its news; Slurm is asked this often then (a rank's unexpected
// exit asks at once).
constexpr double kQuietPollSeconds = 2.5;

bool finalState(const std::string& s) {
    static const std::vector<std::string> states = {
        "COMPLETED", "FAILED",   "CANCELLED",     "TIMEOUT", "NODE_FAIL",   "PREEMPTED",
        "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY", "REVOKED", "SPECIAL_EXIT"};
    return std::find(states.begin(), states.end(), s) != states.end();
}

std::string rowText(const store::SlurmJobRow& r) {
    return "Slurm job " + std::to_string(r.jobId);
}

// The ranks' environment as the Slurm job gets it: slurmrestd gives a job nothing else.
std::map<std::string, std::string> jobEnvironment(const spec::JobSpec& spec,
                                                  const LaunchPaths& paths,
                                                  const remote::ClusterConfig& cluster) {
    std::map<std::string, std::string> env;
    std::string path = "/usr/local/bin:/usr/bin:/bin";
    if (!cluster.installDir.empty())
        path = cluster.installDir + ":" + path;
    env["PATH"] = path;
    env["STUDIO_DEBUG_OUTPUT_DIR"] = paths.debugOutputDir;
    if (std::string hook = debugger::scriptHookConfigJson(spec, paths.debugOutputDir);
        !hook.empty())
        env["STUDIO_DEBUG_HOOK_CONFIG_JSON"] = std::move(hook);
    for (const auto& [k, v] : spec.environment)
        env[k] = v;
    return env;
}

// Copies a file or folder to `to` (replacing it), for the cluster's shared filesystem.
void copyTree(const std::string& from, const std::string& to) {
    std::error_code ec;
    const fs::path inside = fs::weakly_canonical(to).lexically_relative(fs::weakly_canonical(from));
    if (!inside.empty() && *inside.begin() != "..")
        throw std::runtime_error(from + " holds the cluster's workdir (" + to +
                                 "): give the job a source_dir of its own");
    fs::remove_all(to, ec);
    fs::create_directories(fs::path(to).parent_path());
    if (fs::is_directory(from))
        fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    else
        fs::copy_file(from, to);
}

// The job's folder on the shared filesystem: its code or spec, its inputs, and the folders the
// launchers write; what a node's launcher is given (without the rendezvous, which the script
// finds).
NodeLaunch stageSlurmJob(const spec::JobSpec& spec, const remote::ClusterConfig& cluster,
                         const std::string& jobDir, const std::string& specFile, int attempt) {
    NodeLaunch l;
    l.paths = clusterJobPaths(spec, cluster, jobDir);
    for (int i = 0; i < spec.instanceCount; ++i)
        fs::create_directories(jobDir + "/logs/node-" + std::to_string(i));
    for (const auto& dir :
         {l.paths.modelDir, l.paths.outputDir, l.paths.debugOutputDir, l.paths.checkpointDir})
        fs::create_directories(dir);
    const bool first = attempt == 1; // a resubmission finds everything in place
    if (spec.isBuiltin()) {
        l.paths.specFile = jobDir + "/spec.json";
        if (first)
            copyTree(specFile, l.paths.specFile);
        l.workdir = jobDir;
    } else {
        l.workdir = jobDir + "/code";
        if (first)
            copyTree(spec.sourceDir, l.workdir);
    }
    for (const auto& [channel, path] : spec.inputs) {
        l.channels[channel] = jobDir + "/input/" + channel;
        if (first)
            copyTree(path, l.channels[channel]);
    }
    l.rankCommand = stagedRankCommand(spec, l.paths, cluster.name);
    l.mpi = spec::rankLauncher(spec).mpirun; // mpirun's hosts: the allocation's
    l.socketIfname = cluster.socketIfname.empty() ? "auto" : cluster.socketIfname;
    return l;
}

remote::SlurmJobRequest slurmRequest(const spec::JobSpec& spec,
                                     const remote::ClusterConfig& cluster,
                                     const std::string& jobName, const std::string& jobDir,
                                     const std::string& script, const LaunchPaths& paths) {
    const spec::SlurmOptions o = spec.slurm.value_or(spec::SlurmOptions{});
    remote::SlurmJobRequest job;
    job.name = jobName;
    job.script = script;
    job.partition = o.partition.empty() ? cluster.slurm.partition : o.partition;
    job.account = o.account.empty() ? cluster.slurm.account : o.account;
    job.qos = o.qos.empty() ? cluster.slurm.qos : o.qos;
    job.nodes = spec.instanceCount;
    job.tasksPerNode = 1; // one launcher per node; it starts the node's ranks
    job.cpusPerTask = spec.distribution.processesPerHost;
    job.timeLimitMinutes = o.timeLimitMinutes > 0
                               ? o.timeLimitMinutes
                               : static_cast<std::int64_t>(std::ceil(spec.maxRun / 60.0));
    job.gres = o.gres;
    job.constraint = o.constraint;
    job.exclusive = o.exclusive;
    job.requeue = true;
    job.workingDirectory = jobDir;
    job.standardOutput = jobDir + "/logs/slurm-%j.out";
    job.standardError = jobDir + "/logs/slurm-%j.err";
    job.environment = jobEnvironment(spec, paths, cluster);
    job.extraJson = o.extra;
    return job;
}

// Who the job runs as when that is not this process's user: slurmrestd's own user under local
// auth (a unix socket), or the user the token names. "" when it is this user.
std::string foreignJobUser(const remote::ClusterConfig& cluster) {
    if (cluster.slurm.url.rfind("unix:", 0) == 0)
        return "slurmrestd's user (local auth on a unix socket)";
    const passwd* me = ::getpwuid(::getuid());
    if (!cluster.slurm.user.empty() && me && cluster.slurm.user != me->pw_name)
        return "user " + cluster.slurm.user;
    return {};
}

// Folders writable and files readable by every user, for a job that runs as another one.
void openUp(const std::string& dir) {
    std::error_code ec;
    fs::permissions(dir, fs::perms::all, ec);
    for (auto it = fs::recursive_directory_iterator(dir, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_directory(ec))
            fs::permissions(it->path(), fs::perms::all, ec);
        else if (it->is_regular_file(ec))
            fs::permissions(it->path(),
                            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                                fs::perms::others_read,
                            fs::perm_options::add, ec);
    }
}

} // namespace

void JobRunner::launchSlurmAttempt(const Placement& placed) {
    State& s = *d;
    const remote::ClusterConfig& cluster = s.ctx.cluster;
    if (!s.slurm) {
        s.slurm = std::make_unique<SlurmFollow>();
        s.slurm->client = std::make_unique<remote::SlurmClient>(cluster, 10);
        s.slurm->jobDir = cluster.workdir + "/jobs/" + s.ctx.jobName;
    }
    SlurmFollow& f = *s.slurm;
    const bool adopt = f.requeued && f.row.jobId > 0;
    f.running = false;
    f.endedAt = 0;
    f.endState.clear();
    f.interrupted = false;
    f.requeued = false;
    f.cancelSent = 0;
    f.settleSince = 0;
    f.deferredFailure.reset();
    f.attemptBegan = wire::nowSeconds();
    m_attemptStart = 0; // the running clock starts when Slurm runs the job
    if (adopt) {
        f.row.attempt = s.attempt;
        f.restartBase = f.row.restarts;
        s.ctx.writer->upsertSlurmJob(s.ctx.id, f.row);
    } else {
        submitSlurmJob(placed);
    }
    for (std::size_t i = 0; i < placed.nodes.size(); ++i) {
        NodeLink n;
        n.plan = placed.nodes[i];
        n.host = s.ctx.hosts.at(i);
        n.launcher = s.ctx.launch.launcher; // the follower runs here, on the shared filesystem
        n.journal.node = n.plan.node;
        n.journal.attempt = s.attempt;
        n.journal.host = cluster.name;
        n.journal.path = slurmJournalPath(f.jobDir, n.plan.node, s.attempt);
        n.journal.stateSince = wire::nowSeconds();
        s.nodes.push_back(std::move(n));
    }
    for (const auto& n : s.nodes)
        s.ctx.writer->upsertJournal(s.ctx.id, n.journal);
    s.ctx.writer->flush();
    saveRunState();
    s.setStatus("InProgress", "Pending",
                rowText(f.row) + (adopt ? " requeued by Slurm" : " submitted") + " to partition " +
                    (f.row.partition.empty() ? "(the default)" : f.row.partition) + " of cluster " +
                    cluster.name);
    const double mono = process::monotonicSeconds();
    for (auto& n : s.nodes)
        startFollower(n, mono);
    f.nextPoll = mono;
}

void JobRunner::submitSlurmJob(const Placement& placed) {
    State& s = *d;
    const spec::JobSpec& spec = s.ctx.spec;
    const remote::ClusterConfig& cluster = s.ctx.cluster;
    SlurmFollow& f = *s.slurm;
    if (s.attempt > 1 && ++f.resubmits > kMaxResubmits)
        throw std::runtime_error("Slurm ended the job's run " + std::to_string(kMaxResubmits + 1) +
                                 " times (node failure or preemption); giving up");
    s.setStatus("InProgress", "Starting",
                "staging the job's files in " + f.jobDir + " on cluster " + cluster.name);
    const NodeLaunch l = stageSlurmJob(spec, cluster, f.jobDir, s.ctx.paths.spec, s.attempt);
    if (const std::string who = foreignJobUser(cluster); !who.empty()) {
        openUp(f.jobDir);
        s.logs.write(wire::nowSeconds(), 0, -1, wire::Stream::Stderr,
                     "the job runs as " + who + ": its folder " + f.jobDir +
                         " is made writable for every user");
    }
    Placement placement = placed;
    placement.masterAddr = "slurm"; // the script finds both
    placement.masterPort = 1;
    const int monitorMs = spec.profiler.disabled ? 0 : spec.profiler.systemMonitorIntervalMillis;
    SlurmScriptInput in;
    in.jobName = s.ctx.jobName;
    in.cluster = cluster.name;
    in.jobDir = f.jobDir;
    in.nodes = spec.instanceCount;
    in.ranksPerNode = spec.distribution.processesPerHost;
    in.firstAttempt = s.attempt;
    in.launcherArgv = launcherArgv(spec, placement, placement.nodes.at(0), s.ctx.jobName, l,
                                   monitorMs, s.ctx.graceSeconds);
    const std::string script = slurmBatchScript(in);
    const remote::SlurmJobRequest job =
        slurmRequest(spec, cluster, s.ctx.jobName, f.jobDir, script, l.paths);
    s.setStatus("InProgress", "Starting", "submitting to Slurm cluster " + cluster.name);
    const std::int64_t id = f.client->submit(job);
    std::ofstream(s.ctx.paths.root + "/slurm-" + std::to_string(id) + ".sh") << script;
    f.row = store::SlurmJobRow{};
    f.row.jobId = id;
    f.row.attempt = s.attempt;
    f.row.cluster = cluster.name;
    f.row.partition = job.partition;
    f.row.state = "PENDING";
    f.row.submitted = f.attemptBegan;
    f.row.updated = f.attemptBegan;
    f.row.script = script;
    f.restartBase = 0;
    s.ctx.writer->upsertSlurmJob(s.ctx.id, f.row);
}

void JobRunner::resumeSlurm() {
    State& s = *d;
    const ResumeState& r = *s.ctx.resume;
    if (!s.ctx.cluster.isSlurm() || r.slurmJobs.empty())
        return;
    s.slurm = std::make_unique<SlurmFollow>();
    SlurmFollow& f = *s.slurm;
    f.client = std::make_unique<remote::SlurmClient>(s.ctx.cluster, 10);
    f.jobDir = s.ctx.cluster.workdir + "/jobs/" + s.ctx.jobName;
    f.row = r.slurmJobs.back();
    f.restartBase = f.row.restarts;
    f.running = f.row.state == "RUNNING";
    f.attemptBegan = f.row.submitted;
    f.resubmits = static_cast<int>(r.slurmJobs.size()) - 1;
    f.nextPoll = process::monotonicSeconds();
}

void JobRunner::State::signalSlurm(int sig) {
    if (!slurm || slurm->row.jobId <= 0 || slurm->endedAt > 0)
        return;
    const int level = sig == SIGKILL ? 2 : 1;
    if (slurm->cancelSent >= level)
        return;
    slurm->cancelSent = level;
    try {
        // DELETE: SIGTERM to every step, SIGKILL after the cluster's KillWait.
        slurm->client->cancel(slurm->row.jobId, sig == SIGKILL ? "KILL" : "");
        logs.write(wire::nowSeconds(), 0, -1, wire::Stream::Stderr,
                   "asked Slurm to " + std::string(sig == SIGKILL ? "kill" : "cancel") + " " +
                       rowText(slurm->row));
    } catch (const remote::SlurmError& e) {
        if (e.kind() != remote::SlurmError::Kind::NotFound)
            logs.write(wire::nowSeconds(), 0, -1, wire::Stream::Stderr,
                       "cannot cancel " + rowText(slurm->row) + ": " + e.what());
    }
}

bool JobRunner::State::slurmEnding() {
    if (!slurm)
        return false;
    pollSlurm(true);
    return slurm->endedAt > 0 || slurm->interrupted ||
           (slurm->row.state != "RUNNING" && slurm->row.state != "PENDING");
}

bool JobRunner::State::askSlurm(bool fresh, std::optional<remote::SlurmJobInfo>& info) {
    SlurmFollow& f = *slurm;
    try {
        // Fresh when something is happening; otherwise the listing another job just fetched.
        const bool urgent = !f.running || f.endedAt > 0 || stopSent;
        info = SlurmJobsCache::instance().job(*f.client, f.row.jobId,
                                              fresh    ? 0
                                              : urgent ? 0.2
                                                       : kQuietPollSeconds - 0.1,
                                              f.row.submitted);
        if (!info) // not listed: ask for it alone before taking it for gone
            info = f.client->job(f.row.jobId);
        f.pollErrors = 0;
    } catch (const std::exception& e) {
        if (f.pollErrors++ % 30 == 0)
            logs.write(wire::nowSeconds(), 0, -1, wire::Stream::Stderr,
                       "cannot ask Slurm about " + rowText(f.row) + ": " + e.what() +
                           " (the journals are still followed)");
        return false;
    }
    return true;
}

void JobRunner::State::recordSlurmJob(const std::optional<remote::SlurmJobInfo>& info) {
    SlurmFollow& f = *slurm;
    const store::SlurmJobRow before = f.row;
    if (!info) { // gone from slurmctld (MinJobAge): it ended in the last state seen
        if (!finalState(f.row.state))
            f.row.state = f.row.state == "PENDING" ? "CANCELLED" : "COMPLETED";
    } else {
        f.row.state = info->state;
        f.row.reason = info->reason;
        f.row.nodes = info->nodes;
        f.row.restarts = info->restartCount;
        f.row.partition = info->partition.empty() ? f.row.partition : info->partition;
        if (info->startTime > 0 && info->state != "PENDING")
            f.row.started = info->startTime;
        if (finalState(info->state)) {
            f.row.ended = info->endTime;
            f.row.exitCode = info->exitCode();
        }
    }
    f.row.updated = wire::nowSeconds();
    const bool changed = f.row.state != before.state || f.row.reason != before.reason ||
                         f.row.nodes != before.nodes || f.row.restarts != before.restarts;
    if (changed)
        ctx.writer->upsertSlurmJob(ctx.id, f.row);
}

void JobRunner::State::pollSlurm(bool fresh) {
    SlurmFollow& f = *slurm;
    const double now = wire::nowSeconds();
    std::optional<remote::SlurmJobInfo> info;
    if (!askSlurm(fresh, info))
        return;
    const std::string reasonBefore = f.row.reason;
    recordSlurmJob(info);
    const std::string& st = f.row.state;
    const bool requeued = f.row.restarts > f.restartBase || st == "REQUEUED" ||
                          st == "REQUEUE_HOLD" || (f.running && st == "PENDING");
    bool stopRequestedNow;
    {
        std::lock_guard lock(mutex);
        stopRequestedNow = stopRequested;
    }
    if (requeued && !f.interrupted && !stopRequestedNow) {
        f.interrupted = true;
        f.requeued = true;
        f.endedAt = process::monotonicSeconds();
        f.endState = "REQUEUED";
        interrupting = true;
        stopSent = true; // Slurm signals the steps itself
        const std::string text = rowText(f.row) + " was requeued by Slurm (" +
                                 (f.row.reason.empty() ? "requeue" : f.row.reason) +
                                 "): the job resumes from its newest checkpoint when Slurm "
                                 "runs it again";
        logs.write(now, 0, -1, wire::Stream::Stderr, text);
        setStatus("InProgress", "Interrupted", text);
        return;
    }
    if (st == "PENDING" && !f.running && f.row.reason != reasonBefore) {
        const std::string text = rowText(f.row) + " is pending (" +
                                 (f.row.reason.empty() ? "None" : f.row.reason) +
                                 ") in partition " + f.row.partition;
        logs.write(now, 0, -1, wire::Stream::Stderr, text);
        setStatus("InProgress", "Pending", text, true);
    } else if (st == "RUNNING" && !f.running) {
        f.running = true;
        ctx.writer->addBillingSegment(
            ctx.id, store::BillingSegment{attempt, f.attemptBegan,
                                          std::max(f.attemptBegan, f.row.started), "waiting"});
        bool training;
        {
            std::lock_guard lock(mutex);
            training = secondary == "Training";
        }
        if (!training)
            setStatus("InProgress", "Starting",
                      rowText(f.row) + " runs on " + f.row.nodes + "; starting the launchers");
    }
    if (finalState(st) && f.endedAt <= 0)
        slurmRunEnded(stopRequestedNow);
}

void JobRunner::State::slurmRunEnded(bool stopRequestedNow) {
    SlurmFollow& f = *slurm;
    const std::string& st = f.row.state;
    const double now = wire::nowSeconds();
    f.endedAt = process::monotonicSeconds();
    f.endState = st;
    std::string text = rowText(f.row) + " ended " + st;
    if (!f.row.reason.empty() && f.row.reason != "None")
        text += " (" + f.row.reason + ")";
    if (f.row.exitCode)
        text += ", exit code " + std::to_string(*f.row.exitCode);
    logs.write(now, 0, -1, wire::Stream::Stderr, text);
    if (st == "NODE_FAIL" || st == "PREEMPTED") {
        if (!stopRequestedNow) {
            f.interrupted = true;
            interrupting = true;
            setStatus("InProgress", "Interrupted",
                      text + ": the job is submitted again and resumes from its newest checkpoint");
        }
    } else if (st == "TIMEOUT" && !stopRequestedNow) {
        std::lock_guard lock(mutex);
        stopRequested = true;
        stopReason = "MaxRuntimeExceeded: " + text + ": the Slurm time limit was reached";
        stopSecondary = "MaxRuntimeExceeded";
    } else if (st == "CANCELLED" && !stopRequestedNow) {
        std::lock_guard lock(mutex);
        stopRequested = true;
        stopReason = text + ": cancelled in Slurm, outside the studio";
        stopSecondary = "Stopped";
    } else if (st != "COMPLETED" && st != "CANCELLED" && !failure) {
        if (f.deferredFailure)
            failure = f.deferredFailure;
        else if (hostFailure.empty()) {
            hostFailure = text;
            hostFailureAt = wire::nowSeconds();
        }
    }
    stopSent = true; // Slurm has ended every step
}

void JobRunner::tendSlurm(double mono) {
    State& s = *d;
    if (!s.slurm || s.slurm->row.jobId <= 0)
        return;
    SlurmFollow& f = *s.slurm;
    if (mono >= f.nextPoll) {
        s.pollSlurm();
        const bool quick = !f.running || f.endedAt > 0 || s.stopping();
        f.nextPoll = mono + (quick ? 0.25 : kQuietPollSeconds);
        if (f.running && f.endedAt <= 0 && m_attemptStart <= 0) { // max_run counts from here
            m_attemptStart = f.row.started > 0 ? f.row.started : wire::nowSeconds();
            saveRunState();
        }
    }
    if (f.endedAt <= 0 || mono - f.endedAt < kDrainSeconds)
        return;
    // Slurm ended this run: a journal without its launcher's exit will get none.
    for (auto& n : s.nodes) {
        if (n.done || n.journalEnded || !n.lostReason.empty())
            continue;
        n.lostReason = rowText(f.row) + " ended " + f.endState + " before the launcher of node " +
                       std::to_string(n.plan.node) +
                       (n.ranksStarted ? " wrote its exit" : " started");
        if (n.follower.pid() > 0)
            n.follower.kill();
    }
}

bool JobRunner::slurmSettled(double mono) {
    State& s = *d;
    if (!s.slurm || s.slurm->row.jobId <= 0)
        return true;
    SlurmFollow& f = *s.slurm;
    if (f.endedAt > 0 || f.interrupted)
        return true;
    if (f.settleSince <= 0)
        f.settleSince = mono;
    if (mono - f.settleSince > kSettleSeconds)
        return true;
    if (mono >= f.nextPoll) {
        s.pollSlurm();
        f.nextPoll = mono + 0.25;
    }
    return f.endedAt > 0 || f.interrupted;
}

void JobRunner::fetchSlurmOutputs() {
    State& s = *d;
    if (!s.slurm)
        return;
    for (const auto& [dir, local] : broughtBack(s.ctx.paths)) {
        const std::string from = s.slurm->jobDir + "/" + dir;
        std::error_code ec;
        if (!fs::exists(from, ec))
            continue;
        fs::create_directories(local, ec);
        fs::copy(from, local,
                 fs::copy_options::recursive | fs::copy_options::overwrite_existing |
                     fs::copy_options::copy_symlinks,
                 ec);
        if (ec)
            s.logs.write(wire::nowSeconds(), 0, -1, wire::Stream::Stderr,
                         "cannot bring back " + from + ": " + ec.message());
    }
}

} // namespace studio::control
