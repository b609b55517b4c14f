// The schema, as forward-only migrations. Never edit a released step: add the next one.
#include "engine/store/database.h"

#include <SQLiteCpp/Transaction.h>

#include <stdexcept>
#include <vector>

namespace studio::store {
namespace {

// Version 1: experiments, trials, jobs, parameters, statuses, metrics, ranks and logs.
const char* kVersion1 = R"SQL(
CREATE TABLE experiments(
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL);
CREATE TABLE trials(
    id INTEGER PRIMARY KEY,
    experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    created REAL NOT NULL,
    UNIQUE(experiment_id, name));
CREATE TABLE trial_components(
    id INTEGER PRIMARY KEY,
    trial_id INTEGER NOT NULL REFERENCES trials(id) ON DELETE CASCADE,
    name TEXT NOT NULL UNIQUE,
    display_name TEXT NOT NULL,
    status TEXT NOT NULL,
    secondary_status TEXT NOT NULL,
    failure_reason TEXT NOT NULL DEFAULT '',
    instance_type TEXT NOT NULL DEFAULT 'local',
    instance_count INTEGER NOT NULL DEFAULT 1,
    processes_per_host INTEGER NOT NULL DEFAULT 1,
    entry_point TEXT NOT NULL DEFAULT '',
    spec_json TEXT NOT NULL DEFAULT '',
    job_dir TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL,
    started REAL,
    ended REAL);
CREATE INDEX trial_components_trial ON trial_components(trial_id);
CREATE TABLE parameters(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    number REAL,
    PRIMARY KEY(component_id, name)) WITHOUT ROWID;
CREATE TABLE status_history(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    time REAL NOT NULL,
    status TEXT NOT NULL,
    secondary_status TEXT NOT NULL,
    message TEXT NOT NULL DEFAULT '');
CREATE INDEX status_history_component ON status_history(component_id, time);
CREATE TABLE metric_series(
    id INTEGER PRIMARY KEY,
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    UNIQUE(component_id, name));
CREATE TABLE metric_points(
    series_id INTEGER NOT NULL,
    step INTEGER NOT NULL,
    time REAL NOT NULL,
    value REAL,
    node INTEGER NOT NULL,
    rank INTEGER NOT NULL);
CREATE INDEX metric_points_series ON metric_points(series_id, step);
CREATE TABLE metric_summaries(
    series_id INTEGER PRIMARY KEY REFERENCES metric_series(id) ON DELETE CASCADE,
    count INTEGER NOT NULL,
    min REAL, max REAL, mean REAL, m2 REAL,
    last REAL, last_step INTEGER, last_time REAL,
    non_finite INTEGER NOT NULL DEFAULT 0);
CREATE TABLE nodes(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    node INTEGER NOT NULL,
    host TEXT NOT NULL DEFAULT '',
    launcher_pid INTEGER,
    cores INTEGER NOT NULL DEFAULT 0,
    gpus INTEGER NOT NULL DEFAULT 0,
    started REAL, ended REAL, exit_code INTEGER,
    PRIMARY KEY(component_id, node)) WITHOUT ROWID;
CREATE TABLE ranks(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    rank INTEGER NOT NULL,
    node INTEGER NOT NULL,
    local_rank INTEGER NOT NULL,
    pid INTEGER,
    started REAL, ended REAL, exit_code INTEGER, signal INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY(component_id, rank)) WITHOUT ROWID;
CREATE TABLE log_files(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    node INTEGER NOT NULL,
    rank INTEGER NOT NULL,
    path TEXT NOT NULL,
    lines INTEGER NOT NULL DEFAULT 0,
    bytes INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY(component_id, node, rank)) WITHOUT ROWID;
)SQL";

// Version 2: profiling, debugger, checkpoints, spot billing, and the collaboration fields.
const char* kVersion2 = R"SQL(
ALTER TABLE trial_components ADD COLUMN notes TEXT NOT NULL DEFAULT '';
ALTER TABLE trial_components ADD COLUMN protocol_errors INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trial_components ADD COLUMN owner TEXT NOT NULL DEFAULT '';
CREATE TABLE system_series(
    id INTEGER PRIMARY KEY,
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    node INTEGER NOT NULL,
    device TEXT NOT NULL,
    metric TEXT NOT NULL,
    UNIQUE(component_id, node, device, metric));
CREATE TABLE system_samples(
    series_id INTEGER NOT NULL,
    time REAL NOT NULL,
    value REAL NOT NULL);
CREATE INDEX system_samples_series ON system_samples(series_id, time);
CREATE TABLE step_timings(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    node INTEGER NOT NULL, rank INTEGER NOT NULL,
    step INTEGER NOT NULL, phase TEXT NOT NULL, time REAL NOT NULL,
    data_ms REAL, forward_ms REAL, backward_ms REAL, comm_ms REAL, optimizer_ms REAL);
CREATE INDEX step_timings_component ON step_timings(component_id, step);
CREATE TABLE tensor_reductions(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    collection TEXT NOT NULL, tensor TEXT NOT NULL, reduction TEXT NOT NULL,
    value REAL, node INTEGER NOT NULL, rank INTEGER NOT NULL);
CREATE INDEX tensor_reductions_component ON tensor_reductions(component_id, tensor, step);
CREATE TABLE rule_evaluations(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    rule TEXT NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL,
    message TEXT NOT NULL DEFAULT '', updated REAL NOT NULL,
    PRIMARY KEY(component_id, rule)) WITHOUT ROWID;
CREATE TABLE findings(
    id INTEGER PRIMARY KEY,
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    rule TEXT NOT NULL, time REAL NOT NULL, step INTEGER, node INTEGER, device TEXT,
    message TEXT NOT NULL, recommendation TEXT NOT NULL DEFAULT '',
    criteria TEXT NOT NULL DEFAULT '');
CREATE INDEX findings_component ON findings(component_id, time);
CREATE TABLE notifications(
    id INTEGER PRIMARY KEY,
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    time REAL NOT NULL, rule TEXT NOT NULL, message TEXT NOT NULL);
CREATE TABLE checkpoints(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    node INTEGER NOT NULL, rank INTEGER NOT NULL, step INTEGER NOT NULL, time REAL NOT NULL,
    path TEXT NOT NULL, sha256 TEXT NOT NULL DEFAULT '', bytes INTEGER NOT NULL DEFAULT 0);
CREATE INDEX checkpoints_component ON checkpoints(component_id, step);
CREATE TABLE billing_segments(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    attempt INTEGER NOT NULL, start REAL NOT NULL, end REAL NOT NULL, kind TEXT NOT NULL);
CREATE INDEX billing_segments_component ON billing_segments(component_id, start);
CREATE TABLE artifacts(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    name TEXT NOT NULL, kind TEXT NOT NULL, value TEXT NOT NULL,
    media_type TEXT NOT NULL DEFAULT '',
    PRIMARY KEY(component_id, kind, name)) WITHOUT ROWID;
CREATE TABLE tags(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    key TEXT NOT NULL, value TEXT NOT NULL DEFAULT '',
    PRIMARY KEY(component_id, key)) WITHOUT ROWID;
)SQL";

