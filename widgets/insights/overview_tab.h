// The Insights dashboard's Overview tab: the training job summary (start, end, duration, the
// initialization / training loop / finalization split with a pie), the training timeline with
// spot interruptions, the resource summary per node (min, max, p99, p90, p50), the rules as
// expandable rows (finding, recommendation, description, trigger criteria) and the time spent
// in the last 30 steps by phase. GUI thread only.
#pragma once

#include "models/insights/insights_data.h"

#include <QWidget>

class QLabel;
class QStandardItemModel;
class QTableView;
class QTreeView;

namespace studio::widgets {

class PhasePie;
class StepPhaseChart;
class TrainingTimeline;

class OverviewTab : public QWidget {
    Q_OBJECT

public:
    explicit OverviewTab(QWidget* parent = nullptr);
    ~OverviewTab() override;

    void setData(const models::InsightsData& data);

    QStandardItemModel* resourceModel() const { return m_resourceModel; }
    QStandardItemModel* rulesModel() const { return m_rulesModel; }
    QTreeView* rulesView() const { return m_rulesView; }
    QTableView* resourceView() const { return m_resourceView; }
    PhasePie* phasePie() const { return m_pie; }
    TrainingTimeline* timeline() const { return m_timeline; }
    StepPhaseChart* recentSteps() const { return m_steps; }
    QString summaryText() const;
    // Why rows are absent (a CPU-only run); "" when none are.
    QString resourceNote() const;

private:
    void fillSummary(const models::InsightsData& data);
    void fillResources(const models::InsightsData& data);
    void fillRules(const models::InsightsData& data);

    QLabel* m_summary = nullptr;
    PhasePie* m_pie = nullptr;
    TrainingTimeline* m_timeline = nullptr;
    QStandardItemModel* m_resourceModel = nullptr;
    QTableView* m_resourceView = nullptr;
    QLabel* m_resourceNote = nullptr;
    QStandardItemModel* m_rulesModel = nullptr;
    QTreeView* m_rulesView = nullptr;
    StepPhaseChart* m_steps = nullptr;
    QStringList m_expandedRules; // kept across live refreshes
    bool m_rulesSeen = false;
};

} // namespace studio::widgets
