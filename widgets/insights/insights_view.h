// The Debugger Insights dashboard of one job ("where did the time and the hardware go"): an
// Overview tab (job summary, timeline with spot interruptions, resource summary, rule
// insights, time spent in the last steps) and a Nodes tab (per-node charts on one time axis,
// the utilization heatmap, step phases of a selected window). It opens at once and loads through
// the data service; while the job runs it reads again on each of the service's refresh ticks
// (and when the job's status changes), samples newer than the last ones only, and stops once
// the job has ended. GUI thread only.
#pragma once

#include "models/common/background_task.h"
#include "models/insights/insights_data.h"

#include <QString>
#include <QWidget>

#include <memory>

class QLabel;
class QTabWidget;

namespace studio::models {
class DataService;
}

namespace studio::widgets {

class NodesTab;
class OverviewTab;
class UtilizationHeatmap;

class InsightsView : public QWidget {
    Q_OBJECT

public:
    InsightsView(models::DataService* service, QString jobName, QWidget* parent = nullptr);
    ~InsightsView() override;

    QString jobName() const { return m_jobName; }

    // The last figures read; nullptr before the first read.
    const models::InsightsData* data() const { return m_data.get(); }
    bool isLoaded() const { return m_data != nullptr; }
    // Whether it reads the store again on the service's refresh (the job still runs).
    bool isLive() const { return m_live; }
    // The message of the last failed read; "" after a good one.
    QString errorText() const { return m_error; }
    // Reads made so far (first and live ones).
    int readCount() const { return m_reads; }

    QTabWidget* tabs() const { return m_tabs; }
    OverviewTab* overview() const { return m_overview; }
    NodesTab* nodes() const { return m_nodes; }
    UtilizationHeatmap* heatmap() const;

public Q_SLOTS:
    // Reads everything again (a full read).
    void refresh();

Q_SIGNALS:
    // After each read was applied (the first and every live one).
    void loaded();
    void loadFailed(const QString& message);

private:
    void poll();
    void apply(models::InsightsData data);
    void fail(const QString& message);
    void updateHeader();

    models::DataService* m_service;
    QString m_jobName;
    std::shared_ptr<const models::InsightsData> m_data;
    models::BackgroundTask<models::InsightsData> m_task;
    bool m_live = false;
    QLabel* m_header = nullptr;
    QTabWidget* m_tabs = nullptr;
    OverviewTab* m_overview = nullptr;
    NodesTab* m_nodes = nullptr;
    QString m_error;
    int m_reads = 0;
};

} // namespace studio::widgets
