// The GUI's one way to the store. It owns the database path and the store readers (opened and
// used on the background-task helper's worker threads, never on the GUI thread), answers the
// views' queries asynchronously, runs the one refresh timer for running jobs, and tells its
// subscribers what changed, from the engine bridge's batches, the tuner's progress and the
// refresh ticks. The main window makes one and hands it to its views. GUI thread only.
#pragma once

#include "engine/store/tuning_records.h"
#include "models/charts/compare_data.h"
#include "models/clusters/cluster_tree_model.h"
#include "models/common/background_task.h"
#include "models/data/billing_queries.h"
#include "models/data/job_queries.h"
#include "models/experiments/experiment_tree_model.h"
#include "models/experiments/leaderboard_table.h"
#include "models/insights/insights_data.h"
#include "models/jobs/job_list_model.h"
#include "models/live/live_batch.h"
#include "models/tuning/tuning_data.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <functional>
#include <memory>
#include <vector>

namespace studio::models {

class EngineBridge;
class ReaderPool;
class TuningBridge;
struct TuningUpdate;

class DataService : public QObject {
    Q_OBJECT
public:
    template <typename T>
    using Done = std::function<void(T)>;
    using Failed = std::function<void(const QString&)>;
    static constexpr int kRefreshMs = 1000;

    explicit DataService(QString databasePath, QObject* parent = nullptr);
    ~DataService() override;

    const QString& databasePath() const { return m_path; }
    // Readers open now (idle or in a query).
    std::size_t openReaders() const;

    // Live sources; either may be null (a window over a store only). The bridges outlive the
    // service or are deleted before it.
    void setBridge(EngineBridge* bridge);
    EngineBridge* bridge() const;
    void setTuningBridge(TuningBridge* bridge);

    // The one refresh timer, always running. Each tick emits refreshed(), then jobChanged() for
    // every watched job and tuningChanged() for every watched tuning job.
    const QTimer& refreshTimer() const { return m_refresh; }
    void setRefreshInterval(int milliseconds);
    // A view that shows a running job (a running tuning job) asks for its refresh until it
    // sees it end, or until the subscriber is destroyed.
    void watchJob(const QString& job, QObject* subscriber);
    void unwatchJob(const QString& job, QObject* subscriber);
    void watchTuningJob(const QString& name, QObject* subscriber);
    void unwatchTuningJob(const QString& name, QObject* subscriber);
    QStringList watchedJobs() const;
    QStringList watchedTuningJobs() const;

    // Queries. Each runs on `task` (the caller's: a newer query on it makes older results
    // stale) with one of the service's readers; done or failed (with the error's message) runs
    // on the task's receiver's thread.
    void leaderboard(BackgroundTask<LeaderboardTable>& task, Done<LeaderboardTable> done,
                     Failed failed = {}) const;
    void experimentTree(BackgroundTask<ExperimentTreeSnapshot>& task,
                        Done<ExperimentTreeSnapshot> done, Failed failed = {}) const;
    void jobList(BackgroundTask<JobListData>& task, Done<JobListData> done,
                 Failed failed = {}) const;
    // A job's tab; its log files too when withLogs.
    void job(BackgroundTask<JobData>& task, const QString& job, bool withLogs, Done<JobData> done,
             Failed failed = {}) const;
    void jobCard(BackgroundTask<JobCardSnapshot>& task, const QString& job,
                 Done<JobCardSnapshot> done, Failed failed = {}) const;
    // The findings of the newest `jobs` jobs, newest first.
    void recentFindings(BackgroundTask<std::vector<FindingItem>>& task, std::size_t jobs,
                        Done<std::vector<FindingItem>> done, Failed failed = {}) const;
    void jobBilling(BackgroundTask<JobBillingData>& task, const QString& job,
                    Done<JobBillingData> done, Failed failed = {}) const;
    void experimentBilling(BackgroundTask<std::vector<JobBillingRow>>& task,
                           const QString& experiment, Done<std::vector<JobBillingRow>> done,
                           Failed failed = {}) const;
    // With `previous` (the last read of the same job), only newer samples are read.
    void insights(BackgroundTask<InsightsData>& task, const QString& job,
                  std::shared_ptr<const InsightsData> previous, Done<InsightsData> done,
                  Failed failed = {}) const;
    void compare(BackgroundTask<CompareData>& task, const QList<qint64>& componentIds,
                 Done<CompareData> done, Failed failed = {}) const;
    void metricCurves(BackgroundTask<QList<CurveSeries>>& task, const QList<CompareJob>& jobs,
                      const QString& metric, Done<QList<CurveSeries>> done,
                      Failed failed = {}) const;
    void tuningJobs(BackgroundTask<std::vector<store::TuningJobRow>>& task,
                    Done<std::vector<store::TuningJobRow>> done, Failed failed = {}) const;
    void tuningJob(BackgroundTask<TuningJobData>& task, const QString& name,
                   Done<TuningJobData> done, Failed failed = {}) const;
    void clusters(BackgroundTask<std::vector<ClusterEntry>>& task,
                  Done<std::vector<ClusterEntry>> done, Failed failed = {}) const;
    // The jobs that run (InProgress or Stopping) on a cluster.
    void jobsRunningOn(BackgroundTask<QStringList>& task, const QString& cluster,
                       Done<QStringList> done, Failed failed = {}) const;

public Q_SLOTS:
    // What the engine bridge reports: statuses and notifications become change notifications.
    void applyBatch(const studio::models::LiveBatch& batch);
    void applyTuningUpdate(const studio::models::TuningUpdate& update);

Q_SIGNALS:
    void refreshed();
    // A job started, changed status or ended.
    void jobsChanged();
    // A job's status changed or a rule notified about it, or a refresh tick while it is watched.
    void jobChanged(const QString& job);
    // A job ended: the figures of its experiment are final.
    void experimentsChanged();
    // A tuning job reported progress, or a refresh tick while it is watched.
    void tuningChanged(const QString& name);

private:
    template <typename T>
    using Query = std::function<T(store::StoreReader&, const CancelFlag&)>;
    template <typename T>
    void run(BackgroundTask<T>& task, Query<T> query, Done<T> done, Failed failed) const;
    void tick();
    void watch(QHash<QString, QSet<QObject*>>& watchers, const QString& name, QObject* subscriber);
    void forget(QObject* subscriber);

    QString m_path;
    std::shared_ptr<ReaderPool> m_readers;
    QTimer m_refresh;
    QPointer<EngineBridge> m_bridge;
    QPointer<TuningBridge> m_tuningBridge;
    QHash<QString, QSet<QObject*>> m_jobWatchers;
    QHash<QString, QSet<QObject*>> m_tuningWatchers;
    QSet<QObject*> m_subscribers;
};

} // namespace studio::models
