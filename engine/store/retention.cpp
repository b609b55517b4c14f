#include "engine/store/retention.h"

#include "engine/store/database.h"
#include "engine/store/typed_query.h"

#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Transaction.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <utility>

namespace studio::store {
namespace {

// The jobs that are still writing: VACUUM would hold their writes back.
constexpr const char* kRunning = "status IN ('InProgress', 'Stopping')";

std::int64_t pageBytes(SQLite::Database& db) {
    return db.execAndGet("PRAGMA page_count").getInt64() *
           db.execAndGet("PRAGMA page_size").getInt64();
}

// Moves the write-ahead log into the database file and empties it; a reader still inside the
// log only delays that to a later checkpoint.
void checkpoint(SQLite::Database& db) {
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

// The samples of one job: its series' ids for an IN list, bound to the job's id.
constexpr const char* kOfJob = "series_id IN (SELECT id FROM system_series WHERE component_id=?)";

std::int64_t jobSamples(SQLite::Database& db, std::int64_t job) {
    return queryOne<std::int64_t>(
               db, std::string("SELECT count(*) FROM system_samples WHERE ") + kOfJob, job)
        .value_or(0);
}

// Which windows a span of transactions covers: windows first..last of `seconds` each. Rows are
// picked by their window number, as the GROUP BY numbers them, so that no window is split
// between two transactions; the time bounds, a window wider on each side, only let the index
// find them.
struct Span {
    std::int64_t first = 0;
    std::int64_t last = 0;
    double seconds = 0;
    double from() const { return static_cast<double>(first - 1) * seconds; }
    double to() const { return static_cast<double>(last + 2) * seconds; }
};

// Merges one job's samples in a span into one per series and window, in one transaction; false
// when every window there already holds at most one sample.
bool compactSpan(SQLite::Database& db, std::int64_t job, const Span& s) {
    const std::string rows = std::string(" FROM system_samples WHERE ") + kOfJob +
                             " AND time >= ? AND time < ? AND CAST(time / ? AS INTEGER) "
                             "BETWEEN ? AND ?";
    SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
    const bool crowded = queryOne<int>(db,
                                       "SELECT 1" + rows +
                                           " GROUP BY series_id, CAST(time / ? AS INTEGER) "
                                           "HAVING count(*) > 1 LIMIT 1",
                                       job, s.from(), s.to(), s.seconds, s.first, s.last, s.seconds)
                             .has_value();
    if (!crowded)
        return false;
    // The means get rowids above every old row, so the old rows are those up to `newest`.
    const std::int64_t newest =
        queryOne<std::int64_t>(db, "SELECT max(rowid) FROM system_samples").value_or(0);
    execute(db,
            "INSERT INTO system_samples(series_id, time, value) SELECT series_id, avg(time), "
            "avg(value)" +
                rows + " AND rowid <= ? GROUP BY series_id, CAST(time / ? AS INTEGER)",
            job, s.from(), s.to(), s.seconds, s.first, s.last, newest, s.seconds);
    execute(db, "DELETE" + rows + " AND rowid <= ?", job, s.from(), s.to(), s.seconds, s.first,
            s.last, newest);
    tx.commit();
    return true;
}

// Compacts one job a minute of samples (or one window, when longer) per transaction: a job
// running meanwhile waits for the database no longer than that takes. Rows are stored in time
// order, so each transaction reads and frees pages next to each other.
bool compactJob(SQLite::Database& db, std::int64_t job, double window) {
    const auto range = queryOne<std::pair<std::optional<double>, std::optional<double>>>(
        db,
        "SELECT min((SELECT min(time) FROM system_samples WHERE series_id = s.id)), "
        "max((SELECT max(time) FROM system_samples WHERE series_id = s.id)) "
        "FROM system_series s WHERE s.component_id=?",
        job);
    if (!range || !range->first || !range->second)
        return false;
    const auto perSpan = static_cast<std::int64_t>(std::max(1.0, std::ceil(60 / window)));
    const auto lastWindow = static_cast<std::int64_t>(*range->second / window);
    bool merged = false;
    for (auto first = static_cast<std::int64_t>(*range->first / window); first <= lastWindow;
         first += perSpan)
        merged |= compactSpan(db, job, Span{first, first + perSpan - 1, window});
    return merged;
}

// VACUUM, unless a job is running; the reason it was skipped, or "".
std::string vacuumUnlessBusy(SQLite::Database& db) {
    const auto running =
        queryOne<int>(db, std::string("SELECT count(*) FROM trial_components WHERE ") + kRunning)
            .value_or(0);
    if (running > 0)
        return std::to_string(running) +
               " job(s) running; VACUUM would hold their writes back (the freed space is reused "
               "by new rows meanwhile)";
    db.exec("VACUUM");
    return {};
}

} // namespace

CompactResult compactSystemSamples(const std::string& path, const CompactOptions& options) {
    if (!std::isfinite(options.windowSeconds) || options.windowSeconds <= 0)
        throw std::runtime_error("the compaction window must be a positive number of seconds, "
                                 "not " +
                                 std::to_string(options.windowSeconds));
    const auto db = openDatabase(path, false);
    CompactResult r;
    try {
        checkpoint(*db);
        r.bytesBefore = pageBytes(*db);
        const auto jobs = queryAll<std::int64_t>(
            *db,
            std::string("SELECT id FROM trial_components c WHERE ended IS NOT NULL AND ended < ? "
                        "AND NOT ") +
                kRunning + " ORDER BY id",
            options.endedBefore);
        for (const std::int64_t job : jobs) {
            r.samplesBefore += jobSamples(*db, job);
            if (compactJob(*db, job, options.windowSeconds))
                ++r.jobs;
            r.samplesAfter += jobSamples(*db, job);
        }
        if (options.vacuum) {
            r.vacuumSkipped = vacuumUnlessBusy(*db);
            r.vacuumed = r.vacuumSkipped.empty();
        }
        checkpoint(*db);
        r.bytesAfter = pageBytes(*db);
        r.reusableBytes = db->execAndGet("PRAGMA freelist_count").getInt64() *
                          db->execAndGet("PRAGMA page_size").getInt64();
    } catch (const SQLite::Exception& e) {
        throw std::runtime_error(path + ": " + e.what());
    }
    return r;
}

std::int64_t databaseBytes(const std::string& path) {
    const auto db = openDatabase(path, false);
    try {
        checkpoint(*db);
        return pageBytes(*db);
    } catch (const SQLite::Exception& e) {
        throw std::runtime_error(path + ": " + e.what());
    }
}

} // namespace studio::store
