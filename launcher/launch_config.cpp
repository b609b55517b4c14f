#include "launcher/launch_config.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <stdexcept>

namespace studio::launcher {

namespace {

std::pair<std::string, std::string> splitAssignment(const std::string& flag,
                                                    const std::string& kv) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
        throw std::invalid_argument(flag + " " + kv + ": expected NAME=VALUE");
    return {kv.substr(0, eq), kv.substr(eq + 1)};
}

struct Parser {
    CLI::App app{"studio-launcher: runs the ranks of one node of an ML Studio job (torchrun-"
                 "compatible), relaying their output and events as JSON lines on stdout.",
                 "studio-launcher"};
    LaunchConfig c;
    std::vector<std::string> channels, envs, hosts;
    std::string userArgs;

    Parser() {
        app.add_option("--nnodes", c.nnodes, "number of nodes")->check(CLI::PositiveNumber);
        app.add_option("--node-rank,--node_rank", c.nodeRank, "this node's rank")
            ->check(CLI::NonNegativeNumber);
        app.add_option("--nproc-per-node,--nproc_per_node", c.nprocPerNode, "ranks on this node")
            ->check(CLI::PositiveNumber);
        app.add_option("--master-addr,--master_addr", c.masterAddr, "address of rank 0's host");
        app.add_option("--master-port,--master_port", c.masterPort, "port of the rendezvous store")
            ->check(CLI::Range(1, 65535));
        app.add_option("--run-id,--rdzv-id", c.runId, "job id (TORCHELASTIC_RUN_ID)");
        app.add_option("--monitor-interval-ms", c.monitorIntervalMs,
                       "system sampling interval in ms, 0 to disable")
            ->check(CLI::NonNegativeNumber);
        app.add_option("--grace-period-s", c.gracePeriodSeconds,
                       "seconds between SIGTERM and SIGKILL when ranks are stopped")
            ->check(CLI::NonNegativeNumber);
        app.add_option_function<std::string>(
               "--bind-cores", [this](const std::string& v) { c.bindCores = v == "auto"; },
               "auto: give each local rank its own share of this node's CPUs (as MPI binds "
               "ranks to cores), none: leave placement to the scheduler")
            ->check(CLI::IsMember({"auto", "none"}));
        app.add_option("--host", hosts, "host names of all nodes in order (SM_HOSTS)");
        app.add_option("--model-dir", c.modelDir, "SM_MODEL_DIR");
        app.add_option("--output-data-dir", c.outputDataDir, "SM_OUTPUT_DATA_DIR");
        app.add_option("--checkpoint-dir", c.checkpointDir, "SM_CHECKPOINT_DIR");
        app.add_option("--tensorboard-dir", c.tensorboardDir,
                       "SM_TENSORBOARD_DIR when it exists on this host (else "
                       "SM_OUTPUT_DATA_DIR/tensorboard); ranks' TensorBoard scalars in both "
                       "become their metrics");
        app.add_option("--channel", channels, "input channel NAME=PATH (SM_CHANNEL_<NAME>)");
        app.add_option("--hps", c.hyperparametersJson, "hyperparameters as a JSON object (SM_HPS)");
        app.add_option("--user-args", userArgs, "the script's arguments as a JSON array");
        app.add_option("--env", envs, "NAME=VALUE set for every rank");
        app.add_flag("--env-stdin", c.envFromStdin,
                     "read more NAME: VALUE pairs as a JSON object from stdin: values that must "
                     "not show on a command line");
        app.add_flag("--slurm", c.slurm,
                     "run as one task of srun: the node's rank is $SLURM_NODEID, and %n in "
                     "--journal becomes it");
        app.add_option("--workdir", c.workdir, "working directory of the ranks");
        app.add_option("--imds-endpoint", c.imdsEndpoint,
                       "spot: poll this EC2 instance metadata endpoint (IMDSv2) for interruption "
                       "notices, e.g. http://169.254.169.254");
        app.add_option("--imds-interval-s", c.imdsIntervalSeconds,
                       "seconds between two polls of the instance metadata endpoint")
            ->check(CLI::PositiveNumber);
        app.add_option("--journal", c.journal,
                       "append events to this file instead of writing them to stdout");
        app.add_flag("--detach", c.detach,
                     "run in a session of its own (needs --journal); prints {pid, start} and "
                     "returns at once");
        app.add_option("--source-from", c.sourceFrom,
                       "copy this folder to --workdir (when missing) before the ranks start");
        app.add_option("--socket-ifname", c.socketIfname,
                       "GLOO_SOCKET_IFNAME and NCCL_SOCKET_IFNAME of the ranks; auto: the "
                       "interface that reaches --master-addr");
        app.add_flag("--mpi", c.mpi,
                     "run the job's ranks under Open MPI's mpirun: node 0 runs it for every "
                     "node, and each node's launcher serves the ranks mpirun starts on its host");
        app.add_option("--mpi-host", c.mpiHosts,
                       "each node's host as mpirun reaches it, in node order (node 0; default: "
                       "localhost, or the Slurm allocation's hosts with --slurm)");
        app.add_option("--mpi-arg", c.mpiArgs, "one more argument for mpirun (custom_mpi_options)")
            ->allow_extra_args(false);
        app.add_option("--mpi-ssh-config", c.mpiSshConfig,
                       "ssh_config text for mpirun's SSH launch of its daemons on the other hosts");
        app.add_option("--mpi-wait-s", c.mpiWaitSeconds,
                       "seconds for mpirun's ranks on this host to reach the launcher")
            ->check(CLI::PositiveNumber);
        app.footer("The rank command follows \"--\": studio-launcher [options] -- command args...");
    }
};

} // namespace

