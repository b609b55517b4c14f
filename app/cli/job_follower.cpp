#include "app/cli/job_follower.h"

#include "app/cli/cli.h"
#include "app/cli/progress_bar.h"

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
            m_lines.push_back(taggedLine(e.node, e.rank, wire::streamName(l->stream), l->text));
        }
    }

    ProgressState take(std::deque<std::string>& lines, std::vector<std::string>& transitions) {
        std::lock_guard lock(m_mutex);
        lines.swap(m_lines);
        transitions.swap(m_transitions);
        return m_state;
    }

private:
    bool m_keepLogs;
    std::mutex m_mutex;
    ProgressState m_state;
    std::deque<std::string> m_lines;
    std::vector<std::string> m_transitions;
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
    const FollowOptions& o = d->options;
    struct sigaction sa {};
    sa.sa_handler = onInterrupt;
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGTERM, &sa, nullptr);
    const bool tty = ::isatty(STDERR_FILENO) && !o.quiet;
    const double start = wire::nowSeconds();
    int handled = g_interrupts.load();
    int tick = 0;
    bool barShown = false;
    bool detached = false;
    bool outputClosed = false; // stdout's reader went away (`mlstudio run --logs | head`)
    auto render = [&](bool final) {
        std::deque<std::string> lines;
        std::vector<std::string> transitions;
        ProgressState st = d->observer.take(lines, transitions);
        control::JobProgress p = d->controller.progress(job);
        if (p.step >= 0) {
            st.step = p.step;
            st.total = p.total;
        }
        st.elapsedSeconds = wire::nowSeconds() - start;
        st.width = terminalWidth();
        st.tick = tick++;
        if (barShown && (tty && (!lines.empty() || final)))
            std::fprintf(stderr, "\r\033[K");
        for (const auto& l : lines)
            std::fprintf(stdout, "%s\n", l.c_str());
        if (std::fflush(stdout) != 0 || std::ferror(stdout))
            outputClosed = true;
        if (!tty && !o.quiet)
            for (const auto& t : transitions)
                std::fprintf(stderr, "%s %s\n", formatDuration(st.elapsedSeconds).c_str(),
                             t.c_str());
        if (tty && !final) {
            std::fprintf(stderr, "\r\033[K%s", renderProgress(st).c_str());
            barShown = true;
        }
        std::fflush(stderr);
    };
    const auto running = [&] {
        const auto names = d->controller.runningJobs();
        return std::find(names.begin(), names.end(), job) != names.end();
    };
    while (running()) {
        if (const int n = g_interrupts.load(); n > handled) {
            handled = n;
            if (tty)
                std::fprintf(stderr, "\r\033[K");
            if (o.interruptDetaches) {
                std::fprintf(stderr,
                             "Leaving %s running (mlstudio attach %s follows it again, "
                             "mlstudio stop %s stops it).\n",
                             job.c_str(), job.c_str(), job.c_str());
                d->controller.detach(job);
                detached = true;
            } else {
                std::fprintf(stderr,
                             "Stopping %s (the ranks get SIGTERM, then SIGKILL after the grace "
                             "period)...\n",
                             job.c_str());
                d->controller.stop(job, "Stopped by user (interrupt)");
            }
        }
        render(false);
        if (outputClosed && !detached) {
            // The job goes on; only the streaming ends.
            std::fprintf(stderr,
                         "\nmlstudio: standard output closed; leaving %s running (mlstudio "
                         "attach %s follows it again).\n",
                         job.c_str(), job.c_str());
            d->controller.detach(job);
            detached = true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(tty ? 150 : 250));
    }
    const std::string status = d->controller.wait(job);
    render(true);
    d->controller.writer().flush();
    if (detached || status == "InProgress")
        return kExitOk;
    if (!o.quiet)
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
    std::fprintf(stderr, "%s %s in %s\n", job.c_str(), r.status.c_str(),
                 formatDuration((r.ended > 0 ? r.ended : wire::nowSeconds()) - r.created).c_str());
    for (const auto& [name, s] : detail->metrics) {
        const auto finite = [&s](double v) {
            return s.hasFinite() ? formatValue(v) : std::string("-");
        };
        std::fprintf(stderr, "  %-24s last %-12s min %-12s max %-12s count %lld\n", name.c_str(),
                     formatValue(s.last).c_str(), finite(s.min).c_str(), finite(s.max).c_str(),
                     static_cast<long long>(s.count));
    }
    if (!r.failureReason.empty())
        std::fprintf(stderr, "%s\n", r.failureReason.c_str());
    std::fprintf(stderr, "Results: %s\n  (mlstudio show %s)\n", r.jobDir.c_str(), job.c_str());
}

} // namespace studio::cli
