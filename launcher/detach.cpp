#include "launcher/detach.h"

#include "engine/process/fd.h"
#include "engine/process/process_identity.h"
#include "engine/wire/codec.h"
#include "launcher/launcher.h"
#include "launcher/network_interface.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <stdexcept>
#include <unistd.h>

namespace studio::launcher {

namespace fs = std::filesystem;

namespace {

// The staged code goes to a folder of its own per job: ranks may write into their working
// directory, and the staged copy is shared by every job with the same content.
void copySource(const LaunchConfig& c) {
    if (c.sourceFrom.empty() || fs::exists(c.workdir))
        return;
    const fs::path tmp = c.workdir + ".part-" + std::to_string(::getpid());
    std::error_code ec;
    fs::create_directories(tmp.parent_path(), ec);
    fs::copy(c.sourceFrom, tmp, fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
    if (ec)
        throw std::runtime_error("cannot copy the staged code " + c.sourceFrom + " to " +
                                 tmp.string() + ": " + ec.message());
    fs::rename(tmp, c.workdir, ec);
    if (ec)
        fs::remove_all(tmp, ec); // another node on a shared filesystem copied it first
}

void prepare(LaunchConfig& c) {
    // SageMaker's folders exist before the training script starts; on a remote host nobody
    // else creates them.
    for (const auto& dir : {c.modelDir, c.outputDataDir, c.checkpointDir}) {
        std::error_code ec;
        if (!dir.empty())
            fs::create_directories(dir, ec);
    }
    copySource(c);
    if (c.socketIfname == "auto") {
        std::string error;
        auto route = routeTo(c.masterAddr, &error);
        if (!route)
            throw std::runtime_error("--socket-ifname auto: " + error);
        c.socketIfname = route->ifname;
    }
}

void writeEvent(int fd, wire::Payload p, int node) {
    process::writeAll(fd,
                      wire::encode(wire::Event{wire::nowSeconds(), node, -1, std::move(p)}) + "\n");
}

} // namespace

int runAttached(LaunchConfig config, int outFd) {
    process::Fd journal;
    if (!config.journal.empty()) {
        std::error_code ec;
        fs::create_directories(fs::path(config.journal).parent_path(), ec);
        journal = process::Fd(
            ::open(config.journal.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644));
        if (!journal.valid()) {
            std::fprintf(stderr, "studio-launcher: cannot open the journal %s: %s\n",
                         config.journal.c_str(), std::strerror(errno));
            return kExitUsage;
        }
        outFd = journal.get();
    }
    try {
        prepare(config);
    } catch (const std::exception& e) {
        writeEvent(outFd, wire::LogEvent{wire::Stream::Stderr, e.what()}, config.nodeRank);
        writeEvent(outFd, wire::StatusEvent{"finished", e.what(), {}, 0, 0, -1, -1, {}},
                   config.nodeRank);
        writeEvent(outFd, wire::ExitEvent{kExitUsage, 0, {e.what()}}, config.nodeRank);
        return kExitUsage;
    }
    return runLauncher(config, outFd);
}

int runDetached(const LaunchConfig& config) {
    std::error_code ec;
    const fs::path dir = fs::path(config.journal).parent_path();
    fs::create_directories(dir, ec);
    process::Fd probe(
        ::open(config.journal.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644));
    if (!probe.valid()) {
        std::fprintf(stderr, "studio-launcher: cannot open the journal %s: %s\n",
                     config.journal.c_str(), std::strerror(errno));
        return kExitUsage;
    }
    probe.reset();
    process::Fd log(
        ::open((dir / "launcher.out").c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644));
    process::Pipe ready = process::makePipe();
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) {
        std::fprintf(stderr, "studio-launcher: fork: %s\n", std::strerror(errno));
        return kExitUsage;
    }
    if (pid == 0) {
        ::setsid(); // no controlling terminal, no SIGHUP when the SSH session ends
        const int devnull = ::open("/dev/null", O_RDWR);
        ::dup2(devnull, 0);
        if (log.valid()) {
            ::dup2(log.get(), 1);
            ::dup2(log.get(), 2);
        }
        ready.write.reset(); // the parent may exit now: this process left its group
        ready.read.reset();
        const int rc = runAttached(config, -1);
        std::fflush(nullptr);
        ::_exit(rc);
    }
    ready.write.reset();
    char c;
    while (::read(ready.read.get(), &c, 1) < 0 && errno == EINTR) {
    }
    const nlohmann::json out{
        {"pid", pid}, {"start", process::processStartTicks(pid)}, {"journal", config.journal}};
    std::printf("%s\n", out.dump().c_str());
    return 0;
}

} // namespace studio::launcher
