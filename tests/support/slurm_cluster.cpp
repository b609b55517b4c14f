#include "tests/support/slurm_cluster.h"

#include "tests/support/child_process.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <grp.h>
#include <iostream>
#include <netinet/in.h>
#include <pwd.h>
#include <set>
#include <sstream>
#include <stdexcept>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace studio::testing {

namespace {

constexpr int kSlurmdPort = 6818; // every namespace has its own port space
constexpr const char* kRestPlugins = "openapi/v0.0.36,openapi/v0.0.37,openapi/v0.0.38";
constexpr const char* kDaemonPath = "PATH=/usr/sbin:/usr/bin:/sbin:/bin";

std::string must(const std::vector<std::string>& argv, std::chrono::milliseconds timeout = 20s) {
    const CommandResult r = runCommand(argv, timeout);
    if (!r.ok())
        throw std::runtime_error(describeFailure(argv, r));
    return r.output;
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

void makeDir(const std::string& path, fs::perms mode) {
    fs::create_directories(path);
    fs::permissions(path, mode); // not subject to the umask, unlike mkdir's mode
}

// A TCP port nothing listens on now at `addr` ("0.0.0.0" for slurmctld, which binds there).
int freePort(const char* addr) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    ::inet_pton(AF_INET, addr, &sa.sin_addr);
    socklen_t len = sizeof sa;
    const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0 &&
                    ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) == 0;
    ::close(fd);
    if (!ok)
        throw std::runtime_error(std::string("no free port on ") + addr);
    return ntohs(sa.sin_port);
}

// slurmctld accepts SlurmctldHost only when its name part is this machine's short hostname.
std::string shortHostname() {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0)
        throw std::runtime_error(std::string("gethostname: ") + std::strerror(errno));
    const std::string full = name;
    return full.substr(0, full.find('.'));
}

// Direct children of `parent`, from the ppid field of /proc/PID/stat.
std::vector<int> childrenOf(int parent) {
    std::vector<int> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/proc", ec)) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos)
            continue;
        const std::string stat = readWholeFile("/proc/" + name + "/stat");
        const auto close = stat.rfind(')');
        if (close == std::string::npos)
            continue;
        std::istringstream rest(stat.substr(close + 2));
        std::string state;
        int ppid = 0;
        rest >> state >> ppid;
        if (ppid == parent && state != "Z")
            out.push_back(std::stoi(name));
    }
    return out;
}

std::string tailOf(const std::string& path, int lines) {
    std::vector<std::string> all;
    std::istringstream in(readWholeFile(path));
    for (std::string line; std::getline(in, line);)
        all.push_back(line);
    std::string out;
    const std::size_t from = all.size() > static_cast<std::size_t>(lines)
                                 ? all.size() - static_cast<std::size_t>(lines)
                                 : 0;
    for (std::size_t i = from; i < all.size(); ++i)
        out += "  " + all[i] + "\n";
    return out;
}

// Curl for the fixture's own endpoints only; --noproxy so that an http_proxy in the test's
// environment can never send a request off the machine.
std::vector<std::string> pingArgs(const std::string& url, const std::string& socket,
                                  const std::string& user, const std::string& token) {
    std::vector<std::string> argv = {"curl", "-sS", "--noproxy", "*", "--max-time", "2"};
    if (!socket.empty())
        argv.insert(argv.end(), {"--unix-socket", socket, "http://localhost/slurm/v0.0.38/ping"});
    else
        argv.insert(argv.end(), {"-H", "X-SLURM-USER-NAME: " + user, "-H",
                                 "X-SLURM-USER-TOKEN: " + token, url + "/slurm/v0.0.38/ping"});
    return argv;
}

bool pingIsUp(const std::string& body) {
    try {
        const auto j = nlohmann::json::parse(body);
        const auto& pings = j.at("pings");
        return !pings.empty() && pings.at(0).value("ping", "") == "UP";
    } catch (const nlohmann::json::exception&) {
        return false;
    }
}

