// What the launcher gives a script's Python ranks: the studio's `mlstudio` package on their path
// (with the start-up hook of python/mlstudio/_boot first), and the Debugger hook's configuration
// as a file, written where SageMaker's hook finds its debughookconfig.json.
#pragma once

#include "launcher/launch_config.h"

#include <string>

namespace studio::launcher {

// The controller puts the hook plan's JSON in the job's environment under this name; the
// launcher writes it to a file and gives ranks its path in kHookConfigFileVariable instead.
inline constexpr const char* kHookConfigJsonVariable = "STUDIO_DEBUG_HOOK_CONFIG_JSON";
inline constexpr const char* kHookConfigFileVariable = "STUDIO_DEBUG_HOOK_CONFIG";

// Sets c.pythonRoot and, when c.env carries the hook plan, writes it to
// <job folder>/config/debughookconfig.json (the folder above --model-dir, else --workdir) and
// sets c.hookConfigFile. Returns a note for the job's log when the file cannot be written.
std::string prepareRankPython(LaunchConfig& c);

} // namespace studio::launcher
