// Starting an attempt's launchers: on this machine, or on the hosts of a cluster after checking
// their launchers and staging the job's files; and taking over a job another studio started.
#include "engine/control/job_runner_state.h"
#include "engine/process/process.h"
#include "engine/process/process_identity.h"
#include "engine/remote/cluster_check.h"
#include "engine/remote/host_facts.h"
#include "engine/remote/staging.h"
#include "engine/spec/mpi_launch.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <unistd.h>

namespace studio::control {

namespace fs = std::filesystem;

namespace {

// One journal per node and attempt (a spot job's next attempt starts a new one).
std::string journalPath(const std::string& jobDir, int node, int attempt) {
    return jobDir + "/logs/node-" + std::to_string(node) + "/journal" +
           (attempt > 1 ? "." + std::to_string(attempt) : std::string()) + ".jsonl";
}

// Runs f(i) for every i on its own thread; the errors, joined, become one exception.
template <typename F>
void forEachInParallel(std::size_t n, F f) {
    std::vector<std::string> errors(n);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < n; ++i)
        threads.emplace_back([&, i] {
            try {
                f(i);
            } catch (const std::exception& e) {
                errors[i] = e.what();
            }
        });
    for (auto& t : threads)
        t.join();
    std::string all;
    for (const auto& e : errors)
        if (!e.empty())
            all += (all.empty() ? "" : "; ") + e;
    if (!all.empty())
        throw std::runtime_error(all);
}

// The host's facts, after checking that it answers and runs this studio's launcher.
remote::HostFacts probeHost(remote::HostExecutor& host, const remote::ClusterConfig& cluster,
                            std::size_t index, double timeout) {
    if (std::string e = host.connect(timeout); !e.empty())
        throw std::runtime_error(e);
    const std::string launcher = cluster.program("studio-launcher");
    const remote::CommandResult v = remote::runOnHost(host, {launcher, "--version"}, timeout);
    const std::string version = remote::findVersionLine(v.out);
    if (version.empty())
        throw std::runtime_error("host " + host.label() + ": cannot run " + launcher + " (" +
                                 v.describe() + "): install the studio's launcher there");
    if (version != remote::launcherVersionLine())
        throw std::runtime_error(remote::versionMismatch(host.label(), version, cluster));
    std::vector<std::string> probe = {launcher, "probe", "--workdir", cluster.workdirFor(index)};
    if (index == 0)
        probe.push_back("--free-port");
    const remote::CommandResult p = remote::runOnHost(host, probe, timeout);
    auto facts = remote::parseHostFacts(p.out);
    if (!p.ok() || !facts || facts->workdir.empty())
        throw std::runtime_error("host " + host.label() + ": the probe failed: " + p.describe());
    return *facts;
}

// distribution.mpi on this machine: mpirun must be here before any launcher starts.
void requireLocalMpirun() {
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/bin:/bin";
    for (std::size_t at = 0; at <= dirs.size();) {
        const std::size_t end = std::min(dirs.find(':', at), dirs.size());
        const std::string dir = dirs.substr(at, end - at);
        if (!dir.empty() && ::access((dir + "/mpirun").c_str(), X_OK) == 0)
            return;
        at = end + 1;
    }
    throw std::runtime_error("distribution.mpi: mpirun is not installed on this machine; a script "
                             "with mpi enabled runs under Open MPI (install Debian's openmpi-bin, "
                             "which packaging/studio.sh installs)");
}

} // namespace

std::vector<std::pair<std::string, std::string>> broughtBack(const JobPaths& paths) {
    return {{"model", paths.model}, {"output", paths.output}, {"debug-output", paths.debugOutput}};
}

LaunchPaths clusterJobPaths(const spec::JobSpec& spec, const remote::ClusterConfig& cluster,
                            const std::string& jobDir) {
    LaunchPaths p;
    p.launcher = cluster.program("studio-launcher");
    p.trainer = cluster.program("studio-train");
    p.modelDir = jobDir + "/model";
    p.outputDir = jobDir + "/output";
    p.debugOutputDir = jobDir + "/debug-output";
    p.checkpointDir =
        spec.checkpointLocalPath.empty() ? jobDir + "/checkpoints" : spec.checkpointLocalPath;
    return p;
}