void addEnvironmentJson(const std::string& json, LaunchConfig& c) {
    const auto j = nlohmann::json::parse(json, nullptr, false);
    if (!j.is_object())
        throw std::invalid_argument("--env-stdin: expected a JSON object of strings on stdin");
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (!it->is_string() || it.key().empty() || it.key().find('=') != std::string::npos)
            throw std::invalid_argument("--env-stdin: \"" + it.key().substr(0, 80) +
                                        "\" must be a variable name with a string value");
        c.env[it.key()] = it->get<std::string>();
    }
}

LaunchConfig parseLaunchArgs(const std::vector<std::string>& args) {
    Parser p;
    // Everything after the first "--" is the rank command, passed through untouched.
    auto dashes = std::find(args.begin(), args.end(), "--");
    std::vector<std::string> reversed(std::make_reverse_iterator(dashes), args.rend());
    if (dashes != args.end())
        p.c.command.assign(dashes + 1, args.end());
    try {
        p.app.parse(reversed);
    } catch (const CLI::CallForHelp&) {
        throw std::invalid_argument(p.app.help());
    } catch (const CLI::ParseError& e) {
        throw std::invalid_argument(e.what());
    }
    LaunchConfig& c = p.c;
    if (c.command.empty())
        throw std::invalid_argument("no rank command: give it after \"--\"\n\n" + p.app.help());
    if (c.slurm)
        applySlurmTask(c, std::getenv("SLURM_NODEID"));
    if (c.nodeRank >= c.nnodes)
        throw std::invalid_argument("--node-rank " + std::to_string(c.nodeRank) +
                                    " must be below --nnodes " + std::to_string(c.nnodes));
    for (const auto& kv : p.channels)
        c.channels.insert(splitAssignment("--channel", kv));
    for (const auto& kv : p.envs)
        c.env.insert(splitAssignment("--env", kv));
    c.hosts = p.hosts;
    if (!c.hosts.empty() && static_cast<int>(c.hosts.size()) != c.nnodes)
        throw std::invalid_argument("--host given " + std::to_string(c.hosts.size()) +
                                    " times for " + std::to_string(c.nnodes) + " nodes");
    if (!c.mpiHosts.empty() && static_cast<int>(c.mpiHosts.size()) != c.nnodes)
        throw std::invalid_argument("--mpi-host given " + std::to_string(c.mpiHosts.size()) +
                                    " times for " + std::to_string(c.nnodes) + " nodes");
    if (!c.mpi && (!c.mpiHosts.empty() || !c.mpiArgs.empty() || !c.mpiSshConfig.empty()))
        throw std::invalid_argument("--mpi-host, --mpi-arg and --mpi-ssh-config need --mpi");
    if (c.detach && c.journal.empty())
        throw std::invalid_argument("--detach needs --journal FILE: a detached launcher has no "
                                    "stdout to write events to");
    if (!c.sourceFrom.empty() && c.workdir.empty())
        throw std::invalid_argument("--source-from needs --workdir, the folder to copy it to");
    if (!nlohmann::json::parse(c.hyperparametersJson, nullptr, false).is_object())
        throw std::invalid_argument("--hps: expected a JSON object");
    if (!p.userArgs.empty()) {
        auto a = nlohmann::json::parse(p.userArgs, nullptr, false);
        if (!a.is_array())
            throw std::invalid_argument("--user-args: expected a JSON array of strings");
        for (const auto& s : a)
            c.userArgs.push_back(s.is_string() ? s.get<std::string>() : s.dump());
    }
    return c;
}

void applySlurmTask(LaunchConfig& c, const char* nodeId) {
    const std::string text = nodeId ? nodeId : "";
    if (text.empty() || text.size() > 6 ||
        text.find_first_not_of("0123456789") != std::string::npos)
        throw std::invalid_argument("--slurm: SLURM_NODEID must be a node number, got \"" +
                                    text.substr(0, 20) +
                                    "\" (start the launcher with srun, inside a Slurm job)");
    c.nodeRank = std::stoi(text);
    for (auto at = c.journal.find("%n"); at != std::string::npos;
         at = c.journal.find("%n", at + text.size()))
        c.journal.replace(at, 2, text);
}

std::string launcherUsage() {
    return Parser().app.help();
}

} // namespace studio::launcher
