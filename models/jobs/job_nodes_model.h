// A job's nodes as the studio follows them: each node's host, its launcher's pid, the link to
// the journal its launcher appends on that host (following, reconnecting since when, ended,
// lost, with the reason) and whether a studio took the job over after the one that started it
// had gone. Fed from a job's stored detail. GUI thread only.
#pragma once

#include "engine/store/records.h"

#include <QAbstractTableModel>

#include <optional>
#include <vector>

namespace studio::models {

class JobNodesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        NodeColumn,
        HostColumn,
        LauncherPidColumn,
        ConnectionColumn,
        FollowedColumn,
        MessageColumn,
        ColumnCount
    };
    enum Role { StateRole = Qt::UserRole + 1 }; // QString: the journal's state ("" without one)

    explicit JobNodesModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    void setDetail(const store::ComponentDetail& detail);
    // When a studio last took the job over (0: the studio that started it follows it).
    double takenOver() const { return m_takenOver; }

    // "following", "reconnecting since 14:03:22", "ended", "lost", "starting".
    static QString connectionText(const store::JournalRow& journal);

private:
    struct Row {
        int node = 0;
        std::string host;
        std::int64_t launcherPid = 0;
        std::optional<store::JournalRow> journal;
    };

    std::vector<Row> m_rows;
    double m_takenOver = 0;
};

} // namespace studio::models