// The rank command as the host runs it: the staged spec for the trainer, the script relative
// to the staged source folder.
std::vector<std::string> stagedRankCommand(const spec::JobSpec& spec, const LaunchPaths& paths,
                                           const std::string& cluster) {
    if (spec.isBuiltin())
        return rankCommand(spec, paths);
    std::vector<std::string> cmd = spec.command();
    if (spec.entryPoint.kind == spec::EntryKind::Script) {
        const fs::path rel = fs::path(spec.entryPoint.script).lexically_relative(spec.sourceDir);
        if (rel.empty() || *rel.begin() == "..")
            throw std::runtime_error("entry_point: the script " + spec.entryPoint.script +
                                     " is outside source_dir " + spec.sourceDir +
                                     ", and only source_dir is shipped to the hosts of cluster " +
                                     cluster);
        cmd.back() = rel.string();
    }
    for (auto& a : spec.hyperparameterArgs())
        cmd.push_back(std::move(a));
    return cmd;
}

void JobRunner::launchAttempt() {
    State& s = *d;
    const spec::JobSpec& spec = s.ctx.spec;
    s.nodes.clear();
    s.ranks.clear();
    s.stopSent = false;
    s.killAt = 0;
    s.interrupting = false;
    s.trainingStarted = false;
    s.ranksStartedAt = 0;
    s.marketArmed = false;
    s.attemptMaxStep = -1;
    m_attemptStart = wire::nowSeconds();
    s.manualNotices.attemptStarted(s.attempt, m_attemptStart);
    s.imdsNotices.attemptStarted(s.attempt, m_attemptStart);
    Placement placement = placeJob(spec, 0);
    if (s.ctx.cluster.isSlurm()) {
        launchSlurmAttempt(placement);
        return;
    }
    std::vector<NodeLaunch> launches;
    if (s.ctx.cluster.isLocal()) {
        if (spec::rankLauncher(spec).mpirun)
            requireLocalMpirun();
        placement.masterPort = process::freeTcpPort();
        for (const auto& node : placement.nodes) {
            NodeLaunch l = localLaunch(spec, s.ctx.launch);
            l.journal = journalPath(s.ctx.paths.root, node.node, s.attempt);
            l.imdsEndpoint = s.ctx.imdsEndpoint;
            launches.push_back(std::move(l));
        }
    } else {
        s.setStatus("InProgress", "Starting",
                    "connecting to " + std::to_string(placement.nodes.size()) +
                        " host(s) of cluster " + s.ctx.cluster.name);
        launches = prepareHosts(placement);
    }
    for (std::size_t i = 0; i < placement.nodes.size(); ++i) {
        NodeLink n;
        n.plan = placement.nodes[i];
        n.host = s.ctx.hosts.at(i);
        n.launcher = launches[i].paths.launcher;
        if (n.host->isRemote())
            n.remoteJobDir =
                fs::path(launches[i].journal).parent_path().parent_path().parent_path();
        n.journal.node = n.plan.node;
        n.journal.attempt = s.attempt;
        n.journal.host = n.host->label();
        n.journal.path = launches[i].journal;
        n.journal.stateSince = wire::nowSeconds();
        s.nodes.push_back(std::move(n));
    }
    saveRunState();
    startLaunchers(placement, launches);
    const double mono = process::monotonicSeconds();
    for (auto& n : s.nodes)
        startFollower(n, mono);
}

