#include "engine/remote/cluster_check.h"

#include "engine/remote/host_executor.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <ctime>
#include <thread>

namespace studio::remote {

namespace {

double wallClock() {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

HostCheck checkHost(const ClusterConfig& cluster, std::size_t index, const CheckOptions& o) {
    const double begin = wallClock();
    HostCheck h;
    std::shared_ptr<HostExecutor> exec =
        makeExecutor(cluster, index, o.controlDir, o.acceptNewHostKeys);
    h.host = exec->label();
    const std::string launcher = cluster.isLocal() && !o.localLauncher.empty()
                                     ? o.localLauncher
                                     : cluster.program("studio-launcher");
    const auto done = [&]() {
        h.seconds = wallClock() - begin;
        return h;
    };
    if (std::string e = exec->connect(o.timeoutSeconds); !e.empty()) {
        h.error = e;
        return done();
    }
    h.reachable = true;
    const CommandResult v = runOnHost(*exec, {launcher, "--version"}, o.timeoutSeconds);
    h.version = findVersionLine(v.out);
    if (h.version.empty()) {
        h.error = "host " + h.host + ": cannot run " + launcher + " (" + v.describe() +
                  "): install the studio's launcher there, in a folder on the PATH or in the "
                  "cluster's --install-dir";
        return done();
    }
    if (h.version != launcherVersionLine()) {
        h.error = versionMismatch(h.host, h.version, cluster);
        return done();
    }
    const double t0 = wallClock();
    const CommandResult p = runOnHost(
        *exec,
        {launcher, "probe", "--workdir",
         cluster.isLocal() && !o.localWorkdir.empty() ? o.localWorkdir : cluster.workdirFor(index)},
        o.timeoutSeconds);
    const double t1 = wallClock();
    auto facts = parseHostFacts(p.out);
    if (!p.ok() || !facts) {
        h.error = "host " + h.host + ": the probe failed: " + p.describe();
        return done();
    }
    h.facts = *facts;
    h.clockOffsetSeconds = facts->time - (t0 + t1) / 2;
    return done();
}

} // namespace

bool ClusterCheck::ok() const {
    if (hosts.empty())
        return false;
    for (const auto& h : hosts)
        if (!h.ok())
            return false;
    return true;
}

std::string versionMismatch(const std::string& host, const std::string& found,
                            const ClusterConfig& cluster) {
    return "host " + host + " runs " + found + ", but this studio needs " + launcherVersionLine() +
           ": install this studio's studio-launcher and studio-train (" +
           "from its build's bin/ folder or its package) on " + host +
           (cluster.installDir.empty() ? " in a folder on the login PATH"
                                       : " in " + cluster.installDir) +
           ", or point the cluster's --install-dir at them";
}

ClusterCheck checkCluster(const ClusterConfig& cluster, const CheckOptions& options) {
    ClusterCheck c;
    c.cluster = cluster.name;
    c.time = wallClock();
    const std::size_t n = cluster.isLocal() ? 1 : cluster.hosts.size();
    c.hosts.resize(n);
    std::vector<std::thread> workers;
    for (std::size_t i = 0; i < n; ++i)
        workers.emplace_back([&, i] {
            c.hosts[i] = checkHost(cluster, i, options);
            if (options.progress)
                options.progress(i, c.hosts[i]);
        });
    for (auto& w : workers)
        w.join();
    return c;
}

std::string clusterCheckToJson(const ClusterCheck& c) {
    nlohmann::json hosts = nlohmann::json::array();
    for (const auto& h : c.hosts) {
        nlohmann::json gpus = nlohmann::json::array();
        for (const auto& g : h.facts.gpus)
            gpus.push_back({{"index", g.index}, {"name", g.name}, {"memory_bytes", g.memoryBytes}});
        hosts.push_back({{"host", h.host},
                         {"ok", h.ok()},
                         {"reachable", h.reachable},
                         {"error", h.error},
                         {"version", h.version},
                         {"hostname", h.facts.hostname},
                         {"cores", h.facts.cores},
                         {"memory_bytes", h.facts.memoryBytes},
                         {"workdir", h.facts.workdir},
                         {"disk_free_bytes", h.facts.diskFreeBytes},
                         {"gpus", gpus},
                         {"clock_offset_s", h.clockOffsetSeconds},
                         {"seconds", h.seconds}});
    }
    return nlohmann::json{
        {"cluster", c.cluster}, {"time", c.time}, {"ok", c.ok()}, {"hosts", hosts}}
        .dump();
}

ClusterCheck clusterCheckFromJson(const std::string& text) {
    ClusterCheck c;
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object())
        return c;
    try {
        c.cluster = j.value("cluster", "");
        c.time = j.value("time", 0.0);
        for (const auto& h : j.value("hosts", nlohmann::json::array())) {
            HostCheck x;
            x.host = h.value("host", "");
            x.reachable = h.value("reachable", false);
            x.error = h.value("error", "");
            x.version = h.value("version", "");
            x.facts.hostname = h.value("hostname", "");
            x.facts.cores = h.value("cores", 0);
            x.facts.memoryBytes = h.value("memory_bytes", std::int64_t{0});
            x.facts.workdir = h.value("workdir", "");
            x.facts.diskFreeBytes = h.value("disk_free_bytes", std::int64_t{-1});
            for (const auto& g : h.value("gpus", nlohmann::json::array()))
                x.facts.gpus.push_back({g.value("index", 0), g.value("name", ""),
                                        g.value("memory_bytes", std::int64_t{0})});
            x.clockOffsetSeconds = h.value("clock_offset_s", 0.0);
            x.seconds = h.value("seconds", 0.0);
            c.hosts.push_back(std::move(x));
        }
    } catch (const std::exception&) {
        return ClusterCheck{};
    }
    return c;
}

} // namespace studio::remote
