// studio-launcher: the per-node agent. See launcher.h.
#include "launcher/launcher.h"

#include <cstdio>
#include <stdexcept>

int main(int argc, char** argv) {
    using namespace studio::launcher;
    try {
        LaunchConfig config = parseLaunchArgs(std::vector<std::string>(argv + 1, argv + argc));
        return runLauncher(config, 1);
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return kExitUsage;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "studio-launcher: %s\n", e.what());
        return kExitUsage;
    }
}
