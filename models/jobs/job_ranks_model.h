// A job's ranks: where each ran (node, local rank, pid), the device its trainer reported, when it
// started and how it ended. Fed from a job's stored detail. GUI thread only.
#pragma once

#include "engine/store/records.h"

#include <QAbstractTableModel>

#include <vector>

namespace studio::models {

class JobRanksModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        RankColumn,
        NodeColumn,
        LocalRankColumn,
        PidColumn,
        DeviceColumn,
        StartedColumn,
        ExitColumn,
        ColumnCount
    };
    enum Role { StatusRole = Qt::UserRole + 1 }; // QString: InProgress, Completed or Failed

    explicit JobRanksModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    void setRanks(const std::vector<store::RankRow>& ranks);

    // "InProgress" while it runs, "Completed" for exit code 0, else "Failed".
    static QString statusOf(const store::RankRow& rank);

private:
    std::vector<store::RankRow> m_rows;
};

} // namespace studio::models
