// Leaderboard at scale: a store with 10,000 jobs × (10 parameters + 4 metrics × 6 statistics +
// 8 job columns) loads into a shown LeaderboardWidget, then every kind of column is sorted through
// the header (sort and repaint). Goals: load to view shown <= 300 ms, any sort <= 100 ms. Anchor
// (same run): a QSortFilterProxyModel sorting the same model with its default QVariant lessThan,
// against the model's own sort, both without a view. CPU times and the load average come along:
// on a shared 2-core machine wall times swing with other work.
// Prints one JSON object; fails only on errors (timings on shared machines are noisy).
// Usage: bench_leaderboard [components]
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"
#include "models/experiments/leaderboard_model.h"
#include "models/experiments/leaderboard_table.h"
#include "models/data/data_service.h"
#include "widgets/experiments/leaderboard_widget.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <ctime>
#include <thread>
#include <vector>

using namespace studio;
using namespace studio::models;
using namespace studio::widgets;

namespace {

constexpr double kLoadGoalMs = 300;
constexpr double kSortGoalMs = 100;

[[noreturn]] void fail(const QString& message) {
    std::fprintf(stderr, "bench_leaderboard: %s\n", qPrintable(message));
    std::exit(1);
}

double msSince(const QElapsedTimer& t) {
    return static_cast<double>(t.nsecsElapsed()) / 1e6;
}

// CPU time of every thread of the process: on a shared machine it moves less than wall time.
double cpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
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

// Jobs are created from several threads at once so the writer commits them in shared batches.
void populate(const std::string& path, int components) {
    store::StoreWriter w(path);
    const char* optimizers[] = {"sgd", "adam", "adamw", "rmsprop"};
    const char* models[] = {"cnn", "resnet18", "mlp", "transformer"};
    const int threads = 8;
    std::atomic<int> next{0};
    std::vector<std::thread> pool;
    std::atomic<bool> failed{false};
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&] {
            for (int i = next++; i < components && !failed; i = next++) {
                store::NewComponent c;
                c.name = "job-" + std::to_string(i);
                c.experiment = "experiment-" + std::to_string(i % 20);
                c.trial = "trial-" + std::to_string(i % 400);
                c.created = 1.7e9 + i;
                c.instanceCount = 1 + i % 2;
                c.processesPerHost = 1 << (i % 4);
                const double lr = 1e-4 * (1 + (i * 7919) % 1000);
                c.parameters = {{"lr", std::to_string(lr), lr},
                                {"batch_size", std::to_string(32 << (i % 4)), 32 << (i % 4)},
                                {"epochs", std::to_string(5 + i % 20), 5 + i % 20},
                                {"momentum", "0.9", 0.9},
                                {"weight_decay", "0.0005", 0.0005 * (1 + i % 3)},
                                {"dropout", std::to_string(0.1 * (i % 5)), 0.1 * (i % 5)},
                                {"seed", std::to_string(i), i},
                                {"warmup_steps", std::to_string(100 * (i % 10)), 100 * (i % 10)},
                                {"optimizer", optimizers[i % 4], std::nullopt},
                                {"model", models[(i / 4) % 4], std::nullopt}};
                c.tags = {{"owner", i % 3 ? "ana" : "bo"}};
                if (i % 10 == 0)
                    c.tags["stage"] = "candidate";
                try {
                    const store::ComponentId id = w.createComponent(c);
                    w.setStarted(id, c.created + 1);
                    for (int s = 0; s < 3; ++s) {
                        const double x = (i % 997) / 997.0;
                        w.addMetric(id, "train:loss", {s, c.created + s, 2.0 - x - 0.3 * s, 0, 0});
                        w.addMetric(id, "eval:loss", {s, c.created + s, 2.1 - x - 0.3 * s, 0, 0});
                        w.addMetric(id, "eval:accuracy",
                                    {s, c.created + s, 0.5 + 0.4 * x + 0.02 * s, 0, 0});
                        w.addMetric(id, "throughput", {s, c.created + s, 1000.0 + i % 500, 0, 0});
                    }
                    w.setStatus(id, i % 17 == 0 ? "Failed" : "Completed", "Completed", "",
                                c.created + 100);
                    w.setEnded(id, c.created + 60 + i % 600);
                } catch (const std::exception& e) {
                    std::fprintf(stderr, "%s\n", e.what());
                    failed = true;
                }
            }
        });
    }
    for (auto& t : pool)
        t.join();
    w.flush();
    if (failed || !w.lastError().empty())
        fail(QStringLiteral("populating the store failed: ") +
             QString::fromStdString(w.lastError()));
}

struct LoadRun {
    double loadToShownMs = 0;
    double cpuMs = 0;
};

