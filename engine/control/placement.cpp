#include "engine/control/placement.h"

#include "engine/debugger/hook_config_json.h"

#include "engine/spec/mpi_launch.h"

#include <nlohmann/json.hpp>

namespace studio::control {

Placement placeJob(const spec::JobSpec& spec, int masterPort) {
    Placement p;
    p.masterPort = masterPort;
    p.worldSize = spec.worldSize();
    const int ppn = spec.distribution.processesPerHost;
    for (int n = 0; n < spec.instanceCount; ++n) {
        NodePlan node;
        node.node = n;
        node.host = "algo-" + std::to_string(n + 1);
        for (int l = 0; l < ppn; ++l)
            node.ranks.push_back(n * ppn + l);
        p.nodes.push_back(std::move(node));
    }
    return p;
}

std::vector<std::string> rankCommand(const spec::JobSpec& spec, const LaunchPaths& paths) {
    if (spec.isBuiltin())
        return {paths.trainer, "--spec", paths.specFile};
    std::vector<std::string> cmd = spec.command();
    for (auto& a : spec.hyperparameterArgs())
        cmd.push_back(std::move(a));
    return cmd;
}

namespace {

// distribution.mpi: the launcher's --mpi flags; "--mpi-arg=VALUE", so that a value starting
// with "-" is not taken for a flag.
void addMpiArgs(const spec::JobSpec& spec, const NodeLaunch& launch,
                std::vector<std::string>& argv) {
    argv.push_back("--mpi");
    for (const auto& h : launch.mpiHosts)
        argv.insert(argv.end(), {"--mpi-host", h});
    if (!launch.mpiSshConfig.empty())
        argv.insert(argv.end(), {"--mpi-ssh-config", launch.mpiSshConfig});
    for (auto& a : spec::splitMpiOptions(spec.distribution.customMpiOptions)
                       .value_or(std::vector<std::string>{}))
        argv.push_back("--mpi-arg=" + a);
}

} // namespace

NodeLaunch localLaunch(const spec::JobSpec& spec, const LaunchPaths& paths) {
    NodeLaunch l;
    l.mpi = spec::rankLauncher(spec).mpirun;
    l.paths = paths;
    l.workdir = spec.sourceDir;
    l.channels = spec.inputs;
    l.rankCommand = rankCommand(spec, paths);
    return l;
}

std::vector<std::string> launcherArgv(const spec::JobSpec& spec, const Placement& placement,
                                      const NodePlan& node, const std::string& jobName,
                                      const LaunchPaths& paths, int monitorIntervalMs,
                                      double gracePeriodSeconds) {
    return launcherArgv(spec, placement, node, jobName, localLaunch(spec, paths), monitorIntervalMs,
                        gracePeriodSeconds);
}

std::vector<std::string> launcherArgv(const spec::JobSpec& spec, const Placement& placement,
                                      const NodePlan& node, const std::string& jobName,
                                      const NodeLaunch& launch, int monitorIntervalMs,
                                      double gracePeriodSeconds) {
    const LaunchPaths& paths = launch.paths;
    std::vector<std::string> argv = {
        paths.launcher,
        "--nnodes",
        std::to_string(placement.nodes.size()),
        "--node-rank",
        std::to_string(node.node),
        "--nproc-per-node",
        std::to_string(node.ranks.size()),
        "--master-addr",
        placement.masterAddr,
        "--master-port",
        std::to_string(placement.masterPort),
        "--run-id",
        jobName,
        "--monitor-interval-ms",
        std::to_string(monitorIntervalMs),
        "--grace-period-s",
        std::to_string(gracePeriodSeconds),
        "--model-dir",
        paths.modelDir,
        "--output-data-dir",
        paths.outputDir,
        "--checkpoint-dir",
        paths.checkpointDir,
        "--workdir",
        launch.workdir,
    };
    const auto add = [&argv](const char* flag, const std::string& value) {
        argv.push_back(flag);
        argv.push_back(value);
    };
    if (!launch.sourceFrom.empty())
        add("--source-from", launch.sourceFrom);
    if (!launch.socketIfname.empty())
        add("--socket-ifname", launch.socketIfname);
    if (!launch.imdsEndpoint.empty())
        add("--imds-endpoint", launch.imdsEndpoint);
    if (!spec.tensorboardLocalPath.empty()) // used on the hosts where the folder exists
        add("--tensorboard-dir", spec.tensorboardLocalPath);
    if (!launch.journal.empty()) {
        add("--journal", launch.journal);
        argv.push_back("--detach");
    }
    for (const auto& n : placement.nodes)
        add("--host", n.host);
    if (launch.mpi)
        addMpiArgs(spec, launch, argv);
    nlohmann::json hps = nlohmann::json::object();
    for (const auto& [k, v] : spec.hyperparameters) {
        if (v.isBool)
            hps[k] = v.text == "true";
        else if (v.number && v.text.find_first_not_of("0123456789.eE+-") == std::string::npos)
            hps[k] = *v.number;
        else
            hps[k] = v.text;
    }
    add("--hps", hps.dump());
    add("--user-args", nlohmann::json(spec.hyperparameterArgs()).dump());
    for (const auto& [ch, path] : launch.channels)
        add("--channel", ch + "=" + path);
    argv.push_back("--env-stdin"); // launcherEnvironment(): values stay off command lines
    argv.push_back("--");
    for (const auto& a : launch.rankCommand)
        argv.push_back(a);
    return argv;
}

std::string launcherEnvironment(const spec::JobSpec& spec, const LaunchPaths& paths,
                                const std::map<std::string, std::string>& secrets) {
    nlohmann::json env = nlohmann::json::object();
    if (!paths.debugOutputDir.empty())
        env["STUDIO_DEBUG_OUTPUT_DIR"] = paths.debugOutputDir;
    // The launcher writes it to a file for the script's Python hook (launcher/rank_python.h).
    if (std::string hook = debugger::scriptHookConfigJson(spec, paths.debugOutputDir);
        !hook.empty())
        env["STUDIO_DEBUG_HOOK_CONFIG_JSON"] = std::move(hook);
    for (const auto& [k, v] : spec.environment)
        env[k] = v;
    for (const auto& [name, from] : spec.secretEnvironment) {
        auto it = secrets.find(name);
        if (it == secrets.end())
            throw std::runtime_error("environment." + name + ": the secret comes from $" + from +
                                     ", which is not set in the environment of the studio "
                                     "process running this job");
        env[name] = it->second;
    }
    return env.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace studio::control

namespace studio::control {

namespace {

// A value as ssh_config reads it: in double quotes when it has a space.
std::string sshValue(const std::string& value, const std::string& field,
                     const std::string& cluster) {
    if (value.find_first_of("\n\r\"") != std::string::npos)
        throw std::runtime_error("cluster " + cluster + ": " + field +
                                 " has a newline or double quote, which mpirun's SSH launch "
                                 "cannot carry");
    return value.find_first_of(" \t") == std::string::npos ? value : "\"" + value + "\"";
}

} // namespace

std::string mpiSshConfig(const remote::ClusterConfig& cluster) {
    std::string out = "# mpirun's SSH launch between the hosts of cluster " + cluster.name + "\n";
    for (const auto& h : cluster.hosts) {
        out += "Host " + sshValue(h.host, "hosts", cluster.name) + "\n";
        out += "  Port " + std::to_string(h.port) + "\n";
        if (!h.user.empty())
            out += "  User " + sshValue(h.user, "hosts", cluster.name) + "\n";
    }
    out += "Host *\n  BatchMode yes\n  ConnectTimeout 20\n  LogLevel ERROR\n";
    // The hosts of one cluster trust each other on first use, as SageMaker's do.
    out += "  StrictHostKeyChecking accept-new\n";
    if (!cluster.identityFile.empty())
        out += "  IdentityFile " + sshValue(cluster.identityFile, "identity", cluster.name) + "\n";
    if (!cluster.knownHostsFile.empty())
        out += "  UserKnownHostsFile " +
               sshValue(cluster.knownHostsFile, "known_hosts", cluster.name) + "\n";
    return out;
}

} // namespace studio::control
