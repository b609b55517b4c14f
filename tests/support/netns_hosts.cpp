#include "tests/support/netns_hosts.h"

#include "tests/support/child_process.h"

#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <grp.h>
#include <iostream>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <sstream>
#include <stdexcept>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace studio::testing {

namespace {

constexpr int kMaxHosts = 20;
constexpr int kFirstSubnet = 77; // candidates 10.77.0.0/24 ... 10.86.0.0/24
constexpr int kSubnetCandidates = 10;

std::string must(const std::vector<std::string>& argv, std::chrono::milliseconds timeout = 10s) {
    const CommandResult r = runCommand(argv, timeout);
    if (!r.ok())
        throw std::runtime_error(describeFailure(argv, r));
    return r.output;
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (line.find_first_not_of(" \t") != std::string::npos)
            out.push_back(line);
    return out;
}

// Section 1 rule 3 of the remote-execution sheet: the three checks must print nothing.
// Returns "" when `base`.0/24 is unused here, else the conflict.
std::string subnetConflict(const std::string& base) {
    const std::string net = base + ".0/24";
    const std::vector<std::vector<std::string>> checks = {
        {"ip", "-4", "addr", "show", "to", net},
        {"ip", "-4", "route", "show", "root", net},
        {"ip", "-4", "route", "show", "match", net},
    };
    for (const auto& argv : checks) {
        const CommandResult r = runCommand(argv);
        if (!r.ok())
            return describeFailure(argv, r);
        for (const auto& line : lines(r.output))
            if (line.rfind("default ", 0) != 0)
                return net + " is in use: " + line;
    }
    return {};
}

// Picks the first unused candidate subnet; "" and the conflicts when there is none.
std::string freeSubnet(std::string& conflicts) {
    for (int i = 0; i < kSubnetCandidates; ++i) {
        const std::string base = "10." + std::to_string(kFirstSubnet + i) + ".0";
        const std::string conflict = subnetConflict(base);
        if (conflict.empty())
            return base;
        conflicts += (conflicts.empty() ? "" : "; ") + conflict;
    }
    return {};
}

// Section 1 rule 2: the route to `addr` (from namespace `ns`, "" for the root namespace) must
// leave through `dev` with no gateway; anything else would send test traffic off the machine.
void requireOnLinkRoute(const std::string& addr, const std::string& dev, const std::string& ns) {
    std::vector<std::string> argv = {"ip"};
    if (!ns.empty())
        argv.insert(argv.end(), {"-n", ns});
    argv.insert(argv.end(), {"-j", "route", "get", addr});
    const std::string out = must(argv);
    const std::string from = ns.empty() ? "the root namespace" : "namespace " + ns;
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(out);
    } catch (const nlohmann::json::exception&) {
        throw std::runtime_error("unexpected output of ip -j route get: " + out);
    }
    if (!j.is_array() || j.empty() || j[0].value("dev", "") != dev || j[0].contains("gateway"))
        throw std::runtime_error("route from " + from + " to " + addr + " is " + out +
                                 ", expected dev " + dev +
                                 " with no gateway; aborting before any connection");
}

// One non-blocking connect; true when something accepts at addr:port.
bool tcpAccepts(const std::string& addr, int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<std::uint16_t>(port));
    ::inet_pton(AF_INET, addr.c_str(), &sa.sin_addr);
    bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0;
    if (!ok && errno == EINPROGRESS) {
        pollfd p{fd, POLLOUT, 0};
        if (::poll(&p, 1, 200) == 1) {
            int err = 0;
            socklen_t len = sizeof err;
            ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
            ok = err == 0;
        }
    }
    ::close(fd);
    return ok;
}

std::string readFile(const std::string& path) {
    return readWholeFile(path);
}

void writeFile(const std::string& path, const std::string& text, fs::perms mode) {
    {
        std::ofstream out(path, std::ios::trunc);
        out << text;
        if (!out.flush())
            throw std::runtime_error("cannot write " + path);
    }
    fs::permissions(path, mode);
}

