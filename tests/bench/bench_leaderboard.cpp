// Leaderboard at scale: a store with 10,000 jobs x (10 parameters + 4 metrics x 6 statistics +
// 8 job columns) loads into a shown LeaderboardWidget, then every kind of column is sorted through
// the header (sort and repaint). Goals: load to view shown <= 300 ms, any sort <= 100 ms.
// Anchor (same run, same rounds interleaved): a QSortFilterProxyModel sorting the same table with
// its default QVariant lessThan, against the model's own sort, both without a view and both
// starting from creation order. CPU times and the load average come along as details: on a
// shared 2-core machine wall times swing with other work.
//
// Usage: bench_leaderboard [--quick] [--json FILE] [jobs]   (quick: 1,000 jobs; full: 10,000)
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"
#include "models/data/data_service.h"
#include "models/experiments/leaderboard_model.h"
#include "models/experiments/leaderboard_table.h"
#include "tests/bench/bench_jobs_store.h"
#include "tests/bench/bench_support.h"
#include "widgets/experiments/leaderboard_widget.h"

#include <QApplication>
#include <QEventLoop>
#include <QHeaderView>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <stdexcept>
#include <thread>

using namespace studio;
using namespace studio::models;
using namespace studio::widgets;

namespace {

constexpr double kLoadGoalMs = 300;
constexpr double kSortGoalMs = 100;
constexpr double kMs = 1e3;

// CPU time of every thread of the process: on a shared machine it moves less than wall time.
double cpuSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// The 1-minute load average: how busy the machine was while timing.
double loadAverage() {
    double load = -1;
    if (FILE* f = std::fopen("/proc/loadavg", "r")) {
        if (std::fscanf(f, "%lf", &load) != 1)
            load = -1;
        std::fclose(f);
    }
    return load;
}

std::runtime_error failure(const QString& message) {
    return std::runtime_error(message.toStdString());
}

// Waits until a shown widget's load has arrived; throws when it failed or took over 30 s.
int waitLoaded(LeaderboardWidget& w) {
    int rows = -1;
    QString error;
    if (w.loading()) {
        QEventLoop loop;
        QObject::connect(&w, &LeaderboardWidget::loaded, &loop, [&](int n) {
            rows = n;
            loop.quit();
        });
        QObject::connect(&w, &LeaderboardWidget::loadFailed, &loop, [&](const QString& m) {
            error = QStringLiteral("load failed: ") + m;
            loop.quit();
        });
        QTimer::singleShot(30000, &loop, [&] {
            error = QStringLiteral("load timed out");
            loop.quit();
        });
        loop.exec();
    } else {
        rows = w.model()->rowCount();
    }
    if (!error.isEmpty())
        throw failure(error);
    return rows;
}

// From construction to the table painted with its rows.
struct LoadRun {
    double seconds = 0;
    double cpuSeconds = 0;
    int rows = 0; // what the loaded model holds
};

LoadRun loadOnce(const QString& db) {
    const auto start = bench::Clock::now();
    const double cpu0 = cpuSeconds();
    DataService service(db);
    LeaderboardWidget w(&service, nullptr);
    w.resize(1400, 800);
    w.show();
    waitLoaded(w);
    QCoreApplication::sendPostedEvents(); // layout requests
    w.view()->viewport()->repaint();
    return {bench::secondsSince(start), cpuSeconds() - cpu0, w.model()->rowCount()};
}

// The worker's part alone: read and build the table. Returns its column count.
int timeTableLoad(const QString& db, int jobs, int rounds, bench::Samples& wall,
                  bench::Samples& cpu) {
    int columns = 0;
    for (int i = 0; i < rounds; ++i) {
        const auto start = bench::Clock::now();
        const double cpu0 = cpuSeconds();
        const LeaderboardTable table = loadLeaderboardTable(db.toStdString(), 1.8e9);
        wall.add(bench::secondsSince(start));
        cpu.add(cpuSeconds() - cpu0);
        columns = table.columnCount();
        if (table.rowCount() != jobs)
            throw failure(QStringLiteral("the table has %1 rows").arg(table.rowCount()));
    }
    return columns;
}

// Where the worker's time goes: the store's queries on their own (ms); false when rows are lost.
bool queryBreakdown(const QString& db, bench::Json& out) {
    store::StoreReader reader(db.toStdString());
    auto start = bench::Clock::now();
    auto lap = [&](const char* name) {
        out[name] = bench::secondsSince(start) * kMs;
        start = bench::Clock::now();
    };
    const auto rows = reader.components();
    lap("components");
    std::vector<store::ComponentId> ids;
    for (const auto& r : rows)
        ids.push_back(r.id);
    start = bench::Clock::now();
    const auto params = reader.parameters(ids);
    lap("parameters");
    const auto metrics = reader.metricSummaries(ids);
    lap("metric_summaries");
    std::size_t tags = 0;
    for (auto id : ids)
        tags += reader.tags(id).size();
    lap("tags_per_job");
    // What the leaderboard reads now: every job's tags in one query.
    std::size_t batched = 0;
    for (const auto& [id, kv] : reader.tags(ids))
        batched += kv.size();
    lap("tags_one_query");
    return params.size() == ids.size() && metrics.size() == ids.size() && tags > 0 &&
           batched == tags;
}

struct ColumnKind {
    const char* key;
    const char* column;
};

constexpr ColumnKind kKinds[] = {{"number_parameter", "lr"},
                                 {"text_parameter", "optimizer"},
                                 {"metric", "eval:accuracy - Max"},
                                 {"metric_count", "train:loss - Count"},
                                 {"name", "Name"},
                                 {"status", "Status"},
                                 {"created", "Created"},
                                 {"duration", "Duration"},
                                 {"tags", "Tags"}};

// One kind of column sorted through the header of the shown widget, both directions.
bench::Samples timeViewSort(LeaderboardWidget& w, int column, int rounds) {
    bench::Samples s = bench::lowerIsBetter();
    for (int i = 0; i < rounds; ++i)
        s.add(bench::timeSeconds([&] {
            w.view()->sortByColumn(column, i % 2 ? Qt::AscendingOrder : Qt::DescendingOrder);
            w.view()->viewport()->repaint();
        }));
    return s;
}

// Every kind of column: sorted through the header (the goal's figure: the slowest kind), and
// the sort engines alone, without a view, in interleaved rounds: our model's index permutation
// over precomputed keys, and a QSortFilterProxyModel over a second model of the same table
// comparing the cells' QVariants (numbers as doubles). Each sort starts from creation order.
void reportSorts(LeaderboardWidget& w, int rounds, bench::Report& report) {
    const LeaderboardTable& table = w.model()->table();
    LeaderboardModel own;
    own.setTable(table);
    LeaderboardModel anchorSource;
    anchorSource.setTable(table);
    QSortFilterProxyModel proxy;
    proxy.setSortRole(LeaderboardModel::ValueRole);
    proxy.setSourceModel(&anchorSource);
    double slowest = 0;
    std::string slowestKind;
    bench::Json viewSorts;
    std::string missing;
    for (const ColumnKind& k : kKinds) {
        const int column = table.columnOf(QLatin1String(k.column));
        if (column < 0) {
            missing += std::string(" ") + k.column;
            continue;
        }
        const bench::Samples view = timeViewSort(w, column, rounds);
        viewSorts[k.key] = view.json(kMs);
        if (view.best() > slowest) {
            slowest = view.best();
            slowestKind = k.key;
        }
        bench::Samples ours = bench::lowerIsBetter(), anchor = bench::lowerIsBetter();
        auto order = [](int r) {
            return r % 2 ? Qt::AscendingOrder : Qt::DescendingOrder;
        };
        bench::interleave(
            rounds, {[&](int r) {
                         own.sort(-1);
                         ours.add(bench::timeSeconds([&] { own.sort(column, order(r)); }));
                     },
                     [&](int r) {
                         proxy.sort(-1);
                         anchor.add(bench::timeSeconds([&] { proxy.sort(column, order(r)); }));
                     }});
        report.figure({std::string("model sort, ") + k.key + " column", "ms", ours.best() * kMs,
                       anchor.best() * kMs, "qsortfilterproxymodel", std::nullopt,
                       "best of " + std::to_string(rounds) + " (both directions), no view"});
    }
    report.check(missing.empty(), "the table has a column of every kind" +
                                      (missing.empty() ? std::string() : "; missing:" + missing));
    report.figure({"sort through the header and repaint, slowest column kind", "ms", slowest * kMs,
                   std::nullopt, "", bench::Goal::valueAtMost(kSortGoalMs),
                   "slowest: " + slowestKind + "; best of " + std::to_string(rounds) +
                       " per kind, both directions"});
    report.details()["view_sort_ms"] = viewSorts;
}

// A typical filter over every row, and back.
bench::Samples timeFilter(LeaderboardWidget& w, int rounds, bench::Report& report) {
    bench::Samples s = bench::lowerIsBetter();
    bool parsed = true;
    for (int i = 0; i < rounds; ++i)
        s.add(bench::timeSeconds([&] {
            parsed &= w.setFilterText(i % 2 ? QString()
                                            : QStringLiteral("status = Completed and lr > 0.01 and "
                                                             "optimizer ~ adam and \"eval:accuracy "
                                                             "- Max\" >= 0.7"));
            w.view()->viewport()->repaint();
        }));
    report.check(parsed, "the filter parses");
    return s;
}

// Everything after the store is written: loads, sorts and filters, as figures.
void measure(const QString& db, int jobs, bool quick, bench::Report& report) {
    const int rounds = quick ? 2 : 5;
    bench::Samples tableWall = bench::lowerIsBetter(), tableCpu = bench::lowerIsBetter();
    const int columns = timeTableLoad(db, jobs, quick ? 1 : 3, tableWall, tableCpu);
    report.check(columns >= 30,
                 "the table has at least 30 columns (" + std::to_string(columns) + ")");
    report.details()["columns"] = columns;
    bench::Json breakdown;
    report.check(queryBreakdown(db, breakdown), "the store's queries return every job's rows");
    report.details()["load_table_queries_ms"] = breakdown;

    bench::Samples load = bench::lowerIsBetter(), loadCpu = bench::lowerIsBetter();
    bool allRows = true;
    for (int i = 0; i < rounds; ++i) {
        const LoadRun run = loadOnce(db);
        load.add(run.seconds);
        loadCpu.add(run.cpuSeconds);
        allRows &= run.rows == jobs;
    }
    report.check(allRows, "every load showed all " + std::to_string(jobs) + " jobs");
    const std::string n = std::to_string(jobs);
    report.figure({"leaderboard load to view shown, " + n + " jobs", "ms", load.best() * kMs,
                   std::nullopt, "", bench::Goal::valueAtMost(kLoadGoalMs),
                   "best of " + std::to_string(rounds) + "; CPU time in details"});
    report.figure({"leaderboard table read and built (worker), " + n + " jobs", "ms",
                   tableWall.best() * kMs, std::nullopt, "", std::nullopt, ""});
    report.details()["load_to_view_shown_ms"] = load.json(kMs);
    report.details()["load_to_view_shown_cpu_ms"] = loadCpu.json(kMs);
    report.details()["load_table_ms"] = tableWall.json(kMs);
    report.details()["load_table_cpu_ms"] = tableCpu.json(kMs);

    DataService service(db);
    LeaderboardWidget w(&service, nullptr);
    w.resize(1400, 800);
    w.show();
    report.check(waitLoaded(w) == jobs, "the sorting widget shows every job");
    reportSorts(w, quick ? 2 : 4, report);
    const bench::Samples filter = timeFilter(w, 3, report);
    report.figure({"filter over every row and repaint, " + n + " jobs", "ms", filter.best() * kMs,
                   std::nullopt, "", std::nullopt, "best of 3 (filter on, off, on)"});
}

} // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const bench::Options options = bench::Options::parse(argc, argv);
    const int jobs = std::max(100, options.pick(0, 1000, 10000));
    bench::Report report("bench_leaderboard", options);
    report.anchor({"qsortfilterproxymodel",
                   "QSortFilterProxyModel over a LeaderboardModel of the same table, sorting by "
                   "its ValueRole with the default QVariant lessThan",
                   std::string("Qt ") + qVersion(), 1, "none", "",
                   "sort every row by one column from creation order, both directions, no view"});
    report.details()["jobs"] = jobs;
    report.details()["cores"] = static_cast<int>(std::thread::hardware_concurrency());

    QTemporaryDir dir;
    if (!report.check(dir.isValid(), "a temporary directory"))
        return report.finish();
    const QString db = dir.path() + QStringLiteral("/studio.db");
    try {
        const double populate = bench::timeSeconds([&] {
            store::StoreWriter w(db.toStdString());
            bench::writeFinishedJobs(w, jobs);
        });
        report.details()["populate_s"] = populate;
        report.details()["load_average_1min_before"] = loadAverage();
        measure(db, jobs, options.quick, report);
        report.details()["load_average_1min_after"] = loadAverage();
    } catch (const std::exception& e) {
        report.check(false, e.what());
    }
    return report.finish();
}
