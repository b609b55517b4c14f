#include "launcher/launcher_loop.h"
#include "launcher/rank_python.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <poll.h>
#include <sys/signalfd.h>
#include <unistd.h>

namespace studio::launcher {

namespace detail {

namespace {

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

} // namespace

int Loop::run() {
    const double startedAt = wire::nowSeconds();
    if (!m_config.journal.empty())
        m_space.emplace(m_outFd);
    setUpSignals();
    // Ranks first: sampling (and NVML's slow initialisation) must not delay them.
    const NodeResources node{onlineCpus(), countNvidiaGpus()};
    TensorboardWatch tensorboard(tensorboardFolders(), m_config.nodeRank * m_config.nprocPerNode);
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
        m_imds = std::make_unique<ImdsPoller>(m_config.imdsEndpoint, m_config.imdsIntervalSeconds);
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

void Loop::flush() {
    if (m_buffer.empty() || m_outputDead)
        return;
    if (m_space && !m_space->make(m_buffer.size()) && !m_diskFull)
        stopForFullDisk();
    if (!process::writeAll(m_outFd, m_buffer)) {
        // The controller is gone (or the journal cannot be written): nobody will read
        // results, so stop the ranks.
        m_outputDead = true;
        beginStop(m_config.journal.empty() ? "the controller closed the event stream"
                                           : "cannot write the journal " + m_config.journal + ": " +
                                                 std::strerror(errno));
    } else if (m_space) {
        m_space->wrote(m_buffer.size());
    }
    m_buffer.clear();
}

void Loop::stopForFullDisk() {
    const std::string why = "the disk holding the journal " + m_config.journal + " is full (" +
                            std::strerror(ENOSPC) + "); " + std::to_string(m_buffer.size()) +
                            " bytes of output were dropped";
    m_buffer.clear();
    m_diskFull = true;
    emit(-1, wire::StatusEvent{"node_failure", why, {}, 0, 0, -1, -1, {}});
    beginStop(why);
}

std::vector<std::filesystem::path> Loop::tensorboardFolders() const {
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

void Loop::relayTensorboard(TensorboardWatch& watch, bool toTheEnd) {
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

void Loop::setUpSignals() {
    sigset_t set;
    sigemptyset(&set);
    for (int s : {SIGCHLD, SIGTERM, SIGINT, SIGHUP})
        sigaddset(&set, s);
    ::sigprocmask(SIG_BLOCK, &set, nullptr);
    m_signalFd = Fd(::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
    ::signal(SIGPIPE, SIG_IGN);
}

void Loop::beginStop(const std::string& reason) {
    if (m_stopping)
        return;
    m_stopping = true;
    m_stopReason = reason;
    emit(-1, wire::StatusEvent{"stopping", reason, {}, 0, 0, -1, -1, {}});
    for (auto& r : m_ranks)
        if (r->running())
            r->signal(SIGTERM);
    // Once this node's ranks have all started, each node's launcher signals its own, which get
    // the whole grace period (mpirun's own SIGTERM gives them a second before its SIGKILL), and
    // mpirun ends with them. Before that, mpirun is stopped from starting more. A rank's failure
    // mpirun handles itself (it aborts the job); a second signal while it aborts can crash it.
    if (m_mpi && !m_failed && !m_mpi->allStarted())
        m_mpi->signalMpirun(SIGTERM);
    m_killAt = process::monotonicSeconds() + m_config.gracePeriodSeconds;
}

double Loop::nextWake(double nextSample) const {
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

void Loop::pollOnce(double wakeAt) {
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

void Loop::relayImds() {
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

void Loop::handleSignals() {
    signalfd_siginfo info;
    while (::read(m_signalFd.get(), &info, sizeof info) == sizeof info) {
        int sig = static_cast<int>(info.ssi_signo);
        if (sig != SIGCHLD)
            beginStop("received " + process::signalName(sig));
    }
}

bool Loop::finished() const {
    const bool ranksDone =
        std::all_of(m_ranks.begin(), m_ranks.end(), [](const auto& r) { return r->reported; });
    if (!m_mpi || !ranksDone)
        return ranksDone;
    return m_mpi->done(m_stopping);
}

int Loop::finish() {
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

} // namespace detail

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
    if (std::string python = prepareRankPython(c); !python.empty())
        note = note.empty() ? python : note + "; " + python;
    detail::Loop loop(c, outFd, std::move(note));
    return loop.run();
}

} // namespace studio::launcher
