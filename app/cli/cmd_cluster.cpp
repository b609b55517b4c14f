// mlstudio cluster add|list|show|remove|check: named sets of SSH hosts, kept in the studio
// database (never a secret: an identity is kept as its file's path).
#include "app/cli/cli.h"
#include "app/cli/progress_bar.h"

#include "engine/control/studio_home.h"
#include "engine/remote/cluster_check.h"
#include "engine/remote/host_executor.h"
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"
#include "engine/wire/event.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <mutex>

namespace studio::cli {

namespace fs = std::filesystem;

namespace {

std::string bytesText(std::int64_t b) {
    if (b < 0)
        return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(b) / (1024.0 * 1024 * 1024));
    return buf;
}

std::vector<remote::ClusterConfig> allClusters(store::StoreReader& reader) {
    std::vector<remote::ClusterConfig> out = {remote::localCluster()};
    for (const auto& row : reader.clusters()) {
        remote::ClusterConfig c = remote::clusterFromJson(row.name, row.config);
        c.created = row.created;
        c.updated = row.updated;
        out.push_back(std::move(c));
    }
    return out;
}

remote::ClusterConfig findCluster(store::StoreReader& reader, const std::string& name) {
    for (auto& c : allClusters(reader))
        if (c.name == name)
            return c;
    throw std::runtime_error("there is no cluster \"" + name + "\" (mlstudio cluster list)");
}

nlohmann::ordered_json clusterJson(const remote::ClusterConfig& c, const std::string& check) {
    nlohmann::ordered_json hosts = nlohmann::ordered_json::array();
    for (const auto& h : c.hosts)
        hosts.push_back(h.text());
    nlohmann::ordered_json j{{"name", c.name},
                             {"kind", c.kind},
                             {"hosts", hosts},
                             {"identity", c.identityFile},
                             {"known_hosts", c.knownHostsFile},
                             {"workdir", c.isLocal() ? "" : c.effectiveWorkdir()},
                             {"rendezvous_address", c.rendezvousAddress},
                             {"socket_ifname", c.socketIfname},
                             {"install_dir", c.installDir},
                             {"host_timeout_s", c.hostTimeoutSeconds}};
    auto last = nlohmann::ordered_json::parse(check.empty() ? "null" : check, nullptr, false);
    j["last_check"] = last.is_discarded() ? nlohmann::ordered_json(nullptr) : last;
    return j;
}

void printHostCheck(const remote::HostCheck& h) {
    if (!h.ok()) {
        std::printf("  %-28s FAILED  %s\n", h.host.c_str(), h.error.c_str());
        return;
    }
    std::string gpus = std::to_string(h.facts.gpus.size());
    if (!h.facts.gpus.empty())
        gpus += " (" + h.facts.gpus.front().name + ")";
    std::printf("  %-28s ok      %s, %d cores, %s memory, %s free in %s, %s GPU(s), clock "
                "offset %+.3f s\n",
                h.host.c_str(), h.version.c_str(), h.facts.cores,
                bytesText(h.facts.memoryBytes).c_str(), bytesText(h.facts.diskFreeBytes).c_str(),
                h.facts.workdir.c_str(), gpus.c_str(), h.clockOffsetSeconds);
}

// Checks every host (printing each as it answers unless json) and stores the result.
remote::ClusterCheck runCheck(const remote::ClusterConfig& c, bool json, bool acceptNewKeys) {
    const std::string home = control::studioHome();
    store::StoreWriter writer(control::databasePath(home));
    remote::CheckOptions o;
    o.controlDir = remote::controlDirectory(home);
    o.localLauncher = control::findProgram("studio-launcher");
    o.localWorkdir = home;
    o.acceptNewHostKeys = acceptNewKeys;
    std::mutex printing;
    if (!json) {
        std::printf("Checking %zu host(s) of cluster %s...\n", c.isLocal() ? 1 : c.hosts.size(),
                    c.name.c_str());
        std::fflush(stdout);
        o.progress = [&printing](std::size_t, const remote::HostCheck& h) {
            std::lock_guard lock(printing);
            printHostCheck(h);
            std::fflush(stdout);
        };
    }
    const remote::ClusterCheck result = remote::checkCluster(c, o);
    if (!c.isLocal())
        writer.setClusterCheck(c.name, remote::clusterCheckToJson(result));
    if (!json)
        std::printf("%s\n", result.ok() ? "All hosts are ready." : "Some hosts are not ready.");
    return result;
}

} // namespace

