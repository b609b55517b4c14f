// Where the studio's `mlstudio` Python package is beside a studio program: what the launcher
// puts on script ranks' path and what the controller runs custom rule processes with.
#pragma once

#include <string>

namespace studio::process {

// The folder holding mlstudio/ for a studio program at exePath: lib/python3/dist-packages beside
// its bin/ (a build tree links the sources there) or above its lib/mlstudio/ (the .deb puts the
// launcher there and the package in /usr/lib/python3/dist-packages); "" when neither has it.
std::string findPythonRoot(const std::string& exePath);

// PYTHONPATH for a script rank: <root>/mlstudio/_boot (the rank's start-up hook) and <root>,
// then what the job's environment had.
std::string rankPythonPath(const std::string& root, const std::string& inherited);

} // namespace studio::process