// Version 3: the debugger: tensor modes, rule evaluation details, framework profile events.
const char* kVersion3 = R"SQL(
ALTER TABLE tensor_reductions ADD COLUMN phase TEXT NOT NULL DEFAULT 'train';
ALTER TABLE rule_evaluations ADD COLUMN fired INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rule_evaluations ADD COLUMN datapoints INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rule_evaluations ADD COLUMN parameters TEXT NOT NULL DEFAULT '';
ALTER TABLE rule_evaluations ADD COLUMN actions TEXT NOT NULL DEFAULT '';
ALTER TABLE rule_evaluations ADD COLUMN details TEXT NOT NULL DEFAULT '{}';
ALTER TABLE rule_evaluations ADD COLUMN criteria TEXT NOT NULL DEFAULT '';
CREATE TABLE framework_events(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    node INTEGER NOT NULL, rank INTEGER NOT NULL, step INTEGER NOT NULL, phase TEXT NOT NULL,
    name TEXT NOT NULL, category TEXT NOT NULL, start REAL NOT NULL, duration_ms REAL NOT NULL,
    pid INTEGER NOT NULL DEFAULT 0);
CREATE INDEX framework_events_component ON framework_events(component_id, start);
)SQL";

// Version 4: clusters, and jobs that outlive the studio: each node's journal on its host, the
// byte offset stored so far, and what a studio needs to take a running job over.
const char* kVersion4 = R"SQL(
ALTER TABLE trial_components ADD COLUMN cluster TEXT NOT NULL DEFAULT 'local';
ALTER TABLE trial_components ADD COLUMN run_state TEXT NOT NULL DEFAULT '';
CREATE TABLE clusters(
    name TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    config TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    last_check TEXT NOT NULL DEFAULT '') WITHOUT ROWID;
CREATE TABLE journals(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    node INTEGER NOT NULL,
    attempt INTEGER NOT NULL DEFAULT 1,
    host TEXT NOT NULL,
    path TEXT NOT NULL,
    launcher_pid INTEGER NOT NULL DEFAULT 0,
    launcher_start TEXT NOT NULL DEFAULT '',
    byte_offset INTEGER NOT NULL DEFAULT 0,
    state TEXT NOT NULL DEFAULT 'starting',
    state_since REAL,
    message TEXT NOT NULL DEFAULT '',
    PRIMARY KEY(component_id, node)) WITHOUT ROWID;
)SQL";

