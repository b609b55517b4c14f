#include "tests/support/child_process.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <poll.h>
#include <pthread.h>
#include <sstream>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <utility>

namespace studio::testing {

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kOutputCap = 1 << 20;

std::vector<char*> cArgv(const std::vector<std::string>& argv, const std::string& program) {
    std::vector<char*> args;
    args.push_back(const_cast<char*>(program.c_str()));
    for (std::size_t i = 1; i < argv.size(); ++i)
        args.push_back(const_cast<char*>(argv[i].c_str()));
    args.push_back(nullptr);
    return args;
}

// Blocks every signal in the calling thread while it forks, so that a signal sent to the new
// pid before exec cannot run the test's own handler (QtTest's SIGTERM handler) in the child.
class SignalsBlocked {
public:
    SignalsBlocked() {
        sigset_t all;
        ::sigfillset(&all);
        ::pthread_sigmask(SIG_SETMASK, &all, &m_old);
    }
    ~SignalsBlocked() { ::pthread_sigmask(SIG_SETMASK, &m_old, nullptr); }
    SignalsBlocked(const SignalsBlocked&) = delete;
    SignalsBlocked& operator=(const SignalsBlocked&) = delete;
    const sigset_t& old() const { return m_old; }

private:
    sigset_t m_old;
};

// Only async-signal-safe calls between fork and exec: the test process may have threads.
// Signals arrive blocked (SignalsBlocked); they get default handlers before being unblocked.
[[noreturn]] void execChild(const std::vector<char*>& args, int in, int out, const sigset_t& mask) {
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig)
        ::sigaction(sig, &dfl, nullptr); // fails harmlessly for SIGKILL, SIGSTOP and RT gaps
    ::pthread_sigmask(SIG_SETMASK, &mask, nullptr);
    for (auto [from, to] : {std::pair{in, 0}, std::pair{out, 1}, std::pair{out, 2}}) {
        if (from == to) // a test started with closed stdio: dup2 would keep close-on-exec
            ::fcntl(to, F_SETFD, 0);
        else
            ::dup2(from, to);
    }
    // Descriptors the test holds (ctest's pipes included) must not leak into the program.
    ::syscall(SYS_close_range, 3U, ~0U, 0U);
    ::execv(args[0], args.data());
    const char msg[] = "exec failed\n";
    [[maybe_unused]] auto n = ::write(2, msg, sizeof msg - 1);
    ::_exit(127);
}

int exitCodeOf(int status) {
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return -1;
}

void readAvailable(int fd, std::string& out) {
    char buf[8192];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0 && out.size() < kOutputCap)
        out.append(buf, static_cast<std::size_t>(n));
}

// Collects output until the child exits or the deadline passes. The child's own exit ends the
// wait even when a grandchild still holds the pipe.
void collect(pid_t pid, int fd, Clock::time_point deadline, CommandResult& r) {
    for (;;) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 20) > 0 && (p.revents & POLLIN))
            readAvailable(fd, r.output);
        int status = 0;
        if (::waitpid(pid, &status, WNOHANG) == pid) {
            for (int i = 0; i < 256; ++i) { // drain what is buffered; bounded
                pollfd q{fd, POLLIN, 0};
                if (::poll(&q, 1, 0) <= 0 || !(q.revents & POLLIN))
                    break;
                const std::size_t before = r.output.size();
                readAvailable(fd, r.output);
                if (r.output.size() == before)
                    break;
            }
            r.exitCode = exitCodeOf(status);
            return;
        }
        if (Clock::now() > deadline) {
            ::kill(-pid, SIGKILL);
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            r.timedOut = true;
            r.exitCode = exitCodeOf(status);
            return;
        }
    }
}

} // namespace

