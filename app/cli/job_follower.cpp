#include "app/cli/job_follower.h"

#include "app/cli/cli.h"
#include "app/present/progress_bar.h"
#include "app/present/tagged_line.h"
#include "app/present/terminal.h"

#include "engine/control/studio_home.h"
#include "engine/store/store_reader.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <deque>
#include <mutex>
#include <sys/ioctl.h>
#include <thread>
#include <unistd.h>

namespace studio::cli {

namespace {

std::atomic<int> g_interrupts{0};

void onInterrupt(int) {
    g_interrupts.fetch_add(1);
}

int terminalWidth() {
    winsize w{};
    if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 20)
        return w.ws_col;
    return 100;
}

// Collects what the job thread reports; the main thread renders it.
class Observer : public control::JobObserver {
public:
    explicit Observer(bool keepLogs)
        : m_keepLogs(keepLogs) {}

    void jobStatus(const control::JobStatusUpdate& u) override {
        std::lock_guard lock(m_mutex);
        m_state.status = u.status;
        m_state.secondary = u.secondaryStatus;
        m_transitions.push_back(u.secondaryStatus + (u.message.empty() ? "" : ": " + u.message));
    }

    void jobEvent(const std::string&, store::ComponentId, const wire::Event& e) override {
        std::lock_guard lock(m_mutex);
        if (const auto* m = e.as<wire::MetricEvent>()) {
            // The bar shows a loss when the job reports one, else whatever metric came last.
            const bool loss = m->name.find("loss") != std::string::npos;
            if (loss || m_state.metricName.find("loss") == std::string::npos) {
                m_state.metricName = m->name;
                m_state.metricValue = m->value;
            }
        } else if (const auto* s = e.as<wire::StatusEvent>(); s && s->state == "progress") {
            m_state.step = s->step;
            m_state.total = s->total;
        } else if (const auto* l = e.as<wire::LogEvent>(); l && m_keepLogs) {
            m_lines.push_back(
                present::taggedLine(e.node, e.rank, wire::streamName(l->stream), l->text));
        }
    }

    present::ProgressState take(std::deque<std::string>& lines,
                                std::vector<std::string>& transitions) {
        std::lock_guard lock(m_mutex);
        lines.swap(m_lines);
        transitions.swap(m_transitions);
        return m_state;
    }

private:
    bool m_keepLogs;
    std::mutex m_mutex;
    present::ProgressState m_state;
    std::deque<std::string> m_lines;
    std::vector<std::string> m_transitions;
};

// One follow() call: renders the observer's news and handles Ctrl-C until the job ends.
class FollowSession {
public:
    FollowSession(control::Controller& controller, Observer& observer, const FollowOptions& o,
                  const std::string& job)
        : m_controller(controller)
        , m_observer(observer)
        , m_options(o)
        , m_job(job)
        , m_tty(present::terminalModeOf(STDERR_FILENO).interactive && !o.quiet)
        , m_start(wire::nowSeconds())
        , m_handled(g_interrupts.load()) {}

    bool tty() const { return m_tty; }
    bool detached() const { return m_detached; }

    bool running() const {
        const auto names = m_controller.runningJobs();
        return std::find(names.begin(), names.end(), m_job) != names.end();
    }

    // A new Ctrl-C stops the job gracefully, or detaches from it when interrupts detach.
    void handleInterrupts() {
        const int n = g_interrupts.load();
        if (n <= m_handled)
            return;
        m_handled = n;
        if (m_tty)
            std::fprintf(stderr, "\r\033[K");
        if (m_options.interruptDetaches) {
            std::fprintf(stderr,
                         "Leaving %s running (mlstudio attach %s follows it again, "
                         "mlstudio stop %s stops it).\n",
                         m_job.c_str(), m_job.c_str(), m_job.c_str());
            m_controller.detach(m_job);
            m_detached = true;
        } else {
            std::fprintf(stderr,
                         "Stopping %s (the ranks get SIGTERM, then SIGKILL after the grace "
                         "period)...\n",
                         m_job.c_str());
            m_controller.stop(m_job, "Stopped by user (interrupt)");
        }
    }

    // The job goes on when stdout's reader went away; only the streaming ends.
    void detachIfOutputClosed() {
        if (!m_outputClosed || m_detached)
            return;
        std::fprintf(stderr,
                     "\nmlstudio: standard output closed; leaving %s running (mlstudio "
                     "attach %s follows it again).\n",
                     m_job.c_str(), m_job.c_str());
        m_controller.detach(m_job);
        m_detached = true;
    }

