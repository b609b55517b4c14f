// The Compare view's parameter table: one row per hyperparameter, a first column with its name
// and one column per job, rows whose values differ between the jobs marked (DiffersRole, a
// tinted background, a bold name); plus the proxy that shows only those rows. GUI thread only.
#pragma once

#include "models/charts/compare_data.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

namespace studio::models {

class ParameterDiffModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Role {
        DiffersRole = Qt::UserRole + 1, // bool, any column of the row
        SortRole,                       // the number when numeric, else the text
    };

    explicit ParameterDiffModel(QObject* parent = nullptr);

    void setJobs(const QList<CompareJob>& jobs);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // The row of a parameter, -1 when no job has it.
    int rowOf(const QString& parameter) const;
    bool rowDiffers(int row) const;
    int differingCount() const;

private:
    struct Job {
        QString name;
        QString status;
        QColor color;
        QMap<QString, ParameterValue> parameters;
    };
    QList<Job> m_jobs;
    QStringList m_names;
    QList<bool> m_differs;
};

// Passes every row, or only rows marked DiffersRole when onlyDiffering is set; sorts by SortRole.
class DifferingRowsFilter : public QSortFilterProxyModel {
    Q_OBJECT

public:
    explicit DifferingRowsFilter(QObject* parent = nullptr);
    void setOnlyDiffering(bool on);
    bool onlyDiffering() const { return m_onlyDiffering; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    bool m_onlyDiffering = false;
};

} // namespace studio::models
