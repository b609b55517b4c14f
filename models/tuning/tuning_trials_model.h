// A tuning job's training jobs as a table: launch ordinal, job name, one column per tuned
// hyperparameter, objective, status, whether it was stopped early and why. SortRole gives
// numbers for numeric columns so that a proxy sorts them as numbers. A reload with the same
// ranges updates rows in place and appends new ones (views keep selection and sort).
// GUI thread only.
#pragma once

#include "models/tuning/tuning_data.h"

#include <QAbstractTableModel>

namespace studio::models {

class TuningTrialsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Role { SortRole = Qt::UserRole + 1, JobNameRole, OrdinalRole };

    explicit TuningTrialsModel(QObject* parent = nullptr);

    void setJobData(const TuningJobData& data);

    // Columns: ordinal, job, the ranges, then these.
    int rangeColumn(int range) const { return 2 + range; }
    int objectiveColumn() const { return 2 + int(m_ranges.size()); }
    int statusColumn() const { return objectiveColumn() + 1; }
    int stoppedEarlyColumn() const { return objectiveColumn() + 2; }
    int reasonColumn() const { return objectiveColumn() + 3; }
    const TuningTrial& trial(int row) const { return m_trials[std::size_t(row)]; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

private:
    QVariant cell(const TuningTrial& t, int column, int role) const;

    std::vector<TuningRange> m_ranges;
    std::vector<TuningTrial> m_trials;
    QString m_objective;
    qint64 m_best = -1; // the best job's component: shown in bold
    bool m_maximize = true;
};

} // namespace studio::models