std::string sshdConfig(const std::string& dir, const std::string& hostDir, const TestHost& h,
                       const std::string& user) {
    return "Port 22\n"
           "ListenAddress " +
           h.address +
           "\n"
           "HostKey " +
           dir +
           "/host_ed25519\n"
           "PidFile " +
           hostDir +
           "/sshd.pid\n"
           "AuthorizedKeysFile " +
           dir +
           "/authorized_keys\n"
           "AllowUsers " +
           user +
           "\n"
           "PermitRootLogin no\n"
           "PasswordAuthentication no\n"
           "KbdInteractiveAuthentication no\n"
           "UsePAM no\n"
           "StrictModes no\n"
           "MaxSessions 64\n"
           "MaxStartups 64:30:128\n"
           "PrintMotd no\n"
           "Subsystem sftp internal-sftp\n";
}

void checkOptions(const NetnsHostsOptions& o) {
    if (o.hosts < 1 || o.hosts > kMaxHosts)
        throw std::invalid_argument("hosts must be 1.." + std::to_string(kMaxHosts));
    if (o.lifetimeSeconds < 1)
        throw std::invalid_argument("lifetimeSeconds must be positive");
    if (!validUserName(o.user))
        throw std::invalid_argument("user \"" + o.user +
                                    "\" is not mlstudio-<lower-case letters, digits, _ or ->");
}

} // namespace

std::string NetnsHosts::unavailableReason() {
    if (::geteuid() != 0)
        return "needs root: it creates network namespaces, a bridge and a login user";
    for (const char* p : {"/usr/sbin/sshd", "ssh", "ssh-keygen", "ip", "nsenter", "timeout",
                          "useradd", "usermod", "userdel"})
        if (findProgram(p).empty())
            return std::string(p) +
                   " is missing (packages openssh-server, openssh-client, iproute2, passwd)";
    const std::string probe = "mlsprobe" + std::to_string(::getpid() % 100000);
    const CommandResult add = runCommand({"ip", "netns", "add", probe});
    if (!add.ok())
        return "`ip netns add` is not permitted here: " +
               describeFailure({"ip", "netns", "add", probe}, add);
    runCommand({"ip", "netns", "del", probe});
    std::string conflicts;
    if (freeSubnet(conflicts).empty())
        return "no free test subnet: " + conflicts;
    return {};
}

NetnsHosts::NetnsHosts(Options o)
    : m_options(std::move(o)) {
    try {
        m_step = "checking the options";
        checkOptions(m_options);
        m_step = "waiting for the machine-wide fixture lock";
        m_lock = std::make_unique<FixtureLock>();
        bringUp();
    } catch (const std::exception& e) {
        const std::string msg = "NetnsHosts: " + m_step + " failed: " + e.what();
        tearDown();
        throw std::runtime_error(msg);
    }
}

NetnsHosts::~NetnsHosts() {
    tearDown();
}

void NetnsHosts::bringUp() {
    m_step = "removing leftovers of an earlier run";
    cleanupStaleLocked();
    m_state.ownerPid = ::getpid();
    m_tag = "mls" + std::to_string(::getpid() % 100000);
    m_step = "choosing a free subnet";
    chooseSubnet();
    m_step = "creating the temp dir";
    char tmpl[] = "/tmp/mlsnXXXXXX"; // short: ssh socket paths are limited to 108 bytes
    if (::mkdtemp(tmpl) == nullptr)
        throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
    m_dir = tmpl;
    m_state.dir = m_dir;
    record();
    // 0711: sshd reads the AuthorizedKeysFile as the login user.
    fs::permissions(m_dir, fs::perms(0711));
    m_step = "creating the bridge and namespaces";
    createTopology();
    m_step = "checking routes";
    checkRoutes();
    m_step = "creating user " + m_options.user;
    createUser();
    m_step = "writing keys and sshd configs";
    writeSshFiles();
    for (int i = 0; i < m_options.hosts; ++i) {
        m_step = "starting sshd for host " + std::to_string(i);
        startSshd(i);
    }
    for (int i = 0; i < m_options.hosts; ++i) {
        m_step = "waiting for sshd of host " + std::to_string(i);
        waitForSshd(i);
    }
    for (int i = 0; i < m_options.hosts; ++i) {
        m_step = "checking ssh to host " + std::to_string(i);
        std::vector<std::string> argv = sshArgs(i);
        argv.push_back("true");
        must(argv, 20s);
    }
    m_step.clear();
}