// From construction to the table painted with its rows.
LoadRun loadOnce(const QString& db, int expected) {
    QElapsedTimer t;
    t.start();
    const double cpu0 = cpuMs();
    DataService service(db);
    LeaderboardWidget w(&service, nullptr);
    w.resize(1400, 800);
    w.show();
    QEventLoop loop;
    bool ok = false;
    QObject::connect(&w, &LeaderboardWidget::loaded, &loop, [&](int rows) {
        ok = rows == expected;
        loop.quit();
    });
    QObject::connect(&w, &LeaderboardWidget::loadFailed, &loop,
                     [&](const QString& m) { fail(QStringLiteral("load failed: ") + m); });
    QTimer::singleShot(30000, &loop, [&] { fail(QStringLiteral("load timed out")); });
    if (w.loading())
        loop.exec();
    QCoreApplication::sendPostedEvents(); // layout requests
    w.view()->viewport()->repaint();
    LoadRun r;
    r.loadToShownMs = msSince(t);
    r.cpuMs = cpuMs() - cpu0;
    if (!ok || w.model()->rowCount() != expected)
        fail(
            QStringLiteral("loaded %1 rows, expected %2").arg(w.model()->rowCount()).arg(expected));
    return r;
}

struct TableLoad {
    double ms = 1e300;
    double cpuMs = 1e300;
    int columns = 0;
};

// The worker's part alone: read and build the table (best of three).
TableLoad timeTableLoad(const QString& db, int components) {
    TableLoad best;
    for (int i = 0; i < 3; ++i) {
        QElapsedTimer l;
        l.start();
        const double cpu0 = cpuMs();
        const LeaderboardTable table = loadLeaderboardTable(db.toStdString(), 1.8e9);
        best.ms = std::min(best.ms, msSince(l));
        best.cpuMs = std::min(best.cpuMs, cpuMs() - cpu0);
        best.columns = table.columnCount();
        if (table.rowCount() != components)
            fail(QStringLiteral("table has %1 rows").arg(table.rowCount()));
    }
    if (best.columns < 30)
        fail(QStringLiteral("only %1 columns").arg(best.columns));
    return best;
}

// Where the worker's time goes: the store's queries on their own.
QJsonObject queryBreakdown(const QString& db) {
    QJsonObject breakdown;
    store::StoreReader reader(db.toStdString());
    QElapsedTimer q;
    q.start();
    const auto rows = reader.components();
    breakdown.insert(QStringLiteral("components"), msSince(q));
    std::vector<store::ComponentId> ids;
    for (const auto& r : rows)
        ids.push_back(r.id);
    q.restart();
    const auto params = reader.parameters(ids);
    breakdown.insert(QStringLiteral("parameters"), msSince(q));
    q.restart();
    const auto metrics = reader.metricSummaries(ids);
    breakdown.insert(QStringLiteral("metric_summaries"), msSince(q));
    q.restart();
    std::size_t tags = 0;
    for (auto id : ids)
        tags += reader.tags(id).size();
    breakdown.insert(QStringLiteral("tags_per_job"), msSince(q));
    // What the leaderboard reads now: every job's tags in one query.
    q.restart();
    std::size_t batched = 0;
    for (const auto& [id, kv] : reader.tags(ids))
        batched += kv.size();
    breakdown.insert(QStringLiteral("tags_one_query"), msSince(q));
    if (params.size() != ids.size() || metrics.size() != ids.size() || tags == 0 ||
        batched != tags)
        fail(QStringLiteral("the store lost rows"));
    return breakdown;
}

struct SortTimes {
    QJsonObject sortMs, modelSortMs, anchorMs;
    double sortMax = 0;
    double anchorWorstRatio = 0;
};

// One kind of column sorted through the header of the shown widget, both directions (best of 4).
double timeViewSort(LeaderboardWidget& w, int column) {
    double best = 1e300;
    for (int i = 0; i < 4; ++i) {
        QElapsedTimer s;
        s.start();
        w.view()->sortByColumn(column, i % 2 ? Qt::AscendingOrder : Qt::DescendingOrder);
        w.view()->viewport()->repaint();
        best = std::min(best, msSince(s));
    }
    return best;
}

