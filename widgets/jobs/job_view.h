// A job's tab: header with status, where it runs and actions, then Overview (timeline, the Slurm
// jobs of a job on Slurm with their batch script, nodes and their connections, ranks with their
// devices and exit codes, failure reason, checkpoints, artifacts, parameters), Metrics (live
// charts), Logs, Rules, What ran and Spec. Reads the store through the data service; live updates
// come from the engine bridge's batches.
#pragma once

#include "engine/store/records.h"
#include "models/common/background_task.h"
#include "models/console/log_model.h"
#include "models/data/job_queries.h"
#include "models/live/live_batch.h"

#include <QWidget>

#include <map>

class QLabel;
class QLayout;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;
class QTableView;
class QTimer;

namespace studio::models {
class DataService;
class FindingsModel;
class JobArtifactsModel;
class JobCheckpointsModel;
class JobNodesModel;
class JobParametersModel;
class JobRanksModel;
class JobRulesModel;
class JobTransitionsModel;
} // namespace studio::models

namespace studio::widgets {

class ConsolePanel;
class JobBillingView;
class MetricsGrid;
class SlurmJobPanel;
class StatusTimeline;
class WhatRanView;

class JobView : public QWidget {
    Q_OBJECT
public:
    JobView(models::DataService* service, QString job, QWidget* parent = nullptr);

    const QString& job() const { return m_job; }
    QString status() const;
    bool loaded() const { return m_loaded; }
    QString specJson() const { return QString::fromStdString(m_detail.specJson); }
    // Whether the controller of this studio runs the job (Stop is possible).
    void setStoppable(bool stoppable);
    void applyBatch(const models::LiveBatch& batch);
    void reload();
    QTabWidget* tabs() const { return m_tabs; }
    MetricsGrid* metrics() const { return m_metrics; }
    WhatRanView* whatRan() const { return m_whatRan; }

Q_SIGNALS:
    void stopRequested(const QString& job);
    void cloneRequested(const QString& specJson);
    void insightsRequested(const QString& job);
    // A spot interruption notice for the job (managed spot training restarts it).
    void interruptRequested(const QString& job);
    void dataLoaded();

private:
    void present(models::JobData data);
    QLayout* buildHeader();
    QWidget* buildOverview();
    void buildOverviewTables(QWidget* page);
    QLayout* overviewSections(QWidget* page);
    QWidget* buildRulesPage();
    void fillOverview(const store::ComponentDetail& d);
    void fillFacts(const store::ComponentDetail& d);
    void fillRules(const store::ComponentDetail& d);

    models::DataService* m_service;
    QString m_job;
    bool m_loaded = false;
    bool m_stoppable = false;
    bool m_spot = false;
    bool m_logsLoaded = false;
    QList<models::LiveLogLine> m_earlyLogs; // live lines that came before the log files were read
    store::ComponentDetail m_detail;
    models::BackgroundTask<models::JobData> m_task{this};
    QTimer* m_reloadSoon;

    QLabel* m_title;
    QLabel* m_status;
    QLabel* m_subtitle;
    QPushButton* m_stop;
    QPushButton* m_interrupt;
    QPushButton* m_clone;
    QTabWidget* m_tabs;
    // Overview
    QLabel* m_facts;
    QLabel* m_failure;
    StatusTimeline* m_timeline;
    models::JobTransitionsModel* m_transitionsModel;
    QTableView* m_transitions;
    QLabel* m_slurmTitle;
    SlurmJobPanel* m_slurm;
    models::JobNodesModel* m_nodesModel;
    QTableView* m_nodes;
    models::JobRanksModel* m_ranksModel;
    QTableView* m_ranks;
    models::JobCheckpointsModel* m_checkpointsModel;
    QTableView* m_checkpoints;
    models::JobArtifactsModel* m_artifactsModel;
    QTableView* m_artifacts;
    models::JobParametersModel* m_parametersModel;
    QTableView* m_parameters;
    // Other tabs
    MetricsGrid* m_metrics;
    ConsolePanel* m_console;
    WhatRanView* m_whatRan;
    models::JobRulesModel* m_rulesModel;
    QTableView* m_rules;
    models::FindingsModel* m_findingsModel;
    QTableView* m_findings;
    JobBillingView* m_billing;
    QPlainTextEdit* m_spec;
};

} // namespace studio::widgets
