// The controller options tests use: a home of their own and the programs of this build.
#pragma once

#include "engine/control/controller.h"

#include <QString>

inline studio::control::ControllerOptions testControllerOptions(const QString& home) {
    studio::control::ControllerOptions o;
    o.home = home.toStdString();
    o.launcherPath = STUDIO_BIN_DIR "/studio-launcher";
    o.trainerPath = STUDIO_BIN_DIR "/studio-train";
    o.graceSeconds = 5;
    o.imdsEndpoint = "off"; // no EC2 metadata service here
    return o;
}
