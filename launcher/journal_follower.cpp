#include "launcher/journal_follower.h"

#include "engine/process/fd.h"
#include "engine/process/process.h"
#include "engine/process/process_identity.h"
#include "engine/wire/codec.h"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace studio::launcher {

namespace {

// The launcher's last journal line: its own exit event (rank -1).
bool isLauncherExit(std::string_view line) {
    if (line.find("\"exit\"") == std::string_view::npos)
        return false;
    const wire::Decoded d = wire::decode(line);
    return d.event && d.event->rank < 0 && d.event->as<wire::ExitEvent>();
}

class Follower {
public:
    Follower(const FollowOptions& o, int outFd)
        : m_o(o)
        , m_out(outFd) {}

    int run() {
        if (!send(std::string(kFollowMarker) + " " + std::to_string(m_o.offset) + "\n"))
            return 2;
        if (int rc = open(); rc >= 0)
            return rc;
        double lastSent = process::monotonicSeconds();
        while (true) {
            const std::size_t before = m_sent;
            bool ended = false;
            if (!readAvailable(ended))
                return 2;
            if (ended)
                return send("#end\n") ? 0 : 2;
            const double now = process::monotonicSeconds();
            if (m_sent != before) {
                lastSent = now;
                continue; // more may be there already
            }
            if (m_o.pid > 0 && !process::processRunning(m_o.pid, m_o.pidStart)) {
                // It may have written its last lines just before exiting.
                if (!readAvailable(ended))
                    return 2;
                if (ended)
                    return send("#end\n") ? 0 : 2;
                // Died without its exit event: what its ranks started must not outlive it.
                process::killOrphanedSession(m_o.pid, m_o.pidStart);
                return send("#gone\n") ? 0 : 2;
            }
            if (now - lastSent >= m_o.heartbeatMs / 1000.0) {
                if (!send("#hb " + std::to_string(wire::nowSeconds()) + "\n"))
                    return 2;
                lastSent = now;
            }
            waitForData(std::min(200.0, m_o.heartbeatMs - (now - lastSent) * 1000.0));
        }
    }

private:
    const FollowOptions& m_o;
    int m_out;
    process::Fd m_file;
    process::Fd m_notify;
    std::string m_partial; // bytes of a line not yet complete
    std::size_t m_sent = 0;

    bool send(std::string_view bytes) {
        m_sent += bytes.size();
        return process::writeAll(m_out, bytes);
    }

    int open() {
        const double deadline = process::monotonicSeconds() + m_o.waitForJournalSeconds;
        double lastBeat = process::monotonicSeconds();
        while (true) {
            m_file = process::Fd(::open(m_o.journal.c_str(), O_RDONLY | O_CLOEXEC));
            if (m_file.valid())
                break;
            if (errno != ENOENT || process::monotonicSeconds() >= deadline)
                return send("#error cannot open the journal " + m_o.journal + ": " +
                            std::strerror(errno) + "\n")
                           ? 1
                           : 2;
            // A long wait (a queued Slurm job) still tells the reader the link is alive.
            if (const double now = process::monotonicSeconds();
                now - lastBeat >= m_o.heartbeatMs / 1000.0) {
                if (!send("#hb " + std::to_string(wire::nowSeconds()) + "\n"))
                    return 2;
                lastBeat = now;
            }
            std::this_thread::sleep_for(
                std::chrono::milliseconds(m_o.waitForJournalSeconds > 5 ? 100 : 20));
        }
        struct stat st {};
        ::fstat(m_file.get(), &st);
        if (m_o.offset > st.st_size)
            return send("#error offset " + std::to_string(m_o.offset) + " is beyond the end of " +
                        m_o.journal + " (" + std::to_string(st.st_size) + " bytes)\n")
                       ? 1
                       : 2;
        ::lseek(m_file.get(), m_o.offset, SEEK_SET);
        m_notify = process::Fd(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK));
        if (m_notify.valid())
            ::inotify_add_watch(m_notify.get(), m_o.journal.c_str(), IN_MODIFY | IN_CLOSE_WRITE);
        return -1;
    }

    // Sends the complete lines written since the last call; `ended` once the exit event went.
    bool readAvailable(bool& ended) {
        char buf[1 << 16];
        std::string out;
        while (true) {
            const ssize_t n = ::read(m_file.get(), buf, sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            m_partial.append(buf, static_cast<std::size_t>(n));
            std::size_t start = 0;
            for (auto nl = m_partial.find('\n'); nl != std::string::npos;
                 nl = m_partial.find('\n', start)) {
                const std::string_view line(m_partial.data() + start, nl - start);
                out.append(line.data(), line.size() + 1);
                start = nl + 1;
                if (isLauncherExit(line)) {
                    ended = true;
                    break;
                }
            }
            m_partial.erase(0, start);
            if (ended || out.size() > (1 << 20))
                break;
        }
        return out.empty() || send(out);
    }

    void waitForData(double ms) {
        if (!m_notify.valid()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            return;
        }
        // inotify wakes us at once on a local write; the timeout catches writes it cannot see
        // (a network filesystem) and lets the launcher and heartbeat checks run.
        pollfd p{m_notify.get(), POLLIN, 0};
        if (::poll(&p, 1, std::max(1, static_cast<int>(ms))) > 0) {
            char events[4096];
            while (::read(m_notify.get(), events, sizeof events) > 0) {
            }
        }
    }
};

} // namespace

int followJournal(const FollowOptions& o, int outFd) {
    Follower f(o, outFd);
    return f.run();
}

int runFollow(const std::vector<std::string>& args) {
    CLI::App app{"studio-launcher follow: stream a launcher's journal from a byte offset",
                 "follow"};
    FollowOptions o;
    app.add_option("journal", o.journal, "the journal file")->required();
    app.add_option("--offset", o.offset, "start here (bytes)")->check(CLI::NonNegativeNumber);
    app.add_option("--pid", o.pid, "the launcher's process id: #gone once it has ended");
    app.add_option("--start", o.pidStart, "its start time in clock ticks");
    app.add_option("--wait-s", o.waitForJournalSeconds,
                   "how long to wait for a journal that does not exist yet")
        ->check(CLI::Range(0.0, 30.0 * 86400));
    app.add_option("--heartbeat-ms", o.heartbeatMs, "heartbeat interval")
        ->check(CLI::Range(10, 60000));
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    try {
        app.parse(reversed);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 2;
    }
    ::signal(SIGPIPE, SIG_IGN);
    return followJournal(o);
}

} // namespace studio::launcher
