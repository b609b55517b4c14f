// Names a process across pid reuse: its pid and its start time in clock ticks since boot
// (field 22 of /proc/<pid>/stat). The studio records this for processes it does not parent,
// such as detached launchers, and checks it before signalling them.
#pragma once

#include <string>

namespace studio::process {

// The start time of a process on this machine; "" when there is no such process.
std::string processStartTicks(long pid);
// True while the process that had this start time still runs (a zombie has ended).
bool processRunning(long pid, const std::string& startTicks);
// A detached launcher leads its own session; when it has died, whatever still runs in that
// session (ranks' children that outlived it) is killed. Nothing is touched while the leader
// runs or when its pid now leads another session. Returns how many processes were signalled.
int killOrphanedSession(long leaderPid, const std::string& leaderStart);

} // namespace studio::process
