// A job's bill: what its running time cost on spot and would have cost on demand, the savings
// (SageMaker's formula), interruptions, waiting and lost work, the timeline of running and
// waiting segments, and the cumulative cost curve. Loads off the GUI thread.
#pragma once

#include "engine/spot/billing.h"
#include "engine/store/records.h"
#include "models/common/background_task.h"

#include <QWidget>

#include <optional>
#include <vector>

class QGridLayout;
class QLabel;

namespace studio::widgets {

class CurveChart;
class SegmentStrip;

struct JobBillingData {
    spot::BillingSummary summary;
    std::vector<store::BillingSegment> segments;
    std::optional<spot::InstancePrices> prices;
    QString instanceType;
    int instanceCount = 1;
    bool spot = false;
    QString status;
};

class JobBillingView : public QWidget {
    Q_OBJECT
public:
    JobBillingView(QString databasePath, QString job, QWidget* parent = nullptr);

    void reload();
    bool loaded() const { return m_loaded; }
    const JobBillingData& data() const { return m_data; }
    QString headline() const;

Q_SIGNALS:
    void dataLoaded();

private:
    void present(JobBillingData data);

    QString m_path;
    QString m_job;
    bool m_loaded = false;
    JobBillingData m_data;
    models::BackgroundTask<JobBillingData> m_task{this};
    QLabel* m_headline;
    QGridLayout* m_cards;
    SegmentStrip* m_strip;
    CurveChart* m_cost;
};

// The running and waiting segments of a job as one strip: running in blue, waiting for capacity
// in amber, a red mark where an interruption ended a running segment.
class SegmentStrip : public QWidget {
    Q_OBJECT
public:
    explicit SegmentStrip(QWidget* parent = nullptr);
    void setSegments(std::vector<store::BillingSegment> segments);
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent*) override;

private:
    std::vector<store::BillingSegment> m_segments;
};

} // namespace studio::widgets
