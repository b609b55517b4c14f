// StoreWriter: the less frequent records (ranks, nodes, checkpoints, debugger, billing, tags).
#include "engine/store/store_writer_impl.h"

#include <future>

namespace studio::store {

namespace {
void bindOptionalTime(SQLite::Statement& s, int index, double t) {
    if (t > 0)
        s.bind(index, t);
    else
        s.bind(index);
}
} // namespace

void StoreWriter::truncateMetrics(ComponentId id, std::int64_t afterStep) {
    d->push(Impl::Generic([=](Impl& w) {
        w.flushSummaries();
        w.exec("DELETE FROM metric_points WHERE step > ? AND series_id IN "
               "(SELECT id FROM metric_series WHERE component_id=?)",
               [&](SQLite::Statement& s) {
                   s.bind(1, static_cast<std::int64_t>(afterStep));
                   s.bind(2, id);
               });
        // Rebuild the summaries of this job's series from what remains, in step order.
        SQLite::Statement series(*w.db,
                                 "SELECT id FROM metric_series WHERE component_id=?");
        series.bind(1, id);
        std::vector<std::int64_t> ids;
        while (series.executeStep())
            ids.push_back(series.getColumn(0).getInt64());
        for (std::int64_t sid : ids) {
            MetricSummary s;
            SQLite::Statement pts(*w.db, "SELECT value, step, time FROM metric_points WHERE "
                                         "series_id=? ORDER BY step, rowid");
            pts.bind(1, sid);
            while (pts.executeStep())
                s.add(pts.getColumn(0).isNull() ? std::nan("") : pts.getColumn(0).getDouble(),
                      pts.getColumn(1).getInt64(), pts.getColumn(2).getDouble());
            w.summaries[sid] = MetricSummary{};
            w.touched[sid] = s;
        }
        w.flushSummaries();
    }));
}

void StoreWriter::addStepTiming(ComponentId id, const StepTiming& t) {
    d->push(Impl::Generic([=](Impl& w) {
        w.exec("INSERT INTO step_timings(component_id, node, rank, step, phase, time, data_ms, "
               "forward_ms, backward_ms, comm_ms, optimizer_ms) VALUES(?,?,?,?,?,?,?,?,?,?,?)",
               [&](SQLite::Statement& s) {
                   s.bind(1, id);
                   s.bind(2, t.node);
                   s.bind(3, t.rank);
                   s.bind(4, static_cast<std::int64_t>(t.step));
                   s.bind(5, t.phase);
                   s.bind(6, t.time);
                   s.bind(7, t.dataMs);
                   s.bind(8, t.forwardMs);
                   s.bind(9, t.backwardMs);
                   s.bind(10, t.commMs);
                   s.bind(11, t.optimizerMs);
               });
    }));
}

void StoreWriter::addTensorReduction(ComponentId id, const TensorReduction& t) {
    d->push(Impl::Generic([=](Impl& w) {
        w.exec("INSERT INTO tensor_reductions(component_id, step, collection, tensor, reduction, "
               "value, node, rank) VALUES(?,?,?,?,?,?,?,?)",
               [&](SQLite::Statement& s) {
                   s.bind(1, id);
                   s.bind(2, static_cast<std::int64_t>(t.step));
                   s.bind(3, t.collection);
                   s.bind(4, t.tensor);
                   s.bind(5, t.reduction);
                   if (std::isnan(t.value))
                       s.bind(6);
                   else
                       s.bind(6, t.value);
                   s.bind(7, t.node);
                   s.bind(8, t.rank);
               });
    }));
}

void StoreWriter::addCheckpoint(ComponentId id, const CheckpointRow& c) {
    d->push(Impl::Generic([=](Impl& w) {
        w.exec("INSERT INTO checkpoints(component_id, node, rank, step, time, path, sha256, bytes) "
               "VALUES(?,?,?,?,?,?,?,?)",
               [&](SQLite::Statement& s) {
                   s.bind(1, id);
                   s.bind(2, c.node);
                   s.bind(3, c.rank);
                   s.bind(4, static_cast<std::int64_t>(c.step));
                   s.bind(5, c.time);
                   s.bind(6, c.path);
                   s.bind(7, c.sha256);
                   s.bind(8, static_cast<std::int64_t>(c.bytes));
               });
    }));
}

void StoreWriter::upsertNode(ComponentId id, const NodeRow& n) {
    d->push(Impl::Generic([=](Impl& w) {
        w.exec("INSERT OR REPLACE INTO nodes(component_id, node, host, launcher_pid, cores, gpus, "
               "started, ended, exit_code) VALUES(?,?,?,?,?,?,?,?,?)",
               [&](SQLite::Statement& s) {
                   s.bind(1, id);
                   s.bind(2, n.node);
                   s.bind(3, n.host);
                   s.bind(4, static_cast<std::int64_t>(n.launcherPid));
                   s.bind(5, n.cores);
                   s.bind(6, n.gpus);
                   bindOptionalTime(s, 7, n.started);
                   bindOptionalTime(s, 8, n.ended);
                   if (n.exitCode)
                       s.bind(9, *n.exitCode);
                   else
                       s.bind(9);
               });
    }));
}

void StoreWriter::upsertRank(ComponentId id, const RankRow& r) {
    d->push(Impl::Generic([=](Impl& w) {
        w.exec("INSERT OR REPLACE INTO ranks(component_id, rank, node, local_rank, pid, started, "
               "ended, exit_code, signal) VALUES(?,?,?,?,?,?,?,?,?)",
               [&](SQLite::Statement& s) {
                   s.bind(1, id);
                   s.bind(2, r.rank);
                   s.bind(3, r.node);
                   s.bind(4, r.localRank);
                   s.bind(5, static_cast<std::int64_t>(r.pid));
                   bindOptionalTime(s, 6, r.started);
                   bindOptionalTime(s, 7, r.ended);
                   if (r.exitCode)
                       s.bind(8, *r.exitCode);
                   else
                       s.bind(8);
                   s.bind(9, r.signal);
               });
    }));
}

void StoreWriter::upsertLogFile(ComponentId id, const LogFileRow& l) {
    d->push(Impl::Generic([=](Impl& w) {
        w.exec("INSERT OR REPLACE INTO log_files(component_id, node, rank, path, lines, bytes) "
               "VALUES(?,?,?,?,?,?)",
               [&](SQLite::Statement& s) {
                   s.bind(1, id);
                   s.bind(2, l.node);
                   s.bind(3, l.rank);
                   s.bind(4, l.path);
                   s.bind(5, static_cast<std::int64_t>(l.lines));
                   s.bind(6, static_cast<std::int64_t>(l.bytes));
               });
    }));
}

void StoreWriter::setRuleStatus(ComponentId id, const RuleStatusRow& r) {
    d->push(Impl::Generic([=](Impl& w) {
        w.exec("INSERT OR REPLACE INTO rule_evaluations(component_id, rule, kind, status, message, "
               "updated) VALUES(?,?,?,?,?,?)",
               [&](SQLite::Statement& s) {
                   s.bind(1, id);
                   s.bind(2, r.rule);
                   s.bind(3, r.kind);
                   s.bind(4, r.status);
                   s.bind(5, r.message);
                   s.bind(6, r.updated);
               });
    }));
}

void StoreWriter::addFinding(ComponentId id, const FindingRow& f) {
    d->push(Impl::Generic([=](Impl& w) {
        w.exec("INSERT INTO findings(component_id, rule, time, step, node, device, message, "
               "recommendation, criteria) VALUES(?,?,?,?,?,?,?,?,?)",
               [&](SQLite::Statement& s) {
                   s.bind(1, id);
                   s.bind(2, f.rule);
                   s.bind(3, f.time);
                   s.bind(4, static_cast<std::int64_t>(f.step));
                   s.bind(5, f.node);
                   s.bind(6, f.device);
                   s.bind(7, f.message);
                   s.bind(8, f.recommendation);
                   s.bind(9, f.criteria);
               });
    }));
}

void StoreWriter::addNotification(ComponentId id, double time, const std::string& rule,
                                  const std::string& message) {
    d->push(Impl::Generic([=](Impl& w) {
        w.exec("INSERT INTO notifications(component_id, time, rule, message) VALUES(?,?,?,?)",
               [&](SQLite::Statement& s) {
                   s.bind(1, id);
                   s.bind(2, time);
                   s.bind(3, rule);
                   s.bind(4, message);
               });
    }));
}

void StoreWriter::addBillingSegment(ComponentId id, const BillingSegment& b) {
    d->push(Impl::Generic([=](Impl& w) {
        w.exec("INSERT INTO billing_segments(component_id, attempt, start, end, kind) "
               "VALUES(?,?,?,?,?)",
               [&](SQLite::Statement& s) {
                   s.bind(1, id);
                   s.bind(2, b.attempt);
                   s.bind(3, b.start);
                   s.bind(4, b.end);
                   s.bind(5, b.kind);
               });
    }));
}

void StoreWriter::setArtifact(ComponentId id, const ArtifactRow& a) {
    d->push(Impl::Generic([=](Impl& w) {
        w.exec("INSERT OR REPLACE INTO artifacts(component_id, name, kind, value, media_type) "
               "VALUES(?,?,?,?,?)",
               [&](SQLite::Statement& s) {
                   s.bind(1, id);
                   s.bind(2, a.name);
                   s.bind(3, a.kind);
                   s.bind(4, a.value);
                   s.bind(5, a.mediaType);
               });
    }));
}

void StoreWriter::setTag(ComponentId id, const std::string& key, const std::string& value) {
    d->push(Impl::Generic([=](Impl& w) {
        w.exec("INSERT OR REPLACE INTO tags(component_id, key, value) VALUES(?,?,?)",
               [&](SQLite::Statement& s) {
                   s.bind(1, id);
                   s.bind(2, key);
                   s.bind(3, value);
               });
    }));
}

void StoreWriter::removeTag(ComponentId id, const std::string& key) {
    d->push(Impl::Generic([=](Impl& w) {
        w.exec("DELETE FROM tags WHERE component_id=? AND key=?", [&](SQLite::Statement& s) {
            s.bind(1, id);
            s.bind(2, key);
        });
    }));
}

std::vector<std::string> StoreWriter::failAbandoned(bool (*isAlive)(const std::string& owner)) {
    auto promise = std::make_shared<std::promise<std::vector<std::string>>>();
    auto future = promise->get_future();
    d->push(Impl::Generic([promise, isAlive](Impl& w) {
        std::vector<std::string> failed;
        try {
            std::vector<std::pair<ComponentId, std::string>> stale;
            SQLite::Statement q(*w.db, "SELECT id, name, owner FROM trial_components WHERE status "
                                       "IN ('InProgress', 'Stopping')");
            while (q.executeStep()) {
                std::string owner = q.getColumn(2).getString();
                if (!owner.empty() && !isAlive(owner))
                    stale.emplace_back(q.getColumn(0).getInt64(), q.getColumn(1).getString());
            }
            const double now = static_cast<double>(std::time(nullptr));
            for (const auto& [id, name] : stale) {
                const std::string reason =
                    "the studio process that ran this job exited before the job ended";
                w.exec("UPDATE trial_components SET status='Failed', secondary_status='Failed', "
                       "failure_reason=?, ended=COALESCE(ended, ?) WHERE id=?",
                       [&](SQLite::Statement& s) {
                           s.bind(1, reason);
                           s.bind(2, now);
                           s.bind(3, id);
                       });
                w.exec("INSERT INTO status_history(component_id, time, status, secondary_status, "
                       "message) VALUES(?,?,'Failed','Failed',?)",
                       [&](SQLite::Statement& s) {
                           s.bind(1, id);
                           s.bind(2, now);
                           s.bind(3, reason);
                       });
                failed.push_back(name);
            }
            promise->set_value(failed);
        } catch (...) {
            promise->set_exception(std::current_exception());
        }
    }));
    auto failed = future.get();
    flush();
    return failed;
}

} // namespace studio::store
