// A job's Slurm jobs, oldest first (a job resubmitted after a node failure has several): Slurm's
// job id, the studio attempt, partition, state with its reason, allocated nodes, requeues, exit
// code and times; each row's batch script as submitted in ScriptRole. GUI thread only.
#pragma once

#include "engine/store/records.h"

#include <QAbstractTableModel>

#include <vector>

namespace studio::models {

class SlurmJobsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        JobIdColumn,
        AttemptColumn,
        PartitionColumn,
        StateColumn, // "PENDING (Resources)": the reason while it says something
        NodesColumn,
        RestartsColumn,
        ExitColumn,
        SubmittedColumn,
        StartedColumn,
        EndedColumn,
        ColumnCount
    };
    enum Role {
        ScriptRole = Qt::UserRole + 1, // QString: the batch script as submitted
        StatusRole,                    // QString: the studio status its state reads as
        JobIdRole                      // qlonglong
    };

    explicit SlurmJobsModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    void setJobs(const std::vector<store::SlurmJobRow>& jobs);

    // Slurm's state as the studio's statuses colour it: RUNNING is InProgress, COMPLETED
    // Completed, CANCELLED Stopped, FAILED, NODE_FAIL, TIMEOUT, ... Failed, PENDING Pending.
    static QString statusOf(const QString& slurmState);
    // "PENDING (Resources)"; the state alone when the reason is empty or None.
    static QString stateText(const store::SlurmJobRow& job);

private:
    std::vector<store::SlurmJobRow> m_rows;
};

} // namespace studio::models
