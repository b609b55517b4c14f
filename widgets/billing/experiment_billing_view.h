// An experiment's bill: every job with its training and billable time, savings and costs, and
// the totals (what spot saved the whole experiment). Loads through the data service.
#pragma once

#include "models/common/background_task.h"
#include "models/data/billing_queries.h"

#include <QAbstractTableModel>
#include <QWidget>

#include <vector>

class QLabel;
class QTableView;

namespace studio::models {
class DataService;
}

namespace studio::widgets {

using JobBillingRow = models::JobBillingRow;

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

class ExperimentBillingView : public QWidget {
    Q_OBJECT
public:
    ExperimentBillingView(models::DataService* service, QString experiment,
                          QWidget* parent = nullptr);

    void reload();
    bool loaded() const { return m_loaded; }
    ExperimentBillingModel* model() const { return m_model; }
    QString summaryText() const;

Q_SIGNALS:
    void dataLoaded();
    void openJobRequested(const QString& job);

private:
    models::DataService* m_service;
    QString m_experiment;
    bool m_loaded = false;
    QLabel* m_summary;
    QTableView* m_table;
    ExperimentBillingModel* m_model;
    models::BackgroundTask<std::vector<JobBillingRow>> m_task{this};
};

} // namespace studio::widgets
