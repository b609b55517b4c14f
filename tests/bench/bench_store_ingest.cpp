// Store ingest: metric points per second through StoreWriter (batched transactions, summaries
// kept on write) while a reader polls summaries, against plain SQLite inserts of the same rows
// (the anchor: the same work without our layer). Goal: >= 200,000 points/s.
// Usage: bench_store_ingest [points]
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <unistd.h>

using namespace studio::store;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

constexpr int kSeries = 10;

double anchorRate(const std::string& path, long points) {
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
    const auto t0 = Clock::now();
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
    const double s = seconds(t0, Clock::now());
    sqlite3_finalize(st);
    sqlite3_close(db);
    return static_cast<double>(points) / s;
}

} // namespace

int main(int argc, char** argv) {
    const long points = argc > 1 ? std::atol(argv[1]) : 1000000;
    const auto dir =
        std::filesystem::temp_directory_path() / ("bench-store-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string dbPath = (dir / "studio.db").string();

    double rate = 0, elapsed = 0;
    long polls = 0;
    std::int64_t lastSeen = 0;
    {
        StoreWriter w(dbPath);
        NewComponent c;
        c.name = "bench";
        c.created = 1.7e9;
        const ComponentId id = w.createComponent(c);
        std::atomic<bool> done{false};
        std::thread reader([&] {
            StoreReader r(dbPath);
            while (!done) {
                auto s = r.metricSummaries(id);
                std::int64_t n = 0;
                for (const auto& [name, sum] : s)
                    n += sum.count;
                lastSeen = n;
                ++polls;
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
        });
        const std::string names[kSeries] = {"train:loss", "train:throughput",
                                            "eval:loss",  "eval:accuracy",
                                            "lr",         "grad_norm",
                                            "m6",         "m7",
                                            "m8",         "m9"};
        const auto t0 = Clock::now();
        for (long i = 0; i < points; ++i)
            w.addMetric(id, names[i % kSeries],
                        MetricPoint{i / kSeries, 1.7e9 + i * 1e-3, 1.0 / (1 + i), 0, 0});
        w.flush();
        elapsed = seconds(t0, Clock::now());
        rate = static_cast<double>(points) / elapsed;
        done = true;
        reader.join();
        if (!w.lastError().empty()) {
            std::fprintf(stderr, "write error: %s\n", w.lastError().c_str());
            return 1;
        }
    }
    StoreReader check(dbPath);
    std::int64_t stored = 0;
    for (const auto& [name, s] : check.metricSummaries(1))
        stored += s.count;
    const double anchor = anchorRate((dir / "anchor.db").string(), points);
    std::filesystem::remove_all(dir);

    nlohmann::ordered_json out = {
        {"bench", "store_ingest"},
        {"points", points},
        {"series", kSeries},
        {"seconds", elapsed},
        {"points_per_s", rate},
        {"reader_polls", polls},
        {"anchor",
         "plain SQLite prepared inserts of the same rows in one transaction, no summaries"},
        {"anchor_points_per_s", anchor},
        {"ratio_to_anchor", rate / anchor},
        {"goal_points_per_s", 200000},
        {"meets_goal", rate >= 200000},
        {"summaries_count", stored},
    };
    std::printf("%s\n", out.dump(2).c_str());
    return stored == points ? 0 : 1;
}
