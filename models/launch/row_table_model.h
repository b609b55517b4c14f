// The shape the launch dialog's editable tables share: a list of rows, problems keyed by row or
// by name that the rows show (icon, tooltip, colour), and removal of rows. GUI thread only.
#pragma once

#include "models/launch/spec_document.h"

#include <QAbstractTableModel>

#include <QHash>
#include <QString>
#include <type_traits>

#include <vector>

namespace studio::models {

template <typename Row, typename ProblemKey>
class RowTableModel : public QAbstractTableModel {
public:
    using QAbstractTableModel::QAbstractTableModel;

    int rowCount(const QModelIndex& parent = {}) const override {
        return parent.isValid() ? 0 : int(m_rows.size());
    }

    // Problems the rows show; repaints only when they changed.
    void setProblems(const QHash<ProblemKey, QString>& problems) {
        if (problems == m_problems)
            return;
        m_problems = problems;
        if (!m_rows.empty())
            Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1),
                               {Qt::DecorationRole, Qt::ToolTipRole, Qt::ForegroundRole});
    }

    // Problems keyed by row number no longer match once rows move: they go until the next
    // validation.
    bool removeRows(int row, int count, const QModelIndex& parent = {}) override {
        if (parent.isValid() || row < 0 || count <= 0 || row + count > rowCount())
            return false;
        beginRemoveRows(parent, row, row + count - 1);
        m_rows.erase(m_rows.begin() + row, m_rows.begin() + row + count);
        if constexpr (std::is_integral_v<ProblemKey>)
            m_problems.clear();
        endRemoveRows();
        return true;
    }

protected:
    std::vector<Row> m_rows;
    QHash<ProblemKey, QString> m_problems;
};

// Rows that are the entries of a JSON array of the spec (collection_configs, rules).
class SpecArrayModel : public RowTableModel<SpecDocument, int> {
public:
    using RowTableModel::RowTableModel;

    // Replaces the rows with the array's entries (anything else: no rows).
    void setDocument(const SpecDocument& array) {
        beginResetModel();
        m_rows.clear();
        if (array.is_array())
            for (const auto& entry : array)
                m_rows.push_back(entry);
        m_problems.clear();
        endResetModel();
    }
    SpecDocument toDocument() const {
        SpecDocument out = SpecDocument::array();
        for (const auto& r : m_rows)
            out.push_back(r);
        return out;
    }
};

} // namespace studio::models