bool pluginInstalled(const std::string& file) {
    for (const char* dir :
         {"/usr/lib/x86_64-linux-gnu/slurm-wlm", "/usr/lib/aarch64-linux-gnu/slurm-wlm",
          "/usr/lib/slurm-wlm", "/usr/lib64/slurm", "/usr/lib/slurm"})
        if (fs::exists(std::string(dir) + "/" + file))
            return true;
    return false;
}

void checkOptions(const SlurmClusterOptions& o) {
    if (o.nodes < 1 || o.nodes > 8)
        throw std::invalid_argument("nodes must be 1..8");
    if (o.lifetimeSeconds < 10)
        throw std::invalid_argument("lifetimeSeconds must be at least 10");
    if (o.credExpireSeconds < 5)
        throw std::invalid_argument("credExpireSeconds must be at least 5 (Slurm's minimum)");
}

} // namespace

std::string SlurmCluster::unavailableReason() {
    for (const char* p : {"slurmctld", "slurmd", "slurmrestd", "munged", "mungekey", "scontrol",
                          "sinfo", "squeue", "scancel", "nsenter", "setpriv", "timeout", "curl"})
        if (findProgram(p).empty())
            return std::string(p) + " is missing (packages slurmctld slurmd slurmrestd "
                                    "slurm-client munge util-linux coreutils curl)";
    for (const char* plugin :
         {"auth_jwt.so", "rest_auth_jwt.so", "rest_auth_local.so", "openapi_v0_0_38.so"})
        if (!pluginInstalled(plugin))
            return std::string("Slurm plugin ") + plugin +
                   " is missing (packages slurm-wlm-jwt-plugin, slurm-wlm-basic-plugins)";
    if (::getpwnam("nobody") == nullptr || ::getgrnam("nogroup") == nullptr)
        return "user nobody or group nogroup is missing: slurmrestd must not run as root";
    return NetnsHosts::unavailableReason();
}

SlurmCluster::SlurmCluster(Options o)
    : m_options(o) {
    try {
        m_step = "checking the options";
        checkOptions(m_options);
        // Before the hosts exist, so that an orphaned slurmctld of a killed run cannot talk to
        // the new namespaces, which may get the same addresses.
        m_step = "removing leftovers of an earlier Slurm fixture";
        cleanupStale();
        m_step = "bringing up the namespace hosts";
        NetnsHosts::Options hostOptions;
        hostOptions.hosts = m_options.nodes;
        hostOptions.lifetimeSeconds = m_options.lifetimeSeconds;
        m_hosts = std::make_unique<NetnsHosts>(hostOptions);
        // The machine-wide lock is ours now: a state file here is stale for certain (another
        // fixture may have come and gone between cleanupStale and the lock).
        m_step = "removing leftovers of an earlier Slurm fixture";
        cleanupStaleLocked();
        bringUp();
    } catch (const std::exception& e) {
        std::string msg = "SlurmCluster: " + m_step + " failed: " + e.what();
        if (const std::string logs = logTail(); !logs.empty())
            msg += "\n" + logs;
        tearDown();
        throw std::runtime_error(msg);
    }
}

SlurmCluster::~SlurmCluster() {
    tearDown();
}

