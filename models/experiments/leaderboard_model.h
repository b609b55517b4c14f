// LeaderboardModel: the leaderboard table (one row per job) as a Qt table model that scopes,
// filters and sorts itself: sorting permutes row indices over keys computed at load, so NaN and
// missing cells stay last in both directions and text sorts naturally ("job-9" before "job-10").
// A QSortFilterProxyModel comparing QVariants could do neither, and is 5-10x slower on 10,000
// rows (bench_leaderboard). GUI thread only.
#pragma once

#include "models/experiments/leaderboard_table.h"

#include <QAbstractTableModel>
#include <QList>

#include <optional>
#include <vector>

namespace studio::models {

class LeaderboardModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Role {
        ComponentIdRole = Qt::UserRole + 1, // qint64
        JobNameRole,                        // QString
        StatusRole,                         // QString: the job's status
        ValueRole,                          // the cell as double or QString; invalid when missing
        SortKeyRole,     // double: the number, the text's rank; NaN when NaN or missing
        ColumnGroupRole, // int (ColumnGroup), also in headerData
        ColumnKindRole,  // int (ColumnKind), also in headerData
        ColumnTitleRole, // headerData: the title filters use ("eval:accuracy - Max")
    };

    explicit LeaderboardModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    // Column -1 restores table (creation) order.
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

    // Replaces the table; keeps scope, filter (compiled again) and sort column (by title).
    // Same columns: rows are replaced without a reset, so header state survives.
    void setTable(LeaderboardTable table);
    const LeaderboardTable& table() const { return m_table; }

    // Rows of one experiment, or one trial of it; empty strings: every row.
    void setScope(const QString& experiment, const QString& trial);
    QString scopeExperiment() const { return m_scopeExperiment; }
    QString scopeTrial() const { return m_scopeTrial; }

    // Applies a filter (blank: none). On a parse error the previous filter stays and the error
    // comes back.
    std::optional<QueryError> setFilter(const QString& text);
    QString filterText() const { return m_filterText; }
    // Set when a new table no longer has a field the filter names (the filter is then off).
    std::optional<QueryError> filterError() const { return m_filterError; }

    int sortColumn() const { return m_sortColumn; }
    Qt::SortOrder sortOrder() const { return m_sortOrder; }

    int scopedCount() const { return m_scoped; } // rows in scope, before the filter
    int tableRow(int row) const { return m_rows[static_cast<std::size_t>(row)]; }
    int rowOfComponent(qint64 id) const; // -1 when not shown
    qint64 componentId(int row) const;

    // Shown text of a cell: compact numbers, times, durations; "" when missing.
    QString displayText(int column, int tableRow) const;

    // After an edit of a job's tags and notes; the row keeps its place.
    void setAnnotations(qint64 componentId, const QMap<QString, QString>& tags,
                        const QString& notes);

    // RFC 4180 CSV of the shown rows in their order, with the given columns in that order:
    // numbers in full precision, times as shown, durations in seconds.
    QString toCsv(const QList<int>& columns) const;

Q_SIGNALS:
    void countsChanged(int shown, int inScope);

private:
    std::vector<int> selectRows(int& scoped) const;
    void replaceRows(std::vector<int> rows);
    std::optional<QueryError> compileFilter();

    LeaderboardTable m_table;
    std::vector<int> m_rows; // shown table rows, in order
    QString m_scopeExperiment;
    QString m_scopeTrial;
    QString m_filterText;
    LeaderboardQuery m_query;
    std::optional<QueryError> m_filterError;
    int m_scoped = 0;
    int m_sortColumn = -1;
    QString m_sortTitle;
    Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
};

} // namespace studio::models
