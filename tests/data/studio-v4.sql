-- A studio database at schema version 4, as a studio of that version left it (see
-- engine/store/schema.cpp): studio-v1.sql migrated, with a cluster and a journal. Its ranks have
-- no device column; version 5 adds it.
PRAGMA user_version = 4;
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE experiments(
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL);
INSERT INTO experiments VALUES(1,'legacy-exp','made by studio 0.0 (schema 1)',1700000000.0);
INSERT INTO experiments VALUES(2,'Unassigned','',1700000000.0);
CREATE TABLE log_files(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    node INTEGER NOT NULL,
    rank INTEGER NOT NULL,
    path TEXT NOT NULL,
    lines INTEGER NOT NULL DEFAULT 0,
    bytes INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY(component_id, node, rank)) WITHOUT ROWID;
INSERT INTO log_files VALUES(1,0,0,'/tmp/legacy/logs/rank-0.log',120,4096);
CREATE TABLE metric_points(
    series_id INTEGER NOT NULL,
    step INTEGER NOT NULL,
    time REAL NOT NULL,
    value REAL,
    node INTEGER NOT NULL,
    rank INTEGER NOT NULL);
INSERT INTO metric_points VALUES(1,0,1700000010.0,2.0,0,0);
INSERT INTO metric_points VALUES(1,1,1700000020.0,1.0,0,0);
INSERT INTO metric_points VALUES(1,2,1700000030.0,0.5,0,0);
CREATE TABLE metric_series(
    id INTEGER PRIMARY KEY,
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    UNIQUE(component_id, name));
INSERT INTO metric_series VALUES(1,1,'train:loss');
CREATE TABLE metric_summaries(
    series_id INTEGER PRIMARY KEY REFERENCES metric_series(id) ON DELETE CASCADE,
    count INTEGER NOT NULL,
    min REAL, max REAL, mean REAL, m2 REAL,
    last REAL, last_step INTEGER, last_time REAL,
    non_finite INTEGER NOT NULL DEFAULT 0);
INSERT INTO metric_summaries VALUES(1,3,0.5,2.0,1.1666666666666667406,1.1666666666666667406,0.5,2,1700000030.0,0);
CREATE TABLE nodes(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    node INTEGER NOT NULL,
    host TEXT NOT NULL DEFAULT '',
    launcher_pid INTEGER,
    cores INTEGER NOT NULL DEFAULT 0,
    gpus INTEGER NOT NULL DEFAULT 0,
    started REAL, ended REAL, exit_code INTEGER,
    PRIMARY KEY(component_id, node)) WITHOUT ROWID;
INSERT INTO nodes VALUES(1,0,'algo-1',4242,8,0,1700000000.4999999999,1700000060.0,0);
CREATE TABLE parameters(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    number REAL,
    PRIMARY KEY(component_id, name)) WITHOUT ROWID;
INSERT INTO parameters VALUES(1,'lr','0.1',0.10000000000000000555);
INSERT INTO parameters VALUES(1,'optimizer','sgd',NULL);
CREATE TABLE ranks(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    rank INTEGER NOT NULL,
    node INTEGER NOT NULL,
    local_rank INTEGER NOT NULL,
    pid INTEGER,
    started REAL, ended REAL, exit_code INTEGER, signal INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY(component_id, rank)) WITHOUT ROWID;
INSERT INTO ranks VALUES(1,0,0,0,4243,1700000001.0,1700000060.0,0,0);
INSERT INTO ranks VALUES(1,1,0,1,4244,1700000001.0,1700000060.0,0,0);
CREATE TABLE status_history(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    time REAL NOT NULL,
    status TEXT NOT NULL,
    secondary_status TEXT NOT NULL,
    message TEXT NOT NULL DEFAULT '');
INSERT INTO status_history VALUES(1,1700000000.0,'InProgress','Starting','');
INSERT INTO status_history VALUES(1,1700000001.0,'InProgress','Training','');
INSERT INTO status_history VALUES(1,1700000060.0,'Completed','Completed','');
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
    ended REAL, notes TEXT NOT NULL DEFAULT '', protocol_errors INTEGER NOT NULL DEFAULT 0, owner TEXT NOT NULL DEFAULT '', cluster TEXT NOT NULL DEFAULT 'local', run_state TEXT NOT NULL DEFAULT '');
INSERT INTO trial_components VALUES(1,1,'legacy-job-2023-11-14-22-13-20-000','legacy job','Completed','Completed','','local',1,2,'/usr/bin/python3','{"entry_point": ["/usr/bin/python3", "train.py"]}','/tmp/legacy',1700000000.0,1700000001.0,1700000060.0,'kept across migrations',0,'','lab','');
CREATE TABLE trials(
    id INTEGER PRIMARY KEY,
    experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    created REAL NOT NULL,
    UNIQUE(experiment_id, name));
