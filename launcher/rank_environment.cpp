#include "launcher/rank_environment.h"

#include "engine/process/python_root.h"
#include "launcher/rank_python.h"

#include <sched.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cctype>

namespace studio::launcher {

std::string LaunchConfig::currentHost() const {
    if (nodeRank < static_cast<int>(hosts.size()))
        return hosts[static_cast<std::size_t>(nodeRank)];
    return "algo-" + std::to_string(nodeRank + 1);
}

std::vector<int> rankCpus(const std::vector<int>& available, int nproc, int localRank) {
    const int count = static_cast<int>(available.size());
    if (nproc < 2 || count < nproc)
        return {};
    const int share = count / nproc;
    return std::vector<int>(available.begin() + localRank * share,
                            available.begin() + (localRank + 1) * share);
}

std::string envName(const std::string& name) {
    std::string out;
    for (char c : name)
        out.push_back(std::isalnum(static_cast<unsigned char>(c))
                          ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
                          : '_');
    return out;
}

namespace {

using nlohmann::json;
using Environment = std::map<std::string, std::string>;

// torchrun's variables (torch.distributed.elastic local agent).
void addTorchrunVariables(Environment& env, const LaunchConfig& c, int localRank) {
    const int rank = c.nodeRank * c.nprocPerNode + localRank;
    const std::string world = std::to_string(c.worldSize());
    env["RANK"] = std::to_string(rank);
    env["LOCAL_RANK"] = std::to_string(localRank);
    env["GROUP_RANK"] = std::to_string(c.nodeRank);
    env["ROLE_RANK"] = std::to_string(rank);
    env["ROLE_NAME"] = "default";
    env["LOCAL_WORLD_SIZE"] = std::to_string(c.nprocPerNode);
    env["WORLD_SIZE"] = world;
    env["GROUP_WORLD_SIZE"] = std::to_string(c.nnodes);
    env["ROLE_WORLD_SIZE"] = world;
    env["MASTER_ADDR"] = c.masterAddr;
    env["MASTER_PORT"] = std::to_string(c.masterPort);
    env["TORCHELASTIC_RUN_ID"] = c.runId;
    env["TORCHELASTIC_RESTART_COUNT"] = "0";
    env["TORCHELASTIC_MAX_RESTARTS"] = "0";
    env["TORCHELASTIC_USE_AGENT_STORE"] = "False";
    env["NCCL_ASYNC_ERROR_HANDLING"] = "1";       // the name LibTorch 1.13 reads
    env["TORCH_NCCL_ASYNC_ERROR_HANDLING"] = "1"; // and 2.x
    if (c.nprocPerNode > 1 && !env.count("OMP_NUM_THREADS"))
        env["OMP_NUM_THREADS"] = "1";
}

// The SageMaker training toolkit's SM_* variables.
void addSageMakerVariables(Environment& env, const LaunchConfig& c, const NodeResources& node) {
    json hosts = json::array();
    for (int i = 0; i < c.nnodes; ++i)
        hosts.push_back(i < static_cast<int>(c.hosts.size()) ? c.hosts[static_cast<std::size_t>(i)]
                                                             : "algo-" + std::to_string(i + 1));
    env["SM_HOSTS"] = hosts.dump();
    env["SM_CURRENT_HOST"] = c.currentHost();
    env["SM_NUM_GPUS"] = std::to_string(node.gpus);
    env["SM_NUM_CPUS"] = std::to_string(node.cpus);
    env["SM_LOG_LEVEL"] = "20";
    if (!c.modelDir.empty())
        env["SM_MODEL_DIR"] = c.modelDir;
    if (!c.outputDataDir.empty())
        env["SM_OUTPUT_DATA_DIR"] = c.outputDataDir;
    if (!c.checkpointDir.empty())
        env["SM_CHECKPOINT_DIR"] = c.checkpointDir;
    if (!c.tensorboardDir.empty())
        env["SM_TENSORBOARD_DIR"] = c.tensorboardDir;
    else if (!c.outputDataDir.empty())
        env["SM_TENSORBOARD_DIR"] = c.outputDataDir + "/tensorboard";
    json channels = json::array();
    for (const auto& [name, path] : c.channels) {
        channels.push_back(name);
        env["SM_CHANNEL_" + envName(name)] = path;
    }
    env["SM_CHANNELS"] = channels.dump();
    json hps = json::parse(c.hyperparametersJson, nullptr, false);
    if (!hps.is_object())
        hps = json::object();
    env["SM_HPS"] = hps.dump();
    for (auto it = hps.begin(); it != hps.end(); ++it)
        env["SM_HP_" + envName(it.key())] = it->is_string() ? it->get<std::string>() : it->dump();
    env["SM_USER_ARGS"] = json(c.userArgs).dump();
    env["SM_TRAINING_ENV"] = json{
        {"hosts", hosts},          {"current_host", c.currentHost()},
        {"num_gpus", node.gpus},   {"num_cpus", node.cpus},
        {"hyperparameters", hps},  {"channel_input_dirs", json(c.channels)},
        {"model_dir", c.modelDir}, {"output_data_dir", c.outputDataDir},
        {"job_name", c.runId}}.dump();
}

} // namespace

std::map<std::string, std::string> rankEnvironment(const LaunchConfig& c, int localRank,
                                                   const NodeResources& node,
                                                   const std::map<std::string, std::string>& base) {
    Environment env = base;
    // Gloo and NCCL bind to this interface, never to whatever the hostname resolves to; the
    // job's own environment may still name another.
    if (!c.socketIfname.empty()) {
        env["GLOO_SOCKET_IFNAME"] = c.socketIfname;
        env["NCCL_SOCKET_IFNAME"] = c.socketIfname;
    }
    for (const auto& [k, v] : c.env)
        env[k] = v;
    addTorchrunVariables(env, c, localRank);
    addSageMakerVariables(env, c, node);
    if (!c.pythonRoot.empty()) {
        auto inherited = env.find("PYTHONPATH");
        env["PYTHONPATH"] =
            process::rankPythonPath(c.pythonRoot, inherited == env.end() ? "" : inherited->second);
    }
    if (!c.hookConfigFile.empty())
        env[kHookConfigFileVariable] = c.hookConfigFile;
    env["STUDIO_EVENTS_FD"] = std::to_string(kEventsFd);
    env["STUDIO_NODE_RANK"] = std::to_string(c.nodeRank);
    if (!c.storeFile.empty()) {
        env["STUDIO_STORE_FILE"] = c.storeFile;
        // One host: Gloo's pairs connect over loopback unless the job names an interface.
        if (!env.count("GLOO_SOCKET_IFNAME"))
            env["GLOO_SOCKET_IFNAME"] = "lo";
    }
    return env;
}

std::vector<int> affinityCpus(bool bind) {
    std::vector<int> cpus;
    cpu_set_t set;
    if (bind && ::sched_getaffinity(0, sizeof set, &set) == 0)
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
            if (CPU_ISSET(cpu, &set))
                cpus.push_back(cpu);
    return cpus;
}

std::string hostName() {
    char buf[256] = {0};
    ::gethostname(buf, sizeof buf - 1);
    return buf;
}

} // namespace studio::launcher
