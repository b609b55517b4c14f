// Peak resident memory of the studio window (MainWindow over a controller and its DataService,
// as bench_gui_latency builds it) with 10,000 jobs in the leaderboard and one job's
// 1,000,000-point learning curve open in its tab's Metrics chart. The jobs are written into a
// real SQLite store first (as bench_leaderboard writes them; job-0's train:loss curve extended to
// the full count). Each window runs in a fresh process of this executable, so that writing the
// store, or another window, never counts: the child shows the window, waits until the
// leaderboard holds every job and the chart every point, lets the window settle, then reads its
// own VmHWM (peak RSS) from /proc. The baseline is the same window over an empty store, so the
// increment is visible. Goal: the loaded window's peak RSS <= 400 MiB. Every memory figure is
// in MiB (2^20 bytes); the 400 MB goal is taken as 400 MiB.
//
// Usage: bench_window_memory [--quick] [--json FILE] [jobs] [points]
//        (quick: 1,000 jobs and 100,000 points; full: 10,000 and 1,000,000)
#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/process/process.h"
#include "engine/store/store_writer.h"
#include "models/experiments/leaderboard_model.h"
#include "tests/bench/bench_jobs_store.h"
#include "tests/bench/bench_support.h"
#include "widgets/charts/curve_chart.h"
#include "widgets/experiments/experiments_browser.h"
#include "widgets/experiments/leaderboard_widget.h"
#include "widgets/jobs/job_view.h"
#include "widgets/jobs/metrics_grid.h"
#include "widgets/shell/main_window.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <cstdio>
#include <functional>
#include <unistd.h>

using namespace studio;

namespace {

constexpr double kGoalMiB = 400;
constexpr const char* kChildFlag = "--window";
constexpr const char* kCurveJob = "job-0";
constexpr const char* kCurveMetric = "train:loss";

// Runs the event loop until `done`, at most limitMs; whether it became true.
bool runUntil(const std::function<bool()>& done, int limitMs) {
    QElapsedTimer clock;
    clock.start();
    while (!done()) {
        if (clock.elapsed() > limitMs)
            return false;
        QTest::qWait(20);
    }
    return true;
}

// Opens the job's tab on its Metrics page; waits until its chart holds and draws every point.
void openCurve(widgets::MainWindow& window, int points, bench::Json& out) {
    widgets::JobView* view = window.openJob(QString::fromLatin1(kCurveJob));
    view->tabs()->setCurrentWidget(view->metrics());
    widgets::CurveChart* chart = nullptr;
    const QString metric = QString::fromLatin1(kCurveMetric);
    const bool shown = runUntil(
        [&] {
            chart = view->metrics()->chart(widgets::MetricsGrid::familyOf(metric));
            return view->loaded() && chart && chart->pointCount(metric) >= points &&
                   !chart->drawnPoints(metric, false).isEmpty();
        },
        180000);
    out["chart_shown"] = shown;
    out["chart_points"] = chart ? chart->pointCount(metric) : 0;
    out["chart_drawn_points"] = chart ? chart->drawnPoints(metric, false).size() : 0;
}

// The child: one window over `home`; prints what it held and its memory as one JSON line.
int windowProcess(const bench::Options& options) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    int argc = 1;
    char name[] = "bench_window_memory";
    char* argv[] = {name, nullptr};
    QApplication app(argc, argv);
    const std::string home = options.args.at(1);
    const int jobs = static_cast<int>(options.number(2, 0));
    const int points = static_cast<int>(options.number(3, 0));
    bench::Json out;
    const auto start = bench::Clock::now();
    {
        control::ControllerOptions o;
        o.home = home;
        o.launcherPath = STUDIO_BIN_DIR "/studio-launcher";
        control::Controller controller(o);
        widgets::MainWindow window(controller);
        window.resize(1500, 950);
        window.show();
        out["window_shown"] = QTest::qWaitForWindowExposed(&window);
        widgets::LeaderboardWidget* board = window.experiments()->leaderboard();
        out["leaderboard_loaded"] = runUntil(
            [&] { return !board->loading() && board->model()->rowCount() >= jobs; }, 120000);
        if (points > 0)
            openCurve(window, points, out);
        // Let the window settle: the data service's refresh, deferred layouts and paints.
        QTest::qWait(options.quick ? 1000 : 2000);
        window.repaint();
        out["leaderboard_rows"] = board->model()->rowCount();
        out["load_seconds"] = bench::secondsSince(start);
        out["vm_hwm_mib"] = bench::procStatusMiB(0, "VmHWM");
        out["vm_rss_mib"] = bench::procStatusMiB(0, "VmRSS");
        window.setCloseConfirmation([](int, int) { return widgets::CloseChoice::Stop; });
        window.close();
    }
    std::printf("%s\n", out.dump().c_str());
    std::fflush(stdout);
    return 0;
}

