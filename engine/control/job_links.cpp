// The links to a job's nodes: one follower per node streams its journal; a follower that goes
// quiet or drops means the link is down (secondary status Reconnecting, the job goes on); a
// host that stays away longer than the cluster's host timeout, or a launcher that is gone,
// fails the job with the host named. Every journal chunk is stored in one transaction with the
// offset after it, so a studio that dies and comes back stores each event exactly once.
#include "engine/control/job_runner_state.h"
#include "engine/process/process.h"
#include "engine/process/process_identity.h"
#include "engine/wire/codec.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <ctime>
#include <unistd.h>

namespace studio::control {

namespace {

std::string clockText(double t) {
    std::time_t secs = static_cast<std::time_t>(t);
    std::tm tm{};
    ::localtime_r(&secs, &tm);
    char buf[16];
    std::strftime(buf, sizeof buf, "%H:%M:%S", &tm);
    return buf;
}

std::string signalWord(int sig) {
    return sig == SIGKILL ? "KILL" : sig == SIGINT ? "INT" : "TERM";
}

std::string lastLine(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.pop_back();
    const auto nl = text.rfind('\n');
    return nl == std::string::npos ? text : text.substr(nl + 1);
}

} // namespace

NodeLink* JobRunner::State::node(int index) {
    for (auto& n : nodes)
        if (n.plan.node == index)
            return &n;
    return nullptr;
}

void JobRunner::State::signalNode(NodeLink& n, int sig) {
    if (n.done || n.journal.launcherPid <= 0)
        return;
    if (!n.host->isRemote()) {
        // This machine: check the start time, then signal; no command to run.
        if (process::processRunning(n.journal.launcherPid, n.journal.launcherStart))
            ::kill(static_cast<pid_t>(n.journal.launcherPid), sig);
        return;
    }
    n.pendingSignal = (sig == SIGKILL || n.pendingSignal == SIGKILL) ? SIGKILL : sig;
    process::SpawnOptions o;
    o.argv = n.host->wrap({n.launcher, "signal", "--pid", std::to_string(n.journal.launcherPid),
                           "--start", n.journal.launcherStart, "--signal", signalWord(sig)});
    o.env = process::currentEnvironment(); // its few bytes of output stay in its pipes
    try {
        n.commands.push_back(process::Process::spawn(o));
    } catch (const std::exception& e) {
        logs.write(wire::nowSeconds(), n.plan.node, -1, wire::Stream::Stderr,
                   std::string("cannot signal the launcher: ") + e.what());
    }
}

void JobRunner::State::signalLaunchers(int sig) {
    if (slurm) { // Slurm signals the steps on every node
        signalSlurm(sig);
        return;
    }
    for (auto& n : nodes)
        signalNode(n, sig);
}

void JobRunner::State::loseNode(NodeLink& n, const std::string& reason) {
    n.lostReason = reason;
    n.follower.kill();
    n.out.reset();
    n.err.reset();
    logs.write(wire::nowSeconds(), n.plan.node, -1, wire::Stream::Stderr, reason);
    ctx.writer->setJournalState(ctx.id, n.plan.node, "lost", wire::nowSeconds(), reason);
    if (hostFailure.empty() && !stopping()) {
        hostFailure = reason;
        hostFailureAt = wire::nowSeconds();
    }
    if (!stopSent) {
        stopSent = true;
        signalLaunchers(SIGTERM);
        killAt = wire::nowSeconds() + ctx.graceSeconds + 5;
    }
}

void JobRunner::startFollower(NodeLink& n, double mono) {
    State& s = *d;
    std::vector<std::string> cmd = {n.launcher, "follow", n.journal.path, "--offset",
                                    std::to_string(n.journal.offset)};
    if (n.journal.launcherPid > 0) {
        cmd.insert(cmd.end(), {"--pid", std::to_string(n.journal.launcherPid), "--start",
                               n.journal.launcherStart});
    }
    cmd.insert(cmd.end(), {"--heartbeat-ms", "1000"});
    if (s.ctx.cluster.isSlurm()) // the journal appears once Slurm runs the job
        cmd.insert(cmd.end(), {"--wait-s", std::to_string(30 * 86400)});
    process::SpawnOptions o;
    o.argv = n.host->wrap(cmd);
    o.env = process::currentEnvironment();
    n.stream = FollowStream{};
    n.followerErr.clear();
    try {
        n.follower = process::Process::spawn(o);
    } catch (const std::exception& e) {
        s.loseNode(n,
                   "host " + n.journal.host + ": cannot start the journal follower: " + e.what());
        return;
    }
    n.out = n.follower.takeStdout();
    n.err = n.follower.takeStderr();
    process::setNonBlocking(n.out.get());
    process::setNonBlocking(n.err.get());
    n.followerStarted = mono;
    n.lastHeard = mono;
}

void JobRunner::readFollower(NodeLink& n, bool isStderr) {
    State& s = *d;
    process::Fd& fd = isStderr ? n.err : n.out;
    char buf[1 << 16];
    std::string bytes;
    bool closed = false;
    while (true) {
        const ssize_t r = ::read(fd.get(), buf, sizeof buf);
        if (r > 0) {
            bytes.append(buf, static_cast<std::size_t>(r));
            if (bytes.size() >= (1u << 20))
                break; // store this chunk; the rest follows on the next poll
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        closed = r == 0;
        break;
    }
    if (closed)
        fd.reset();
    if (bytes.empty())
        return;
    if (isStderr) {
        n.followerErr += bytes;
        if (n.followerErr.size() > 4096)
            n.followerErr.erase(0, n.followerErr.size() - 4096);
        return;
    }
    n.lastHeard = process::monotonicSeconds();
    // One transaction for the chunk's events, the log files' sizes and the offset after them.
    store::StoreWriter& w = *s.ctx.writer;
    const std::int64_t before = n.journal.offset;
    w.beginGroup();
    try {
        handleFollowItems(n, n.stream.append(bytes));
    } catch (...) {
        w.endGroup();
        throw;
    }
    if (n.journal.offset != before) {
        s.logs.flush();
        for (const auto& f : s.logs.takeChanged())
            w.upsertLogFile(s.ctx.id, f);
        w.setJournalOffset(s.ctx.id, n.plan.node, n.journal.offset);
    }
    w.endGroup();
}

void JobRunner::handleFollowItems(NodeLink& n, const std::vector<FollowItem>& items) {
    State& s = *d;
    using K = FollowItem::Kind;
    for (const auto& item : items) {
        switch (item.kind) {
        case K::Marker:
            linkUp(n);
            break;
        case K::Line: {
            n.journal.offset += static_cast<std::int64_t>(item.text.size()) + 1;
            wire::Decoded dec = wire::decode(item.text);
            if (!dec.error.empty()) {
                ++s.protocolErrors;
                s.handleEvent(wire::malformedAsLog(item.text, wire::nowSeconds(), n.plan.node, -1));
            } else if (dec.event) {
                s.handleEvent(*dec.event);
            }
            break;
        }
        case K::Heartbeat:
            break;
        case K::End:
            n.journalEnded = true;
            break;
        case K::Gone:
            if (!n.journalEnded)
                n.lostReason = "host " + n.journal.host + ": the launcher of node " +
                               std::to_string(n.plan.node) + " (" + n.plan.host + ")" +
                               " is no longer running and its journal ends without its exit "
                               "(killed, or the host restarted)";
            break;
        case K::Error:
            n.lostReason = "host " + n.journal.host + ": " + item.text;
            break;
        case K::Noise:
            if (n.stream.started()) { // before the marker: what a login shell printed
                n.stderrTail.push_back(item.text);
                if (n.stderrTail.size() > 20)
                    n.stderrTail.pop_front();
            }
            break;
        }
    }
}

void JobRunner::linkUp(NodeLink& n) {
    State& s = *d;
    n.linkUp = true;
    n.reconnectAttempts = 0;
    const bool wasDown = n.downSince > 0;
    n.downSince = 0;
    n.journal.state = "following";
    s.ctx.writer->setJournalState(s.ctx.id, n.plan.node, "following", wire::nowSeconds(), "");
    if (n.pendingSignal)
        s.signalNode(n, n.pendingSignal);
    if (!wasDown)
        return;
    s.logs.write(wire::nowSeconds(), n.plan.node, -1, wire::Stream::Stderr,
                 "host " + n.journal.host + ": connected again; following the journal from byte " +
                     std::to_string(n.journal.offset));
    const bool anyDown = std::any_of(s.nodes.begin(), s.nodes.end(),
                                     [](const NodeLink& o) { return o.downSince > 0; });
    if (!anyDown && !s.secondaryBeforeReconnect.empty()) {
        const std::string back = s.secondaryBeforeReconnect;
        s.secondaryBeforeReconnect.clear();
        std::string status;
        {
            std::lock_guard lock(s.mutex);
            status = s.status;
        }
        s.setStatus(status, back, "connected again to " + n.journal.host);
    }
}

void JobRunner::linkDown(NodeLink& n, const std::string& why, double mono) {
    State& s = *d;
    n.follower.kill();
    n.out.reset();
    n.err.reset();
    n.linkUp = false;
    // A master connection stuck on a dead link would make every new command hang on it.
    n.host->disconnect();
    n.nextAttempt = mono + std::min(5.0, 1.0 + n.reconnectAttempts++);
    if (n.downSince > 0)
        return;
    n.downSince = wire::nowSeconds();
    const std::string text = "host " + n.journal.host + ": lost the connection at " +
                             clockText(n.downSince) + " (" + why +
                             "); the job goes on, reconnecting";
    n.journal.state = "reconnecting";
    s.ctx.writer->setJournalState(s.ctx.id, n.plan.node, "reconnecting", n.downSince, text);
    s.logs.write(n.downSince, n.plan.node, -1, wire::Stream::Stderr, text);
    std::string status, secondary;
    {
        std::lock_guard lock(s.mutex);
        status = s.status;
        secondary = s.secondary;
    }
    if (secondary != "Reconnecting") {
        s.secondaryBeforeReconnect = secondary;
        saveRunState();
        s.setStatus(status, "Reconnecting", text);
    }
}

void JobRunner::followerEnded(NodeLink& n, double mono) {
    // Read what it wrote before ending.
    if (n.out.valid())
        readFollower(n, false);
    if (n.err.valid())
        readFollower(n, true);
    n.out.reset();
    n.err.reset();
    if (n.journalEnded || !n.lostReason.empty()) {
        finishNode(n);
        return;
    }
    const auto st = n.follower.status().value_or(process::ExitStatus{});
    std::string why = lastLine(n.followerErr);
    if (why.empty())
        why = "the follower " + st.describe();
    linkDown(n, why, mono);
}

void JobRunner::finishNode(NodeLink& n) {
    State& s = *d;
    n.done = true;
    n.follower.kill();
    n.out.reset();
    n.err.reset();
    const double now = wire::nowSeconds();
    // A launcher that vanished is the job's failure, unless the job was already being torn
    // down (then it was our SIGKILL after the grace period, or an echo of the first failure).
    if (!n.lostReason.empty() && !s.stopSent)
        s.loseNode(n, n.lostReason);
    n.journal.state = n.journalEnded ? "ended" : "lost";
    s.ctx.writer->setJournalState(s.ctx.id, n.plan.node, n.journal.state, now, n.lostReason);
    n.row.node = n.plan.node;
    if (n.row.host.empty())
        n.row.host = n.host->isRemote() ? n.journal.host : n.plan.host;
    if (n.row.launcherPid == 0)
        n.row.launcherPid = n.journal.launcherPid;
    n.row.ended = now;
    n.row.exitCode = n.launcherExit;
    s.ctx.writer->upsertNode(s.ctx.id, n.row);
}

void JobRunner::tendLinks(double now, double mono) {
    State& s = *d;
    for (auto& n : s.nodes) {
        for (auto it = n.commands.begin(); it != n.commands.end();) {
            if (auto st = it->poll()) {
                if (st->code == 0 || st->code == 3) // delivered, or nothing left to signal
                    n.pendingSignal = 0;
                it = n.commands.erase(it);
            } else {
                ++it;
            }
        }
        if (n.done)
            continue;
        if (n.follower.pid() > 0 && n.follower.running()) {
            if (n.follower.poll()) {
                followerEnded(n, mono);
            } else if (n.linkUp && mono - n.lastHeard > s.ctx.linkTimeoutSeconds) {
                linkDown(n,
                         "no word from it for " +
                             std::to_string(static_cast<int>(s.ctx.linkTimeoutSeconds)) + " s",
                         mono);
            } else if (!n.linkUp && mono - n.followerStarted > s.ctx.linkTimeoutSeconds + 6) {
                linkDown(n, "no answer", mono);
            }
        } else if (n.journalEnded || !n.lostReason.empty()) {
            finishNode(n);
        } else if (mono >= n.nextAttempt) {
            startFollower(n, mono);
        }
        if (!n.done && n.downSince > 0 && now - n.downSince > s.ctx.cluster.hostTimeoutSeconds) {
            s.loseNode(n, "host " + n.journal.host + " has been unreachable for " +
                              std::to_string(static_cast<int>(now - n.downSince)) +
                              " s (the cluster's host timeout is " +
                              std::to_string(static_cast<int>(s.ctx.cluster.hostTimeoutSeconds)) +
                              " s)");
            finishNode(n);
        }
    }
}

} // namespace studio::control