void SlurmCluster::bringUp() {
    for (const auto& h : m_hosts->hosts())
        m_addresses.push_back(h.address);
    m_state.ownerPid = ::getpid();
    m_step = "creating the temp dir";
    // Short, for sun_path (108 bytes); "mlsn" so that removeResources() accepts it.
    char tmpl[] = "/tmp/mlsnXXXXXX";
    if (::mkdtemp(tmpl) == nullptr)
        throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
    m_dir = tmpl;
    m_state.dir = m_dir;
    record();
    makeDirs();
    m_step = "starting munged";
    startMunge();
    m_step = "writing slurm.conf";
    writeConfig();
    m_step = "starting slurmctld";
    startDaemon("slurmctld", {"slurmctld", "-D", "-c", "-f", slurmConf()});
    for (int i = 0; i < m_options.nodes; ++i) {
        const std::string node = nodeNames()[static_cast<std::size_t>(i)];
        m_step = "starting slurmd " + node;
        // nsenter --net, not `ip netns exec`: that remounts /sys, and slurmd then finds no
        // /sys/fs/cgroup and exits.
        // In a UTS namespace of its own named as the node, as a real node is.
        startDaemon("slurmd " + node,
                    {"nsenter", "--net=/run/netns/" + m_hosts->hosts()[i].ns, "unshare", "--uts",
                     "--", "/bin/sh", "-c", "hostname \"$0\" && exec slurmd -D -N \"$0\" -f \"$1\"",
                     node, slurmConf()});
    }
    m_step = "waiting until every node is idle";
    waitForIdleNodes();
    m_ready = true;
    m_step = "minting a JWT for root";
    mintToken();
    m_step = "starting slurmrestd";
    m_restPort = freePort("127.0.0.1");
    const std::vector<std::string> asNobody = {
        "setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--", "env",
        "-i",      kDaemonPath};
    std::vector<std::string> jwt = asNobody;
    jwt.insert(jwt.end(),
               {"SLURM_JWT=daemon", "slurmrestd", "-f", slurmConf(), "-a", "rest_auth/jwt", "-s",
                kRestPlugins, "127.0.0.1:" + std::to_string(m_restPort)});
    startDaemon("slurmrestd jwt", jwt);
    std::vector<std::string> local = asNobody;
    local.insert(local.end(), {"slurmrestd", "-f", slurmConf(), "-a", "rest_auth/local", "-s",
                               kRestPlugins, socketUrl()});
    startDaemon("slurmrestd local", local);
    m_step = "waiting for slurmrestd (jwt) to answer /ping";
    waitForPing(false);
    m_step = "waiting for slurmrestd (local) to answer /ping";
    waitForPing(true);
    // slurmctld's slurmscriptd, in case a killed run leaves it behind.
    for (const auto& d : m_daemons)
        for (int pid : childrenOf(d.pid))
            m_state.processes.push_back({pid, processStartTime(pid), d.name + " child"});
    record();
    m_step.clear();
}

void SlurmCluster::makeDirs() {
    // Everything above a socket must be traversable by all (munged insists; nobody's
    // slurmrestd reads slurm.conf and reaches munged).
    fs::permissions(m_dir, fs::perms(0711));
    makeDir(m_dir + "/munge", fs::perms(0711));
    makeDir(m_dir + "/munge/run", fs::perms(0755));
    makeDir(m_dir + "/etc", fs::perms(0755));
    makeDir(m_dir + "/state", fs::perms(0700));
    makeDir(m_dir + "/log", fs::perms(0755));
    makeDir(m_dir + "/rest", fs::perms(0777)); // nobody creates its socket here
    makeDir(sharedDir(), fs::perms(01777));
    for (const auto& node : nodeNames()) // slurmd needs its spool dir before it starts
        makeDir(m_dir + "/spool/" + node, fs::perms(0755));
}

void SlurmCluster::startMunge() {
    const std::string key = m_dir + "/munge/munge.key";
    must({"mungekey", "--create", "--keyfile=" + key, "--bits=1024"});
    const std::string socket = m_dir + "/munge/run/munge.socket";
    startDaemon("munged", {"munged", "-F", "--socket=" + socket, "--key-file=" + key,
                           "--log-file=" + m_dir + "/log/munged.log",
                           "--pid-file=" + m_dir + "/munge/run/munged.pid",
                           "--seed-file=" + m_dir + "/munge/munged.seed"});
    for (int i = 0; i < 200 && !fs::exists(socket); ++i) { // 200 x 25 ms
        requireRunning();
        std::this_thread::sleep_for(25ms);
    }
    if (!fs::exists(socket))
        throw std::runtime_error("munged made no socket " + socket + " within 5 s");
}

