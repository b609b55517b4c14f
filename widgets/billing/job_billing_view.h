// A job's bill: what its running time cost on spot and would have cost on demand, the savings
// (SageMaker's formula), interruptions, waiting and lost work, the timeline of running and
// waiting segments, and the cumulative cost curve. Loads through the data service.
#pragma once

#include "engine/store/records.h"
#include "models/common/background_task.h"
#include "models/data/billing_queries.h"

#include <QWidget>

#include <optional>
#include <vector>

class QGridLayout;
class QLabel;

namespace studio::models {
class DataService;
}

namespace studio::widgets {

class CurveChart;
class StripView;

class JobBillingView : public QWidget {
    Q_OBJECT
public:
    JobBillingView(models::DataService* service, QString job, QWidget* parent = nullptr);

    void reload();
    bool loaded() const { return m_loaded; }
    const models::JobBillingData& data() const { return m_data; }
    QString headline() const;

Q_SIGNALS:
    void dataLoaded();

private:
    void present(models::JobBillingData data);

    models::DataService* m_service;
    QString m_job;
    bool m_loaded = false;
    models::JobBillingData m_data;
    models::BackgroundTask<models::JobBillingData> m_task{this};
    QLabel* m_headline;
    QGridLayout* m_cards;
    StripView* m_strip;
    CurveChart* m_cost;
};

} // namespace studio::widgets
