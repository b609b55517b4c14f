// An experiment's bill: every job with its training and billable time, savings and costs, and
// the totals (what spot saved the whole experiment). Loads through the data service.
#pragma once

#include "models/billing/experiment_billing_model.h"
#include "models/common/background_task.h"

#include <QWidget>

#include <vector>

class QLabel;
class QTableView;

namespace studio::models {
class DataService;
}

namespace studio::widgets {

class ExperimentBillingView : public QWidget {
    Q_OBJECT
public:
    ExperimentBillingView(models::DataService* service, QString experiment,
                          QWidget* parent = nullptr);

    void reload();
    bool loaded() const { return m_loaded; }
    models::ExperimentBillingModel* model() const { return m_model; }
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
    models::ExperimentBillingModel* m_model;
    models::BackgroundTask<std::vector<models::JobBillingRow>> m_task{this};
};

} // namespace studio::widgets