void SlurmCluster::writeConfig() {
    const std::string jwtKey = m_dir + "/etc/jwt_hs256.key";
    std::string key(32, '\0');
    {
        std::ifstream random("/dev/urandom", std::ios::binary);
        random.read(key.data(), static_cast<std::streamsize>(key.size()));
        if (!random)
            throw std::runtime_error("cannot read /dev/urandom");
    }
    writeFile(jwtKey, key, fs::perms(0600));
    m_ctldPort = freePort("0.0.0.0");
    std::string names, addresses;
    for (int i = 0; i < m_options.nodes; ++i) {
        names += (i ? "," : "") + nodeNames()[static_cast<std::size_t>(i)];
        addresses += (i ? "," : "") + m_addresses[static_cast<std::size_t>(i)];
    }
    const std::string& d = m_dir;
    const std::string hold = std::to_string(m_options.credExpireSeconds);
    const std::vector<std::pair<const char*, std::string>> settings = {
        {"ClusterName", "studiotest"},
        {"SlurmctldHost", shortHostname() + "(" + m_hosts->bridgeAddress() + ")"},
        {"SlurmctldPort", std::to_string(m_ctldPort)},
        {"SlurmUser", "root"},
        {"SlurmdUser", "root"},
        {"AuthType", "auth/munge"},
        {"CredType", "cred/munge"},
        // cred_expire also holds a requeued job back (120 s by default).
        {"AuthInfo", "socket=" + d + "/munge/run/munge.socket,cred_expire=" + hold},
        {"AuthAltTypes", "auth/jwt"},
        {"AuthAltParameters", "jwt_key=" + jwtKey},
        {"StateSaveLocation", d + "/state"},
        {"SlurmdSpoolDir", d + "/spool/%n"},
        {"SlurmctldPidFile", d + "/slurmctld.pid"},
        {"SlurmdPidFile", d + "/slurmd-%n.pid"},
        {"SlurmctldLogFile", d + "/log/slurmctld.log"},
        {"SlurmdLogFile", d + "/log/slurmd-%n.log"},
        {"ProctrackType", "proctrack/linuxproc"}, // no cgroup setup
        {"TaskPlugin", "task/none"},
        {"JobAcctGatherType", "jobacct_gather/none"},
        {"AccountingStorageType", "accounting_storage/none"},
        {"JobCompType", "jobcomp/none"},
        {"SelectType", "select/cons_tres"},
        {"SelectTypeParameters", "CR_Core"},
        {"SchedulerType", "sched/backfill"},
        // batch_sched_delay=0: batch jobs start at once, not after 3 s. The short intervals
        // start a requeued job when its hold ends, not at the next 30-60 s scheduling pass.
        {"SchedulerParameters", "batch_sched_delay=0,sched_interval=1,bf_interval=1"},
        {"JobRequeue", "1"},
        {"MpiDefault", "none"},
        {"MailProg", "/bin/true"},
        {"ReturnToService", "2"},
        {"SlurmdTimeout", "30"},
        {"InactiveLimit", "0"},
        {"KillWait", "5"},
        {"MinJobAge", "300"},
        {"NodeName", names + " NodeAddr=" + addresses + " Port=" + std::to_string(kSlurmdPort) +
                         " CPUs=2 State=UNKNOWN"},
        {"PartitionName",
         std::string(kPartitionAll) + " Nodes=" + names + " Default=YES MaxTime=INFINITE State=UP"},
        {"PartitionName",
         std::string(kPartitionOne) + " Nodes=" + nodeNames()[0] + " MaxTime=INFINITE State=UP"},
        {"PartitionName", std::string(kPartitionShared) + " Nodes=" + names +
                              " OverSubscribe=FORCE:32 MaxTime=INFINITE State=UP"},
    };
    std::string conf;
    for (const auto& [key, value] : settings)
        conf += std::string(key) + "=" + value + "\n";
    writeFile(slurmConf(), conf, fs::perms(0644));
}

