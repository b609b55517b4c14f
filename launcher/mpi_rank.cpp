#include "launcher/mpi_rank.h"

#include "engine/process/process.h"
#include "engine/wire/line_splitter.h"
#include "launcher/mpi_wire.h"
#include "launcher/rank_environment.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <poll.h>
#include <stdexcept>
#include <sys/signalfd.h>
#include <thread>
#include <unistd.h>

namespace studio::launcher {

namespace {

using process::Fd;

constexpr std::size_t kTailLines = 20;

struct Args {
    std::string socketPrefix;
    int ppn = 1;
    double waitSeconds = 60;
};

Args parseArgs(const std::vector<std::string>& args) {
    Args a;
    for (std::size_t i = 0; i + 1 < args.size(); i += 2) {
        if (args[i] == "--socket")
            a.socketPrefix = args[i + 1];
        else if (args[i] == "--ppn")
            a.ppn = std::atoi(args[i + 1].c_str());
        else if (args[i] == "--wait-s")
            a.waitSeconds = std::atof(args[i + 1].c_str());
        else
            throw std::invalid_argument("mpi-rank: unknown option " + args[i]);
    }
    if (args.size() % 2 != 0 || a.socketPrefix.empty() || a.ppn < 1)
        throw std::invalid_argument(
            "usage: studio-launcher mpi-rank --socket PREFIX --ppn N [--wait-s S] (started by "
            "mpirun for a distribution.mpi job)");
    return a;
}

int worldRank() {
    for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK"})
        if (const char* v = std::getenv(name); v && *v)
            return std::atoi(v);
    throw std::runtime_error("mpi-rank: OMPI_COMM_WORLD_RANK is not set: this runs under Open "
                             "MPI's mpirun, started by the launcher of node 0");
}

// The node's launcher may still be starting: it is retried until the deadline.
Fd connectToNode(const std::string& name, double waitSeconds) {
    const double until = process::monotonicSeconds() + waitSeconds;
    int delayMs = 20;
    while (true) {
        Fd fd = mpi::connectAbstract(name);
        if (fd.valid())
            return fd;
        if (process::monotonicSeconds() > until)
            throw std::runtime_error("mpi-rank: no launcher serves @" + name + " (" +
                                     std::strerror(errno) + ") after " +
                                     std::to_string(static_cast<int>(waitSeconds)) + " s");
        std::this_thread::sleep_for(std::chrono::milliseconds(delayMs));
        delayMs = std::min(delayMs * 2, 500);
    }
}

std::string readLine(int fd) {
    std::string line;
    char c;
    while (true) {
        const ssize_t n = ::read(fd, &c, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            throw std::runtime_error("mpi-rank: the node's launcher closed the connection");
        if (c == '\n')
            return line;
        line += c;
        if (line.size() > (16u << 20))
            throw std::runtime_error("mpi-rank: the launcher's answer is too long");
    }
}

// Runs the rank to its end: stderr copied through with its tail kept, signals passed on.
mpi::RankEnd runRank(process::Process& child, Fd err, int signalFd) {
    mpi::RankEnd end;
    std::deque<std::string> tail;
    wire::LineSplitter lines;
    const auto keep = [&](const wire::SplitLine& l) {
        if ((l.part != wire::LinePart::Whole && l.part != wire::LinePart::Last) || l.text.empty())
            return;
        tail.push_back(l.text);
        if (tail.size() > kTailLines)
            tail.pop_front();
    };
    while (err.valid() || !child.status()) {
        pollfd fds[2] = {{signalFd, POLLIN, 0}, {err.get(), POLLIN, 0}};
        const int n = ::poll(fds, err.valid() ? 2 : 1, 1000);
        if (n < 0 && errno != EINTR)
            break;
        if (fds[0].revents) {
            signalfd_siginfo info;
            while (::read(signalFd, &info, sizeof info) == sizeof info)
                if (info.ssi_signo != SIGCHLD && child.running())
                    child.signal(static_cast<int>(info.ssi_signo));
        }
        if (err.valid() && fds[1].revents) {
            char buf[65536];
            const ssize_t got = ::read(err.get(), buf, sizeof buf);
            if (got > 0) {
                process::writeAll(STDERR_FILENO, std::string_view(buf, static_cast<size_t>(got)));
                for (const auto& l : lines.append(std::string_view(buf, static_cast<size_t>(got))))
                    keep(l);
            } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
                keep(lines.finish());
                err.reset();
            }
        }
        child.poll();
    }
    end.status = child.status().value_or(child.wait());
    end.stderrTail.assign(tail.begin(), tail.end());
    return end;
}

} // namespace

int runMpiRank(const std::vector<std::string>& args) {
    const Args a = parseArgs(args);
    const int rank = worldRank();
    const int node = rank / a.ppn;
    Fd sock = connectToNode(mpi::socketName(a.socketPrefix, node), a.waitSeconds);
    if (!process::writeAll(sock.get(), mpi::helloLine(rank)))
        throw std::runtime_error("mpi-rank: cannot write to the node's launcher");
    const auto setup = mpi::parseSetup(readLine(sock.get()));
    if (!setup)
        throw std::runtime_error("mpi-rank: the node's launcher sent no rank set-up");
    if (!setup->error.empty())
        throw std::runtime_error("mpi-rank: rank " + std::to_string(rank) + ": " + setup->error);

    sigset_t set;
    sigemptyset(&set);
    for (int s : {SIGCHLD, SIGTERM, SIGINT, SIGHUP})
        sigaddset(&set, s);
    ::sigprocmask(SIG_BLOCK, &set, nullptr);
    Fd signals(::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));

    process::SpawnOptions o;
    o.argv = setup->argv;
    o.env = process::currentEnvironment();
    for (const auto& [k, v] : setup->env)
        o.env[k] = v;
    o.workdir = setup->workdir;
    o.captureStdout = false; // straight to mpirun, which tags it
    o.parentDeathSignal = SIGKILL;
    o.passFds = {{sock.get(), kEventsFd}};
    o.cpus = setup->cpus;
    mpi::RankEnd end;
    try {
        process::Process child = process::Process::spawn(o);
        end = runRank(child, child.takeStderr(), signals.get());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        end.status = process::ExitStatus{127, 0};
        end.stderrTail = {e.what()};
    }
    process::writeAll(sock.get(), mpi::exitLine(end));
    sock.reset();
    if (end.status.signal > 0) { // end as the rank did, so mpirun reports the same
        ::signal(end.status.signal, SIG_DFL);
        ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
        ::raise(end.status.signal);
    }
    return end.status.code;
}

} // namespace studio::launcher