std::string findProgram(const std::string& name) {
    if (name.find('/') != std::string::npos)
        return ::access(name.c_str(), X_OK) == 0 ? name : std::string();
    const char* env = std::getenv("PATH");
    std::string dirs = std::string(env ? env : "/usr/bin:/bin") + ":/usr/sbin:/sbin";
    std::stringstream ss(dirs);
    for (std::string dir; std::getline(ss, dir, ':');) {
        if (dir.empty())
            continue;
        const std::string candidate = dir + "/" + name;
        if (::access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return {};
}

CommandResult runCommand(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
    CommandResult r;
    if (argv.empty())
        throw std::invalid_argument("runCommand: empty argv");
    const std::string program = findProgram(argv[0]);
    if (program.empty()) {
        r.output = argv[0] + ": not found";
        return r;
    }
    const auto args = cArgv(argv, program);
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
        r.output = std::string("pipe: ") + std::strerror(errno);
        return r;
    }
    const int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    const auto deadline = Clock::now() + timeout;
    pid_t pid = -1;
    {
        SignalsBlocked blocked;
        pid = ::fork();
        if (pid == 0) {
            ::setpgid(0, 0); // so that a timeout also kills what the program started
            execChild(args, devnull, fds[1], blocked.old());
        }
    }
    ::close(fds[1]);
    ::close(devnull);
    if (pid < 0) {
        r.output = std::string("fork: ") + std::strerror(errno);
    } else {
        ::setpgid(pid, pid);
        collect(pid, fds[0], deadline, r);
    }
    ::close(fds[0]);
    return r;
}

std::string describeFailure(const std::vector<std::string>& argv, const CommandResult& r) {
    std::string cmd;
    for (const auto& a : argv)
        cmd += (cmd.empty() ? "" : " ") + a;
    std::string what = r.timedOut ? "timed out" : "exited " + std::to_string(r.exitCode);
    std::string out = r.output;
    while (!out.empty() && (out.back() == '\n' || out.back() == ' '))
        out.pop_back();
    return "`" + cmd + "` " + what + (out.empty() ? "" : ": " + out);
}

int startDaemon(const std::vector<std::string>& argv, const std::string& logPath) {
    if (argv.empty())
        throw std::invalid_argument("startDaemon: empty argv");
    const std::string program = findProgram(argv[0]);
    if (program.empty())
        throw std::runtime_error(argv[0] + ": not found");
    const auto args = cArgv(argv, program);
    const int log = ::open(logPath.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log < 0)
        throw std::runtime_error("cannot open " + logPath + ": " + std::strerror(errno));
    const int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    const pid_t parent = ::getpid();
    pid_t pid = -1;
    int err = 0;
    {
        SignalsBlocked blocked;
        pid = ::fork();
        if (pid == 0) {
            ::prctl(PR_SET_PDEATHSIG, SIGTERM);
            if (::getppid() != parent) // the test died before prctl took effect
                ::_exit(1);
            execChild(args, devnull, log, blocked.old());
        }
        err = errno;
    }
    ::close(log);
    ::close(devnull);
    if (pid < 0)
        throw std::runtime_error(std::string("fork: ") + std::strerror(err));
    return pid;
}

bool processAlive(int pid) {
    if (pid <= 1)
        return false;
    int status = 0;
    ::waitpid(pid, &status, WNOHANG); // ECHILD for processes that are not ours: harmless
    if (::kill(pid, 0) != 0 && errno == ESRCH)
        return false;
    const std::string text = readWholeFile("/proc/" + std::to_string(pid) + "/stat");
    const auto close = text.rfind(')');
    return close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z';
}

std::string readWholeFile(const std::string& path) {
    std::string out;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return out;
    char buf[4096];
    while (true) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        out.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return out;
}

unsigned long long processStartTime(int pid) {
    const std::string text = readWholeFile("/proc/" + std::to_string(pid) + "/stat");
    const auto close = text.rfind(')');
    if (close == std::string::npos)
        return 0;
    // Fields after the command name start at field 3 (state); the start time is field 22.
    std::istringstream rest(text.substr(close + 2));
    std::string field;
    for (int i = 3; i <= 22 && rest >> field; ++i)
        if (i == 22)
            return std::stoull(field);
    return 0;
}

std::vector<int> terminateProcesses(const std::vector<int>& pids, std::chrono::milliseconds grace) {
    auto alive = [&pids] {
        std::vector<int> left;
        for (int pid : pids)
            if (processAlive(pid))
                left.push_back(pid);
        return left;
    };
    auto waitUntilGone = [&alive](std::chrono::milliseconds limit) {
        const auto deadline = Clock::now() + limit;
        std::vector<int> left = alive();
        while (!left.empty() && Clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            left = alive();
        }
        return left;
    };
    for (int pid : pids)
        if (pid > 1 && pid != ::getpid())
            ::kill(pid, SIGTERM);
    std::vector<int> left = waitUntilGone(grace);
    for (int pid : left)
        ::kill(pid, SIGKILL);
    return left.empty() ? left : waitUntilGone(std::chrono::seconds(1));
}

} // namespace studio::testing
