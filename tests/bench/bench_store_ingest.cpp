// Store ingest: metric points per second through StoreWriter (batched transactions, summaries
// kept on write), alone and while a reader polls summaries every 20 ms, against plain SQLite
// prepared inserts of the same rows into the same table and index, under the same pragmas, in one
// transaction and without summaries (the anchor: the least work that stores the same rows).
// Goal (issue): >= 200,000 points/s with the reader polling.
// Usage: bench_store_ingest [--quick] [--json FILE] [points] [rounds]
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"
#include "tests/bench/bench_support.h"
#include "tests/support/temp_dir.h"

#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

using namespace studio::store;
namespace bench = studio::bench;

namespace {

constexpr int kSeries = 10;
const std::string kNames[kSeries] = {"train:loss", "train:throughput",
                                     "eval:loss",  "eval:accuracy",
                                     "lr",         "grad_norm",
                                     "m6",         "m7",
                                     "m8",         "m9"};

// Rows of metric_points in a database file, read through a connection of its own.
std::int64_t storedPoints(const std::string& path) {
    sqlite3* db = nullptr;
    std::int64_t n = -1;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db, "SELECT count(*) FROM metric_points", -1, &st, nullptr) ==
                SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            n = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return n;
}

// One run through StoreWriter into a fresh file: the rate, and with `withReader` a second thread
// polling the job's summaries every 20 ms as the studio window does.
struct OursRun {
    double pointsPerSecond = 0;
    long polls = 0;
    std::int64_t summarised = 0; // points the summaries count once everything is committed
    std::int64_t rows = 0;       // rows in metric_points
    std::string error;
};

OursRun runOurs(const std::string& path, long points, bool withReader) {
    OursRun out;
    ComponentId id = 0;
    {
        StoreWriter w(path);
        NewComponent c;
        c.name = "bench";
        c.created = 1.7e9;
        id = w.createComponent(c);
        std::atomic<bool> done{false};
        std::thread reader;
        if (withReader)
            reader = std::thread([&] {
                StoreReader r(path);
                while (!done) {
                    r.metricSummaries(id);
                    ++out.polls;
                    std::this_thread::sleep_for(std::chrono::milliseconds(20));
                }
            });
        const double seconds = bench::timeSeconds([&] {
            for (long i = 0; i < points; ++i)
                w.addMetric(id, kNames[i % kSeries],
                            MetricPoint{i / kSeries, 1.7e9 + i * 1e-3, 1.0 / (1 + i), 0, 0});
            w.flush();
        });
        out.pointsPerSecond = static_cast<double>(points) / seconds;
        done = true;
        if (reader.joinable())
            reader.join();
        out.error = w.lastError();
    }
    StoreReader check(path);
    for (const auto& [name, s] : check.metricSummaries(id))
        out.summarised += s.count;
    out.rows = storedPoints(path);
    return out;
}

// The anchor: the same rows, table, index and pragmas through plain prepared inserts in one
// transaction, no summaries, no reader.
double runAnchor(const std::string& path, long points) {
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    sqlite3_exec(db,
                 "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                 "CREATE TABLE metric_points(series_id INTEGER NOT NULL, step INTEGER NOT NULL,"
                 " time REAL NOT NULL, value REAL, node INTEGER NOT NULL, rank INTEGER NOT NULL);"
                 "CREATE INDEX metric_points_series ON metric_points(series_id, step);",
                 nullptr, nullptr, nullptr);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, "INSERT INTO metric_points VALUES(?,?,?,?,?,?)", -1, &st, nullptr);
    const double seconds = bench::timeSeconds([&] {
        sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
        for (long i = 0; i < points; ++i) {
            sqlite3_bind_int64(st, 1, i % kSeries + 1);
            sqlite3_bind_int64(st, 2, i / kSeries);
            sqlite3_bind_double(st, 3, 1.7e9 + i * 1e-3);
            sqlite3_bind_double(st, 4, 1.0 / (1 + i));
            sqlite3_bind_int(st, 5, 0);
            sqlite3_bind_int(st, 6, 0);
            sqlite3_step(st);
            sqlite3_reset(st);
        }
        sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
    });
    sqlite3_finalize(st);
    sqlite3_close(db);
    return static_cast<double>(points) / seconds;
}

// Every run must have stored every point, in the rows and in the summaries.
void checkRun(bench::Report& report, const OursRun& r, long points, const std::string& what) {
    report.check(r.error.empty(),
                 what + ": no write error" + (r.error.empty() ? "" : ": " + r.error));
    report.check(r.rows == points, what + ": metric_points holds every point (" +
                                       std::to_string(r.rows) + " of " + std::to_string(points) +
                                       ")");
    report.check(r.summarised == points,
                 what + ": summaries count every point (" + std::to_string(r.summarised) + ")");
}

} // namespace

int main(int argc, char** argv) {
    const auto options = bench::Options::parse(argc, argv);
    bench::Report report("store_ingest", options);
    const long points = options.pick(0, 20000, 1000000);
    const int rounds = options.pick(1, 1, 3);
    studio::testing::TempDir dir;

    bench::Samples alone = bench::higherIsBetter();
    bench::Samples polled = bench::higherIsBetter();
    bench::Samples plain = bench::higherIsBetter();
    long polls = 0;
    int runs = 0;
    const auto fresh = [&](const char* kind) {
        return dir.filePath(std::string(kind) + "-" + std::to_string(runs++) + ".db");
    };
    bench::interleave(rounds, {
                                  [&](int) {
                                      const OursRun r = runOurs(fresh("alone"), points, false);
                                      checkRun(report, r, points, "StoreWriter, no reader");
                                      alone.add(r.pointsPerSecond);
                                  },
                                  [&](int) {
                                      const OursRun r = runOurs(fresh("polled"), points, true);
                                      checkRun(report, r, points, "StoreWriter with a reader");
                                      polled.add(r.pointsPerSecond);
                                      polls += r.polls;
                                  },
                                  [&](int) {
                                      const std::string path = fresh("plain");
                                      plain.add(runAnchor(path, points));
                                      report.check(storedPoints(path) == points,
                                                   "plain SQLite stored every point");
                                  },
                              });

    report.anchor({"sqlite_plain_inserts", "plain SQLite prepared inserts", sqlite3_libversion(), 0,
                   "none", "",
                   "the same rows into the same metric_points table and index, WAL and "
                   "synchronous=NORMAL as the store, one transaction, no summaries, no reader"});
    report.figure({"metric ingest, no reader", "points/s", alone.best(), plain.best(),
                   "sqlite_plain_inserts", std::nullopt,
                   "ours also keeps per-series summaries and commits in batches (group commit), "
                   "the anchor in one transaction"});
    report.figure({"metric ingest, reader polling summaries every 20 ms", "points/s", polled.best(),
                   std::nullopt, "", bench::Goal::valueAtLeast(200000),
                   "no anchor: plain inserts keep no summaries for a reader to poll"});
    report.details() = {{"points", points},
                        {"series", kSeries},
                        {"rounds", rounds},
                        {"storewriter_no_reader_points_per_s", alone.json()},
                        {"storewriter_with_reader_points_per_s", polled.json()},
                        {"plain_sqlite_points_per_s", plain.json()},
                        {"reader_polls", polls}};
    return report.finish();
}