int cmdClusterAdd(const ClusterAddOptions& a) {
    remote::ClusterConfig c;
    c.name = a.name;
    try {
        for (const auto& t : a.ssh)
            c.hosts.push_back(remote::parseSshTarget(t));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mlstudio: --ssh %s\n", e.what());
        return kExitUsage;
    }
    const auto absolute = [](const std::string& p) {
        return p.empty() ? p : fs::absolute(p).lexically_normal().string();
    };
    c.identityFile = absolute(a.identity);
    c.knownHostsFile = absolute(a.knownHosts);
    c.workdir = a.workdir;
    c.rendezvousAddress = a.rendezvousAddress;
    c.socketIfname = a.socketIfname;
    c.installDir = a.installDir;
    c.hostTimeoutSeconds = a.hostTimeout;
    std::vector<std::string> errors = remote::validateCluster(c);
    if (!c.identityFile.empty() && !fs::exists(c.identityFile))
        errors.push_back("identity: " + c.identityFile + " does not exist");
    if (!errors.empty()) {
        for (const auto& e : errors)
            std::fprintf(stderr, "mlstudio: cluster %s: %s\n", c.name.c_str(), e.c_str());
        return kExitUsage;
    }
    const std::string home = control::studioHome();
    {
        store::StoreReader reader(control::databasePath(home));
        if (reader.cluster(c.name) && !a.replace) {
            std::fprintf(stderr,
                         "mlstudio: cluster %s exists (--replace redefines it, mlstudio cluster "
                         "remove %s removes it)\n",
                         c.name.c_str(), c.name.c_str());
            return kExitUsage;
        }
    }
    {
        store::StoreWriter writer(control::databasePath(home));
        const double now = wire::nowSeconds();
        writer.saveCluster(
            store::ClusterRow{c.name, c.kind, remote::clusterToJson(c), now, now, ""});
    }
    if (!a.json)
        std::printf("Cluster %s: %zu host(s)\n", c.name.c_str(), c.hosts.size());
    nlohmann::ordered_json out{{"cluster", clusterJson(c, "")}, {"check", nullptr}};
    int rc = kExitOk;
    if (!a.noCheck) {
        const remote::ClusterCheck check = runCheck(c, a.json, a.acceptNewHostKeys);
        out["check"] = nlohmann::ordered_json::parse(remote::clusterCheckToJson(check));
        rc = check.ok() ? kExitOk : kExitFailed;
    }
    if (a.json)
        std::printf("%s\n", out.dump(2).c_str());
    return rc;
}

int cmdClusterList(bool json) {
    store::StoreReader reader(control::databasePath(control::studioHome()));
    std::map<std::string, std::string> checks;
    for (const auto& row : reader.clusters())
        checks[row.name] = row.lastCheck;
    const auto clusters = allClusters(reader);
    if (json) {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const auto& c : clusters)
            out.push_back(clusterJson(c, checks[c.name]));
        std::printf("%s\n", out.dump(2).c_str());
        return kExitOk;
    }
    std::printf("%-20s %-6s %5s  %-19s  %s\n", "CLUSTER", "KIND", "HOSTS", "LAST CHECK", "STATE");
    for (const auto& c : clusters) {
        const remote::ClusterCheck last = remote::clusterCheckFromJson(checks[c.name]);
        std::string state = c.isLocal()          ? "this machine"
                            : last.hosts.empty() ? "never checked"
                            : last.ok()          ? "ready"
                                                 : "not ready";
        std::printf("%-20s %-6s %5zu  %-19s  %s\n", c.name.c_str(), c.kind.c_str(),
                    c.isLocal() ? std::size_t(1) : c.hosts.size(), formatTime(last.time).c_str(),
                    state.c_str());
    }
    return kExitOk;
}

