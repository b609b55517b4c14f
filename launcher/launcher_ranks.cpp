#include "launcher/launcher_loop.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <sched.h>
#include <unistd.h>

namespace studio::launcher::detail {

std::vector<std::int64_t> Loop::spawnRanks(const NodeResources& node) {
    const auto base = process::currentEnvironment();
    const std::vector<int> available = affinityCpus(m_config.bindCores);
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

void Loop::startMpi(const NodeResources& node) {
    m_resources = node;
    try {
        m_mpi = std::make_unique<MpiNode>(
            m_config, m_resources,
            [this](int nodeIndex, int rank, wire::Stream stream, wire::SplitLine line) {
                emitAt(nodeIndex, rank, wire::LogEvent{stream, std::move(line.text), line.part});
            });
        if (std::string why = m_mpi->start(); !why.empty())
            failMpi(why);
    } catch (const std::exception& e) {
        failMpi(e.what());
    }
}

void Loop::failMpi(const std::string& why) {
    if (!m_mpiFailure.empty())
        return;
    m_mpiFailure = why;
    emit(-1, wire::StatusEvent{"node_failure", why, {}, 0, 0, -1, -1, {}});
    beginStop(why);
}

void Loop::tendMpi(double now) {
    MpiNode::Progress p = m_mpi->tend(now, m_stopping || m_failed);
    for (auto& c : p.connected) {
        auto r = std::make_unique<Rank>();
        r->localRank = c.localRank;
        r->globalRank = c.globalRank;
        r->peerPid = c.pid;
        r->events = std::move(c.events);
        m_ranks.push_back(std::move(r));
    }
    if (p.allStarted) {
        wire::StatusEvent s;
        s.state = "ranks_started";
        s.pids = std::move(*p.allStarted);
        emit(-1, s);
    }
    if (!p.failure.empty())
        failMpi(p.failure);
}

void Loop::readFrom(Rank& r, Fd& fd) {
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

void Loop::relay(Rank& r, Fd& fd, std::string_view bytes) {
    if (&fd == &r.events) {
        for (auto& line : r.eventLines.append(bytes))
            relayEvent(r, line);
        return;
    }
    const bool isErr = &fd == &r.err;
    for (auto& line : (isErr ? r.errLines : r.outLines).append(bytes))
        relayLog(r, isErr, std::move(line));
}

void Loop::relayLog(Rank& r, bool isErr, wire::SplitLine line) {
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

void Loop::relayEvent(Rank& r, const wire::SplitLine& piece) {
    if (piece.part != wire::LinePart::Whole) {
        if (piece.part == wire::LinePart::Last)
            emit(-1,
                 wire::LogEvent{wire::Stream::Stderr,
                                "rank " + std::to_string(r.globalRank) +
                                    " wrote an event line of " + std::to_string(piece.lineBytes) +
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

void Loop::closeStream(Rank& r, Fd& fd) {
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

void Loop::reapRanks() {
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

void Loop::reportExit(Rank& r) {
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

} // namespace studio::launcher::detail
