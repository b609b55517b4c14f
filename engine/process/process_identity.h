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

} // namespace studio::process