int cmdClusterShow(const std::string& name, bool json) {
    store::StoreReader reader(control::databasePath(control::studioHome()));
    const remote::ClusterConfig c = findCluster(reader, name);
    const auto row = reader.cluster(name);
    const std::string check = row ? row->lastCheck : "";
    if (json) {
        std::printf("%s\n", clusterJson(c, check).dump(2).c_str());
        return kExitOk;
    }
    std::printf("Cluster      %s (%s)\n", c.name.c_str(), c.kind.c_str());
    if (c.isLocal()) {
        std::printf("Hosts        this machine, reached without SSH\n");
        return kExitOk;
    }
    std::printf("Hosts        ");
    for (std::size_t i = 0; i < c.hosts.size(); ++i)
        std::printf("%s%s", i ? ", " : "", c.hosts[i].text().c_str());
    std::printf("\nIdentity     %s\n",
                c.identityFile.empty() ? "(the user's keys and agent)" : c.identityFile.c_str());
    std::printf("Known hosts  %s\n",
                c.knownHostsFile.empty() ? "(the user's known_hosts)" : c.knownHostsFile.c_str());
    std::printf("Workdir      %s\n", c.effectiveWorkdir().c_str());
    std::printf("Programs     %s\n",
                c.installDir.empty() ? "(on the login PATH)" : c.installDir.c_str());
    std::printf("Rendezvous   %s, interface %s\n",
                c.rendezvousAddress.empty() ? "node 0's address" : c.rendezvousAddress.c_str(),
                c.socketIfname.empty() ? "the one that reaches node 0" : c.socketIfname.c_str());
    std::printf("Host timeout %.0f s\n", c.hostTimeoutSeconds);
    const remote::ClusterCheck last = remote::clusterCheckFromJson(check);
    if (last.hosts.empty()) {
        std::printf("Last check   never (mlstudio cluster check %s)\n", c.name.c_str());
        return kExitOk;
    }
    std::printf("Last check   %s\n", formatTime(last.time).c_str());
    for (const auto& h : last.hosts)
        printHostCheck(h);
    return kExitOk;
}

int cmdClusterRemove(const std::string& name, bool json) {
    if (name == remote::kLocalCluster) {
        std::fprintf(stderr, "mlstudio: \"local\" is the built-in cluster and cannot be removed\n");
        return kExitUsage;
    }
    const std::string home = control::studioHome();
    {
        store::StoreReader reader(control::databasePath(home));
        std::vector<std::string> busy;
        for (const char* status : {"InProgress", "Stopping"}) {
            store::ComponentFilter f;
            f.status = status;
            for (const auto& r : reader.components(f))
                if (r.cluster == name)
                    busy.push_back(r.name);
        }
        if (!busy.empty()) {
            std::fprintf(stderr, "mlstudio: cluster %s runs %zu job(s) (%s...); stop them first\n",
                         name.c_str(), busy.size(), busy.front().c_str());
            return kExitFailed;
        }
    }
    store::StoreWriter writer(control::databasePath(home));
    if (!writer.removeCluster(name)) {
        std::fprintf(stderr, "mlstudio: there is no cluster \"%s\"\n", name.c_str());
        return kExitFailed;
    }
    if (json)
        std::printf("%s\n", nlohmann::json{{"removed", name}}.dump().c_str());
    else
        std::printf("Removed cluster %s\n", name.c_str());
    return kExitOk;
}

int cmdClusterCheck(const std::string& name, bool json) {
    store::StoreReader reader(control::databasePath(control::studioHome()));
    const remote::ClusterCheck check = runCheck(findCluster(reader, name), json, false);
    if (json)
        std::printf("%s\n",
                    nlohmann::json::parse(remote::clusterCheckToJson(check)).dump(2).c_str());
    return check.ok() ? kExitOk : kExitFailed;
}

} // namespace studio::cli
