// The writer thread's state; internal to engine/store.
#pragma once

#include "engine/store/database.h"
#include "engine/store/disk_reserve.h"
#include "engine/store/record_columns.h"
#include "engine/store/store_writer.h"

#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Savepoint.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <sqlite3.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <variant>

namespace studio::store {

namespace detail {

struct MetricRec {
    ComponentId id;
    std::string name;
    MetricPoint p;
};
struct SysRec {
    ComponentId id;
    int node;
    std::string device;
    std::string metric;
    double time;
    double value;
};

struct PairHash {
    std::size_t operator()(const std::pair<ComponentId, std::string>& k) const {
        return std::hash<std::string>()(k.second) ^ (std::hash<ComponentId>()(k.first) * 31);
    }
};

// A time where 0 means "not yet".
inline std::optional<double> optionalTime(double t) {
    return t > 0 ? std::optional<double>(t) : std::nullopt;
}

} // namespace detail

using detail::MetricRec;
using detail::optionalTime;
using detail::PairHash;
using detail::SysRec;

struct StoreWriter::Impl {
    using Generic = std::function<void(Impl&)>;
    using Op = std::variant<MetricRec, SysRec, Generic>;

    std::string path;
    std::unique_ptr<SQLite::Database> db;

    std::mutex mutex;
    std::condition_variable wake;      // work arrived, or stop
    std::condition_variable committed; // a batch was committed
    std::condition_variable space;     // the queue drained below its cap
    std::deque<Op> queue;
    std::uint64_t submitted = 0;
    std::uint64_t done = 0;
    bool stopping = false;
    std::string lastError;
    std::function<void(const WriteError&)> onError;
    std::unique_ptr<DiskReserve> reserve;
    std::thread thread;

    // Writer-thread state.
    std::unordered_map<std::pair<ComponentId, std::string>, std::int64_t, PairHash> seriesIds;
    std::unordered_map<std::int64_t, MetricSummary> summaries;
    std::unordered_map<std::int64_t, MetricSummary> touched; // this batch's additions
    std::unordered_map<std::string, std::int64_t> sysIds;
    std::unordered_map<const char*, std::unique_ptr<SQLite::Statement>> statements;

    static constexpr std::size_t kQueueCap = 1 << 21;
    static constexpr std::size_t kGroupMin = 512;
    static constexpr std::chrono::milliseconds kGroupDelay{25};
    int urgent = 0; // callers waiting for the writer

    // The open group of this thread (beginGroup/endGroup), for the writer it was opened on.
    struct ThreadGroup {
        const Impl* owner = nullptr;
        std::deque<Op> ops;
    };
    static ThreadGroup& threadGroup() {
        thread_local ThreadGroup group;
        return group;
    }

    // Queues a group's writes under one lock: the writer thread takes the whole queue at once,
    // so they land in one batch, one transaction.
    void pushAll(std::deque<Op>& ops) {
        if (ops.empty())
            return;
        std::unique_lock lock(mutex);
        space.wait(lock, [&] { return queue.size() < kQueueCap || stopping; });
        const bool wasEmpty = queue.empty();
        submitted += ops.size();
        for (auto& op : ops)
            queue.push_back(std::move(op));
        ops.clear();
        if (wasEmpty || queue.size() >= kGroupMin) // as push(): no wake-up while gathering
            wake.notify_one();
    }

    // Before a call waits for the writer: queue what this thread's group holds, or it would
    // wait for writes that are not queued yet.
    void releaseGroup() {
        ThreadGroup& g = threadGroup();
        if (g.owner == this)
            pushAll(g.ops);
    }

    void push(Op op) {
        if (ThreadGroup& g = threadGroup(); g.owner == this) {
            g.ops.push_back(std::move(op));
            return;
        }
        std::unique_lock lock(mutex);
        space.wait(lock, [&] { return queue.size() < kQueueCap || stopping; });
        queue.push_back(std::move(op));
        ++submitted;
        // The writer sleeps on an empty queue, or gathers a group until it is big enough.
        if (queue.size() == 1 || queue.size() >= kGroupMin)
            wake.notify_one();
    }