// Sorting through the header of a shown widget, each kind of column, both directions; and the
// sort engines alone, without a view: our model's index permutation over precomputed keys, and
// a QSortFilterProxyModel comparing the cells' QVariants (numbers as doubles).
SortTimes timeSorts(LeaderboardWidget& w) {
    LeaderboardModel* model = w.model();
    const struct {
        const char* key;
        const char* column;
    } kinds[] = {{"number_parameter", "lr"},
                 {"text_parameter", "optimizer"},
                 {"metric", "eval:accuracy - Max"},
                 {"metric_count", "train:loss - Count"},
                 {"name", "Name"},
                 {"status", "Status"},
                 {"created", "Created"},
                 {"duration", "Duration"},
                 {"tags", "Tags"}};
    SortTimes out;
    LeaderboardModel bare;
    bare.setTable(model->table());
    QSortFilterProxyModel proxy;
    proxy.setSortRole(LeaderboardModel::ValueRole);
    proxy.setSourceModel(&bare);
    for (const auto& k : kinds) {
        const int column = model->table().columnOf(QLatin1String(k.column));
        if (column < 0)
            fail(QStringLiteral("no column ") + QLatin1String(k.column));
        const double best = timeViewSort(w, column);
        out.sortMs.insert(QLatin1String(k.key), best);
        out.sortMax = std::max(out.sortMax, best);
        double own = 1e300, anchor = 1e300;
        for (int i = 0; i < 4; ++i) {
            const Qt::SortOrder order = i % 2 ? Qt::AscendingOrder : Qt::DescendingOrder;
            QElapsedTimer s;
            s.start();
            proxy.sort(column, order);
            anchor = std::min(anchor, msSince(s));
            proxy.sort(-1); // both back to creation order, so each sort does the whole work
            bare.sort(-1);
            s.restart();
            bare.sort(column, order);
            own = std::min(own, msSince(s));
        }
        out.modelSortMs.insert(QLatin1String(k.key), own);
        out.anchorMs.insert(QLatin1String(k.key), anchor);
        out.anchorWorstRatio = std::max(out.anchorWorstRatio, own / anchor);
    }
    return out;
}

// A typical filter over every row, and back (best of three).
double timeFilter(LeaderboardWidget& w) {
    double filterMs = 1e300;
    for (int i = 0; i < 3; ++i) {
        QElapsedTimer f;
        f.start();
        if (!w.setFilterText(i % 2 ? QString()
                                   : QStringLiteral("status = Completed and lr > 0.01 and "
                                                    "optimizer ~ adam and \"eval:accuracy - Max\" "
                                                    ">= 0.7")))
            fail(QStringLiteral("the filter did not parse"));
        w.view()->viewport()->repaint();
        filterMs = std::min(filterMs, msSince(f));
    }
    return filterMs;
}

} // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const int components = argc > 1 ? std::max(100, std::atoi(argv[1])) : 10000;

    QTemporaryDir dir;
    if (!dir.isValid())
        fail(QStringLiteral("no temporary directory"));
    const QString db = dir.path() + QStringLiteral("/studio.db");

    QElapsedTimer t;
    t.start();
    populate(db.toStdString(), components);
    const double populateS = msSince(t) / 1000;

    const TableLoad table = timeTableLoad(db, components);
    const QJsonObject breakdown = queryBreakdown(db);
    double loadMs = 1e300, loadCpuMs = 1e300;
    for (int i = 0; i < 5; ++i) {
        const LoadRun r = loadOnce(db, components);
        loadMs = std::min(loadMs, r.loadToShownMs);
        loadCpuMs = std::min(loadCpuMs, r.cpuMs);
    }

    DataService service(db);
    LeaderboardWidget w(&service, nullptr);
    w.resize(1400, 800);
    w.show();
    {
        QEventLoop loop;
        QObject::connect(&w, &LeaderboardWidget::loaded, &loop, &QEventLoop::quit);
        if (w.loading())
            loop.exec();
    }
    const SortTimes sorts = timeSorts(w);
    const double filterMs = timeFilter(w);

    QJsonObject out;
    out.insert(QStringLiteral("bench"), QStringLiteral("leaderboard"));
    out.insert(QStringLiteral("components"), components);
    out.insert(QStringLiteral("columns"), table.columns);
    out.insert(QStringLiteral("populate_s"), populateS);
    out.insert(QStringLiteral("cores"), static_cast<int>(std::thread::hardware_concurrency()));
    out.insert(QStringLiteral("load_average_1min"), loadAverage());
    out.insert(QStringLiteral("load_table_ms"), table.ms);
    out.insert(QStringLiteral("load_table_cpu_ms"), table.cpuMs);
    out.insert(QStringLiteral("load_table_queries_ms"), breakdown);
    out.insert(QStringLiteral("load_to_view_shown_ms"), loadMs);
    out.insert(QStringLiteral("load_to_view_shown_cpu_ms"), loadCpuMs);
    out.insert(QStringLiteral("goal_load_ms"), kLoadGoalMs);
    out.insert(QStringLiteral("load_ratio_to_goal"), loadMs / kLoadGoalMs);
    out.insert(QStringLiteral("sort_ms"), sorts.sortMs);
    out.insert(QStringLiteral("sort_max_ms"), sorts.sortMax);
    out.insert(QStringLiteral("goal_sort_ms"), kSortGoalMs);
    out.insert(QStringLiteral("sort_ratio_to_goal"), sorts.sortMax / kSortGoalMs);
    out.insert(QStringLiteral("model_sort_ms"), sorts.modelSortMs);
    out.insert(QStringLiteral("anchor_proxy_sort_ms"), sorts.anchorMs);
    out.insert(QStringLiteral("model_sort_worst_ratio_to_anchor"), sorts.anchorWorstRatio);
    out.insert(QStringLiteral("filter_ms"), filterMs);
    std::printf("%s\n", QJsonDocument(out).toJson(QJsonDocument::Indented).constData());
    return 0;
}