std::vector<NodeLaunch> JobRunner::prepareHosts(Placement& placement) {
    State& s = *d;
    const spec::JobSpec& spec = s.ctx.spec;
    const remote::ClusterConfig& cluster = s.ctx.cluster;
    const double timeout = s.ctx.commandTimeoutSeconds;
    const std::size_t n = placement.nodes.size();
    std::vector<remote::HostFacts> facts(n);
    forEachInParallel(
        n, [&](std::size_t i) { facts[i] = probeHost(*s.ctx.hosts[i], cluster, i, timeout); });
    placement.masterAddr = !cluster.rendezvousAddress.empty()   ? cluster.rendezvousAddress
                           : !facts[0].sshServerAddress.empty() ? facts[0].sshServerAddress
                                                                : cluster.hosts[0].host;
    placement.masterPort = facts[0].freePort;
    if (placement.masterPort <= 0)
        throw std::runtime_error("host " + s.ctx.hosts[0]->label() +
                                 ": found no free port for the rendezvous");

    // What each host gets, hashed once: the spec (for the trainer), the code, local inputs.
    s.setStatus("InProgress", "Starting", "staging the job's files on cluster " + cluster.name);
    std::vector<std::string> locals;
    if (spec.isBuiltin())
        locals.push_back(s.ctx.paths.spec);
    else
        locals.push_back(spec.sourceDir);
    for (const auto& [channel, path] : spec.inputs)
        locals.push_back(path);
    std::vector<remote::StageItem> planned;
    for (const auto& l : locals)
        planned.push_back(remote::planStage(l, ""));
    std::vector<NodeLaunch> launches(n);
    forEachInParallel(n, [&](std::size_t i) {
        const std::string work = facts[i].workdir;
        std::vector<remote::StageItem> items = planned;
        for (auto& item : items)
            item.remote = work + "/cache" + item.remote;
        remote::stageItems(*s.ctx.hosts[i], cluster.program("studio-launcher"), items,
                           std::max(timeout, 600.0));
        const std::string job = work + "/jobs/" + s.ctx.jobName;
        NodeLaunch& l = launches[i];
        l.paths = clusterJobPaths(spec, cluster, job);
        std::size_t next = 0;
        if (spec.isBuiltin()) {
            l.paths.specFile = items[next++].remotePath();
            l.workdir = job;
        } else {
            l.sourceFrom = items[next++].remotePath();
            l.workdir = job + "/code";
        }
        for (const auto& [channel, path] : spec.inputs)
            l.channels[channel] = items[next++].remotePath();
        l.rankCommand = stagedRankCommand(spec, l.paths, cluster.name);
        if ((l.mpi = spec::rankLauncher(spec).mpirun)) {
            for (const auto& h : cluster.hosts)
                l.mpiHosts.push_back(h.host);
            l.mpiSshConfig = mpiSshConfig(cluster);
        }
        l.journal = journalPath(job, placement.nodes[i].node, s.attempt);
        l.socketIfname = cluster.socketIfname.empty() ? "auto" : cluster.socketIfname;
        l.imdsEndpoint = s.ctx.imdsEndpoint;
    });
    return launches;
}

void JobRunner::startLaunchers(const Placement& placement,
                               const std::vector<NodeLaunch>& launches) {
    State& s = *d;
    const spec::JobSpec& spec = s.ctx.spec;
    const int monitorMs = spec.profiler.disabled ? 0 : spec.profiler.systemMonitorIntervalMillis;
    for (const auto& n : s.nodes)
        s.ctx.writer->upsertJournal(s.ctx.id, n.journal);
    s.ctx.writer->flush();                 // a launcher never runs without its journal on record
    std::vector<std::string> environments; // per node: each host has its own folders
    for (const auto& l : launches)
        environments.push_back(launcherEnvironment(spec, l.paths, s.ctx.secrets));
    try {
        forEachInParallel(s.nodes.size(), [&](std::size_t i) {
            NodeLink& n = s.nodes[i];
            const auto argv = launcherArgv(spec, placement, n.plan, s.ctx.jobName, launches[i],
                                           monitorMs, s.ctx.graceSeconds);
            const remote::CommandResult r =
                remote::runOnHost(*n.host, argv, s.ctx.commandTimeoutSeconds, environments[i]);
            const auto brace = r.out.rfind("\n{", r.out.size() > 1 ? r.out.size() - 2 : 0);
            auto j = nlohmann::json::parse(r.out.substr(brace == std::string::npos ? 0 : brace + 1),
                                           nullptr, false);
            if (!r.ok() || !j.is_object() || !j.contains("pid"))
                throw std::runtime_error("host " + n.host->label() + ": the launcher of node " +
                                         std::to_string(n.plan.node) +
                                         " did not start: " + r.describe());
            n.journal.launcherPid = j.value("pid", std::int64_t{0});
            n.journal.launcherStart = j.value("start", "");
        });
    } catch (const std::exception&) {
        // No job is left half-started: the launchers that did start are killed.
        for (auto& n : s.nodes) {
            if (n.journal.launcherPid > 0)
                s.signalNode(n, SIGKILL);
            s.ctx.writer->upsertJournal(s.ctx.id, n.journal);
        }
        for (auto& n : s.nodes)
            for (auto& c : n.commands)
                c.waitFor(static_cast<int>(s.ctx.commandTimeoutSeconds * 1000));
        throw;
    }
    for (const auto& n : s.nodes)
        s.ctx.writer->upsertJournal(s.ctx.id, n.journal);
}