    // A caller waits for the writer (flush, runAndWait): no gathering meanwhile.
    void urgentBegin() {
        std::lock_guard lock(mutex);
        ++urgent;
        wake.notify_one();
    }
    void urgentEnd() {
        std::lock_guard lock(mutex);
        --urgent;
    }

    void run() {
        std::deque<Op> batch;
        while (true) {
            {
                std::unique_lock lock(mutex);
                wake.wait(lock, [&] { return !queue.empty() || stopping; });
                if (queue.empty() && stopping)
                    return;
                // Group commit: a trickle of writes (the events of followed jobs) waits a
                // moment for more, so it costs one transaction and one wake-up per group
                // rather than per event.
                wake.wait_for(lock, kGroupDelay,
                              [&] { return stopping || urgent > 0 || queue.size() >= kGroupMin; });
                batch.swap(queue);
                space.notify_all();
            }
            const std::size_t n = batch.size();
            apply(batch);
            batch.clear();
            std::lock_guard lock(mutex);
            done += n;
            committed.notify_all();
        }
    }

    void apply(std::deque<Op>& batch) {
        try {
            SQLite::Transaction tx(*db);
            for (auto& op : batch) {
                if (auto* m = std::get_if<MetricRec>(&op))
                    guarded(m->id, "metric " + m->name, [&] { writeMetric(*m); });
                else if (auto* s = std::get_if<SysRec>(&op))
                    guarded(s->id, "system sample " + s->device + "/" + s->metric,
                            [&] { writeSample(*s); });
                else
                    applyGeneric(std::get<Generic>(op));
            }
            flushSummaries();
            tx.commit();
        } catch (const std::exception& e) {
            touched.clear();
            summaries.clear(); // reload from the database: this batch was rolled back
            seriesIds.clear(); // their rows may have gone with it
            sysIds.clear();
            if (diskFull(e) && reserve)
                reserve->release(); // room for the writes that record how the jobs ended
            report({0,
                    std::string(e.what()) + " (" + std::to_string(batch.size()) +
                        " writes not committed)",
                    true});
        }
    }

    void report(const WriteError& e) {
        std::function<void(const WriteError&)> handler;
        {
            std::lock_guard lock(mutex);
            lastError = e.message;
            handler = onError;
        }
        if (handler)
            handler(e);
    }

    // SQLite undoes a failed statement alone unless the error rolled the whole transaction
    // back (disk full, I/O); then the batch is lost and the caller's transaction must know.
    bool transactionLost() { return sqlite3_get_autocommit(db->getHandle()) != 0; }

    // SQLite's primary result code of an error (SQLITE_FULL, ...); 0 for other exceptions.
    static int primaryCode(const std::exception& e) {
        const auto* x = dynamic_cast<const SQLite::Exception*>(&e);
        return x ? x->getErrorCode() & 0xff : 0;
    }

    bool diskFull(const std::exception& e) {
        const int code = primaryCode(e);
        return code == SQLITE_FULL ||
               (code == SQLITE_IOERR && sqlite3_system_errno(db->getHandle()) == ENOSPC);
    }

    // Errors of the database itself, not of one record: the batch cannot be committed.
    static bool databaseError(const std::exception& e) {
        switch (primaryCode(e)) {
        case SQLITE_FULL:
        case SQLITE_IOERR:
        case SQLITE_BUSY:
        case SQLITE_LOCKED:
        case SQLITE_NOMEM:
        case SQLITE_CORRUPT:
        case SQLITE_READONLY:
        case SQLITE_CANTOPEN:
            return true;
        default:
            return false;
        }
    }

    template <typename F>
    void guarded(ComponentId id, const std::string& what, F&& write) {
        try {
            write();
        } catch (const std::exception& e) {
            if (transactionLost() || databaseError(e))
                throw;
            report({id, what + ": " + e.what(), false});
        }
    }

    // A prepared statement per SQL literal, reset and ready for new bindings.
    SQLite::Statement& statement(const char* sql) {
        auto& st = statements[sql];
        if (!st)
            st = std::make_unique<SQLite::Statement>(*db, sql);
        st->tryReset(); // not reset(): it would rethrow the error of a failed previous run
        st->clearBindings();
        return *st;
    }

