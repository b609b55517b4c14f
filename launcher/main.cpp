// studio-launcher: the per-node agent (see launcher.h), and the subcommands the studio runs on
// a host: --version, probe, stage, pack, follow, signal (host_tools.h, journal_follower.h), and
// mpi-rank, which mpirun starts for each rank of a distribution.mpi job (mpi_rank.h).
#include "engine/remote/host_facts.h"
#include "launcher/detach.h"
#include "launcher/host_tools.h"
#include "launcher/journal_follower.h"
#include "launcher/launcher.h"
#include "launcher/mpi_rank.h"

#include <cerrno>
#include <cstdio>
#include <functional>
#include <map>
#include <stdexcept>
#include <unistd.h>

namespace {
// What --env-stdin gives: all of stdin, at most 4 MiB.
std::string readStdin() {
    std::string in;
    char buf[65536];
    ssize_t n;
    while ((n = ::read(STDIN_FILENO, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
        if (n > 0)
            in.append(buf, static_cast<std::size_t>(n));
        if (in.size() > (4u << 20))
            throw std::invalid_argument("--env-stdin: more than 4 MiB on stdin");
    }
    return in;
}
} // namespace

int main(int argc, char** argv) {
    using namespace studio::launcher;
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && args.front() == "--version") {
        std::printf("%s\n", studio::remote::launcherVersionLine().c_str());
        return 0;
    }
    if (!args.empty() && (args.front() == "--help" || args.front() == "-h")) {
        std::printf("%s", launcherUsage().c_str()); // asked for: stdout, success
        return 0;
    }
    static const std::map<std::string, std::function<int(const std::vector<std::string>&)>>
        subcommands = {{"probe", runProbe},   {"stage", runStage},   {"pack", runPack},
                       {"follow", runFollow}, {"signal", runSignal}, {"mpi-rank", runMpiRank}};
    try {
        if (!args.empty())
            if (auto it = subcommands.find(args.front()); it != subcommands.end())
                return it->second(std::vector<std::string>(args.begin() + 1, args.end()));
        LaunchConfig config = parseLaunchArgs(args);
        if (config.envFromStdin)
            addEnvironmentJson(readStdin(), config);
        return config.detach ? runDetached(config) : runAttached(config, 1);
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return kExitUsage;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "studio-launcher: %s\n", e.what());
        return kExitUsage;
    }
}
