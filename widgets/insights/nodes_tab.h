// The Insights dashboard's Nodes tab: per node, CPU utilization (mean of the cores or one core)
// and network, GPU utilization and GPU memory (mean, every GPU, or one), I/O wait and memory,
// all on one wall-time axis that zooms and pans together ("Fix timeframe" shows the whole run
// again); the utilization heatmap of every core and GPU of every node; and the step phases of
// the time window selected on the heatmap. GUI thread only.
#pragma once

#include "models/insights/insights_data.h"

#include <QWidget>

#include <optional>
#include <utility>

class QComboBox;
class QLabel;
class QLayout;
class QPushButton;

namespace studio::widgets {

class CurveChart;
class StepPhaseChart;
class UtilizationHeatmap;

class NodesTab : public QWidget {
    Q_OBJECT

public:
    enum class Chart { Cpu, Network, Gpu, GpuMemory, IoWait, Memory };

    explicit NodesTab(QWidget* parent = nullptr);
    ~NodesTab() override;

    // A full read replaces everything; an incremental one (data.incremental) appends its
    // new samples to the charts and the heatmap.
    void setData(const models::InsightsData& data);

    CurveChart* chart(Chart which) const;
    UtilizationHeatmap* heatmap() const { return m_heatmap; }
    StepPhaseChart* windowSteps() const { return m_windowSteps; }
    QComboBox* nodeSelector() const { return m_node; }
    QComboBox* coreSelector() const { return m_core; }
    QComboBox* gpuSelector() const { return m_gpu; }
    // Why GPU charts are absent ("" when the node has GPUs).
    QString gpuNote() const;
    bool gpuChartsVisible() const;

    // The shared time window; nullopt while the whole run is shown.
    std::optional<std::pair<double, double>> timeWindow() const { return m_window; }
    void setTimeWindow(double from, double to);
    void fixTimeframe();
    void zoomIn();
    void zoomOut();
    void panLeft();
    void panRight();
    // Shows the window selected on the heatmap in every chart (nothing without a selection).
    void zoomToSelection();

Q_SIGNALS:
    void timeWindowChanged();

private:
    QLayout* buildToolbar();
    void createCharts();
    QLayout* buildChartGrid();
    void applyWindow(std::optional<std::pair<double, double>> window);
    void rebuildCharts();
    void rebuildSelectors();
    void onChartRedrawn(CurveChart* source);
    void updateWindowLabel();
    void showWindowSteps(double from, double to);
    std::pair<double, double> dataRange() const;
    std::pair<double, double> currentRange() const;
    int currentNode() const;

    std::shared_ptr<const std::vector<store::SystemSeries>> m_series;
    std::vector<store::StepTiming> m_steps;
    QComboBox* m_node = nullptr;
    QComboBox* m_core = nullptr;
    QComboBox* m_gpu = nullptr;
    QLabel* m_windowLabel = nullptr;
    QLabel* m_gpuNote = nullptr;
    QPushButton* m_zoomToSelection = nullptr;
    QList<CurveChart*> m_charts; // in Chart order
    QWidget* m_gpuRow = nullptr;
    UtilizationHeatmap* m_heatmap = nullptr;
    StepPhaseChart* m_windowSteps = nullptr;
    std::optional<std::pair<double, double>> m_window;
    std::optional<std::pair<double, double>> m_selection;
    bool m_syncing = false;
};

} // namespace studio::widgets
