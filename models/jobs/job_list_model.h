// The Jobs explorer's list: every job in the store, newest first, with its status, the cluster
// it runs on, its newest Slurm job (id, partition, nodes or pending reason) for jobs on Slurm, and
// live progress for the ones running in this studio. Loads through the data service and reloads
// when it says jobs changed; GUI thread only.
#pragma once

#include "engine/store/records.h"
#include "models/common/background_task.h"
#include "models/live/live_batch.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QTimer>

#include <map>
#include <vector>

namespace studio::store {
class StoreReader;
}

namespace studio::models {

class DataService;

// Every job, newest first, with the newest Slurm job of each job that has one.
struct JobListData {
    std::vector<store::ComponentRow> rows;
    std::map<store::ComponentId, store::SlurmJobRow> slurm;
};

JobListData loadJobList(store::StoreReader& reader);

class JobListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        StatusColumn,
        CreatedColumn,
        DurationColumn,
        ClusterColumn,
        SlurmColumn, // "4101 · gpu · h[1-2]", or "(Resources)" for the nodes while pending
        ColumnCount
    };
    enum Role {
        JobNameRole = Qt::UserRole + 1,
        ComponentIdRole,
        StatusRole,
        ProgressRole,
        ClusterRole,
        SlurmJobIdRole,     // qlonglong; invalid for a job not on Slurm
        SlurmPartitionRole, // QString
        SlurmNodesRole,     // QString: the allocation, "" while pending
        SlurmReasonRole     // QString: why Slurm keeps the job pending; "" when it does not
    };

    explicit JobListModel(DataService* data, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

    // Reloads from the store (coalesced: at most one load every 300 ms).
    void refresh();
    // Steps of running jobs (a new job or a status change reloads through the service).
    void applyBatch(const LiveBatch& batch);
    void setTotalSteps(const QString& job, qint64 total);
    int rowOf(const QString& job) const;
    const store::ComponentRow& row(int r) const { return m_rows[static_cast<std::size_t>(r)]; }
    // Whether some job ran on Slurm (views show the Slurm column only then).
    bool hasSlurmJobs() const { return !m_slurm.empty(); }

Q_SIGNALS:
    void loaded();

private:
    void load();
    void setRows(JobListData fresh);
    QVariant slurmData(const store::ComponentRow& r, int role) const;
    QString statusText(const store::ComponentRow& r) const;

    DataService* m_service;
    std::vector<store::ComponentRow> m_rows;
    std::map<store::ComponentId, store::SlurmJobRow> m_slurm;
    QHash<QString, QPair<qint64, qint64>> m_progress; // job -> step, total
    BackgroundTask<JobListData> m_task{this};
    QTimer m_coalesce;
};

} // namespace studio::models
