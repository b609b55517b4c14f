// The shape of the read-only tables of a job's records (transitions, parameters, checkpoints,
// artifacts, rules, findings): one row per record; a subclass names the columns and says what a
// record shows in each. GUI thread only.
#pragma once

#include <QAbstractTableModel>
#include <QStringList>

#include <vector>

namespace studio::models {

template <typename Record>
class RecordTableModel : public QAbstractTableModel {
public:
    using QAbstractTableModel::QAbstractTableModel;

    int rowCount(const QModelIndex& parent = {}) const override {
        return parent.isValid() ? 0 : static_cast<int>(m_records.size());
    }
    int columnCount(const QModelIndex& parent = {}) const override {
        return parent.isValid() ? 0 : static_cast<int>(headers().size());
    }
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override {
        if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
            return {};
        return cell(record(index.row()), index.column(), role);
    }
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override {
        const QStringList names = headers();
        if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 ||
            section >= names.size())
            return {};
        return names[section];
    }

    const std::vector<Record>& records() const { return m_records; }
    const Record& record(int row) const { return m_records[static_cast<std::size_t>(row)]; }

protected:
    // The column headers, in order.
    virtual QStringList headers() const = 0;
    // What a record shows in a column for a role; an empty value for roles it has nothing for.
    virtual QVariant cell(const Record& record, int column, int role) const = 0;

    // Live reloads keep the rows (and a view's selection) when only their values change.
    void setRecords(std::vector<Record> records) {
        if (records.size() == m_records.size()) {
            m_records = std::move(records);
            if (!m_records.empty())
                Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
            return;
        }
        beginResetModel();
        m_records = std::move(records);
        endResetModel();
    }

private:
    std::vector<Record> m_records;
};

} // namespace studio::models