void NetnsHosts::chooseSubnet() {
    std::string conflicts;
    m_subnet = freeSubnet(conflicts);
    if (m_subnet.empty())
        throw std::runtime_error("no free test subnet: " + conflicts);
}

void NetnsHosts::createTopology() {
    m_bridge = m_tag + "br";
    m_state.bridge = m_bridge;
    record();
    // forward_delay 0: a port taken down and up again forwards at once (setLinkUp).
    must({"ip", "link", "add", "name", m_bridge, "type", "bridge", "forward_delay", "0"});
    must({"ip", "addr", "add", bridgeAddress() + "/24", "dev", m_bridge});
    must({"ip", "link", "set", m_bridge, "up"});
    for (int i = 0; i < m_options.hosts; ++i) {
        TestHost h;
        h.ns = m_tag + "h" + std::to_string(i);
        h.address = m_subnet + "." + std::to_string(i + 1);
        h.rootVeth = h.ns + "b";
        m_hosts.push_back(h);
        m_state.namespaces.push_back(h.ns);
        m_state.links.push_back(h.rootVeth);
        record();
        const std::string inner = h.ns + "e";
        must({"ip", "netns", "add", h.ns});
        must({"ip", "link", "add", inner, "type", "veth", "peer", "name", h.rootVeth});
        must({"ip", "link", "set", inner, "netns", h.ns});
        must({"ip", "link", "set", h.rootVeth, "master", m_bridge, "up"});
        // The same name in every host, so that one GLOO_SOCKET_IFNAME fits all.
        must({"ip", "-n", h.ns, "link", "set", inner, "name", "eth1"});
        must({"ip", "-n", h.ns, "addr", "add", h.address + "/24", "dev", "eth1"});
        must({"ip", "-n", h.ns, "link", "set", "eth1", "up"});
        must({"ip", "-n", h.ns, "link", "set", "lo", "up"});
    }
}

void NetnsHosts::checkRoutes() const {
    for (const auto& h : m_hosts) {
        requireOnLinkRoute(h.address, m_bridge, "");
        requireOnLinkRoute(bridgeAddress(), "eth1", h.ns);
        for (const auto& other : m_hosts)
            if (&other != &h)
                requireOnLinkRoute(other.address, "eth1", h.ns);
        // Nothing but the on-link subnet may be routable from inside a host. A kernel without
        // IPv6 fails the -6 listing, which then has nothing to check.
        std::string routes = must({"ip", "-n", h.ns, "-4", "route", "show"});
        if (const CommandResult v6 = runCommand({"ip", "-n", h.ns, "-6", "route", "show"}); v6.ok())
            routes += v6.output;
        for (const auto& line : lines(routes))
            if (line.rfind(m_subnet + ".0/24 dev eth1 ", 0) != 0 &&
                line.rfind("fe80::/64 dev eth1 ", 0) != 0)
                throw std::runtime_error("unexpected route in namespace " + h.ns + ": " + line);
    }
}

void NetnsHosts::createUser() {
    const std::string& user = m_options.user;
    if (const int uid = userId(user); uid >= 0) {
        // Left by a run whose state file was lost; it exists for the tests only.
        if (!ordinaryUid(uid))
            throw std::runtime_error("user " + user + " exists with uid " + std::to_string(uid) +
                                     "; refusing to replace it");
        terminateProcesses(processesOfUid(uid), 0ms);
        must({"userdel", "-r", "-f", user}, 30s);
    }
    if (::getgrnam(user.c_str()) != nullptr)
        must({"groupdel", user}, 30s);
    m_state.user = user;
    record();
    must({"useradd", "-m", "-s", "/bin/bash", user}, 30s);
    // useradd leaves the account locked ("!"), which sshd refuses without PAM.
    must({"usermod", "-p", "*", user}, 30s);
}