// Version 5: the device each rank trains on, as its trainer reports it ("cuda:1 (NVIDIA ...)").
const char* kVersion5 = R"SQL(
ALTER TABLE ranks ADD COLUMN device TEXT NOT NULL DEFAULT '';
)SQL";

// Version 6: jobs on Slurm clusters: one row per Slurm job a studio job submitted (a job
// resubmitted after a node failure has several), with Slurm's last word on it and the batch
// script as submitted.
const char* kVersion6 = R"SQL(
CREATE TABLE slurm_jobs(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    job_id INTEGER NOT NULL,
    attempt INTEGER NOT NULL DEFAULT 1,
    cluster TEXT NOT NULL,
    partition TEXT NOT NULL DEFAULT '',
    state TEXT NOT NULL DEFAULT '',
    reason TEXT NOT NULL DEFAULT '',
    nodes TEXT NOT NULL DEFAULT '',
    restarts INTEGER NOT NULL DEFAULT 0,
    exit_code INTEGER,
    submitted REAL,
    started REAL,
    ended REAL,
    updated REAL,
    script TEXT NOT NULL DEFAULT '',
    PRIMARY KEY(component_id, job_id)) WITHOUT ROWID;
)SQL";

// Version 7: hyperparameter tuning jobs and the training jobs each launched, in launch order,
// with the search's coordinates, the objective and how each ended as the search sees it.
const char* kVersion7 = R"SQL(
CREATE TABLE tuning_jobs(
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    status TEXT NOT NULL DEFAULT 'InProgress',
    status_message TEXT NOT NULL DEFAULT '',
    strategy TEXT NOT NULL,
    objective_name TEXT NOT NULL,
    objective_type TEXT NOT NULL,
    max_jobs INTEGER NOT NULL,
    max_parallel_jobs INTEGER NOT NULL,
    early_stopping TEXT NOT NULL DEFAULT 'Off',
    random_seed INTEGER NOT NULL DEFAULT 0,
    spec TEXT NOT NULL,
    owner TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL,
    ended REAL);
CREATE TABLE tuning_training_jobs(
    tuning_id INTEGER NOT NULL REFERENCES tuning_jobs(id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    component_id INTEGER REFERENCES trial_components(id) ON DELETE SET NULL,
    hyperparameters TEXT NOT NULL,
    point TEXT NOT NULL,
    bracket INTEGER NOT NULL DEFAULT -1,
    state TEXT NOT NULL DEFAULT 'Pending',
    objective REAL,
    stopped_early INTEGER NOT NULL DEFAULT 0,
    stop_reason TEXT NOT NULL DEFAULT '',
    resumed_from INTEGER NOT NULL DEFAULT -1,
    PRIMARY KEY(tuning_id, ordinal)) WITHOUT ROWID;
CREATE INDEX tuning_training_component ON tuning_training_jobs(component_id);
)SQL";

// Version 8: documents a job's ranks or its controller report whole (what ran: the code, the
// interpreter and its packages; a profiled window's top operators), the last per key winning.
const char* kVersion8 = R"SQL(
CREATE TABLE component_facts(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    topic TEXT NOT NULL,
    node INTEGER NOT NULL,
    rank INTEGER NOT NULL,
    time REAL NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY(component_id, topic, node, rank)) WITHOUT ROWID;
)SQL";

const std::vector<const char*>& migrations() {
    static const std::vector<const char*> steps = {kVersion1, kVersion2, kVersion3, kVersion4,
                                                   kVersion5, kVersion6, kVersion7, kVersion8};
    return steps;
}

} // namespace

int latestSchemaVersion() {
    return static_cast<int>(migrations().size());
}

int schemaVersion(SQLite::Database& db) {
    return db.execAndGet("PRAGMA user_version").getInt();
}

void migrate(SQLite::Database& db, const std::string& path, int target) {
    // Each step reads the version under the write lock: two processes opening a new database
    // at once (a `run` and a `show`) must not both apply the same migration.
    while (true) {
        SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
        const int current = schemaVersion(db);
        if (current > latestSchemaVersion())
            throw std::runtime_error(path + ": schema version " + std::to_string(current) +
                                     " is newer than this studio supports (" +
                                     std::to_string(latestSchemaVersion()) +
                                     "); upgrade the studio");
        if (current >= target) {
            tx.commit();
            return;
        }
        const int v = current + 1;
        try {
            db.exec(migrations()[static_cast<std::size_t>(v - 1)]);
        } catch (const std::exception& e) {
            throw std::runtime_error(path + ": migration to schema version " + std::to_string(v) +
                                     " failed: " + e.what());
        }
        db.exec("PRAGMA user_version = " + std::to_string(v));
        tx.commit();
    }
}

} // namespace studio::store