void JobRunner::resumeNodes() {
    State& s = *d;
    const ResumeState& r = *s.ctx.resume;
    const RunState& st = r.state;
    s.attempt = st.attempt;
    m_jobStart = st.jobStart > 0 ? st.jobStart : m_jobStart;
    m_attemptStart = st.attemptStart;
    m_runningBefore = st.runningBefore;
    s.trainingStarted = st.trainingStarted;
    s.startedRecorded = st.startedRecorded;
    s.ranksStartedAt = st.ranksStartedAt;
    s.lastCheckpointStep = st.lastCheckpointStep;
    s.lostSteps = st.lostSteps;
    s.logs.resume(r.logs);
    s.metrics.resumeAfter(r.metricLastSteps);
    for (const auto& rank : r.ranks)
        s.ranks[rank.rank] = rank;
    const Placement placement = placeJob(s.ctx.spec, 0);
    for (const auto& j : r.journals) {
        if (j.node < 0 || j.node >= static_cast<int>(placement.nodes.size()))
            continue;
        NodeLink n;
        n.plan = placement.nodes[static_cast<std::size_t>(j.node)];
        n.host = s.ctx.hosts.at(static_cast<std::size_t>(j.node));
        n.launcher =
            n.host->isRemote() ? s.ctx.cluster.program("studio-launcher") : s.ctx.launch.launcher;
        if (n.host->isRemote())
            n.remoteJobDir = fs::path(j.path).parent_path().parent_path().parent_path();
        n.journal = j;
        for (const auto& row : r.nodes)
            if (row.node == j.node)
                n.row = row;
        // A row without a start time is a rank's device that came before "ranks_started".
        n.ranksStarted = std::any_of(r.ranks.begin(), r.ranks.end(), [&](const store::RankRow& x) {
            return x.node == j.node && x.started > 0;
        });
        if (j.state == "ended") {
            n.done = true;
            n.journalEnded = true;
        }
        s.nodes.push_back(std::move(n));
    }
    resumeSlurm();
    s.setStatus("InProgress", st.secondary.empty() ? "Training" : st.secondary,
                "taken over: following the job again from its journals");
    if (r.stopping) // finish what the studio that went away had started
        requestStop("Stopped by user", "Stopped");
    const double mono = process::monotonicSeconds();
    for (auto& n : s.nodes)
        if (!n.done)
            startFollower(n, mono);
}

void JobRunner::fetchOutputs() {
    State& s = *d;
    // Node 0 last: where two nodes wrote the same file, the leader's copy is kept.
    for (auto it = s.nodes.rbegin(); it != s.nodes.rend(); ++it) {
        NodeLink& n = *it;
        if (!n.host->isRemote() || n.remoteJobDir.empty() || !n.lostReason.empty())
            continue;
        for (const auto& [dir, local] : broughtBack(s.ctx.paths)) {
            try {
                remote::fetchFolder(*n.host, n.launcher, n.remoteJobDir + "/" + dir, local, 600);
            } catch (const std::exception& e) {
                s.logs.write(wire::nowSeconds(), n.plan.node, -1, wire::Stream::Stderr,
                             std::string("cannot bring back ") + dir + ": " + e.what());
            }
        }
    }
}

} // namespace studio::control