void SlurmCluster::startDaemon(const std::string& name, const std::vector<std::string>& argv) {
    std::vector<std::string> full = {"timeout", "-k", "5",
                                     std::to_string(m_options.lifetimeSeconds)};
    full.insert(full.end(), argv.begin(), argv.end());
    std::string log = name;
    std::replace(log.begin(), log.end(), ' ', '-');
    const int launcher = studio::testing::startDaemon(full, m_dir + "/log/" + log + ".out");
    m_state.processes.push_back({launcher, processStartTime(launcher), "timeout+" + name});
    record();
    // timeout forks its child at once; the exec wrappers keep that pid for the daemon.
    int pid = 0;
    for (int i = 0; i < 200 && pid == 0; ++i) { // 200 x 10 ms
        if (const auto children = childrenOf(launcher); !children.empty())
            pid = children.front();
        else if (!processAlive(launcher))
            throw std::runtime_error(
                name + " exited at once: " + readWholeFile(m_dir + "/log/" + log + ".out"));
        else
            std::this_thread::sleep_for(10ms);
    }
    if (pid == 0)
        throw std::runtime_error("`timeout` started no " + name + " within 2 s");
    m_state.processes.push_back({pid, processStartTime(pid), name});
    record();
    m_daemons.push_back({name, launcher, pid});
}

void SlurmCluster::requireRunning() const {
    for (const auto& d : m_daemons)
        if (!processAlive(d.pid))
            throw std::runtime_error(d.name + " (pid " + std::to_string(d.pid) + ") exited");
}

void SlurmCluster::waitForIdleNodes() {
    const auto deadline = Clock::now() + 20s;
    std::string last;
    for (int i = 0; i < 400 && Clock::now() < deadline; ++i) { // 50 ms apart
        requireRunning();
        int rc = 0;
        last = slurmCommand({"sinfo", "-h", "-N", "-o", "%N %t"}, &rc);
        std::set<std::string> idle;
        bool allIdle = rc == 0;
        std::istringstream in(last);
        for (std::string node, state; in >> node >> state;) {
            allIdle = allIdle && state == "idle";
            idle.insert(node);
        }
        if (allIdle && idle.size() == static_cast<std::size_t>(m_options.nodes))
            return;
        std::this_thread::sleep_for(50ms);
    }
    throw std::runtime_error("nodes not idle within 20 s; sinfo says: " + last);
}

void SlurmCluster::mintToken() {
    const std::string out = slurmCommand({"scontrol", "token", "username=" + tokenUser(),
                                          "lifespan=" + std::to_string(m_options.lifetimeSeconds)});
    const auto at = out.find("SLURM_JWT=");
    if (at == std::string::npos)
        throw std::runtime_error("scontrol token printed no SLURM_JWT: " + out);
    std::string jwt = out.substr(at + 10);
    jwt = jwt.substr(0, jwt.find_first_of(" \r\n"));
    writeFile(tokenFile(), jwt, fs::perms(0600));
}

void SlurmCluster::waitForPing(bool viaSocket) {
    const std::vector<std::string> argv =
        pingArgs(restUrl(), viaSocket ? socketPath() : std::string(), tokenUser(), token());
    const auto deadline = Clock::now() + 15s;
    CommandResult r;
    for (int i = 0; i < 300 && Clock::now() < deadline; ++i) { // 50 ms apart
        requireRunning();
        r = runCommand(argv, 5s);
        if (r.ok() && pingIsUp(r.output))
            return;
        std::this_thread::sleep_for(50ms);
    }
    throw std::runtime_error("no UP from /slurm/v0.0.38/ping within 15 s: " +
                             describeFailure(argv, r));
}

