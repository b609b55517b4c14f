#include "engine/store/store_writer.h"

#include "engine/store/store_writer_impl.h"

#include <future>

namespace studio::store {

StoreWriter::StoreWriter(const std::string& path)
    : d(std::make_unique<Impl>()) {
    d->path = path;
    d->db = openDatabase(path, false);
    d->reserve = std::make_unique<DiskReserve>(path + ".reserve");
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

const std::string& StoreWriter::path() const {
    return d->path;
}

void StoreWriter::flush() {
    d->releaseGroup();
    d->urgentBegin();
    {
        std::unique_lock lock(d->mutex);
        const std::uint64_t target = d->submitted;
        d->committed.wait(lock, [&] { return d->done >= target; });
    }
    d->urgentEnd();
}

std::string StoreWriter::lastError() const {
    std::lock_guard lock(d->mutex);
    return d->lastError;
}

bool StoreWriter::releaseReserve() {
    return d->reserve && d->reserve->release();
}

void StoreWriter::setErrorHandler(std::function<void(const WriteError&)> handler) {
    std::lock_guard lock(d->mutex);
    d->onError = std::move(handler);
}

ComponentId StoreWriter::createComponent(const NewComponent& c) {
    d->releaseGroup();
    auto promise = std::make_shared<std::promise<ComponentId>>();
    auto future = promise->get_future();
    d->push(Impl::Generic([c, promise](Impl& w) {
        try {
            SQLite::Savepoint sp(*w.db, "create_component");
            const ComponentId id = w.insertComponent(c);
            sp.release();
            promise->set_value(id);
        } catch (...) {
            promise->set_exception(std::current_exception());
        }
    }));
    try {
        const ComponentId id = future.get();
        flush(); // the id is handed out only once the row is committed, so readers see it
        checkCommitted(id, c.name);
        return id;
    } catch (const std::exception& e) {
        throw std::runtime_error("cannot record job " + c.name + " in " + d->path + ": " +
                                 e.what());
    }
}

ComponentId StoreWriter::importComponent(const NewComponent& c, double started, double ended,
                                         const std::vector<MetricSeries>& series) {
    ComponentId id = 0;
    try {
        runAndWait([&](Impl& w) {
            // Room for the job's pages until the commit: a spilled page is written twice.
            w.db->exec("PRAGMA cache_size = -131072");
            SQLite::Savepoint sp(*w.db, "import_component");
            id = w.insertComponent(c);
            w.run("UPDATE trial_components SET started=?, ended=? WHERE id=?", started, ended, id);
            std::vector<std::pair<std::int64_t, MetricSummary>> sums;
            for (const auto& s : series)
                sums.emplace_back(w.insertSeries(id, s));
            sp.release();
            // Summaries are written with the batch; only now that every row is in.
            for (const auto& [sid, sum] : sums)
                w.touched[sid].merge(sum);
        });
        flush();
        checkCommitted(id, c.name);
        return id;
    } catch (const std::exception& e) {
        throw std::runtime_error("cannot record job " + c.name + " in " + d->path + ": " +
                                 e.what());
    }
}

// A batch lost after the write ran (disk full, I/O) rolls the row back after its promise was
// kept: the row is looked for once committed.
void StoreWriter::checkCommitted(ComponentId id, const std::string& name) {
    bool committed = false;
    runAndWait([&](Impl& w) {
        committed =
            queryOne<int>(*w.db, "SELECT 1 FROM trial_components WHERE id=? AND name=?", id, name)
                .has_value();
    });
    if (!committed)
        throw std::runtime_error("the write was not committed: " + lastError());
}

void StoreWriter::runAndWait(const std::function<void(Impl&)>& work) {
    d->releaseGroup();
    auto promise = std::make_shared<std::promise<void>>();
    auto future = promise->get_future();
    d->push(Impl::Generic([work, promise](Impl& w) {
        try {
            work(w);
            promise->set_value();
        } catch (...) {
            promise->set_exception(std::current_exception());
        }
    }));
    d->urgentBegin();
    try {
        future.get();
    } catch (...) {
        d->urgentEnd();
        throw;
    }
    d->urgentEnd();
}

void StoreWriter::createExperiment(const std::string& name, const std::string& description,
                                   double created) {
    runAndWait([=](Impl& w) {
        if (queryOne<int>(*w.db, "SELECT 1 FROM experiments WHERE name=?", name))
            throw std::runtime_error("experiment \"" + name + "\" already exists");
        w.run("INSERT INTO experiments(name, description, created) VALUES(?,?,?)", name,
              description, created);
    });
    flush();
}

void StoreWriter::createTrial(const std::string& experiment, const std::string& trial,
                              double created) {
    runAndWait([=](Impl& w) {
        const auto exp =
            queryOne<std::int64_t>(*w.db, "SELECT id FROM experiments WHERE name=?", experiment);
        if (!exp)
            throw std::runtime_error("experiment \"" + experiment + "\" does not exist");
        if (queryOne<int>(*w.db, "SELECT 1 FROM trials WHERE experiment_id=? AND name=?", *exp,
                          trial))
            throw std::runtime_error("trial \"" + trial + "\" already exists in experiment \"" +
                                     experiment + "\"");
        w.run("INSERT INTO trials(experiment_id, name, created) VALUES(?,?,?)", *exp, trial,
              created);
    });
    flush();
}

void StoreWriter::assignComponent(ComponentId id, const std::string& experiment,
                                  const std::string& trial) {
    runAndWait([=](Impl& w) {
        const auto trialId = queryOne<std::int64_t>(
            *w.db,
            "SELECT trials.id FROM trials JOIN experiments ON experiments.id = "
            "trials.experiment_id WHERE experiments.name=? AND trials.name=?",
            experiment, trial);
        if (!trialId)
            throw std::runtime_error("trial \"" + trial + "\" does not exist in experiment \"" +
                                     experiment + "\"");
        const auto oldTrial =
            queryOne<std::int64_t>(*w.db, "SELECT trial_id FROM trial_components WHERE id=?", id);
        if (!oldTrial)
            throw std::runtime_error("no trial component with id " + std::to_string(id));
        w.run("UPDATE trial_components SET trial_id=? WHERE id=?", *trialId, id);
        if (*oldTrial != *trialId)
            w.run("DELETE FROM trials WHERE id=? AND NOT EXISTS (SELECT 1 FROM trial_components "
                  "WHERE trial_id=?)",
                  *oldTrial, *oldTrial);
    });
    flush();
}

void StoreWriter::setParameter(ComponentId id, const ParameterRow& p) {
    d->pushRun("INSERT OR REPLACE INTO parameters(component_id, name, value, number) "
               "VALUES(?,?,?,?)",
               id, p.name, p.value, p.number);
}

void StoreWriter::setStatus(ComponentId id, const std::string& status, const std::string& secondary,
                            const std::string& message, double time) {
    d->push(Impl::Generic([=](Impl& w) {
        w.run("UPDATE trial_components SET status=?, secondary_status=? WHERE id=?", status,
              secondary, id);
        w.run("INSERT INTO status_history(component_id, time, status, secondary_status, message) "
              "VALUES(?,?,?,?,?)",
              id, time, status, secondary, message);
    }));
}

void StoreWriter::setFailureReason(ComponentId id, const std::string& reason) {
    d->pushRun("UPDATE trial_components SET failure_reason=? WHERE id=?", reason, id);
}

void StoreWriter::setStarted(ComponentId id, double time) {
    d->pushRun("UPDATE trial_components SET started=? WHERE id=?", time, id);
}

void StoreWriter::setEnded(ComponentId id, double time) {
    d->pushRun("UPDATE trial_components SET ended=? WHERE id=?", time, id);
}

void StoreWriter::setNotes(ComponentId id, const std::string& notes) {
    d->pushRun("UPDATE trial_components SET notes=? WHERE id=?", notes, id);
}

void StoreWriter::addProtocolErrors(ComponentId id, int count) {
    d->pushRun("UPDATE trial_components SET protocol_errors=protocol_errors+? WHERE id=?", count,
               id);
}

void StoreWriter::addMetric(ComponentId id, const std::string& name, const MetricPoint& p) {
    d->push(MetricRec{id, name, p});
}

void StoreWriter::addSystemSample(ComponentId id, int node, const std::string& device,
                                  const std::string& metric, double time, double value) {
    d->push(SysRec{id, node, device, metric, time, value});
}

} // namespace studio::store
