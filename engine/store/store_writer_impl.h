// The writer thread's state; internal to engine/store.
#pragma once

#include "engine/store/database.h"
#include "engine/store/store_writer.h"

#include <SQLiteCpp/Savepoint.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include <cmath>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
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

} // namespace detail

using detail::MetricRec;
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
    std::thread thread;

    // Writer-thread state.
    std::unordered_map<std::pair<ComponentId, std::string>, std::int64_t, PairHash> seriesIds;
    std::unordered_map<std::int64_t, MetricSummary> summaries;
    std::unordered_map<std::int64_t, MetricSummary> touched; // this batch's additions
    std::unordered_map<std::string, std::int64_t> sysIds;
    std::unique_ptr<SQLite::Statement> insertPoint, insertSample;

    static constexpr std::size_t kQueueCap = 1 << 21;

    void push(Op op) {
        std::unique_lock lock(mutex);
        space.wait(lock, [&] { return queue.size() < kQueueCap || stopping; });
        queue.push_back(std::move(op));
        ++submitted;
        wake.notify_one();
    }

    void run() {
        std::deque<Op> batch;
        while (true) {
            {
                std::unique_lock lock(mutex);
                wake.wait(lock, [&] { return !queue.empty() || stopping; });
                if (queue.empty() && stopping)
                    return;
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
                    writeMetric(*m);
                else if (auto* s = std::get_if<SysRec>(&op))
                    writeSample(*s);
                else
                    applyGeneric(std::get<Generic>(op));
            }
            flushSummaries();
            tx.commit();
        } catch (const std::exception& e) {
            touched.clear();
            summaries.clear(); // reload from the database: this batch was rolled back
            std::lock_guard lock(mutex);
            lastError = e.what();
        }
    }

    // A failing record is reported and skipped; it never takes the rest of the batch with it.
    void applyGeneric(const Generic& op) {
        try {
            SQLite::Savepoint sp(*db, "op");
            op(*this);
            sp.release();
        } catch (const std::exception& e) {
            std::lock_guard lock(mutex);
            lastError = e.what();
        }
    }

    std::int64_t seriesId(ComponentId id, const std::string& name) {
        auto key = std::make_pair(id, name);
        auto it = seriesIds.find(key);
        if (it != seriesIds.end())
            return it->second;
        SQLite::Statement q(*db, "SELECT id FROM metric_series WHERE component_id=? AND name=?");
        q.bind(1, id);
        q.bind(2, name);
        std::int64_t sid;
        if (q.executeStep()) {
            sid = q.getColumn(0).getInt64();
        } else {
            SQLite::Statement ins(*db, "INSERT INTO metric_series(component_id, name) VALUES(?,?)");
            ins.bind(1, id);
            ins.bind(2, name);
            ins.exec();
            sid = db->getLastInsertRowid();
        }
        seriesIds.emplace(key, sid);
        return sid;
    }

    MetricSummary& storedSummary(std::int64_t sid) {
        auto it = summaries.find(sid);
        if (it != summaries.end())
            return it->second;
        MetricSummary s;
        SQLite::Statement q(*db, "SELECT count, min, max, mean, m2, last, last_step, last_time, "
                                 "non_finite FROM metric_summaries WHERE series_id=?");
        q.bind(1, sid);
        if (q.executeStep()) {
            s.count = q.getColumn(0).getInt64();
            if (!q.getColumn(1).isNull()) {
                s.min = q.getColumn(1).getDouble();
                s.max = q.getColumn(2).getDouble();
            }
            s.mean = q.getColumn(3).getDouble();
            s.m2 = q.getColumn(4).getDouble();
            s.last = q.getColumn(5).isNull() ? std::nan("") : q.getColumn(5).getDouble();
            s.lastStep = q.getColumn(6).getInt64();
            s.lastTime = q.getColumn(7).getDouble();
            s.nonFinite = q.getColumn(8).getInt64();
        }
        return summaries.emplace(sid, s).first->second;
    }

    void writeMetric(const MetricRec& m) {
        const std::int64_t sid = seriesId(m.id, m.name);
        if (!insertPoint)
            insertPoint = std::make_unique<SQLite::Statement>(
                *db, "INSERT INTO metric_points(series_id, step, time, value, node, rank) "
                     "VALUES(?,?,?,?,?,?)");
        auto& s = *insertPoint;
        s.bind(1, sid);
        s.bind(2, static_cast<std::int64_t>(m.p.step));
        s.bind(3, m.p.time);
        if (std::isnan(m.p.value))
            s.bind(4); // NULL stands for NaN; infinities are stored as they are
        else
            s.bind(4, m.p.value);
        s.bind(5, m.p.node);
        s.bind(6, m.p.rank);
        s.exec();
        s.reset();
        touched[sid].add(m.p.value, m.p.step, m.p.time);
    }

    void flushSummaries() {
        if (touched.empty())
            return;
        SQLite::Statement up(*db, "INSERT OR REPLACE INTO metric_summaries(series_id, count, min, "
                                  "max, mean, m2, last, last_step, last_time, non_finite) "
                                  "VALUES(?,?,?,?,?,?,?,?,?,?)");
        for (auto& [sid, batch] : touched) {
            MetricSummary merged = storedSummary(sid);
            merged.merge(batch);
            up.bind(1, sid);
            up.bind(2, static_cast<std::int64_t>(merged.count));
            if (merged.count > merged.nonFinite) {
                up.bind(3, merged.min);
                up.bind(4, merged.max);
            } else {
                up.bind(3);
                up.bind(4);
            }
            up.bind(5, merged.mean);
            up.bind(6, merged.m2);
            if (std::isnan(merged.last))
                up.bind(7);
            else
                up.bind(7, merged.last);
            up.bind(8, static_cast<std::int64_t>(merged.lastStep));
            up.bind(9, merged.lastTime);
            up.bind(10, static_cast<std::int64_t>(merged.nonFinite));
            up.exec();
            up.reset();
            summaries[sid] = merged;
        }
        touched.clear();
    }

    void writeSample(const SysRec& r) {
        std::string key = std::to_string(r.id) + "/" + std::to_string(r.node) + "/" + r.device +
                          "/" + r.metric;
        auto it = sysIds.find(key);
        std::int64_t sid;
        if (it != sysIds.end()) {
            sid = it->second;
        } else {
            SQLite::Statement ins(*db, "INSERT INTO system_series(component_id, node, device, "
                                       "metric) VALUES(?,?,?,?) ON CONFLICT DO UPDATE SET "
                                       "node=excluded.node RETURNING id");
            ins.bind(1, r.id);
            ins.bind(2, r.node);
            ins.bind(3, r.device);
            ins.bind(4, r.metric);
            ins.executeStep();
            sid = ins.getColumn(0).getInt64();
            sysIds.emplace(key, sid);
        }
        if (!insertSample)
            insertSample = std::make_unique<SQLite::Statement>(
                *db, "INSERT INTO system_samples(series_id, time, value) VALUES(?,?,?)");
        insertSample->bind(1, sid);
        insertSample->bind(2, r.time);
        insertSample->bind(3, r.value);
        insertSample->exec();
        insertSample->reset();
    }

    void exec(const char* sql, const std::function<void(SQLite::Statement&)>& bind) {
        SQLite::Statement s(*db, sql);
        bind(s);
        s.exec();
    }

    std::int64_t ensureExperiment(const std::string& name, double created) {
        exec("INSERT OR IGNORE INTO experiments(name, created) VALUES(?,?)",
             [&](SQLite::Statement& s) {
                 s.bind(1, name);
                 s.bind(2, created);
             });
        SQLite::Statement q(*db, "SELECT id FROM experiments WHERE name=?");
        q.bind(1, name);
        q.executeStep();
        return q.getColumn(0).getInt64();
    }

    std::int64_t ensureTrial(std::int64_t experimentId, const std::string& name, double created) {
        exec("INSERT OR IGNORE INTO trials(experiment_id, name, created) VALUES(?,?,?)",
             [&](SQLite::Statement& s) {
                 s.bind(1, experimentId);
                 s.bind(2, name);
                 s.bind(3, created);
             });
        SQLite::Statement q(*db, "SELECT id FROM trials WHERE experiment_id=? AND name=?");
        q.bind(1, experimentId);
        q.bind(2, name);
        q.executeStep();
        return q.getColumn(0).getInt64();
    }
};

} // namespace studio::store
