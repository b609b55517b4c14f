#include "tests/support/netns_state.h"

#include "tests/support/child_process.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <grp.h>
#include <iostream>
#include <pwd.h>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <sys/file.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;

namespace studio::testing {

namespace {

// The state file lives in /tmp, so its names are checked before anything is deleted by them.
bool safeLinkName(const std::string& n) {
    static const std::regex re("mls[a-z0-9]{1,12}");
    return std::regex_match(n, re);
}

bool safeDir(const std::string& d) {
    static const std::regex re("/tmp/mlsn[A-Za-z0-9]{6,}");
    return std::regex_match(d, re);
}

bool ourProcess(const TrackedProcess& p) {
    return p.pid > 1 && p.pid != ::getpid() && processAlive(p.pid) &&
           processStartTime(p.pid) == p.startTime;
}

bool namespaceExists(const std::string& ns) {
    return fs::exists("/run/netns/" + ns);
}
bool linkExists(const std::string& l) {
    return fs::exists("/sys/class/net/" + l);
}

void run(const std::vector<std::string>& argv, std::vector<std::string>& errors) {
    const CommandResult r = runCommand(argv, std::chrono::seconds(20));
    if (!r.ok())
        errors.push_back(describeFailure(argv, r));
}

std::string commOf(int pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/comm");
    std::string s;
    std::getline(f, s);
    return s;
}

// SIGKILLs processes that should not be there any more, saying which ones.
void killLeftovers(const std::vector<int>& pids, const std::string& where) {
    std::vector<int> targets;
    for (int pid : pids) {
        if (pid <= 1 || pid == ::getpid())
            continue;
        std::cerr << "NetnsHosts: killing pid " << pid << " (" << commOf(pid) << ") left " << where
                  << "\n";
        targets.push_back(pid);
    }
    terminateProcesses(targets, std::chrono::milliseconds(0));
}

void removeProcesses(const FixtureState& s) {
    std::vector<int> pids;
    for (auto it = s.processes.rbegin(); it != s.processes.rend(); ++it)
        if (ourProcess(*it))
            pids.push_back(it->pid);
    terminateProcesses(pids);
    for (const auto& ns : s.namespaces)
        if (safeLinkName(ns) && namespaceExists(ns))
            killLeftovers(processesInNamespace(ns), "in namespace " + ns);
    if (validUserName(s.user))
        if (const int uid = userId(s.user); ordinaryUid(uid))
            killLeftovers(processesOfUid(uid), "for user " + s.user);
}

// The kernel destroys a deleted namespace, and with it the veth peer, a moment after
// `ip netns del` returns; a veth end that was never moved into a namespace needs `ip link del`.
void removeLink(const std::string& link, std::vector<std::string>& errors) {
    for (int i = 0; i < 100 && linkExists(link); ++i) // up to 2 s
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!linkExists(link))
        return;
    const CommandResult r = runCommand({"ip", "link", "del", link});
    if (!r.ok() && linkExists(link))
        errors.push_back(describeFailure({"ip", "link", "del", link}, r));
}

void removeUser(const std::string& user, std::vector<std::string>& errors) {
    if (!validUserName(user))
        return;
    // -f: zombies of the user's processes stay (PID 1 here does not reap) and would block it.
    if (ordinaryUid(userId(user)))
        run({"userdel", "-r", "-f", user}, errors);
    if (::getgrnam(user.c_str()) != nullptr)
        run({"groupdel", user}, errors);
}

std::vector<std::string> leftovers(const FixtureState& s) {
    std::vector<std::string> left;
    for (const auto& p : s.processes)
        if (ourProcess(p))
            left.push_back("process " + std::to_string(p.pid) + " (" + p.name + ")");
    for (const auto& ns : s.namespaces)
        if (namespaceExists(ns))
            left.push_back("namespace " + ns);
    for (const auto& l : s.links)
        if (linkExists(l))
            left.push_back("link " + l);
    if (!s.bridge.empty() && linkExists(s.bridge))
        left.push_back("bridge " + s.bridge);
    if (!s.user.empty() && userId(s.user) >= 0)
        left.push_back("user " + s.user);
    if (!s.dir.empty() && fs::exists(s.dir))
        left.push_back("directory " + s.dir);
    return left;
}

} // namespace

bool FixtureState::empty() const {
    return processes.empty() && namespaces.empty() && links.empty() && bridge.empty() &&
           user.empty() && dir.empty();
}

