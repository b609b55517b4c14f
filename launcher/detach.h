// How studio-launcher runs a node: attached (events on stdout, or appended to --journal) or
// detached, as a daemon in its own session that outlives the SSH connection or the studio
// that started it. Before the ranks start, a node's staged code is copied into place and
// "--socket-ifname auto" is resolved.
#pragma once

#include "launcher/launch_config.h"

namespace studio::launcher {

// Prepares the node and runs the launcher loop; events go to outFd, or to the journal when
// the config names one. A failure to prepare becomes a log and an exit event, so the studio
// reads why from the journal.
int runAttached(LaunchConfig config, int outFd);

// Forks the launcher into a session of its own (stdin from /dev/null, stdout and stderr to
// launcher.out beside the journal) and prints {"pid":N,"start":"ticks","journal":PATH} once
// it runs. Returns 0 then, or 2 when the journal cannot be opened.
int runDetached(const LaunchConfig& config);

} // namespace studio::launcher