    // Log lines to stdout; transitions (no terminal) or the progress bar (unless final) to stderr.
    void render(bool final) {
        std::deque<std::string> lines;
        std::vector<std::string> transitions;
        present::ProgressState st = m_observer.take(lines, transitions);
        control::JobProgress p = m_controller.progress(m_job);
        if (p.step >= 0) {
            st.step = p.step;
            st.total = p.total;
        }
        st.elapsedSeconds = wire::nowSeconds() - m_start;
        st.width = terminalWidth();
        st.tick = m_tick++;
        if (m_barShown && (m_tty && (!lines.empty() || final)))
            std::fprintf(stderr, "\r\033[K");
        for (const auto& l : lines)
            std::fprintf(stdout, "%s\n", l.c_str());
        if (std::fflush(stdout) != 0 || std::ferror(stdout))
            m_outputClosed = true;
        if (!m_tty && !m_options.quiet)
            for (const auto& t : transitions)
                std::fprintf(stderr, "%s %s\n", present::formatDuration(st.elapsedSeconds).c_str(),
                             t.c_str());
        if (m_tty && !final) {
            std::fprintf(stderr, "\r\033[K%s", present::renderProgress(st).c_str());
            m_barShown = true;
        }
        std::fflush(stderr);
    }

private:
    control::Controller& m_controller;
    Observer& m_observer;
    const FollowOptions& m_options;
    const std::string& m_job;
    const bool m_tty;
    const double m_start;
    int m_handled;
    int m_tick = 0;
    bool m_barShown = false;
    bool m_detached = false;
    bool m_outputClosed = false; // stdout's reader went away (`mlstudio run --logs | head`)
};

} // namespace

struct JobFollower::Impl {
    control::Controller& controller;
    FollowOptions options;
    Observer observer;

    Impl(control::Controller& c, FollowOptions o)
        : controller(c)
        , options(o)
        , observer(o.streamLogs) {}
};

JobFollower::JobFollower(control::Controller& controller, FollowOptions options)
    : d(std::make_unique<Impl>(controller, options)) {
    controller.addObserver(&d->observer);
}

JobFollower::~JobFollower() {
    d->controller.removeObserver(&d->observer);
}

int JobFollower::follow(const std::string& job) {
    struct sigaction sa {};
    sa.sa_handler = onInterrupt;
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGTERM, &sa, nullptr);
    FollowSession session(d->controller, d->observer, d->options, job);
    while (session.running()) {
        session.handleInterrupts();
        session.render(false);
        session.detachIfOutputClosed();
        std::this_thread::sleep_for(std::chrono::milliseconds(session.tty() ? 150 : 250));
    }
    const std::string status = d->controller.wait(job);
    session.render(true);
    d->controller.writer().flush();
    if (session.detached() || status == "InProgress")
        return kExitOk;
    if (!d->options.quiet)
        printJobSummary(d->controller.home(), job);
    if (status == "Completed")
        return kExitOk;
    return status == "Stopped" ? kExitStopped : kExitFailed;
}

void printJobSummary(const std::string& home, const std::string& job) {
    store::StoreReader reader(control::databasePath(home));
    auto detail = reader.detail(job);
    if (!detail)
        return;
    const auto& r = detail->row;
    std::fprintf(
        stderr, "%s %s in %s\n", job.c_str(), r.status.c_str(),
        present::formatDuration((r.ended > 0 ? r.ended : wire::nowSeconds()) - r.created).c_str());
    for (const auto& [name, s] : detail->metrics) {
        const auto finite = [&s](double v) {
            return s.hasFinite() ? present::formatValue(v) : std::string("-");
        };
        std::fprintf(stderr, "  %-24s last %-12s min %-12s max %-12s count %lld\n", name.c_str(),
                     present::formatValue(s.last).c_str(), finite(s.min).c_str(),
                     finite(s.max).c_str(), static_cast<long long>(s.count));
    }
    if (!r.failureReason.empty())
        std::fprintf(stderr, "%s\n", r.failureReason.c_str());
    std::fprintf(stderr, "Results: %s\n  (mlstudio show %s)\n", r.jobDir.c_str(), job.c_str());
}

} // namespace studio::cli
