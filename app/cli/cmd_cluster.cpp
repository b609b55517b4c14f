// mlstudio cluster add|list|show|remove|check: named sets of SSH hosts and Slurm clusters, kept
// in the studio database (never a secret: an identity or a token is kept as its file's path).
#include "app/cli/cli.h"
#include "app/present/progress_bar.h"
#include "app/present/terminal.h"

#include "engine/control/studio_home.h"
#include "engine/remote/cluster_check.h"
#include "engine/remote/host_executor.h"
#include "engine/remote/slurm_check.h"
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"
#include "engine/wire/event.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <mutex>
#include <optional>

#include <unistd.h>

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
    if (c.isSlurm()) // as stored: where the token is, never the token
        j["slurm"] = nlohmann::ordered_json::parse(remote::clusterToJson(c))["slurm"];
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

std::string memoryText(std::int64_t mb) {
    char buf[32];
    if (mb >= 1024)
        std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(mb) / 1024.0);
    else
        std::snprintf(buf, sizeof buf, "%lld MiB", static_cast<long long>(mb));
    return buf;
}

// One row per partition, with its nodes' states, CPUs, memory and GRES summed up.
void printSlurmPartitions(const remote::SlurmCheck& c) {
    if (c.partitions.empty())
        return;
    std::printf("  %-12s %-6s %-18s %-9s %-10s %-16s %-10s %s\n", "PARTITION", "STATE", "NODES",
                "CPUS", "MEMORY", "GRES", "TIME LIMIT", "NODE LIST");
    for (const auto& p : c.partitions) {
        std::map<std::string, int> states;
        std::map<std::string, int> gres; // per node -> how many nodes have it
        std::int64_t memory = 0;
        int cpus = 0, alloc = 0;
        for (const auto& n : c.nodes) {
            if (std::find(n.partitions.begin(), n.partitions.end(), p.name) == n.partitions.end())
                continue;
            ++states[n.state];
            memory += n.memoryMb;
            cpus += n.cpus;
            alloc += n.allocCpus;
            if (!n.gres.empty())
                ++gres[n.gres];
        }
        std::string nodes = std::to_string(p.totalNodes);
        std::string stateText;
        for (const auto& [state, count] : states)
            stateText += (stateText.empty() ? "" : ", ") + std::to_string(count) + " " + state;
        if (!stateText.empty())
            nodes += " (" + stateText + ")";
        std::string gresText;
        for (const auto& [g, count] : gres)
            gresText += (gresText.empty() ? "" : ", ") + std::to_string(count) + "x " + g;
        const std::string cpuText =
            std::to_string(alloc) + "/" + std::to_string(cpus ? cpus : p.totalCpus);
        const std::string limit =
            p.maxTimeMinutes < 0 ? "unlimited" : std::to_string(p.maxTimeMinutes) + " min";
        std::printf("  %-12s %-6s %-18s %-9s %-10s %-16s %-10s %s\n",
                    (p.name + (p.isDefault ? "*" : "")).c_str(),
                    p.state.empty() ? "-" : p.state.c_str(), nodes.c_str(), cpuText.c_str(),
                    memory ? memoryText(memory).c_str() : "-",
                    gresText.empty() ? "-" : gresText.c_str(), limit.c_str(), p.nodes.c_str());
    }
}

void printSlurmCheck(const remote::SlurmCheck& c) {
    printSlurmPartitions(c);
    const remote::SlurmWorkdirCheck& w = c.workdir;
    if (w.visible) {
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%.1f", w.seconds);
        std::printf("  Workdir %s is shared: test job %lld ran%s%s and its marker came back in "
                    "%s s\n",
                    w.path.c_str(), static_cast<long long>(w.jobId),
                    w.node.empty() ? "" : (" on " + w.node).c_str(),
                    w.jobUser.empty() ? "" : (" as " + w.jobUser).c_str(), seconds);
    }
    if (!c.error.empty())
        std::printf("  FAILED  %s\n", c.error.c_str());
}

