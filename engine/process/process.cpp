#include "engine/process/process.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <linux/close_range.h>
#include <sched.h>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace studio::process {

std::string signalName(int sig) {
    const char* abbrev = sigabbrev_np(sig);
    return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

std::string ExitStatus::describe() const {
    if (signal)
        return "killed by signal " + std::to_string(signal) + " (" + signalName(signal) + ")";
    return "exited with code " + std::to_string(code);
}

ExitStatus decodeWaitStatus(int status) {
    if (WIFEXITED(status))
        return ExitStatus{WEXITSTATUS(status), 0};
    if (WIFSIGNALED(status))
        return ExitStatus{-1, WTERMSIG(status)};
    return ExitStatus{};
}

std::map<std::string, std::string> currentEnvironment() {
    std::map<std::string, std::string> env;
    for (char** e = environ; e && *e; ++e) {
        std::string_view kv(*e);
        auto eq = kv.find('=');
        if (eq != std::string_view::npos)
            env.emplace(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
    }
    return env;
}

double monotonicSeconds() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

std::string selfExecutable() {
    char buf[4096];
    ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return {};
    return std::string(buf, static_cast<std::size_t>(n));
}

Process::~Process() {
    kill();
}

Process::Process(Process&& o) noexcept
    : m_pid(std::exchange(o.m_pid, -1))
    , m_ownGroup(o.m_ownGroup)
    , m_stdout(std::move(o.m_stdout))
    , m_stderr(std::move(o.m_stderr))
    , m_status(std::exchange(o.m_status, std::nullopt)) {
}

Process& Process::operator=(Process&& o) noexcept {
    if (this != &o) {
        kill();
        m_pid = std::exchange(o.m_pid, -1);
        m_ownGroup = o.m_ownGroup;
        m_stdout = std::move(o.m_stdout);
        m_stderr = std::move(o.m_stderr);
        m_status = std::exchange(o.m_status, std::nullopt);
    }
    return *this;
}

namespace {

[[noreturn]] void reportExecFailure(int errPipe, int stage) {
    int payload[2] = {stage, errno};
    (void)!::write(errPipe, payload, sizeof payload);
    ::_exit(127);
}

// Only async-signal-safe calls between fork and exec.
[[noreturn]] void childExec(const SpawnOptions& o, pid_t parent, int outFd, int errFd, int errPipe,
                            char* const* argv, char* const* envp) {
    if (o.newProcessGroup)
        ::setpgid(0, 0);
    if (o.parentDeathSignal) {
        ::prctl(PR_SET_PDEATHSIG, o.parentDeathSignal);
        if (::getppid() != parent) // the parent died before prctl took effect
            ::_exit(128 + o.parentDeathSignal);
    }
    sigset_t all;
    sigemptyset(&all);
    ::sigprocmask(SIG_SETMASK, &all, nullptr);
    for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGCHLD, SIGHUP, SIGQUIT})
        ::signal(s, SIG_DFL);

    int devnull = ::open("/dev/null", O_RDWR);
    ::dup2(devnull, 0);
    if (outFd >= 0)
        ::dup2(outFd, 1);
    if (errFd >= 0)
        ::dup2(errFd, 2);
    // passFds: first move every source above the targets' range, then place them, so a source
    // equal to another mapping's target is not clobbered.
    int moved[16];
    std::size_t n = std::min<std::size_t>(o.passFds.size(), 16);
    for (std::size_t i = 0; i < n; ++i)
        moved[i] = ::fcntl(o.passFds[i].first, F_DUPFD, 100);
    // The child gets 0, 1, 2 and its passFds, nothing else: descriptors another thread opened
    // without O_CLOEXEC (an ofstream, a library's socket) close at exec.
    if (::syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC) != 0)
        for (int fd = 3; fd < 4096; ++fd)
            ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    for (std::size_t i = 0; i < n; ++i)
        ::dup2(moved[i], o.passFds[i].second); // dup2 clears FD_CLOEXEC on the target
    if (!o.cpus.empty()) {
        cpu_set_t set;
        CPU_ZERO(&set);
        for (int c : o.cpus)
            CPU_SET(c, &set);
        ::sched_setaffinity(0, sizeof set, &set); // best effort: a refused mask leaves it unbound
    }
    if (!o.workdir.empty() && ::chdir(o.workdir.c_str()) != 0)
        reportExecFailure(errPipe, 1);
    ::execvpe(argv[0], argv, envp);
    reportExecFailure(errPipe, 2);
}

} // namespace

