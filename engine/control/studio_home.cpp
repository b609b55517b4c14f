#include "engine/control/studio_home.h"

#include "engine/process/process.h"
#include "engine/process/process_identity.h"

#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace studio::control {

namespace fs = std::filesystem;

namespace {

// $XDG_DATA_HOME/mlstudio, else ~/.local/share/mlstudio: the data folder without MLSTUDIO_HOME.
fs::path defaultDataHome() {
    if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x)
        return fs::path(x) / "mlstudio";
    const char* home = std::getenv("HOME");
    return fs::path(home ? home : "/tmp") / ".local" / "share" / "mlstudio";
}

} // namespace

std::string studioHome() {
    if (const char* h = std::getenv("MLSTUDIO_HOME"); h && *h)
        return fs::absolute(h).lexically_normal().string();
    return defaultDataHome().string();
}

std::string databasePath(const std::string& home) {
    return (fs::path(home) / "studio.db").string();
}

std::string configHome(const std::string& dataHome) {
    const fs::path data = fs::absolute(dataHome).lexically_normal();
    if (data != fs::absolute(defaultDataHome()).lexically_normal())
        return data.string();
    if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x)
        return (fs::path(x) / "mlstudio").string();
    const char* home = std::getenv("HOME");
    return (fs::path(home ? home : "/tmp") / ".config" / "mlstudio").string();
}

std::string settingsPath(const std::string& dataHome) {
    const fs::path dir = configHome(dataHome);
    const fs::path file = dir / "studio.ini";
    std::error_code ec;
    fs::create_directories(dir, ec);
    const fs::path old = fs::path(dataHome) / "studio.ini";
    if (old != file && !fs::exists(file, ec) && fs::exists(old, ec)) {
        fs::rename(old, file, ec);
        if (ec) // another file system: copy, and keep the old one
            fs::copy_file(old, file, ec);
    }
    return file.string();
}

JobPaths JobPaths::of(const std::string& home, const std::string& job) {
    fs::path root = fs::path(home) / "jobs" / job;
    JobPaths p;
    p.root = root.string();
    p.spec = (root / "spec.json").string();
    p.logs = (root / "logs").string();
    p.checkpoints = (root / "checkpoints").string();
    p.model = (root / "model").string();
    p.output = (root / "output").string();
    p.debugOutput = (root / "debug-output").string();
    p.profilerOutput = (root / "profiler-output").string();
    return p;
}

void makePrivateHome(const std::string& home) {
    std::error_code ec;
    fs::create_directories(home, ec);
    struct stat st {};
    if (::stat(home.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw std::runtime_error("cannot create the studio home " + home + ": " +
                                 (ec ? ec.message() : std::string("not a folder")));
    if (st.st_uid == ::geteuid() && (st.st_mode & 077) != 0 && ::chmod(home.c_str(), 0700) != 0)
        throw std::runtime_error("cannot make the studio home " + home + " private");
}

void JobPaths::create() const {
    for (const auto& dir : {logs, checkpoints, model, output, debugOutput, profilerOutput}) {
        std::error_code ec;
        fs::create_directories(dir, ec);
        if (ec)
            throw std::runtime_error("cannot create " + dir + ": " + ec.message());
    }
}

std::string timestampedJobName(const std::string& base, double t) {
    const long long totalMs = std::llround(t * 1000.0);
    std::time_t secs = static_cast<std::time_t>(totalMs / 1000);
    int millis = static_cast<int>(totalMs % 1000);
    std::tm tm{};
    ::gmtime_r(&secs, &tm);
    char buf[40];
    std::strftime(buf, sizeof buf, "%Y-%m-%d-%H-%M-%S", &tm);
    char ms[8];
    std::snprintf(ms, sizeof ms, "-%03d", millis);
    return base + "-" + buf + ms;
}

namespace {
std::string hostName() {
    char buf[256] = {0};
    ::gethostname(buf, sizeof buf - 1);
    return buf;
}

} // namespace

std::string processOwnerId() {
    return hostName() + ":" + std::to_string(::getpid()) + ":" +
           process::processStartTicks(::getpid());
}

bool ownerAlive(const std::string& owner) {
    auto a = owner.find(':');
    auto b = owner.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos)
        return true;
    if (owner.substr(0, a) != hostName())
        return true;
    long pid = std::strtol(owner.substr(a + 1, b - a - 1).c_str(), nullptr, 10);
    return process::processRunning(pid, owner.substr(b + 1));
}

std::vector<std::string> programDirectories(const std::string& self) {
    if (self.empty())
        return {};
    const fs::path dir = fs::path(self).parent_path();
    return {dir.string(), (dir.parent_path() / "lib" / "mlstudio").string()};
}

std::string findProgramFrom(const std::string& self, const std::string& name,
                            const std::string& pathList) {
    std::vector<std::string> dirs = programDirectories(self);
    std::stringstream ss(pathList);
    for (std::string dir; std::getline(ss, dir, ':');)
        if (!dir.empty())
            dirs.push_back(dir);
    for (const auto& dir : dirs) {
        const fs::path candidate = fs::path(dir) / name;
        std::error_code ec;
        if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0)
            return candidate.string();
    }
    return {};
}

std::string findProgram(const std::string& name) {
    const char* path = std::getenv("PATH");
    return findProgramFrom(process::selfExecutable(), name, path ? path : "");
}

} // namespace studio::control
