// The launcher's loop: spawns the node's ranks, relays their output and events, samples the
// node, and tears every rank down when one fails or when it is asked to stop.
#pragma once

#include "launcher/launch_config.h"

namespace studio::launcher {

// Exit codes of studio-launcher.
inline constexpr int kExitSuccess = 0;
inline constexpr int kExitRankFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitStopped = 3;

// Runs the ranks to the end and returns the launcher's exit code. Events go to outFd as JSON
// lines; SIGTERM, SIGINT and SIGHUP are handled as a graceful stop. Call from the main thread
// (ranks get a parent-death signal tied to the calling thread).
int runLauncher(const LaunchConfig& config, int outFd = 1);

} // namespace studio::launcher