INSERT INTO trials VALUES(1,1,'trial-a',1700000001.0);
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
CREATE TABLE step_timings(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    node INTEGER NOT NULL, rank INTEGER NOT NULL,
    step INTEGER NOT NULL, phase TEXT NOT NULL, time REAL NOT NULL,
    data_ms REAL, forward_ms REAL, backward_ms REAL, comm_ms REAL, optimizer_ms REAL);
CREATE TABLE tensor_reductions(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    collection TEXT NOT NULL, tensor TEXT NOT NULL, reduction TEXT NOT NULL,
    value REAL, node INTEGER NOT NULL, rank INTEGER NOT NULL, phase TEXT NOT NULL DEFAULT 'train');
CREATE TABLE rule_evaluations(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    rule TEXT NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL,
    message TEXT NOT NULL DEFAULT '', updated REAL NOT NULL, fired INTEGER NOT NULL DEFAULT 0, datapoints INTEGER NOT NULL DEFAULT 0, parameters TEXT NOT NULL DEFAULT '', actions TEXT NOT NULL DEFAULT '', details TEXT NOT NULL DEFAULT '{}', criteria TEXT NOT NULL DEFAULT '',
    PRIMARY KEY(component_id, rule)) WITHOUT ROWID;
CREATE TABLE findings(
    id INTEGER PRIMARY KEY,
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    rule TEXT NOT NULL, time REAL NOT NULL, step INTEGER, node INTEGER, device TEXT,
    message TEXT NOT NULL, recommendation TEXT NOT NULL DEFAULT '',
    criteria TEXT NOT NULL DEFAULT '');
CREATE TABLE notifications(
    id INTEGER PRIMARY KEY,
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    time REAL NOT NULL, rule TEXT NOT NULL, message TEXT NOT NULL);
CREATE TABLE checkpoints(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    node INTEGER NOT NULL, rank INTEGER NOT NULL, step INTEGER NOT NULL, time REAL NOT NULL,
    path TEXT NOT NULL, sha256 TEXT NOT NULL DEFAULT '', bytes INTEGER NOT NULL DEFAULT 0);
CREATE TABLE billing_segments(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    attempt INTEGER NOT NULL, start REAL NOT NULL, end REAL NOT NULL, kind TEXT NOT NULL);
CREATE TABLE artifacts(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    name TEXT NOT NULL, kind TEXT NOT NULL, value TEXT NOT NULL,
    media_type TEXT NOT NULL DEFAULT '',
    PRIMARY KEY(component_id, kind, name)) WITHOUT ROWID;
CREATE TABLE tags(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    key TEXT NOT NULL, value TEXT NOT NULL DEFAULT '',
    PRIMARY KEY(component_id, key)) WITHOUT ROWID;
CREATE TABLE framework_events(
    component_id INTEGER NOT NULL REFERENCES trial_components(id) ON DELETE CASCADE,
    node INTEGER NOT NULL, rank INTEGER NOT NULL, step INTEGER NOT NULL, phase TEXT NOT NULL,
    name TEXT NOT NULL, category TEXT NOT NULL, start REAL NOT NULL, duration_ms REAL NOT NULL,
    pid INTEGER NOT NULL DEFAULT 0);
CREATE TABLE clusters(
    name TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    config TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    last_check TEXT NOT NULL DEFAULT '') WITHOUT ROWID;
INSERT INTO clusters VALUES('lab','ssh','{"hosts":["gpu-a"]}',1700000000.0,1700000000.0,'');
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
INSERT INTO journals VALUES(1,0,1,'gpu-a','/srv/mlstudio/jobs/legacy/logs/node-0/journal.jsonl',4242,'123456',8192,'ended',1700000060.0,'');
CREATE INDEX trial_components_trial ON trial_components(trial_id);
CREATE INDEX status_history_component ON status_history(component_id, time);
CREATE INDEX metric_points_series ON metric_points(series_id, step);
CREATE INDEX system_samples_series ON system_samples(series_id, time);
CREATE INDEX step_timings_component ON step_timings(component_id, step);
CREATE INDEX tensor_reductions_component ON tensor_reductions(component_id, tensor, step);
CREATE INDEX findings_component ON findings(component_id, time);
CREATE INDEX checkpoints_component ON checkpoints(component_id, step);
CREATE INDEX billing_segments_component ON billing_segments(component_id, start);
CREATE INDEX framework_events_component ON framework_events(component_id, start);
COMMIT;