void SlurmCluster::cancelJobs() {
    // Without slurmctld every client would only wait for its timeout.
    for (const auto& d : m_daemons)
        if (d.name == "slurmctld" && !processAlive(d.pid))
            return;
    int rc = 0;
    const std::string ids = slurmCommand({"squeue", "-h", "-o", "%i"}, &rc);
    if (rc != 0)
        return;
    std::vector<std::string> argv = {"scancel"};
    std::istringstream in(ids);
    for (std::string id; in >> id;)
        argv.push_back(id);
    if (argv.size() > 1)
        slurmCommand(argv, &rc);
    // KillWait=5 is the longest a job may take to end after SIGTERM.
    const auto deadline = Clock::now() + 15s;
    while (Clock::now() < deadline) {
        const std::string busy =
            slurmCommand({"squeue", "-h", "-t", "RUNNING,COMPLETING,CONFIGURING", "-o", "%i"}, &rc);
        if (rc != 0 || busy.find_first_not_of(" \n") == std::string::npos)
            return;
        std::this_thread::sleep_for(100ms);
    }
    std::cerr << "SlurmCluster teardown: jobs still running after scancel and 15 s\n";
}

void SlurmCluster::record() {
    m_state.save(kSlurmStateFile);
}

std::string SlurmCluster::token() const {
    return readWholeFile(tokenFile());
}
std::vector<std::string> SlurmCluster::nodeNames() const {
    std::vector<std::string> names;
    for (int i = 1; i <= m_options.nodes; ++i)
        names.push_back("h" + std::to_string(i));
    return names;
}

std::string SlurmCluster::nodeAddress(int node) const {
    return m_addresses.at(static_cast<std::size_t>(node));
}

NetnsHosts& SlurmCluster::hosts() {
    if (!m_hosts)
        throw std::logic_error("SlurmCluster::hosts() after tearDown()");
    return *m_hosts;
}

std::string SlurmCluster::logTail(int lines) const {
    if (m_dir.empty())
        return {};
    std::vector<fs::path> logs;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(m_dir + "/log", ec))
        logs.push_back(entry.path());
    std::sort(logs.begin(), logs.end());
    std::string out;
    for (const auto& path : logs)
        if (std::string tail = tailOf(path.string(), lines); !tail.empty())
            out += "== " + path.filename().string() + "\n" + tail;
    return out;
}

std::string SlurmCluster::slurmCommand(const std::vector<std::string>& argv, int* exitCode) const {
    std::vector<std::string> full = {"env", "SLURM_CONF=" + slurmConf()};
    full.insert(full.end(), argv.begin(), argv.end());
    const CommandResult r = runCommand(full, 20s);
    if (exitCode != nullptr)
        *exitCode = r.timedOut ? -1 : r.exitCode;
    else if (!r.ok())
        throw std::runtime_error(describeFailure(argv, r));
    return r.output;
}

void SlurmCluster::tearDown() {
    try {
        if (m_ready) {
            m_ready = false;
            cancelJobs();
        }
        if (m_state.ownerPid != 0) {
            // The daemons first, then what jobs left in the hosts, then the temp dir: a job
            // still writing into sharedDir() would make its removal fail.
            FixtureState daemonsOnly = m_state;
            daemonsOnly.dir.clear();
            removeResources(daemonsOnly);
            if (m_hosts)
                for (int i = 0; i < static_cast<int>(m_hosts->hosts().size()); ++i)
                    terminateProcesses(m_hosts->processesIn(i), 1s);
            const std::vector<std::string> left = removeResources(m_state);
            // Still under the machine-wide lock (the hosts hold it): the file is ours to remove.
            if (left.empty()) {
                std::error_code ec;
                fs::remove(kSlurmStateFile, ec);
            } else {
                std::cerr << "SlurmCluster teardown: not removed (kept in " << kSlurmStateFile
                          << " for the next run):";
                for (const auto& l : left)
                    std::cerr << " " << l << ";";
                std::cerr << "\n";
            }
            m_state = FixtureState{};
        }
    } catch (const std::exception& e) {
        std::cerr << "SlurmCluster teardown: " << e.what() << "\n";
    }
    if (m_hosts) {
        m_hosts->tearDown();
        m_hosts.reset();
    }
}

void SlurmCluster::cleanupStale() {
    FixtureLock lock;
    cleanupStaleLocked();
}

void SlurmCluster::cleanupStaleLocked() {
    const std::optional<FixtureState> stale = FixtureState::load(kSlurmStateFile);
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
    fs::remove(kSlurmStateFile, ec);
}

} // namespace studio::testing