// The Slurm check with its progress on stdout (unless json); stores the result.
remote::SlurmCheck runSlurmCheck(const remote::ClusterConfig& c, bool json) {
    store::StoreWriter writer(control::databasePath(control::studioHome()));
    remote::SlurmCheckOptions o;
    const bool tty = present::terminalModeOf(STDOUT_FILENO).interactive;
    bool waitingShown = false;
    if (!json) {
        std::printf("Checking Slurm cluster %s at %s...\n", c.name.c_str(), c.slurm.url.c_str());
        std::fflush(stdout);
        o.progress = [&](const std::string& line, bool waiting) {
            if (tty && waitingShown)
                std::printf(waiting ? "\r\033[K" : "\n");
            std::printf(tty && waiting ? "  %s" : "  %s\n", line.c_str());
            waitingShown = tty && waiting;
            std::fflush(stdout);
        };
    }
    const remote::SlurmCheck result = remote::checkSlurmCluster(c, o);
    if (waitingShown)
        std::printf("\n");
    writer.setClusterCheck(c.name, remote::slurmCheckToJson(result));
    if (json && !result.error.empty()) // the text report says it on stdout
        std::fprintf(stderr, "mlstudio: %s\n", result.error.c_str());
    if (!json) {
        printSlurmCheck(result);
        std::printf("%s\n", result.ok() ? ("Cluster " + c.name + " is ready.").c_str()
                                        : ("Cluster " + c.name + " is not ready.").c_str());
    }
    return result;
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

int showSlurmCluster(const remote::ClusterConfig& c, const std::string& check) {
    const remote::SlurmSettings& s = c.slurm;
    std::printf("slurmrestd   %s\n", s.url.c_str());
    const std::string token = !s.tokenFile.empty()  ? "file " + s.tokenFile
                              : !s.tokenEnv.empty() ? "variable " + s.tokenEnv
                                                    : "none (local authentication on the socket)";
    std::printf("Token        %s\n", token.c_str());
    std::printf("User         %s\n", s.user.empty() ? "(this user)" : s.user.c_str());
    std::printf("Partition    %s\n",
                s.partition.empty() ? "(Slurm's default)" : s.partition.c_str());
    std::printf("Account      %s\n", s.account.empty() ? "(Slurm's default)" : s.account.c_str());
    std::printf("QOS          %s\n", s.qos.empty() ? "(Slurm's default)" : s.qos.c_str());
    std::printf("API version  %s\n",
                s.apiVersion.empty() ? "(the highest both sides speak)" : s.apiVersion.c_str());
    std::printf("Workdir      %s\n", c.effectiveWorkdir().c_str());
    std::printf("Programs     %s\n",
                c.installDir.empty() ? "(on the nodes' PATH)" : c.installDir.c_str());
    const remote::SlurmCheck last = remote::slurmCheckFromJson(check);
    if (last.time == 0) {
        std::printf("Last check   never (mlstudio cluster check %s)\n", c.name.c_str());
        return kExitOk;
    }
    std::printf("Last check   %s: %s\n", present::formatTime(last.time).c_str(),
                last.ok() ? "ready" : "not ready");
    if (!last.version.empty())
        std::printf(
            "  API %s of %s, Slurm %s, controller %s\n", last.version.c_str(),
            [&] {
                std::string v;
                for (const auto& x : last.serverVersions)
                    v += (v.empty() ? "" : ", ") + x;
                return v;
            }()
                .c_str(),
            last.release.c_str(), last.ping.empty() ? "-" : last.ping.c_str());
    printSlurmCheck(last);
    return kExitOk;
}

// The cluster the options define; none, with the usage error printed, when they define none.
std::optional<remote::ClusterConfig> clusterOf(const ClusterAddOptions& a) {
    remote::ClusterConfig c;
    c.name = a.name;
    if (a.ssh.empty() && a.slurm.empty()) {
        std::fprintf(stderr,
                     "mlstudio: cluster %s: name its hosts (--ssh HOST, once per host) or "
                     "its slurmrestd (--slurm URL)\n",
                     c.name.c_str());
        return std::nullopt;
    }
    if (!a.slurm.empty() && a.acceptNewHostKeys) {
        std::fprintf(stderr, "mlstudio: --accept-new-host-keys is for --ssh clusters\n");
        return std::nullopt;
    }
    try {
        for (const auto& t : a.ssh)
            c.hosts.push_back(remote::parseSshTarget(t));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mlstudio: --ssh %s\n", e.what());
        return std::nullopt;
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
    if (!a.slurm.empty()) {
        c.kind = "slurm";
        c.slurm.url = a.slurm;
        c.slurm.tokenFile = absolute(a.tokenFile);
        c.slurm.tokenEnv = a.tokenEnv;
        c.slurm.user = a.user;
        c.slurm.partition = a.partition;
        c.slurm.account = a.account;
        c.slurm.qos = a.qos;
        c.slurm.apiVersion = a.apiVersion;
    }
    return c;
}

// Prints what is wrong with the cluster (the files it names must exist); true when nothing is.
bool validOrPrinted(const remote::ClusterConfig& c) {
    std::vector<std::string> errors = remote::validateCluster(c);
    if (!c.identityFile.empty() && !fs::exists(c.identityFile))
        errors.push_back("identity: " + c.identityFile + " does not exist");
    if (!c.slurm.tokenFile.empty() && !fs::exists(c.slurm.tokenFile))
        errors.push_back("token_file: " + c.slurm.tokenFile + " does not exist");
    for (const auto& e : errors)
        std::fprintf(stderr, "mlstudio: cluster %s: %s\n", c.name.c_str(), e.c_str());
    return errors.empty();
}

// Stores the cluster; false, with the reason printed, for an existing one unless replace.
bool savedCluster(const remote::ClusterConfig& c, bool replace) {
    const std::string home = control::studioHome();
    {
        store::StoreReader reader(control::databasePath(home));
        if (reader.cluster(c.name) && !replace) {
            std::fprintf(stderr,
                         "mlstudio: cluster %s exists (--replace redefines it, mlstudio cluster "
                         "remove %s removes it)\n",
                         c.name.c_str(), c.name.c_str());
            return false;
        }
    }
    store::StoreWriter writer(control::databasePath(home));
    const double now = wire::nowSeconds();
    writer.saveCluster(store::ClusterRow{c.name, c.kind, remote::clusterToJson(c), now, now, ""});
    return true;
}

// Checks a cluster just added, its result into out's "check"; the exit code.
int checkAddedCluster(const remote::ClusterConfig& c, const ClusterAddOptions& a,
                      nlohmann::ordered_json& out) {
    if (c.isSlurm()) {
        const remote::SlurmCheck check = runSlurmCheck(c, a.json);
        out["check"] = nlohmann::ordered_json::parse(remote::slurmCheckToJson(check));
        return check.ok() ? kExitOk : kExitFailed;
    }
    const remote::ClusterCheck check = runCheck(c, a.json, a.acceptNewHostKeys);
    out["check"] = nlohmann::ordered_json::parse(remote::clusterCheckToJson(check));
    return check.ok() ? kExitOk : kExitFailed;
}

} // namespace

int cmdClusterAdd(const ClusterAddOptions& a) {
    const std::optional<remote::ClusterConfig> c = clusterOf(a);
    if (!c || !validOrPrinted(*c) || !savedCluster(*c, a.replace))
        return kExitUsage;
    if (!a.json && c->isSlurm())
        std::printf("Cluster %s: Slurm at %s\n", c->name.c_str(), c->slurm.url.c_str());
    else if (!a.json)
        std::printf("Cluster %s: %zu host(s)\n", c->name.c_str(), c->hosts.size());
    nlohmann::ordered_json out{{"cluster", clusterJson(*c, "")}, {"check", nullptr}};
    const int rc = a.noCheck ? kExitOk : checkAddedCluster(*c, a, out);
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
        if (c.isSlurm()) {
            const remote::SlurmCheck last = remote::slurmCheckFromJson(checks[c.name]);
            const std::string state = last.time == 0 ? "never checked"
                                      : last.ok()    ? "ready"
                                                     : "not ready";
            std::printf("%-20s %-6s %5s  %-19s  %s\n", c.name.c_str(), c.kind.c_str(),
                        last.time == 0 ? "-" : std::to_string(last.nodes.size()).c_str(),
                        present::formatTime(last.time).c_str(), state.c_str());
            continue;
        }
        const remote::ClusterCheck last = remote::clusterCheckFromJson(checks[c.name]);
        std::string state = c.isLocal()          ? "this machine"
                            : last.hosts.empty() ? "never checked"
                            : last.ok()          ? "ready"
                                                 : "not ready";
        std::printf("%-20s %-6s %5zu  %-19s  %s\n", c.name.c_str(), c.kind.c_str(),
                    c.isLocal() ? std::size_t(1) : c.hosts.size(),
                    present::formatTime(last.time).c_str(), state.c_str());
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
    if (c.isSlurm())
        return showSlurmCluster(c, check);
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
    std::printf("Last check   %s\n", present::formatTime(last.time).c_str());
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
    const remote::ClusterConfig cluster = findCluster(reader, name);
    if (cluster.isSlurm()) {
        const remote::SlurmCheck check = runSlurmCheck(cluster, json);
        if (json)
            std::printf(
                "%s\n",
                nlohmann::ordered_json::parse(remote::slurmCheckToJson(check)).dump(2).c_str());
        return check.ok() ? kExitOk : kExitFailed;
    }
    const remote::ClusterCheck check = runCheck(cluster, json, false);
    if (json)
        std::printf("%s\n",
                    nlohmann::json::parse(remote::clusterCheckToJson(check)).dump(2).c_str());
    return check.ok() ? kExitOk : kExitFailed;
}

} // namespace studio::cli
