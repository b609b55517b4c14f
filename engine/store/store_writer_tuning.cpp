// StoreWriter: hyperparameter tuning jobs and the training jobs they launch.
#include "engine/store/store_writer_impl.h"

#include <nlohmann/json.hpp>

#include <future>

namespace studio::store {

namespace {

std::string pointJson(const std::vector<double>& point) {
    nlohmann::json a = nlohmann::json::array();
    for (double v : point)
        a.push_back(v);
    return a.dump();
}

bool terminalStatus(const std::string& status) {
    return status == "Completed" || status == "Failed" || status == "Stopped";
}

} // namespace

TuningId StoreWriter::createTuningJob(const NewTuningJob& t) {
    TuningId id = 0;
    runAndWait([&id, t](Impl& w) {
        if (queryOne<int>(*w.db, "SELECT 1 FROM tuning_jobs WHERE name=?", t.name))
            throw std::runtime_error("a tuning job named '" + t.name + "' exists already");
        w.run("INSERT INTO tuning_jobs(name, strategy, objective_name, objective_type, max_jobs, "
              "max_parallel_jobs, early_stopping, random_seed, spec, owner, created) "
              "VALUES(?,?,?,?,?,?,?,?,?,?,?)",
              t.name, t.strategy, t.objectiveName, t.objectiveType, t.maxJobs, t.maxParallelJobs,
              t.earlyStopping, static_cast<std::int64_t>(t.randomSeed), t.specJson, t.owner,
              t.created);
        id = w.db->getLastInsertRowid();
    });
    flush();
    return id;
}

void StoreWriter::setTuningStatus(TuningId id, const std::string& status,
                                  const std::string& message, double time) {
    const bool terminal = terminalStatus(status);
    d->pushRun("UPDATE tuning_jobs SET status=?, status_message=?, ended=? WHERE id=?", status,
               message, terminal ? std::optional<double>(time) : std::nullopt, id);
}

void StoreWriter::setTuningOwner(TuningId id, const std::string& owner) {
    d->pushRun("UPDATE tuning_jobs SET owner=? WHERE id=?", owner, id);
}

bool StoreWriter::claimTuningOwner(TuningId id, const std::string& expected,
                                   const std::string& owner) {
    return claimRow("tuning_jobs", id, expected, owner);
}

void StoreWriter::putTuningTrainingJob(TuningId id, const TuningTrainingJobRow& row) {
    nlohmann::json hp = nlohmann::json::object();
    for (const auto& [k, v] : row.hyperparameters)
        hp[k] = v;
    const std::string hpText = hp.dump();
    const std::string point = pointJson(row.point);
    d->pushRun("INSERT OR REPLACE INTO tuning_training_jobs(tuning_id, ordinal, component_id, "
               "hyperparameters, point, bracket, state, objective, stopped_early, stop_reason, "
               "resumed_from) VALUES(?,?,?,?,?,?,?,?,?,?,?)",
               id, row.ordinal,
               row.component > 0 ? std::optional<std::int64_t>(row.component) : std::nullopt,
               hpText, point, row.bracket, row.state, row.objective, row.stoppedEarly ? 1 : 0,
               row.stopReason, row.resumedFrom);
}

void StoreWriter::setTuningTrainingOutcome(TuningId id, int ordinal, const std::string& state,
                                           std::optional<double> objective, bool stoppedEarly,
                                           const std::string& stopReason) {
    d->pushRun("UPDATE tuning_training_jobs SET state=?, objective=?, stopped_early=?, "
               "stop_reason=? WHERE tuning_id=? AND ordinal=?",
               state, objective, stoppedEarly ? 1 : 0, stopReason, id, ordinal);
}

} // namespace studio::store
