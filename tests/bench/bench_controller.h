// The controller as the benches run it: this build's launcher and trainer, no IMDS poll.
#pragma once

#include "engine/control/controller.h"

#include <string>

namespace studio::bench {

// The controller as the studio runs it, with this build's launcher and trainer in HOME; no IMDS
// poll (a bench that wants spot notices interrupts the job itself).
inline control::ControllerOptions controllerOptions(const std::string& home) {
    control::ControllerOptions o;
    o.home = home;
    o.launcherPath = std::string(STUDIO_BIN_DIR) + "/studio-launcher";
    o.trainerPath = std::string(STUDIO_BIN_DIR) + "/studio-train";
    o.imdsEndpoint = "off";
    return o;
}

} // namespace studio::bench
