// Child processes owned by RAII: spawned with pipes for their output, in their own process group,
// with a parent-death signal, and always reaped. Not thread-safe; one owner thread per Process.
#pragma once

#include "engine/process/fd.h"

#include <map>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace studio::process {

struct SpawnOptions {
    std::vector<std::string> argv;          // argv[0] is looked up on PATH when it has no '/'
    std::map<std::string, std::string> env; // the child's whole environment
    std::string workdir;                    // empty: inherit
    bool captureStdout = true;              // else inherited
    bool captureStderr = true;
    bool newProcessGroup = true;              // the child leads its own group (pgid == pid)
    int parentDeathSignal = 0;                // e.g. SIGKILL: the child dies with its parent thread
    std::vector<std::pair<int, int>> passFds; // (parent fd, fd number in the child)
    std::vector<int> cpus;                    // CPU affinity of the child; empty: inherited
};

// How a process ended.
struct ExitStatus {
    int code = -1;  // exit code, or -1 when a signal ended it
    int signal = 0; // terminating signal, or 0

    bool success() const { return code == 0 && signal == 0; }
    std::string describe() const; // "exited with code 3" / "killed by signal 9 (SIGKILL)"
};

ExitStatus decodeWaitStatus(int status);

class Process {
public:
    Process() = default;
    ~Process();
    Process(Process&& o) noexcept;
    Process& operator=(Process&& o) noexcept;
    Process(const Process&) = delete;
    Process& operator=(const Process&) = delete;

    // Throws std::runtime_error naming the program when it cannot be started.
    static Process spawn(const SpawnOptions& options);

    // One child of spawnAll: the process, or why it could not be started (what spawn throws).
    struct Started;
    // Forks every child before waiting for any to execute its program: spawn() waits for each
    // in turn, so N children started one after another wait for N - 1 execs (and as many
    // wake-ups of the parent) before the last one runs. Element i is options[i]'s child.
    static std::vector<Started> spawnAll(const std::vector<SpawnOptions>& options);

    pid_t pid() const { return m_pid; }
    bool running() const { return m_pid > 0 && !m_status; }
    int stdoutFd() const { return m_stdout.get(); }
    int stderrFd() const { return m_stderr.get(); }
    Fd takeStdout() { return std::move(m_stdout); }
    Fd takeStderr() { return std::move(m_stderr); }

    // Signals the child's process group when it has one, else the child.
    void signal(int sig) const;
    // Non-blocking reap; returns the status once the child has ended.
    std::optional<ExitStatus> poll();
    ExitStatus wait();
    // wait() with a deadline; nullopt when the child is still running after timeoutMs.
    std::optional<ExitStatus> waitFor(int timeoutMs);
    std::optional<ExitStatus> status() const { return m_status; }

    // SIGKILL to the group and reap; what the destructor does to a child still running.
    void kill();

private:
    // spawn's two halves: fork the child, then wait until it has executed its program (the
    // exec-status pipe closes) or read why it could not; the latter throws as spawn does.
    static Process forkChild(const SpawnOptions& options, Fd& execStatus);
    static void awaitExec(Process& child, Fd& execStatus, const SpawnOptions& options);

    pid_t m_pid = -1;
    bool m_ownGroup = false;
    Fd m_stdout;
    Fd m_stderr;
    std::optional<ExitStatus> m_status;
};

struct Process::Started {
    Process process;
    std::string error; // empty: started
};

std::map<std::string, std::string> currentEnvironment();
std::string signalName(int sig);
// Absolute path of the running executable.
std::string selfExecutable();
// Seconds on the monotonic clock, for deadlines and timeouts (never for time stamps).
double monotonicSeconds();

} // namespace studio::process