// Runs one window process over `home`; its JSON, or an object with "error".
bench::Json runWindow(const std::string& home, int jobs, int points, bool quick) {
    process::SpawnOptions o;
    o.argv = {process::selfExecutable(), kChildFlag, home, std::to_string(jobs),
              std::to_string(points)};
    if (quick)
        o.argv.push_back("--quick");
    o.env = process::currentEnvironment();
    if (!o.env.count("QT_QPA_PLATFORM"))
        o.env["QT_QPA_PLATFORM"] = "offscreen";
    o.env["STUDIO_NO_DIALOGS"] = "1";
    o.captureStderr = false; // Qt's messages pass through
    process::Process child = process::Process::spawn(o);
    std::string text;
    char buf[4096];
    for (ssize_t n; (n = ::read(child.stdoutFd(), buf, sizeof buf)) > 0;)
        text.append(buf, static_cast<std::size_t>(n));
    const process::ExitStatus status = child.wait();
    if (!status.success())
        return {{"error", "the window process " + status.describe()}};
    // The report is the last line.
    while (!text.empty() && text.back() == '\n')
        text.pop_back();
    const auto newline = text.find_last_of('\n');
    const bench::Json j = bench::Json::parse(
        newline == std::string::npos ? text : text.substr(newline + 1), nullptr, false);
    if (j.is_discarded())
        return {{"error", "the window process printed no JSON: " + text}};
    return j;
}

// ": <error>" when a window process reported one.
std::string errorOf(const bench::Json& window) {
    return window.contains("error") ? ": " + window["error"].get<std::string>() : std::string();
}

// Writes the store: `jobs` finished jobs, the first with a `points`-point curve.
void writeStore(const std::string& home, int jobs, int points, bench::Report& report) {
    const double seconds = bench::timeSeconds([&] {
        store::StoreWriter w(control::databasePath(home));
        const auto ids = bench::writeFinishedJobs(w, jobs);
        bench::writeLongCurve(w, ids.at(0), points);
    });
    report.details()["store_write_s"] = seconds;
}

} // namespace

int main(int argc, char** argv) {
    const bench::Options options = bench::Options::parse(argc, argv);
    if (!options.args.empty() && options.args[0] == kChildFlag)
        return windowProcess(options);

    const int jobs = std::max(1, options.pick(0, 1000, 10000));
    const int points = std::max(3, options.pick(1, 100000, 1000000));
    bench::Report report("bench_window_memory", options);
    QTemporaryDir emptyHome, home;
    if (!report.check(emptyHome.isValid() && home.isValid(), "temporary homes"))
        return report.finish();
    bench::Json empty, loaded;
    try {
        writeStore(home.path().toStdString(), jobs, points, report);
        empty = runWindow(emptyHome.path().toStdString(), 0, 0, options.quick);
        loaded = runWindow(home.path().toStdString(), jobs, points, options.quick);
    } catch (const std::exception& e) {
        report.check(false, e.what());
        return report.finish();
    }
    report.check(!empty.contains("error") && empty.value("window_shown", false),
                 "the empty window showed" + errorOf(empty));
    report.check(!loaded.contains("error") && loaded.value("window_shown", false),
                 "the loaded window showed" + errorOf(loaded));
    report.check(loaded.value("leaderboard_rows", -1) == jobs,
                 "the leaderboard held all " + std::to_string(jobs) + " jobs");
    report.check(loaded.value("chart_points", qint64(-1)) == points,
                 "the chart held all " + std::to_string(points) + " points");
    report.check(loaded.value("chart_drawn_points", qint64(0)) > 0, "the chart drew its curve");

    const double base = empty.value("vm_hwm_mib", NAN);
    const double peak = loaded.value("vm_hwm_mib", NAN);
    const std::string size =
        std::to_string(jobs) + " jobs and a " + std::to_string(points) + "-point chart";
    const std::string quickNote =
        options.quick ? "; quick mode: fewer jobs and points than the full 10,000 and 1M" : "";
    report.figure({"studio window peak RSS, " + size, "MiB", peak, std::nullopt, "",
                   bench::Goal::valueAtMost(kGoalMiB),
                   "VmHWM of a fresh window process after it settled; MiB = 2^20 bytes, the "
                   "400 MB goal taken as 400 MiB" +
                       quickNote});
    report.figure({"studio window peak RSS, empty store (baseline)", "MiB", base, std::nullopt, "",
                   std::nullopt, "the same window in its own process, no jobs"});
    report.figure({"studio window peak RSS increment for " + size, "MiB", peak - base, std::nullopt,
                   "", std::nullopt, "loaded minus baseline" + quickNote});
    bench::Json& d = report.details();
    d["jobs"] = jobs;
    d["points"] = points;
    d["empty_window"] = empty;
    d["loaded_window"] = loaded;
    d["children_peak_rss_mib"] = bench::childrenPeakRssMiB(); // getrusage's view, the larger one
    return report.finish();
}
