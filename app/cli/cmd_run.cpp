// mlstudio run / validate: a job in this process, with a live progress line.
#include "app/cli/cli.h"
#include "app/cli/progress_bar.h"

#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/spec/spec_parser.h"
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
class RunObserver : public control::JobObserver {
public:
    explicit RunObserver(bool keepLogs)
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

void printErrors(const std::vector<spec::SpecError>& errors) {
    for (const auto& e : errors)
        std::fprintf(stderr, "%s\n", e.text().c_str());
}

} // namespace

std::string taggedLine(int node, int rank, const std::string& stream, const std::string& text) {
    return "[" + std::to_string(node) + "," +
           (rank < 0 ? std::string("launcher") : std::to_string(rank)) + "]<" + stream +
           ">:" + text;
}

int cmdValidate(const std::string& specPath, const std::vector<std::string>& overrides) {
    auto result = spec::parseSpecFile(specPath, overrides);
    if (!result.ok()) {
        printErrors(result.errors);
        return kExitUsage;
    }
    std::printf("ok\n");
    return kExitOk;
}

int cmdRun(const RunOptions& o) {
    auto result = spec::parseSpecFile(o.specPath, o.overrides);
    if (!result.ok()) {
        printErrors(result.errors);
        return kExitUsage;
    }
    const spec::JobSpec& spec = *result.spec;
    control::Controller controller;
    RunObserver observer(o.streamLogs);
    controller.addObserver(&observer);
    control::SubmittedJob job;
    try {
        job = controller.submit(spec);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mlstudio: %s\n", e.what());
        controller.removeObserver(&observer);
        return kExitFailed;
    }
    if (!o.quiet)
        std::fprintf(stderr, "Job %s: %d node%s x %d process%s per host\n", job.name.c_str(),
                     spec.instanceCount, spec.instanceCount > 1 ? "s" : "",
                     spec.distribution.processesPerHost,
                     spec.distribution.processesPerHost > 1 ? "es" : "");

    struct sigaction sa {};
    sa.sa_handler = onInterrupt;
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGTERM, &sa, nullptr);

    const bool tty = ::isatty(STDERR_FILENO) && !o.quiet;
    const double start = wire::nowSeconds();
    int handledInterrupts = 0;
    int tick = 0;
    bool barShown = false;
    auto render = [&](bool final) {
        std::deque<std::string> lines;
        std::vector<std::string> transitions;
        ProgressState st = observer.take(lines, transitions);
        control::JobProgress p = controller.progress(job.name);
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
        std::fflush(stdout);
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

    while (!controller.runningJobs().empty()) {
        const int interrupts = g_interrupts.load();
        if (interrupts > handledInterrupts) {
            handledInterrupts = interrupts;
            if (tty)
                std::fprintf(stderr, "\r\033[K");
            std::fprintf(stderr,
                         "Stopping %s (the ranks get SIGTERM, then SIGKILL after the grace "
                         "period)...\n",
                         job.name.c_str());
            controller.stop(job.name, "Stopped by user (interrupt)");
        }
        render(false);
        std::this_thread::sleep_for(std::chrono::milliseconds(tty ? 150 : 250));
    }
    const std::string status = controller.wait(job.name);
    render(true);
    controller.removeObserver(&observer);
    controller.writer().flush();

    store::StoreReader reader(control::databasePath(controller.home()));
    auto detail = reader.detail(job.name);
    if (!o.quiet && detail) {
        const auto& r = detail->row;
        std::fprintf(
            stderr, "%s %s in %s\n", job.name.c_str(), r.status.c_str(),
            formatDuration((r.ended > 0 ? r.ended : wire::nowSeconds()) - r.created).c_str());
        for (const auto& [name, s] : detail->metrics) {
            const auto finite = [&s](double v) {
                return s.hasFinite() ? formatValue(v) : std::string("-");
            };
            std::fprintf(stderr, "  %-24s last %-12s min %-12s max %-12s count %lld\n",
                         name.c_str(), formatValue(s.last).c_str(), finite(s.min).c_str(),
                         finite(s.max).c_str(), static_cast<long long>(s.count));
        }
        if (!r.failureReason.empty())
            std::fprintf(stderr, "%s\n", r.failureReason.c_str());
        std::fprintf(stderr, "Results: %s\n  (mlstudio show %s)\n", r.jobDir.c_str(),
                     job.name.c_str());
    }
    if (status == "Completed")
        return kExitOk;
    return status == "Stopped" ? kExitStopped : kExitFailed;
}

} // namespace studio::cli