Process Process::forkChild(const SpawnOptions& o, Fd& execStatus) {
    if (o.argv.empty())
        throw std::runtime_error("spawn: empty command");
    if (o.passFds.size() > 16)
        throw std::runtime_error("spawn: too many file descriptors to pass");

    std::vector<char*> argv;
    for (const auto& a : o.argv)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    std::vector<std::string> envStrings;
    envStrings.reserve(o.env.size());
    for (const auto& [k, v] : o.env)
        envStrings.push_back(k + "=" + v);
    std::vector<char*> envp;
    for (auto& s : envStrings)
        envp.push_back(s.data());
    envp.push_back(nullptr);

    Pipe out, err;
    if (o.captureStdout)
        out = makePipe();
    if (o.captureStderr)
        err = makePipe();
    Pipe status = makePipe();

    pid_t parent = ::getpid();
    pid_t pid = ::fork();
    if (pid < 0)
        throw std::runtime_error("fork: " + errnoText(errno));
    if (pid == 0)
        childExec(o, parent, out.write.get(), err.write.get(), status.write.get(), argv.data(),
                  envp.data());

    if (o.newProcessGroup)
        ::setpgid(pid, pid); // also in the parent, so signal() never races the child's setpgid
    status.write.reset();
    out.write.reset();
    err.write.reset();

    Process p;
    p.m_pid = pid;
    p.m_ownGroup = o.newProcessGroup;
    p.m_stdout = std::move(out.read);
    p.m_stderr = std::move(err.read);
    execStatus = std::move(status.read);
    return p;
}

void Process::awaitExec(Process& p, Fd& execStatus, const SpawnOptions& o) {
    int payload[2];
    ssize_t n;
    do {
        n = ::read(execStatus.get(), payload, sizeof payload);
    } while (n < 0 && errno == EINTR);
    execStatus.reset();
    if (n == static_cast<ssize_t>(sizeof payload)) {
        p.wait();
        std::string what = payload[0] == 1 ? "cannot enter working directory '" + o.workdir + "'"
                                           : "cannot execute '" + o.argv[0] + "'";
        throw std::runtime_error(what + ": " + errnoText(payload[1]));
    }
}

Process Process::spawn(const SpawnOptions& o) {
    Fd execStatus;
    Process p = forkChild(o, execStatus);
    awaitExec(p, execStatus, o);
    return p;
}

std::vector<Process::Started> Process::spawnAll(const std::vector<SpawnOptions>& options) {
    std::vector<Started> started(options.size());
    std::vector<Fd> execStatus(options.size());
    for (std::size_t i = 0; i < options.size(); ++i) {
        try {
            started[i].process = forkChild(options[i], execStatus[i]);
        } catch (const std::exception& e) {
            started[i].error = e.what();
        }
    }
    for (std::size_t i = 0; i < options.size(); ++i) {
        if (!execStatus[i].valid())
            continue; // not forked
        try {
            awaitExec(started[i].process, execStatus[i], options[i]);
        } catch (const std::exception& e) {
            started[i].error = e.what();
        }
    }
    return started;
}

void Process::signal(int sig) const {
    if (m_pid <= 0 || m_status)
        return;
    if (m_ownGroup)
        ::kill(-m_pid, sig);
    else
        ::kill(m_pid, sig);
}

std::optional<ExitStatus> Process::poll() {
    if (m_pid <= 0 || m_status)
        return m_status;
    int st = 0;
    pid_t r = ::waitpid(m_pid, &st, WNOHANG);
    if (r == m_pid) {
        m_status = decodeWaitStatus(st);
        if (m_ownGroup)
            ::kill(-m_pid, SIGKILL); // take the group's stragglers with it
    }
    return m_status;
}

ExitStatus Process::wait() {
    if (m_pid <= 0)
        return ExitStatus{};
    if (m_status)
        return *m_status;
    int st = 0;
    pid_t r;
    do {
        r = ::waitpid(m_pid, &st, 0);
    } while (r < 0 && errno == EINTR);
    m_status = r == m_pid ? decodeWaitStatus(st) : ExitStatus{};
    if (m_ownGroup)
        ::kill(-m_pid, SIGKILL);
    return *m_status;
}

std::optional<ExitStatus> Process::waitFor(int timeoutMs) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    auto delay = std::chrono::microseconds(200);
    while (true) {
        if (auto s = poll())
            return s;
        if (std::chrono::steady_clock::now() >= deadline)
            return std::nullopt;
        std::this_thread::sleep_for(delay);
        delay = std::min(delay * 2, std::chrono::microseconds(20000));
    }
}

void Process::kill() {
    if (m_pid > 0 && !m_status) {
        signal(SIGKILL);
        wait();
    }
}

} // namespace studio::process