void NetnsHosts::writeSshFiles() {
    for (const char* key : {"host_ed25519", "client_ed25519"})
        must({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", std::string("mlstudio-") + key,
              "-f", m_dir + "/" + key},
             20s);
    writeFile(m_dir + "/authorized_keys", readFile(m_dir + "/client_ed25519.pub"), fs::perms(0644));
    // Written straight from the host key: no connection is made before the sshd are up.
    const std::string hostKey = readFile(m_dir + "/host_ed25519.pub");
    std::string knownHosts;
    for (const auto& h : m_hosts)
        knownHosts += h.address + " " + hostKey;
    writeFile(knownHostsFile(), knownHosts, fs::perms(0644));
    const passwd* pw = ::getpwnam(m_options.user.c_str());
    if (pw == nullptr)
        throw std::runtime_error("user " + m_options.user + " vanished");
    fs::create_directories("/run/sshd"); // sshd's privilege-separation dir; left in place
    for (int i = 0; i < m_options.hosts; ++i) {
        TestHost& h = m_hosts[static_cast<std::size_t>(i)];
        const std::string hostDir = m_dir + "/h" + std::to_string(i);
        h.workdir = hostDir + "/work";
        fs::create_directories(h.workdir);
        fs::permissions(hostDir, fs::perms(0755));
        if (::chown(h.workdir.c_str(), pw->pw_uid, pw->pw_gid) != 0)
            throw std::runtime_error("chown " + h.workdir + ": " + std::strerror(errno));
        const std::string cfg = hostDir + "/sshd_config";
        writeFile(cfg, sshdConfig(m_dir, hostDir, h, m_options.user), fs::perms(0644));
        must({"/usr/sbin/sshd", "-t", "-f", cfg});
    }
}

void NetnsHosts::startSshd(int host) {
    const TestHost& h = m_hosts[static_cast<std::size_t>(host)];
    const std::string hostDir = m_dir + "/h" + std::to_string(host);
    // sshd by absolute path (it re-executes itself); timeout gives it a hard lifetime.
    // Each host has its own hostname (its namespace's name), as real hosts do: programs that
    // tell hosts apart by name (Open MPI's node map and session folders) see two hosts.
    const int pid = startDaemon(
        {"timeout", "-k", "5", std::to_string(m_options.lifetimeSeconds), "nsenter",
         "--net=/run/netns/" + h.ns, "unshare", "--uts", "--", "/bin/sh", "-c",
         "hostname \"$0\" && exec /usr/sbin/sshd -D -e -f \"$1\"", h.ns, hostDir + "/sshd_config"},
        hostDir + "/sshd.log");
    m_launchers.push_back(pid);
    m_state.processes.push_back({pid, processStartTime(pid), "timeout+sshd " + h.ns});
    record();
}

void NetnsHosts::waitForSshd(int host) {
    const TestHost& h = m_hosts[static_cast<std::size_t>(host)];
    const std::string hostDir = m_dir + "/h" + std::to_string(host);
    const int launcher = m_launchers[static_cast<std::size_t>(host)];
    bool up = false;
    for (int i = 0; i < 200 && !up; ++i) { // 200 x (25 ms + connect): about 5 s at most
        if (!processAlive(launcher))
            throw std::runtime_error("sshd exited: " + readFile(hostDir + "/sshd.log"));
        up = tcpAccepts(h.address, 22);
        if (!up)
            std::this_thread::sleep_for(25ms);
    }
    if (!up)
        throw std::runtime_error(
            h.address + ":22 does not accept connections; log: " + readFile(hostDir + "/sshd.log"));
    int listener = 0;
    for (int i = 0; i < 100 && listener <= 0; ++i) { // the pid file follows the listen shortly
        std::istringstream(readFile(hostDir + "/sshd.pid")) >> listener;
        if (listener <= 0)
            std::this_thread::sleep_for(20ms);
    }
    if (listener <= 0)
        throw std::runtime_error("sshd wrote no pid file " + hostDir + "/sshd.pid");
    m_listeners.push_back(listener);
    m_state.processes.push_back({listener, processStartTime(listener), "sshd " + h.ns});
    record();
}

