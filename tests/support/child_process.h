// Running external programs from test fixtures: argv vectors (no shell), a timeout on every
// command, output captured for error messages, and daemons that never hold the test's stdio.
// Qt-free. Not thread-safe with respect to other code that reaps children with waitpid(-1).
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace studio::testing {

struct CommandResult {
    int exitCode = -1;     // the program's exit status; 128 + signal when killed; -1 when not run
    bool timedOut = false; // killed (with its process group) when the timeout ran out
    std::string output;    // stdout and stderr, interleaved, capped at 1 MiB
    bool ok() const { return exitCode == 0 && !timedOut; }
};

// Runs argv[0] (looked up in PATH, then /usr/sbin, /sbin) with stdin from /dev/null and waits at
// most `timeout`. Never throws for a failing program; the result says what happened.
CommandResult runCommand(const std::vector<std::string>& argv,
                         std::chrono::milliseconds timeout = std::chrono::seconds(10));

// "`ip netns add x` exited 1: <output>", for exception messages.
std::string describeFailure(const std::vector<std::string>& argv, const CommandResult& r);

// Absolute path of a program, searched as runCommand does; "" when not found.
std::string findProgram(const std::string& name);

// Starts a daemon with stdin from /dev/null and stdout/stderr appended to logPath, so that ctest
// never waits on a pipe the daemon holds. The daemon gets SIGTERM when the calling thread ends
// (a killed test), which GNU timeout forwards to its child. Throws std::runtime_error.
int startDaemon(const std::vector<std::string>& argv, const std::string& logPath);

// True while the process exists and is not a zombie (PID 1 here does not reap orphans). Reaps it
// first when it is our own child.
bool processAlive(int pid);

// A whole file, read with read(2): never throws. What was read before an error (a /proc file of
// a process that ends while it is read fails with ESRCH) or nothing. std::istreambuf_iterator
// would throw from basic_filebuf::underflow there.
std::string readWholeFile(const std::string& path);

// The process's start time in clock ticks since boot (/proc/PID/stat field 22); 0 when gone.
// With the pid it identifies a process across pid reuse.
unsigned long long processStartTime(int pid);

// Sends SIGTERM to every pid, waits up to `grace` for them to end, then sends SIGKILL and waits
// up to one more second. Returns the pids still alive after that.
std::vector<int> terminateProcesses(const std::vector<int>& pids,
                                    std::chrono::milliseconds grace = std::chrono::seconds(5));

} // namespace studio::testing