void FixtureState::save(const std::string& path) const {
    nlohmann::json j;
    j["owner_pid"] = ownerPid;
    j["processes"] = nlohmann::json::array();
    for (const auto& p : processes)
        j["processes"].push_back({{"pid", p.pid}, {"start", p.startTime}, {"name", p.name}});
    j["namespaces"] = namespaces;
    j["links"] = links;
    j["bridge"] = bridge;
    j["user"] = user;
    j["dir"] = dir;
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << j.dump(1) << "\n";
        if (!out.flush())
            throw std::runtime_error("cannot write " + tmp);
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec)
        throw std::runtime_error("cannot rename " + tmp + ": " + ec.message());
}

std::optional<FixtureState> FixtureState::load(const std::string& path) {
    std::ifstream in(path);
    if (!in)
        return std::nullopt;
    FixtureState s;
    try {
        const auto j = nlohmann::json::parse(in);
        s.ownerPid = j.value("owner_pid", 0);
        for (const auto& p : j.value("processes", nlohmann::json::array()))
            s.processes.push_back({p.at("pid").get<int>(), p.at("start").get<unsigned long long>(),
                                   p.value("name", "")});
        s.namespaces = j.value("namespaces", std::vector<std::string>{});
        s.links = j.value("links", std::vector<std::string>{});
        s.bridge = j.value("bridge", "");
        s.user = j.value("user", "");
        s.dir = j.value("dir", "");
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error("cannot parse " + path + ": " + e.what());
    }
    return s;
}

std::vector<std::string> removeResources(const FixtureState& s) {
    std::vector<std::string> errors;
    removeProcesses(s);
    // Deleting a namespace removes its veth end and, with it, the peer in the root namespace.
    for (const auto& ns : s.namespaces)
        if (safeLinkName(ns) && namespaceExists(ns))
            run({"ip", "netns", "del", ns}, errors);
    for (const auto& l : s.links)
        if (safeLinkName(l) && linkExists(l))
            removeLink(l, errors);
    if (safeLinkName(s.bridge) && linkExists(s.bridge))
        run({"ip", "link", "del", s.bridge}, errors);
    removeUser(s.user, errors);
    if (safeDir(s.dir)) {
        std::error_code ec;
        fs::remove_all(s.dir, ec);
        if (ec)
            errors.push_back("cannot remove " + s.dir + ": " + ec.message());
    }
    for (const auto& e : errors)
        std::cerr << "NetnsHosts teardown: " << e << "\n";
    return leftovers(s);
}

bool validUserName(const std::string& n) {
    static const std::regex re("mlstudio-[a-z0-9_-]{1,22}");
    return std::regex_match(n, re);
}

bool ordinaryUid(int uid) {
    return uid >= 1000 && uid < 60000;
}

int userId(const std::string& user) {
    const passwd* pw = ::getpwnam(user.c_str());
    return pw ? static_cast<int>(pw->pw_uid) : -1;
}

std::vector<int> processesOfUid(int uid) {
    std::vector<int> pids;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/proc", ec)) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos)
            continue;
        std::ifstream status(entry.path() / "status");
        bool match = false;
        bool zombie = false;
        for (std::string line; std::getline(status, line);) {
            if (line.rfind("State:", 0) == 0)
                zombie = line.find('Z') != std::string::npos;
            if (line.rfind("Uid:", 0) == 0) {
                std::istringstream ids(line.substr(4));
                int real = -1, effective = -1;
                ids >> real >> effective;
                match = real == uid || effective == uid;
                break;
            }
        }
        if (match && !zombie)
            pids.push_back(std::stoi(name));
    }
    return pids;
}

std::vector<int> processesInNamespace(const std::string& ns) {
    const CommandResult r = runCommand({"ip", "netns", "pids", ns});
    std::vector<int> pids;
    std::istringstream in(r.output);
    for (std::string tok; in >> tok;)
        if (tok.find_first_not_of("0123456789") == std::string::npos)
            pids.push_back(std::stoi(tok));
    return pids;
}

FixtureLock::FixtureLock(std::chrono::milliseconds wait) {
    m_fd = ::open(kNetnsLockFile, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (m_fd < 0)
        throw std::runtime_error(std::string("cannot open ") + kNetnsLockFile + ": " +
                                 std::strerror(errno));
    const auto deadline = std::chrono::steady_clock::now() + wait;
    while (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
        if (std::chrono::steady_clock::now() >= deadline) {
            ::close(m_fd);
            std::optional<FixtureState> s;
            try {
                s = FixtureState::load();
            } catch (const std::exception&) {
            }
            throw std::runtime_error(std::string("another NetnsHosts fixture holds ") +
                                     kNetnsLockFile +
                                     (s ? " (pid " + std::to_string(s->ownerPid) + ")" : ""));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

FixtureLock::~FixtureLock() {
    if (m_fd >= 0)
        ::close(m_fd);
}

} // namespace studio::testing