void NetnsHosts::record() {
    m_state.save();
}

std::string NetnsHosts::identityFile() const {
    return m_dir + "/client_ed25519";
}

std::string NetnsHosts::knownHostsFile() const {
    return m_dir + "/known_hosts";
}

std::vector<std::string> NetnsHosts::sshArgs(int host) const {
    const TestHost& h = m_hosts.at(static_cast<std::size_t>(host));
    return {"ssh",
            "-F",
            "none", // never the developer's ~/.ssh/config
            "-i",
            identityFile(),
            "-o",
            "IdentitiesOnly=yes",
            "-o",
            "BatchMode=yes",
            "-o",
            "UserKnownHostsFile=" + knownHostsFile(),
            "-o",
            "StrictHostKeyChecking=yes",
            "-o",
            "ConnectTimeout=5",
            "-o",
            "ServerAliveInterval=5",
            "-o",
            "ServerAliveCountMax=3",
            m_options.user + "@" + h.address};
}

void NetnsHosts::setLinkUp(int host, bool up) {
    const TestHost& h = m_hosts.at(static_cast<std::size_t>(host));
    must({"ip", "link", "set", h.rootVeth, up ? "up" : "down"});
}

std::vector<int> NetnsHosts::processesIn(int host) const {
    const TestHost& h = m_hosts.at(static_cast<std::size_t>(host));
    std::vector<int> pids;
    for (int pid : processesInNamespace(h.ns))
        if (static_cast<std::size_t>(host) >= m_listeners.size() ||
            pid != m_listeners[static_cast<std::size_t>(host)])
            pids.push_back(pid);
    return pids;
}

std::vector<int> NetnsHosts::userProcesses() const {
    const int uid = userId(m_options.user);
    return uid < 0 ? std::vector<int>{} : processesOfUid(uid);
}

void NetnsHosts::tearDown() {
    if (!m_lock)
        return;
    try {
        // ownerPid is 0 until this fixture writes the state file: until then the file, if any,
        // is an earlier run's that could not be cleaned, and stays.
        if (m_state.ownerPid == 0) {
            releaseLock();
            return;
        }
        const std::vector<std::string> left = removeResources(m_state);
        if (left.empty()) {
            std::error_code ec;
            fs::remove(kNetnsStateFile, ec);
        } else {
            std::cerr << "NetnsHosts teardown: not removed (kept in " << kNetnsStateFile
                      << " for the next run):";
            for (const auto& l : left)
                std::cerr << " " << l << ";";
            std::cerr << "\n";
        }
    } catch (const std::exception& e) {
        std::cerr << "NetnsHosts teardown: " << e.what() << "\n";
    }
    releaseLock();
}

void NetnsHosts::releaseLock() {
    m_launchers.clear();
    m_listeners.clear();
    m_lock.reset();
}

void NetnsHosts::cleanupStale() {
    FixtureLock lock;
    cleanupStaleLocked();
}

void NetnsHosts::cleanupStaleLocked() {
    const std::optional<FixtureState> stale = FixtureState::load();
    if (!stale)
        return;
    const std::vector<std::string> left = removeResources(*stale);
    if (!left.empty()) {
        std::string what;
        for (const auto& l : left)
            what += (what.empty() ? "" : ", ") + l;
        throw std::runtime_error("leftovers of pid " + std::to_string(stale->ownerPid) +
                                 " could not be removed: " + what);
    }
    std::error_code ec;
    fs::remove(kNetnsStateFile, ec);
}

} // namespace studio::testing