    // Runs one write with its parameters bound in order; the number of rows it changed.
    template <typename... Args>
    int run(const char* sql, const Args&... args) {
        SQLite::Statement& st = statement(sql);
        bindAll(st, args...);
        return st.exec();
    }

    // Queues one write; its values are copied now and bound on the writer thread.
    template <typename... Args>
    void pushRun(const char* sql, Args... args) {
        push(Generic([sql, args...](Impl& w) { w.run(sql, args...); }));
    }

    // A failing record is reported and skipped; it never takes the rest of the batch with it.
    void applyGeneric(const Generic& op) {
        try {
            SQLite::Savepoint sp(*db, "op");
            op(*this);
            sp.release();
        } catch (const std::exception& e) {
            if (transactionLost() || databaseError(e))
                throw;
            report({0, e.what(), false});
        }
    }

    std::int64_t seriesId(ComponentId id, const std::string& name) {
        auto key = std::make_pair(id, name);
        auto it = seriesIds.find(key);
        if (it != seriesIds.end())
            return it->second;
        auto sid = queryOne<std::int64_t>(
            *db, "SELECT id FROM metric_series WHERE component_id=? AND name=?", id, name);
        if (!sid) {
            execute(*db, "INSERT INTO metric_series(component_id, name) VALUES(?,?)", id, name);
            sid = db->getLastInsertRowid();
        }
        seriesIds.emplace(key, *sid);
        return *sid;
    }

    MetricSummary& storedSummary(std::int64_t sid) {
        auto it = summaries.find(sid);
        if (it != summaries.end())
            return it->second;
        const auto stored = queryOne<MetricSummary>(
            *db, selectColumns<MetricSummary>("FROM metric_summaries WHERE series_id=?"), sid);
        return summaries.emplace(sid, stored.value_or(MetricSummary{})).first->second;
    }

    void writeMetric(const MetricRec& m) {
        const std::int64_t sid = seriesId(m.id, m.name);
        run("INSERT INTO metric_points(series_id, step, time, value, node, rank) "
            "VALUES(?,?,?,?,?,?)",
            sid, m.p.step, m.p.time, m.p.value, m.p.node, m.p.rank);
        touched[sid].add(m.p.value, m.p.step, m.p.time);
    }

    void flushSummaries() {
        for (auto& [sid, batch] : touched) {
            MetricSummary merged = storedSummary(sid);
            merged.merge(batch);
            const bool finite = merged.count > merged.nonFinite;
            run("INSERT OR REPLACE INTO metric_summaries(series_id, count, min, max, mean, m2, "
                "last, last_step, last_time, non_finite) VALUES(?,?,?,?,?,?,?,?,?,?)",
                sid, merged.count, finite ? merged.min : std::nan(""),
                finite ? merged.max : std::nan(""), merged.mean, merged.m2, merged.last,
                merged.lastStep, merged.lastTime, merged.nonFinite);
            summaries[sid] = merged;
        }
        touched.clear();
    }

    void writeSample(const SysRec& r) {
        if (!std::isfinite(r.value) || !std::isfinite(r.time))
            throw std::runtime_error("value " + std::to_string(r.value) + " at time " +
                                     std::to_string(r.time) + " is not a finite number");
        std::string key =
            std::to_string(r.id) + "/" + std::to_string(r.node) + "/" + r.device + "/" + r.metric;
        auto it = sysIds.find(key);
        std::int64_t sid;
        if (it != sysIds.end()) {
            sid = it->second;
        } else {
            sid = queryOne<std::int64_t>(*db,
                                         "INSERT INTO system_series(component_id, node, device, "
                                         "metric) VALUES(?,?,?,?) ON CONFLICT DO UPDATE SET "
                                         "node=excluded.node RETURNING id",
                                         r.id, r.node, r.device, r.metric)
                      .value();
            sysIds.emplace(key, sid);
        }
        run("INSERT INTO system_samples(series_id, time, value) VALUES(?,?,?)", sid, r.time,
            r.value);
    }

