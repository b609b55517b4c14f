// An experiment's bill as a table: every job with its training and billable time, savings and
// costs; and the experiment's totals.
#pragma once

#include "models/data/billing_queries.h"

#include <QAbstractTableModel>

#include <vector>

namespace studio::models {

class ExperimentBillingModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        JobColumn,
        StatusColumn,
        InstanceColumn,
        TrainingColumn,
        BillableColumn,
        SavingsColumn,
        SpotCostColumn,
        OnDemandCostColumn,
        InterruptionsColumn,
        LostStepsColumn,
        ColumnCount
    };
    using QAbstractTableModel::QAbstractTableModel;

    void setRows(std::vector<JobBillingRow> rows);
    const std::vector<JobBillingRow>& rows() const { return m_rows; }
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

private:
    std::vector<JobBillingRow> m_rows;
};

// Totals of an experiment: times summed, savings from the sums (SageMaker's formula over the
// whole experiment), dollars where every priced job has them.
struct ExperimentBillingTotals {
    double trainingTimeSeconds = 0;
    double billableTimeSeconds = 0;
    double savingsPercent = 0;
    double spotCostUsd = 0;
    double onDemandCostUsd = 0;
    int interruptions = 0;
    int pricedJobs = 0;
};
ExperimentBillingTotals totalsOf(const std::vector<JobBillingRow>& rows);

} // namespace studio::models
