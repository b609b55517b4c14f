#include "launcher/host_tools.h"

#include "launcher/rank_environment.h"

#include "engine/process/process.h"
#include "engine/process/process_identity.h"
#include "engine/remote/host_facts.h"
#include "engine/wire/event.h"
#include "launcher/network_interface.h"
#include "launcher/nvml.h"

#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <sys/statvfs.h>
#include <unistd.h>

namespace studio::launcher {

namespace fs = std::filesystem;

namespace {

// Parses a subcommand's flags; prints the error or help and returns its exit code, or -1.
int parse(CLI::App& app, const std::vector<std::string>& args) {
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    try {
        app.parse(reversed);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 2;
    }
    return -1;
}

// The host side of the studio's SSH connection: "client port server port".
std::string sshServerAddress() {
    const char* c = std::getenv("SSH_CONNECTION");
    if (!c)
        return {};
    std::string text = c, field;
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto sp = text.find(' ', start);
        parts.push_back(text.substr(start, sp == std::string::npos ? sp : sp - start));
        if (sp == std::string::npos)
            break;
        start = sp + 1;
    }
    return parts.size() >= 3 ? parts[2] : std::string();
}

// tar with this process's stdin and stdout (spawn points a child's stdin at /dev/null first,
// so the descriptor to pass is a copy).
int runTar(const std::vector<std::string>& argv) {
    process::Fd in(::fcntl(0, F_DUPFD_CLOEXEC, 10));
    process::SpawnOptions o;
    o.argv = argv;
    o.env = process::currentEnvironment();
    o.captureStdout = false;
    o.captureStderr = false;
    o.newProcessGroup = false;
    o.passFds = {{in.get(), 0}};
    process::Process p = process::Process::spawn(o);
    return p.wait().success() ? 0 : 1;
}

} // namespace

int runProbe(const std::vector<std::string>& args) {
    CLI::App app{"studio-launcher probe: report this host's resources as JSON", "probe"};
    std::string workdir, routeAddress;
    bool freePort = false;
    app.add_option("--workdir", workdir, "the studio's folder here (created when missing)");
    app.add_option("--route-to", routeAddress, "report the interface that reaches this address");
    app.add_flag("--free-port", freePort, "report a free TCP port");
    if (int rc = parse(app, args); rc >= 0)
        return rc;
    remote::HostFacts f;
    f.version = remote::launcherVersionLine();
    f.hostname = hostName();
    f.cores = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
    f.memoryBytes = static_cast<std::int64_t>(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGESIZE);
    if (!workdir.empty()) {
        std::error_code ec;
        fs::create_directories(workdir, ec);
        if (ec) {
            std::fprintf(stderr, "cannot create the workdir %s: %s\n", workdir.c_str(),
                         ec.message().c_str());
            return 1;
        }
        f.workdir = fs::canonical(workdir, ec).string();
        struct statvfs st {};
        if (::statvfs(f.workdir.c_str(), &st) == 0)
            f.diskFreeBytes = static_cast<std::int64_t>(st.f_bavail) * st.f_frsize;
    }
    Nvml nvml;
    int index = 0;
    for (const auto& g : nvml.devices())
        f.gpus.push_back({index++, g.name, static_cast<std::int64_t>(g.memoryBytes)});
    f.sshServerAddress = sshServerAddress();
    if (freePort)
        f.freePort = freePortOnAllInterfaces();
    if (!routeAddress.empty()) {
        f.routeAddress = routeAddress;
        if (auto r = routeTo(routeAddress)) {
            f.routeIfname = r->ifname;
            f.routeSource = r->source;
        }
    }
    f.time = wire::nowSeconds();
    const std::string text = remote::encodeHostFacts(f);
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
}

int runStage(const std::vector<std::string>& args) {
    CLI::App app{"studio-launcher stage: receive staged folders", "stage"};
    std::vector<std::string> check;
    std::string into;
    app.add_option("--check", check, "print which of these folders are missing");
    app.add_option("--into", into, "extract the tar stream on stdin into this new folder");
    if (int rc = parse(app, args); rc >= 0)
        return rc;
    if (!check.empty()) {
        std::printf("@@studio-stage\n");
        for (const auto& d : check)
            if (!fs::exists(d))
                std::printf("missing %s\n", d.c_str());
        return 0;
    }
    if (into.empty()) {
        std::fprintf(stderr, "stage: give --check FOLDER... or --into FOLDER\n");
        return 2;
    }
    // Extract beside the target and rename: a folder that exists is always complete, also
    // when two hosts sharing a filesystem stage the same content at once.
    const fs::path target(into);
    const fs::path tmp = target.string() + ".part-" + std::to_string(::getpid());
    std::error_code ec;
    fs::create_directories(tmp, ec);
    if (ec) {
        std::fprintf(stderr, "cannot create %s: %s\n", tmp.c_str(), ec.message().c_str());
        return 1;
    }
    if (runTar({"tar", "-x", "--no-same-owner", "-f", "-", "-C", tmp.string()}) != 0) {
        fs::remove_all(tmp, ec);
        std::fprintf(stderr, "tar could not extract into %s\n", tmp.c_str());
        return 1;
    }
    fs::rename(tmp, target, ec);
    if (ec)
        fs::remove_all(tmp, ec); // someone else staged it first
    return 0;
}

int runPack(const std::vector<std::string>& args) {
    CLI::App app{"studio-launcher pack: write a folder as a tar stream to stdout", "pack"};
    std::string dir;
    app.add_option("dir", dir, "the folder")->required();
    if (int rc = parse(app, args); rc >= 0)
        return rc;
    if (!fs::is_directory(dir)) {
        std::fprintf(stderr, "pack: no folder %s\n", dir.c_str());
        return 3;
    }
    std::fflush(stdout);
    return runTar({"tar", "-c", "-f", "-", "-C", dir, "."});
}

int runSignal(const std::vector<std::string>& args) {
    CLI::App app{"studio-launcher signal: signal a detached launcher", "signal"};
    long pid = 0;
    std::string start, name = "TERM";
    app.add_option("--pid", pid, "its process id")->required();
    app.add_option("--start", start, "its start time in clock ticks (guards against pid reuse)")
        ->required();
    app.add_option("--signal", name, "TERM, KILL, INT or USR1")
        ->check(CLI::IsMember({"TERM", "KILL", "INT", "USR1"}));
    if (int rc = parse(app, args); rc >= 0)
        return rc;
    if (!process::processRunning(pid, start)) {
        std::printf("not running\n");
        return 3;
    }
    const int sig = name == "KILL"   ? SIGKILL
                    : name == "INT"  ? SIGINT
                    : name == "USR1" ? SIGUSR1
                                     : SIGTERM;
    if (::kill(static_cast<pid_t>(pid), sig) != 0) {
        std::perror("kill");
        return 1;
    }
    std::printf("sent SIG%s\n", name.c_str());
    return 0;
}

} // namespace studio::launcher