    // A component's rows (createComponent): its experiment and trial when new, the component,
    // its parameters, tags and first status. The caller holds a savepoint.
    ComponentId insertComponent(const NewComponent& c) {
        const std::int64_t exp =
            ensureExperiment(c.experiment.empty() ? "Unassigned" : c.experiment, c.created);
        const std::int64_t trial = ensureTrial(exp, c.trial.empty() ? c.name : c.trial, c.created);
        run("INSERT INTO trial_components(trial_id, name, display_name, status, "
            "secondary_status, instance_type, instance_count, processes_per_host, entry_point, "
            "spec_json, job_dir, created, owner, cluster) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            trial, c.name, c.displayName.empty() ? c.name : c.displayName, c.status,
            c.secondaryStatus, c.instanceType, c.instanceCount, c.processesPerHost, c.entryPoint,
            c.specJson, c.jobDir, c.created, c.owner, c.cluster);
        const ComponentId id = db->getLastInsertRowid();
        for (const auto& p : c.parameters)
            run("INSERT OR REPLACE INTO parameters(component_id, name, value, number) "
                "VALUES(?,?,?,?)",
                id, p.name, p.value, p.number);
        for (const auto& [k, v] : c.tags)
            run("INSERT OR REPLACE INTO tags(component_id, key, value) VALUES(?,?,?)", id, k, v);
        run("INSERT INTO status_history(component_id, time, status, secondary_status, message) "
            "VALUES(?,?,?,?,?)",
            id, c.created, c.status, c.secondaryStatus, c.statusMessage);
        return id;
    }

    // A new series of a new component and all its points, kRowsPerInsert rows per statement
    // (an import's hundreds of thousands of points: a statement's step, and SQLite's lock per
    // call, cost more than its rows); its id and summary. The cache of series ids is left
    // alone: the caller's savepoint may still roll the rows back.
    static constexpr int kRowsPerInsert = 64;
    std::pair<std::int64_t, MetricSummary> insertSeries(ComponentId id, const MetricSeries& s) {
        static const std::string many = [] {
            std::string sql = "INSERT INTO metric_points(series_id, step, time, value, node, "
                              "rank) VALUES(?,?,?,?,?,?)";
            for (int i = 1; i < kRowsPerInsert; ++i)
                sql += ",(?,?,?,?,?,?)";
            return sql;
        }();
        run("INSERT INTO metric_series(component_id, name) VALUES(?,?)", id, s.name);
        const std::int64_t sid = db->getLastInsertRowid();
        MetricSummary sum;
        const std::size_t n = s.points.size();
        std::size_t i = 0;
        SQLite::Statement& chunk = statement(many.c_str());
        for (; i + kRowsPerInsert <= n; i += kRowsPerInsert) {
            for (int r = 0; r < kRowsPerInsert; ++r) {
                const MetricPoint& p = s.points[i + static_cast<std::size_t>(r)];
                const int at = r * 6;
                bindValue(chunk, at + 1, sid);
                bindValue(chunk, at + 2, p.step);
                bindValue(chunk, at + 3, p.time);
                bindValue(chunk, at + 4, p.value);
                bindValue(chunk, at + 5, p.node);
                bindValue(chunk, at + 6, p.rank);
                sum.add(p.value, p.step, p.time);
            }
            chunk.exec();
            chunk.reset();
        }
        SQLite::Statement& one = statement("INSERT INTO metric_points(series_id, step, time, "
                                           "value, node, rank) VALUES(?,?,?,?,?,?)");
        for (; i < n; ++i) {
            const MetricPoint& p = s.points[i];
            bindAll(one, sid, p.step, p.time, p.value, p.node, p.rank);
            one.exec();
            one.reset();
            sum.add(p.value, p.step, p.time);
        }
        return {sid, sum};
    }

    std::int64_t ensureExperiment(const std::string& name, double created) {
        run("INSERT OR IGNORE INTO experiments(name, created) VALUES(?,?)", name, created);
        return queryOne<std::int64_t>(*db, "SELECT id FROM experiments WHERE name=?", name).value();
    }

    std::int64_t ensureTrial(std::int64_t experimentId, const std::string& name, double created) {
        run("INSERT OR IGNORE INTO trials(experiment_id, name, created) VALUES(?,?,?)",
            experimentId, name, created);
        return queryOne<std::int64_t>(*db, "SELECT id FROM trials WHERE experiment_id=? AND name=?",
                                      experimentId, name)
            .value();
    }
};

} // namespace studio::store
