#include "launcher/launcher.h"

#include "engine/process/process.h"
#include "engine/wire/codec.h"
#include "engine/wire/line_splitter.h"
#include "launcher/imds_poller.h"
#include "launcher/journal_space.h"
#include "launcher/mpi_node.h"
#include "launcher/rank_environment.h"
#include "launcher/rendezvous_folder.h"
#include "launcher/system_sampler.h"
#include "launcher/tensorboard_watch.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <deque>
#include <filesystem>
#include <memory>
#include <optional>
#include <poll.h>
#include <sched.h>
#include <sys/signalfd.h>
#include <type_traits>
#include <unistd.h>

namespace studio::launcher {

namespace {

using process::Fd;
using wire::Event;

constexpr std::size_t kTailLines = 20;

int onlineCpus() {
    long n = ::sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? static_cast<int>(n) : 1;
}

// The driver lists one folder per GPU; cheaper than initialising NVML before the ranks start.
int countNvidiaGpus() {
    std::error_code ec;
    int n = 0;
    for (auto it = std::filesystem::directory_iterator("/proc/driver/nvidia/gpus", ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
        ++n;
    return n;
}

std::string hostName() {
    char buf[256] = {0};
    ::gethostname(buf, sizeof buf - 1);
    return buf;
}

struct Rank {
    int localRank = 0;
    int globalRank = 0;
    process::Process proc;
    Fd out, err, events;
    wire::LineSplitter outLines, errLines, eventLines;
    std::deque<std::string> stderrTail;
    bool reported = false; // exit event sent
    double exitedAt = 0;   // monotonic
    // A rank mpirun started (distribution.mpi): its shim's pid, and how its shim said it ended.
    pid_t peerPid = 0;
    std::optional<process::ExitStatus> peerStatus;

    bool running() const { return peerPid > 0 ? !peerStatus : proc.running(); }
    void signal(int sig) const {
        if (peerPid > 0)
            ::kill(peerPid, sig);
        else
            proc.signal(sig);
    }
    std::optional<process::ExitStatus> poll() { return peerPid > 0 ? peerStatus : proc.poll(); }
    std::optional<process::ExitStatus> status() const {
        return peerPid > 0 ? peerStatus : proc.status();
    }
};

class Loop {
public:
    Loop(const LaunchConfig& c, int outFd, std::string tensorboardNote)
        : m_config(c)
        , m_outFd(outFd)
        , m_tensorboardNote(std::move(tensorboardNote)) {}

    int run() {
        const double startedAt = wire::nowSeconds();
        if (!m_config.journal.empty())
            m_space.emplace(m_outFd);
        setUpSignals();
        // Ranks first: sampling (and NVML's slow initialisation) must not delay them.
        const NodeResources node{onlineCpus(), countNvidiaGpus()};
        TensorboardWatch tensorboard(tensorboardFolders(),
                                     m_config.nodeRank * m_config.nprocPerNode);
        std::vector<std::int64_t> pids;
        if (m_config.mpi)
            startMpi(node);
        else
            pids = spawnRanks(node);
        std::map<long, int> rankPids;
        for (const auto& r : m_ranks)
            if (r->proc.pid() > 0)
                rankPids[static_cast<long>(r->proc.pid())] = r->globalRank;
        tensorboard.setRankPids(std::move(rankPids));
        {
            wire::StatusEvent s;
            s.state = "started";
            s.host = hostName();
            s.cores = node.cpus;
            s.gpus = node.gpus;
            s.pids = {::getpid()};
            s.message = m_config.currentHost();
            emit(-1, s, startedAt);
        }
        if (!m_config.mpi) {
            wire::StatusEvent s;
            s.state = "ranks_started";
            s.pids = pids;
            emit(-1, s);
        }
        if (!m_tensorboardNote.empty())
            emit(-1, wire::LogEvent{wire::Stream::Stderr, m_tensorboardNote});
        flush();
        if (!m_config.imdsEndpoint.empty())
            m_imds =
                std::make_unique<ImdsPoller>(m_config.imdsEndpoint, m_config.imdsIntervalSeconds);
        // The sampler is set up one interval after the ranks start, not with them: its set-up
        // (NVML's lookup, 80-odd failed opens on a host without the driver, or its slow
        // initialisation on one with GPUs) and its first reading, which only primes the
        // counters, would compete with the ranks' start-up for the CPUs. None when it is off.
        std::optional<SystemSampler> sampler;
        const double interval = m_config.monitorIntervalMs / 1000.0;
        double nextSample = process::monotonicSeconds() + interval;
        double nextScan = process::monotonicSeconds() + 1.0;
        while (true) {
            const double now = process::monotonicSeconds();
            if (now >= nextScan) {
                relayTensorboard(tensorboard, false);
                nextScan = now + 1.0;
            }
            if (interval > 0 && now >= nextSample) {
                if (!sampler)
                    sampler.emplace();
                for (const auto& s : sampler->sample(wire::nowSeconds()))
                    emit(-1, wire::SysEvent{s.device, s.metric, s.value});
                nextSample = now + interval;
            }
            if (m_killAt > 0 && now >= m_killAt) {
                for (auto& r : m_ranks)
                    if (r->running())
                        r->signal(SIGKILL);
                if (m_mpi)
                    m_mpi->signalMpirun(SIGKILL);
                m_killAt = 0;
            }
            if (m_mpi)
                tendMpi(now);
            reapRanks();
            flush();
            if (finished())
                break;
            pollOnce(nextWake(nextSample));
        }
        relayTensorboard(tensorboard, true); // what the ranks wrote at their end
        return finish();
    }

private:
    const LaunchConfig& m_config;
    int m_outFd;
    bool m_outputDead = false;
    std::string m_buffer;
    Fd m_signalFd;
    std::vector<std::unique_ptr<Rank>> m_ranks;
    bool m_stopping = false;
    std::string m_stopReason;
    double m_killAt = 0;
    const Rank* m_failed = nullptr;
    std::unique_ptr<ImdsPoller> m_imds;  // spot jobs: interruption notices from IMDS
    std::optional<JournalSpace> m_space; // the journal's room kept for the node's ending
    std::string m_tensorboardNote;       // why --tensorboard-dir is not used on this host
    bool m_diskFull = false;             // from then on only status and exit events are written
    NodeResources m_resources;
    std::unique_ptr<MpiNode> m_mpi; // distribution.mpi jobs
    double m_mpiWaitUntil = 0;      // monotonic: this node's ranks must have connected
    bool m_mpiRanksStarted = false;
    std::optional<process::ExitStatus> m_mpirunStatus;
    std::string m_mpiFailure; // why this node failed without a rank failing

    template <typename Payload>
    void emit(int rank, Payload p, double t = 0) {
        emitAt(m_config.nodeRank, rank, std::move(p), t);
    }

    // node: another node's rank's line, as mpirun's tagged output on node 0 carries it.
    template <typename Payload>
    void emitAt(int node, int rank, Payload p, double t = 0) {
        if (m_outputDead)
            return;
        if (m_diskFull) { // the kept room is for how the node ends
            if constexpr (std::is_same_v<Payload, wire::ExitEvent>)
                p.stderrTail.clear();
            else if constexpr (!std::is_same_v<Payload, wire::StatusEvent>)
                return;
        }
        Event e{t > 0 ? t : wire::nowSeconds(), node, rank, std::move(p)};
        m_buffer += wire::encode(e);
        m_buffer += '\n';
        if (m_buffer.size() > (1 << 16))
            flush();
    }

    void flush() {
        if (m_buffer.empty() || m_outputDead)
            return;
        if (m_space && !m_space->make(m_buffer.size()) && !m_diskFull)
            stopForFullDisk();
        if (!process::writeAll(m_outFd, m_buffer)) {
            // The controller is gone (or the journal cannot be written): nobody will read
            // results, so stop the ranks.
            m_outputDead = true;
            beginStop(m_config.journal.empty() ? "the controller closed the event stream"
                                               : "cannot write the journal " + m_config.journal +
                                                     ": " + std::strerror(errno));
        } else if (m_space) {
            m_space->wrote(m_buffer.size());
        }
        m_buffer.clear();
    }

    // The journal's disk is full: what is buffered is dropped, the ranks are stopped, and the
    // node's ending (a node_failure naming the disk, the exits) goes into the room kept for it.
    void stopForFullDisk() {
        const std::string why = "the disk holding the journal " + m_config.journal + " is full (" +
                                std::strerror(ENOSPC) + "); " + std::to_string(m_buffer.size()) +
                                " bytes of output were dropped";
        m_buffer.clear();
        m_diskFull = true;
        emit(-1, wire::StatusEvent{"node_failure", why, {}, 0, 0, -1, -1, {}});
        beginStop(why);
    }

    // SM_TENSORBOARD_DIR and the job's output folder's tensorboard/, each once.
    std::vector<std::filesystem::path> tensorboardFolders() const {
        std::vector<std::filesystem::path> folders;
        if (!m_config.tensorboardDir.empty())
            folders.emplace_back(m_config.tensorboardDir);
        if (!m_config.outputDataDir.empty()) {
            const auto own = std::filesystem::path(m_config.outputDataDir) / "tensorboard";
            const auto rel =
                folders.empty() ? std::filesystem::path() : own.lexically_relative(folders.front());
            if (rel.empty() || *rel.begin() == "..") // not inside the other: scanned on its own
                folders.push_back(own);
        }
        return folders;
    }

    // Each scalar of the ranks' own event files as their metric; the first of a tag is announced
    // (status "tensorboard_tag") so the studio does not write that series back into TensorBoard.
    void relayTensorboard(TensorboardWatch& watch, bool toTheEnd) {
        TensorboardWatch::Update u = watch.poll(toTheEnd);
        for (auto& w : u.warnings)
            emit(-1, wire::LogEvent{wire::Stream::Stderr, std::move(w)});
        for (auto& s : u.scalars) {
            if (s.firstOfTag) {
                wire::StatusEvent tag;
                tag.state = "tensorboard_tag";
                tag.message = s.point.tag;
                emit(s.rank, tag);
            }
            emit(s.rank, wire::MetricEvent{std::move(s.point.tag), s.point.step, s.point.value},
                 s.point.wallTime);
        }
        flush();
    }

    void setUpSignals() {
        sigset_t set;
        sigemptyset(&set);
        for (int s : {SIGCHLD, SIGTERM, SIGINT, SIGHUP})
            sigaddset(&set, s);
        ::sigprocmask(SIG_BLOCK, &set, nullptr);
        m_signalFd = Fd(::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
        ::signal(SIGPIPE, SIG_IGN);
    }

    // Every rank is forked before the launcher waits for any to execute its program, as a
    // shell's `&` does: waiting for each in turn made the last of N ranks wait for N - 1 execs.
    std::vector<std::int64_t> spawnRanks(const NodeResources& node) {
        const auto base = process::currentEnvironment();
        std::vector<int> available;
        cpu_set_t set;
        if (m_config.bindCores && ::sched_getaffinity(0, sizeof set, &set) == 0)
            for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
                if (CPU_ISSET(cpu, &set))
                    available.push_back(cpu);
        const int n = m_config.nprocPerNode;
        std::vector<process::Pipe> events(static_cast<std::size_t>(n));
        std::vector<process::SpawnOptions> options(static_cast<std::size_t>(n));
        for (int local = 0; local < n; ++local) {
            const auto i = static_cast<std::size_t>(local);
            events[i] = process::makePipe();
            process::SpawnOptions& o = options[i];
            o.argv = m_config.command;
            o.env = rankEnvironment(m_config, local, node, base);
            o.workdir = m_config.workdir;
            o.parentDeathSignal = SIGKILL;
            o.passFds = {{events[i].write.get(), kEventsFd}};
            o.cpus = rankCpus(available, n, local);
        }
        auto started = process::Process::spawnAll(options);
        std::vector<std::int64_t> pids;
        for (int local = 0; local < n; ++local) {
            const auto i = static_cast<std::size_t>(local);
            events[i].write.reset();
            auto r = std::make_unique<Rank>();
            r->localRank = local;
            r->globalRank = m_config.nodeRank * n + local;
            if (!started[i].error.empty()) {
                const std::string& why = started[i].error;
                emit(r->globalRank, wire::LogEvent{wire::Stream::Stderr, why});
                r->stderrTail.push_back(why);
                emit(r->globalRank, wire::ExitEvent{127, 0, {why}});
                r->reported = true;
                m_failed = m_failed ? m_failed : r.get();
                m_ranks.push_back(std::move(r));
                continue;
            }
            r->proc = std::move(started[i].process);
            r->out = r->proc.takeStdout();
            r->err = r->proc.takeStderr();
            r->events = std::move(events[i].read);
            for (Fd* f : {&r->out, &r->err, &r->events})
                process::setNonBlocking(f->get());
            pids.push_back(r->proc.pid());
            m_ranks.push_back(std::move(r));
        }
        if (m_failed) // after the loop, so that every rank that did start is stopped
            beginStop("rank could not be started");
        return pids;
    }

    // distribution.mpi: serve the ranks mpirun starts here; node 0 starts mpirun.
    void startMpi(const NodeResources& node) {
        m_resources = node;
        m_mpiWaitUntil = process::monotonicSeconds() + m_config.mpiWaitSeconds;
        try {
            m_mpi = std::make_unique<MpiNode>(
                m_config, m_resources,
                [this](int nodeIndex, int rank, wire::Stream stream, wire::SplitLine line) {
                    emitAt(nodeIndex, rank,
                           wire::LogEvent{stream, std::move(line.text), line.part});
                });
            if (m_config.nodeRank != 0)
                return;
            std::vector<std::string> hosts = m_config.mpiHosts;
            if (hosts.empty())
                hosts = m_config.slurm
                            ? slurmHosts()
                            : std::vector<std::string>(static_cast<std::size_t>(m_config.nnodes),
                                                       "localhost");
            if (std::string why = m_mpi->startMpirun(hosts); !why.empty())
                failMpi(why);
        } catch (const std::exception& e) {
            failMpi(e.what());
        }
    }

    // The node failed for a reason of its own (mpirun could not run, its ranks never came).
    void failMpi(const std::string& why) {
        if (!m_mpiFailure.empty())
            return;
        m_mpiFailure = why;
        emit(-1, wire::StatusEvent{"node_failure", why, {}, 0, 0, -1, -1, {}});
        beginStop(why);
    }

    void tendMpi(double now) {
        for (auto& c : m_mpi->takeConnected()) {
            auto r = std::make_unique<Rank>();
            r->localRank = c.localRank;
            r->globalRank = c.globalRank;
            r->peerPid = c.pid;
            r->events = std::move(c.events);
            m_ranks.push_back(std::move(r));
        }
        const int ppn = m_config.nprocPerNode;
        if (!m_mpiRanksStarted && m_mpi->connectedCount() == ppn) {
            m_mpiRanksStarted = true;
            std::sort(m_ranks.begin(), m_ranks.end(),
                      [](const auto& a, const auto& b) { return a->localRank < b->localRank; });
            wire::StatusEvent s;
            s.state = "ranks_started";
            for (const auto& r : m_ranks)
                s.pids.push_back(r->peerPid);
            emit(-1, s);
        }
        if (!m_mpirunStatus)
            if ((m_mpirunStatus = m_mpi->mpirunEnded()) && !m_stopping && !m_failed) {
                std::string why;
                if (!m_mpirunStatus->success())
                    why = "mpirun " + m_mpirunStatus->describe();
                else if (!m_mpiRanksStarted)
                    why = "mpirun ended before all " + std::to_string(ppn) +
                          " ranks of node 0 had started";
                for (const auto& line : m_mpi->mpirunTail())
                    why += why.empty() ? "" : "\n  " + line;
                if (!why.empty())
                    failMpi(why);
            }
        if (!m_stopping && !m_mpiRanksStarted && now > m_mpiWaitUntil)
            failMpi("only " + std::to_string(m_mpi->connectedCount()) + " of the " +
                    std::to_string(ppn) + " ranks mpirun should start on node " +
                    std::to_string(m_config.nodeRank) + " (" + hostName() + ") reached it in " +
                    std::to_string(static_cast<int>(m_config.mpiWaitSeconds)) + " s");
    }

    void beginStop(const std::string& reason) {
        if (m_stopping)
            return;
        m_stopping = true;
        m_stopReason = reason;
        emit(-1, wire::StatusEvent{"stopping", reason, {}, 0, 0, -1, -1, {}});
        for (auto& r : m_ranks)
            if (r->running())
                r->signal(SIGTERM);
        // mpirun passes the signal on to every host's ranks. A rank's failure it handles itself
        // (it aborts the job), and a second signal while it aborts can crash it.
        if (m_mpi && !m_failed)
            m_mpi->signalMpirun(SIGTERM);
        m_killAt = process::monotonicSeconds() + m_config.gracePeriodSeconds;
    }

    double nextWake(double nextSample) const {
        double wake = process::monotonicSeconds() + 1.0;
        if (m_config.monitorIntervalMs > 0)
            wake = std::min(wake, nextSample);
        if (m_killAt > 0)
            wake = std::min(wake, m_killAt);
        for (const auto& r : m_ranks)
            if (r->exitedAt > 0 && hasOpenFds(*r))
                wake = std::min(wake, r->exitedAt + 0.2);
        return wake;
    }

    static bool hasOpenFds(const Rank& r) {
        return r.out.valid() || r.err.valid() || r.events.valid();
    }

    void pollOnce(double wakeAt) {
        std::vector<pollfd> fds;
        std::vector<std::pair<Rank*, Fd*>> owners;
        fds.push_back({m_signalFd.get(), POLLIN, 0});
        owners.emplace_back(nullptr, nullptr);
        if (m_imds) {
            fds.push_back({m_imds->fd(), POLLIN, 0});
            owners.emplace_back(nullptr, nullptr);
        }
        for (auto& r : m_ranks)
            for (Fd* f : {&r->out, &r->err, &r->events})
                if (f->valid()) {
                    fds.push_back({f->get(), POLLIN, 0});
                    owners.emplace_back(r.get(), f);
                }
        const std::size_t mpiFrom = fds.size();
        if (m_mpi)
            for (int fd : m_mpi->fds())
                fds.push_back({fd, POLLIN, 0});
        int timeoutMs =
            std::max(0, static_cast<int>((wakeAt - process::monotonicSeconds()) * 1000) + 1);
        int n = ::poll(fds.data(), fds.size(), timeoutMs);
        if (n <= 0)
            return;
        if (fds[0].revents)
            handleSignals();
        for (std::size_t i = 1; i < fds.size(); ++i) {
            if (!fds[i].revents)
                continue;
            if (i >= mpiFrom)
                m_mpi->onReadable(fds[i].fd);
            else if (owners[i].first)
                readFrom(*owners[i].first, *owners[i].second);
            else
                relayImds();
        }
    }

    // The controller decides what a notice means (SIGTERM to every node's ranks, then a resume).
    void relayImds() {
        std::uint64_t v;
        (void)!::read(m_imds->fd(), &v, sizeof v);
        if (auto notice = m_imds->takeNotice()) {
            wire::StatusEvent s;
            s.state = "spot_notice";
            s.message = *notice;
            emit(-1, s);
        }
        if (auto off = m_imds->takeDisabledReason())
            emit(-1, wire::LogEvent{wire::Stream::Stderr, *off});
        flush();
    }

    void handleSignals() {
        signalfd_siginfo info;
        while (::read(m_signalFd.get(), &info, sizeof info) == sizeof info) {
            int sig = static_cast<int>(info.ssi_signo);
            if (sig != SIGCHLD)
                beginStop("received " + process::signalName(sig));
        }
    }

    void readFrom(Rank& r, Fd& fd) {
        char buf[65536];
        while (true) {
            ssize_t n = ::read(fd.get(), buf, sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                return; // EAGAIN: nothing more now
            if (n == 0) {
                closeStream(r, fd);
                return;
            }
            relay(r, fd, std::string_view(buf, static_cast<std::size_t>(n)));
            if (n < static_cast<ssize_t>(sizeof buf))
                return;
        }
    }

    void relay(Rank& r, Fd& fd, std::string_view bytes) {
        if (&fd == &r.events) {
            for (auto& line : r.eventLines.append(bytes))
                relayEvent(r, line);
            return;
        }
        const bool isErr = &fd == &r.err;
        for (auto& line : (isErr ? r.errLines : r.outLines).append(bytes))
            relayLog(r, isErr, std::move(line));
    }

    void relayLog(Rank& r, bool isErr, wire::SplitLine line) {
        if (isErr && line.part == wire::LinePart::Whole) {
            r.stderrTail.push_back(line.text);
            if (r.stderrTail.size() > kTailLines)
                r.stderrTail.pop_front();
        }
        const auto stream = isErr ? wire::Stream::Stderr : wire::Stream::Stdout;
        emit(r.globalRank, wire::LogEvent{stream, std::move(line.text), line.part});
        if (line.part == wire::LinePart::Last)
            emit(-1, wire::LogEvent{wire::Stream::Stderr,
                                    "rank " + std::to_string(r.globalRank) + " wrote a " +
                                        wire::streamName(stream) + " line of " +
                                        std::to_string(line.lineBytes) +
                                        " bytes, over the 1 MiB line limit: it is kept whole in "
                                        "its log and not scanned for metrics"});
    }

    // A piece of an over-long event line is no event: the whole line is dropped, and said so.
    void relayEvent(Rank& r, const wire::SplitLine& piece) {
        if (piece.part != wire::LinePart::Whole) {
            if (piece.part == wire::LinePart::Last)
                emit(-1, wire::LogEvent{wire::Stream::Stderr,
                                        "rank " + std::to_string(r.globalRank) +
                                            " wrote an event line of " +
                                            std::to_string(piece.lineBytes) +
                                            " bytes, over the 1 MiB line limit: dropped"});
            return;
        }
        const std::string& line = piece.text;
        if (line.empty())
            return;
        if (r.peerPid > 0 && !r.peerStatus)
            if (auto end = mpi::parseExit(line)) { // the shim's last word on its rank
                r.peerStatus = end->status;
                r.stderrTail.assign(end->stderrTail.begin(), end->stderrTail.end());
                return;
            }
        wire::Decoded d = wire::decode(line);
        if (!d.error.empty()) {
            emit(r.globalRank, wire::LogEvent{wire::Stream::Events, line});
            return;
        }
        if (!d.event)
            return; // a kind this version does not know
        Event e = std::move(*d.event);
        e.node = m_config.nodeRank;
        e.rank = r.globalRank;
        if (!d.hasTime)
            e.t = wire::nowSeconds();
        if (m_outputDead || m_diskFull)
            return;
        m_buffer += wire::encode(e);
        m_buffer += '\n';
    }

    void closeStream(Rank& r, Fd& fd) {
        wire::SplitLine rest = (&fd == &r.events ? r.eventLines
                                : &fd == &r.err  ? r.errLines
                                                 : r.outLines)
                                   .finish();
        if (!rest.text.empty() || rest.part != wire::LinePart::Whole) {
            if (&fd == &r.events)
                relayEvent(r, rest);
            else
                relayLog(r, &fd == &r.err, std::move(rest));
        }
        fd.reset();
        if (r.peerPid > 0 && !r.peerStatus) { // the shim was killed before it could say
            r.peerStatus = process::ExitStatus{-1, SIGKILL};
            if (!m_stopping)
                emit(-1, wire::LogEvent{wire::Stream::Stderr,
                                        "rank " + std::to_string(r.globalRank) + "'s process " +
                                            std::to_string(r.peerPid) +
                                            " ended without saying how its rank ended"});
        }
    }

    void reapRanks() {
        for (auto& r : m_ranks) {
            if (r->reported || !r->poll())
                continue;
            if (r->exitedAt == 0)
                r->exitedAt = process::monotonicSeconds();
            // Drain what the rank wrote before exiting; give stragglers 200 ms.
            for (Fd* f : {&r->out, &r->err, &r->events})
                if (f->valid())
                    readFrom(*r, *f);
            if (hasOpenFds(*r) && process::monotonicSeconds() < r->exitedAt + 0.2)
                continue;
            for (Fd* f : {&r->out, &r->err, &r->events})
                if (f->valid())
                    closeStream(*r, *f);
            reportExit(*r);
        }
    }

    void reportExit(Rank& r) {
        r.reported = true;
        const process::ExitStatus st = *r.status();
        wire::ExitEvent e{st.code, st.signal, {}};
        const bool failed = !st.success() && !m_stopping;
        if (failed || (!st.success() && m_failed == nullptr && !m_stopping))
            e.stderrTail.assign(r.stderrTail.begin(), r.stderrTail.end());
        emit(r.globalRank, e);
        if (failed && !m_failed) {
            m_failed = &r; // before beginStop, which leaves mpirun to end the job itself
            beginStop("rank " + std::to_string(r.globalRank) + " " + st.describe());
        }
    }

    bool finished() const {
        const bool ranksDone =
            std::all_of(m_ranks.begin(), m_ranks.end(), [](const auto& r) { return r->reported; });
        if (!m_mpi || !ranksDone)
            return ranksDone;
        if (m_mpi->runsMpirun())
            return m_mpirunStatus.has_value(); // no more ranks can come once it has ended
        return m_mpi->connectedCount() == m_config.nprocPerNode || m_stopping;
    }

    int finish() {
        wire::StatusEvent s;
        s.state = "finished";
        int code = kExitSuccess;
        if (!m_mpiFailure.empty() && !m_failed) {
            s.message = m_mpiFailure;
            code = kExitRankFailed;
        } else if (m_failed) {
            const auto st = m_failed->status().value_or(process::ExitStatus{127, 0});
            s.message = "rank " + std::to_string(m_failed->globalRank) + " " + st.describe();
            code = kExitRankFailed;
        } else if (m_stopping) {
            s.message = "stopped: " + m_stopReason;
            code = kExitStopped;
        } else {
            s.message = "all " + std::to_string(m_ranks.size()) + " ranks completed";
        }
        emit(-1, s);
        // The launcher's own exit ends its journal: a follower stops after this line.
        emit(-1, wire::ExitEvent{code, 0, {}});
        flush();
        return code;
    }
};

} // namespace

int runLauncher(const LaunchConfig& config, int outFd) {
    // One host: the ranks meet through a file only they can reach, nothing listens for them.
    LaunchConfig c = config;
    RendezvousFolder rendezvous;
    if (c.nnodes == 1 && c.nprocPerNode > 1 && c.storeFile.empty() && !c.mpi)
        c.storeFile = rendezvous.create();
    // The studio's folder for TensorBoard is used on the hosts where it exists (this machine, a
    // shared filesystem); elsewhere the ranks write into the job's output folder.
    std::string note;
    std::error_code ec;
    if (!c.tensorboardDir.empty() && !std::filesystem::is_directory(c.tensorboardDir, ec)) {
        note =
            "tensorboard_output_config.local_path " + c.tensorboardDir + " is no folder on " +
            hostName() + ": the ranks' SM_TENSORBOARD_DIR is " +
            (c.outputDataDir.empty() ? std::string("not set") : c.outputDataDir + "/tensorboard");
        c.tensorboardDir.clear();
    }
    Loop loop(c, outFd, std::move(note));
    return loop.run();
}

} // namespace studio::launcher
