#include "engine/store/store_writer.h"

#include "engine/store/store_writer_impl.h"

#include <future>

namespace studio::store {

StoreWriter::StoreWriter(const std::string& path) : d(std::make_unique<Impl>()) {
    d->path = path;
    d->db = openDatabase(path, false);
    d->thread = std::thread([this] { d->run(); });
}

StoreWriter::~StoreWriter() {
    {
        std::lock_guard lock(d->mutex);
        d->stopping = true;
        d->wake.notify_all();
        d->space.notify_all();
    }
    d->thread.join();
}

const std::string& StoreWriter::path() const { return d->path; }

void StoreWriter::flush() {
    std::unique_lock lock(d->mutex);
    const std::uint64_t target = d->submitted;
    d->committed.wait(lock, [&] { return d->done >= target; });
}

std::string StoreWriter::lastError() const {
    std::lock_guard lock(d->mutex);
    return d->lastError;
}

ComponentId StoreWriter::createComponent(const NewComponent& c) {
    auto promise = std::make_shared<std::promise<ComponentId>>();
    auto future = promise->get_future();
    d->push(Impl::Generic([c, promise](Impl& w) {
        try {
            SQLite::Savepoint sp(*w.db, "create_component");
            const std::int64_t exp =
                w.ensureExperiment(c.experiment.empty() ? "Unassigned" : c.experiment, c.created);
            const std::int64_t trial = w.ensureTrial(exp, c.trial.empty() ? c.name : c.trial, c.created);
            SQLite::Statement ins(*w.db,
                "INSERT INTO trial_components(trial_id, name, display_name, status, "
                "secondary_status, instance_type, instance_count, processes_per_host, entry_point, "
                "spec_json, job_dir, created, owner) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)");
            ins.bind(1, trial);
            ins.bind(2, c.name);
            ins.bind(3, c.displayName.empty() ? c.name : c.displayName);
            ins.bind(4, c.status);
            ins.bind(5, c.secondaryStatus);
            ins.bind(6, c.instanceType);
            ins.bind(7, c.instanceCount);
            ins.bind(8, c.processesPerHost);
            ins.bind(9, c.entryPoint);
            ins.bind(10, c.specJson);
            ins.bind(11, c.jobDir);
            ins.bind(12, c.created);
            ins.bind(13, c.owner);
            ins.exec();
            const ComponentId id = w.db->getLastInsertRowid();
            for (const auto& p : c.parameters) {
                w.exec("INSERT OR REPLACE INTO parameters(component_id, name, value, number) "
                       "VALUES(?,?,?,?)",
                       [&](SQLite::Statement& s) {
                           s.bind(1, id);
                           s.bind(2, p.name);
                           s.bind(3, p.value);
                           if (p.number)
                               s.bind(4, *p.number);
                           else
                               s.bind(4);
                       });
            }
            for (const auto& [k, v] : c.tags)
                w.exec("INSERT OR REPLACE INTO tags(component_id, key, value) VALUES(?,?,?)",
                       [&](SQLite::Statement& s) {
                           s.bind(1, id);
                           s.bind(2, k);
                           s.bind(3, v);
                       });
            w.exec("INSERT INTO status_history(component_id, time, status, secondary_status) "
                   "VALUES(?,?,?,?)",
                   [&](SQLite::Statement& s) {
                       s.bind(1, id);
                       s.bind(2, c.created);
                       s.bind(3, c.status);
                       s.bind(4, c.secondaryStatus);
                   });
            sp.release();
            promise->set_value(id);
        } catch (...) {
            promise->set_exception(std::current_exception());
        }
    }));
    try {
        const ComponentId id = future.get();
        flush(); // the id is handed out only once the row is committed, so readers see it
        return id;
    } catch (const std::exception& e) {
        throw std::runtime_error("cannot record job " + c.name + " in " + d->path + ": " + e.what());
    }
}

void StoreWriter::setStatus(ComponentId id, const std::string& status, const std::string& secondary,
                            const std::string& message, double time) {
    d->push(Impl::Generic([=](Impl& w) {
        w.exec("UPDATE trial_components SET status=?, secondary_status=? WHERE id=?",
               [&](SQLite::Statement& s) {
                   s.bind(1, status);
                   s.bind(2, secondary);
                   s.bind(3, id);
               });
        w.exec("INSERT INTO status_history(component_id, time, status, secondary_status, message) "
               "VALUES(?,?,?,?,?)",
               [&](SQLite::Statement& s) {
                   s.bind(1, id);
                   s.bind(2, time);
                   s.bind(3, status);
                   s.bind(4, secondary);
                   s.bind(5, message);
               });
    }));
}

#define STUDIO_SIMPLE_UPDATE(method, sql, type)                                                  \
    void StoreWriter::method(ComponentId id, type value) {                                       \
        d->push(Impl::Generic([=](Impl& w) {                                                     \
            w.exec(sql, [&](SQLite::Statement& s) {                                              \
                s.bind(1, value);                                                                \
                s.bind(2, id);                                                                   \
            });                                                                                  \
        }));                                                                                     \
    }
STUDIO_SIMPLE_UPDATE(setFailureReason, "UPDATE trial_components SET failure_reason=? WHERE id=?",
                     const std::string&)
STUDIO_SIMPLE_UPDATE(setStarted, "UPDATE trial_components SET started=? WHERE id=?", double)
STUDIO_SIMPLE_UPDATE(setEnded, "UPDATE trial_components SET ended=? WHERE id=?", double)
STUDIO_SIMPLE_UPDATE(setNotes, "UPDATE trial_components SET notes=? WHERE id=?", const std::string&)
STUDIO_SIMPLE_UPDATE(addProtocolErrors,
                     "UPDATE trial_components SET protocol_errors=protocol_errors+? WHERE id=?", int)
#undef STUDIO_SIMPLE_UPDATE

void StoreWriter::addMetric(ComponentId id, const std::string& name, const MetricPoint& p) {
    d->push(MetricRec{id, name, p});
}

void StoreWriter::addSystemSample(ComponentId id, int node, const std::string& device,
                                  const std::string& metric, double time, double value) {
    d->push(SysRec{id, node, device, metric, time, value});
}

} // namespace studio::store
