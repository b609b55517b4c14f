#include "engine/control/placement.h"

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

std::vector<std::string> launcherArgv(const spec::JobSpec& spec, const Placement& placement,
                                      const NodePlan& node, const std::string& jobName,
                                      const LaunchPaths& paths, int monitorIntervalMs,
                                      double gracePeriodSeconds) {
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
        spec.sourceDir,
    };
    for (const auto& n : placement.nodes) {
        argv.push_back("--host");
        argv.push_back(n.host);
    }
    nlohmann::json hps = nlohmann::json::object();
    for (const auto& [k, v] : spec.hyperparameters) {
        if (v.isBool)
            hps[k] = v.text == "true";
        else if (v.number && v.text.find_first_not_of("0123456789.eE+-") == std::string::npos)
            hps[k] = *v.number;
        else
            hps[k] = v.text;
    }
    argv.push_back("--hps");
    argv.push_back(hps.dump());
    argv.push_back("--user-args");
    argv.push_back(nlohmann::json(spec.hyperparameterArgs()).dump());
    for (const auto& [ch, path] : spec.inputs) {
        argv.push_back("--channel");
        argv.push_back(ch + "=" + path);
    }
    if (!paths.debugOutputDir.empty()) {
        argv.push_back("--env");
        argv.push_back("STUDIO_DEBUG_OUTPUT_DIR=" + paths.debugOutputDir);
    }
    for (const auto& [k, v] : spec.environment) {
        argv.push_back("--env");
        argv.push_back(k + "=" + v);
    }
    argv.push_back("--");
    for (auto& a : rankCommand(spec, paths))
        argv.push_back(std::move(a));
    return argv;
}

} // namespace studio::control
