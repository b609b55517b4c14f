#include "models/data/data_service.h"

#include "engine/store/store_reader.h"
#include "models/data/reader_pool.h"
#include "models/live/engine_bridge.h"
#include "models/live/tuning_bridge.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QThread>

#include <algorithm>

namespace studio::models {

namespace {

double unixNow() {
    return static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
}

QStringList sortedKeys(const QHash<QString, QSet<QObject*>>& watchers) {
    QStringList names = watchers.keys();
    names.sort();
    return names;
}

} // namespace

DataService::DataService(QString databasePath, QObject* parent)
    : QObject(parent)
    , m_path(std::move(databasePath))
    , m_readers(std::make_shared<ReaderPool>(m_path.toStdString())) {
    m_refresh.setInterval(kRefreshMs);
    connect(&m_refresh, &QTimer::timeout, this, &DataService::tick);
    m_refresh.start();
}

DataService::~DataService() = default;

std::size_t DataService::openReaders() const {
    return m_readers->openReaders();
}

template <typename T>
void DataService::run(BackgroundTask<T>& task, Query<T> query, Done<T> done, Failed failed) const {
    // The pool is shared with the work: a query may outlive the service.
    task.run(
        [readers = m_readers, query = std::move(query)](const CancelFlag& cancel) {
            Q_ASSERT(!qApp || QThread::currentThread() != qApp->thread());
            ReaderPool::Lease reader = readers->lease();
            try {
                return query(*reader, cancel);
            } catch (...) {
                reader.discard(); // a failed query may leave its connection in any state
                throw;
            }
        },
        std::move(done), std::move(failed));
}

void DataService::setBridge(EngineBridge* bridge) {
    if (m_bridge)
        disconnect(m_bridge, nullptr, this, nullptr);
    m_bridge = bridge;
    if (bridge)
        connect(bridge, &EngineBridge::batchReady, this, &DataService::applyBatch);
}

EngineBridge* DataService::bridge() const {
    return m_bridge;
}

void DataService::setTuningBridge(TuningBridge* bridge) {
    if (m_tuningBridge)
        disconnect(m_tuningBridge, nullptr, this, nullptr);
    m_tuningBridge = bridge;
    if (bridge)
        connect(bridge, &TuningBridge::progressed, this, &DataService::applyTuningUpdate);
}

void DataService::setRefreshInterval(int milliseconds) {
    m_refresh.setInterval(milliseconds);
}

void DataService::watch(QHash<QString, QSet<QObject*>>& watchers, const QString& name,
                        QObject* subscriber) {
    watchers[name].insert(subscriber);
    if (m_subscribers.contains(subscriber))
        return;
    m_subscribers.insert(subscriber);
    connect(subscriber, &QObject::destroyed, this, [this, subscriber] { forget(subscriber); });
}

void DataService::watchJob(const QString& job, QObject* subscriber) {
    watch(m_jobWatchers, job, subscriber);
}

void DataService::watchTuningJob(const QString& name, QObject* subscriber) {
    watch(m_tuningWatchers, name, subscriber);
}

void DataService::unwatchJob(const QString& job, QObject* subscriber) {
    auto it = m_jobWatchers.find(job);
    if (it != m_jobWatchers.end() && it->remove(subscriber) && it->isEmpty())
        m_jobWatchers.erase(it);
}

void DataService::unwatchTuningJob(const QString& name, QObject* subscriber) {
    auto it = m_tuningWatchers.find(name);
    if (it != m_tuningWatchers.end() && it->remove(subscriber) && it->isEmpty())
        m_tuningWatchers.erase(it);
}

void DataService::forget(QObject* subscriber) {
    m_subscribers.remove(subscriber);
    for (auto* watchers : {&m_jobWatchers, &m_tuningWatchers})
        for (auto it = watchers->begin(); it != watchers->end();) {
            it->remove(subscriber);
            it = it->isEmpty() ? watchers->erase(it) : std::next(it);
        }
}

QStringList DataService::watchedJobs() const {
    return sortedKeys(m_jobWatchers);
}

QStringList DataService::watchedTuningJobs() const {
    return sortedKeys(m_tuningWatchers);
}

void DataService::tick() {
    Q_EMIT refreshed();
    // Copies: a subscriber may stop watching while it is told.
    for (const QString& job : watchedJobs())
        Q_EMIT jobChanged(job);
    for (const QString& name : watchedTuningJobs())
        Q_EMIT tuningChanged(name);
}

void DataService::applyBatch(const LiveBatch& batch) {
    QStringList changed;
    bool ended = false;
    for (const auto& s : batch.statuses) {
        if (!changed.contains(s.job))
            changed.append(s.job);
        ended = ended || s.status != QLatin1String("InProgress");
    }
    for (const auto& n : batch.notifications)
        if (!changed.contains(n.job))
            changed.append(n.job);
    if (!batch.statuses.isEmpty())
        Q_EMIT jobsChanged();
    for (const QString& job : changed)
        Q_EMIT jobChanged(job);
    if (ended)
        Q_EMIT experimentsChanged();
}

void DataService::applyTuningUpdate(const TuningUpdate& update) {
    Q_EMIT tuningChanged(update.name);
}

void DataService::leaderboard(BackgroundTask<LeaderboardTable>& task, Done<LeaderboardTable> done,
                              Failed failed) const {
    // The table reads through several of the pool's readers at once.
    task.run(
        [readers = m_readers](const CancelFlag& cancel) {
            return loadLeaderboardTable(*readers, unixNow(), &cancel);
        },
        std::move(done), std::move(failed));
}

void DataService::experimentTree(BackgroundTask<ExperimentTreeSnapshot>& task,
                                 Done<ExperimentTreeSnapshot> done, Failed failed) const {
    run<ExperimentTreeSnapshot>(
        task, [](store::StoreReader& r, const CancelFlag&) { return loadExperimentTree(r); },
        std::move(done), std::move(failed));
}

void DataService::jobList(BackgroundTask<JobListData>& task, Done<JobListData> done,
                          Failed failed) const {
    run<JobListData>(
        task, [](store::StoreReader& r, const CancelFlag&) { return loadJobList(r); },
        std::move(done), std::move(failed));
}

void DataService::job(BackgroundTask<JobData>& task, const QString& job, bool withLogs,
                      Done<JobData> done, Failed failed) const {
    run<JobData>(
        task,
        [name = job.toStdString(), withLogs](store::StoreReader& r, const CancelFlag& cancel) {
            return loadJobData(r, name, withLogs, cancel);
        },
        std::move(done), std::move(failed));
}

void DataService::jobCard(BackgroundTask<JobCardSnapshot>& task, const QString& job,
                          Done<JobCardSnapshot> done, Failed failed) const {
    run<JobCardSnapshot>(
        task,
        [name = job.toStdString()](store::StoreReader& r, const CancelFlag&) {
            return loadJobCard(r, name);
        },
        std::move(done), std::move(failed));
}

void DataService::recentFindings(BackgroundTask<std::vector<FindingItem>>& task, std::size_t jobs,
                                 Done<std::vector<FindingItem>> done, Failed failed) const {
    run<std::vector<FindingItem>>(
        task,
        [jobs](store::StoreReader& r, const CancelFlag& cancel) {
            return loadRecentFindings(r, jobs, cancel);
        },
        std::move(done), std::move(failed));
}

void DataService::jobBilling(BackgroundTask<JobBillingData>& task, const QString& job,
                             Done<JobBillingData> done, Failed failed) const {
    run<JobBillingData>(
        task,
        [name = job.toStdString()](store::StoreReader& r, const CancelFlag&) {
            return loadJobBilling(r, name, unixNow());
        },
        std::move(done), std::move(failed));
}

void DataService::experimentBilling(BackgroundTask<std::vector<JobBillingRow>>& task,
                                    const QString& experiment,
                                    Done<std::vector<JobBillingRow>> done, Failed failed) const {
    run<std::vector<JobBillingRow>>(
        task,
        [name = experiment.toStdString()](store::StoreReader& r, const CancelFlag& cancel) {
            return loadExperimentBilling(r, name, unixNow(), cancel);
        },
        std::move(done), std::move(failed));
}

void DataService::insights(BackgroundTask<InsightsData>& task, const QString& job,
                           std::shared_ptr<const InsightsData> previous, Done<InsightsData> done,
                           Failed failed) const {
    run<InsightsData>(
        task,
        [name = job.toStdString(), previous](store::StoreReader& r, const CancelFlag&) {
            return loadInsights(r, name, previous.get());
        },
        std::move(done), std::move(failed));
}

void DataService::compare(BackgroundTask<CompareData>& task, const QList<qint64>& componentIds,
                          Done<CompareData> done, Failed failed) const {
    run<CompareData>(
        task,
        [componentIds](store::StoreReader& r, const CancelFlag&) {
            return loadCompareData(r, componentIds);
        },
        std::move(done), std::move(failed));
}

void DataService::metricCurves(BackgroundTask<QList<CurveSeries>>& task,
                               const QList<CompareJob>& jobs, const QString& metric,
                               Done<QList<CurveSeries>> done, Failed failed) const {
    run<QList<CurveSeries>>(
        task,
        [jobs, metric](store::StoreReader& r, const CancelFlag& cancel) {
            return loadMetricCurves(r, jobs, metric, cancel);
        },
        std::move(done), std::move(failed));
}

void DataService::tuningJobs(BackgroundTask<std::vector<store::TuningJobRow>>& task,
                             Done<std::vector<store::TuningJobRow>> done, Failed failed) const {
    run<std::vector<store::TuningJobRow>>(
        task, [](store::StoreReader& r, const CancelFlag&) { return r.tuningJobs(); },
        std::move(done), std::move(failed));
}

void DataService::tuningJob(BackgroundTask<TuningJobData>& task, const QString& name,
                            Done<TuningJobData> done, Failed failed) const {
    run<TuningJobData>(
        task, [name](store::StoreReader& r, const CancelFlag&) { return loadTuningJob(r, name); },
        std::move(done), std::move(failed));
}

void DataService::clusters(BackgroundTask<std::vector<ClusterEntry>>& task,
                           Done<std::vector<ClusterEntry>> done, Failed failed) const {
    run<std::vector<ClusterEntry>>(
        task, [](store::StoreReader& r, const CancelFlag&) { return loadClusterEntries(r); },
        std::move(done), std::move(failed));
}

void DataService::jobsRunningOn(BackgroundTask<QStringList>& task, const QString& cluster,
                                Done<QStringList> done, Failed failed) const {
    run<QStringList>(
        task,
        [name = cluster.toStdString()](store::StoreReader& r, const CancelFlag&) {
            QStringList jobs;
            for (const char* status : {"InProgress", "Stopping"}) {
                store::ComponentFilter f;
                f.status = status;
                for (const auto& c : r.components(f))
                    if (c.cluster == name)
                        jobs << QString::fromStdString(c.name);
            }
            return jobs;
        },
        std::move(done), std::move(failed));
}

} // namespace studio::models
