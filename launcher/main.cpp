// studio-launcher: the per-node agent (see launcher.h), and the subcommands the studio runs on
// a host: --version, probe, stage, pack, follow, signal (host_tools.h, journal_follower.h).
#include "engine/remote/host_facts.h"
#include "launcher/detach.h"
#include "launcher/host_tools.h"
#include "launcher/journal_follower.h"
#include "launcher/launcher.h"

#include <cstdio>
#include <functional>
#include <map>
#include <stdexcept>

int main(int argc, char** argv) {
    using namespace studio::launcher;
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && args.front() == "--version") {
        std::printf("%s\n", studio::remote::launcherVersionLine().c_str());
        return 0;
    }
    static const std::map<std::string, std::function<int(const std::vector<std::string>&)>>
        subcommands = {{"probe", runProbe},
                       {"stage", runStage},
                       {"pack", runPack},
                       {"follow", runFollow},
                       {"signal", runSignal}};
    try {
        if (!args.empty())
            if (auto it = subcommands.find(args.front()); it != subcommands.end())
                return it->second(std::vector<std::string>(args.begin() + 1, args.end()));
        LaunchConfig config = parseLaunchArgs(args);
        return config.detach ? runDetached(config) : runAttached(config, 1);
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return kExitUsage;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "studio-launcher: %s\n", e.what());
        return kExitUsage;
    }
}
