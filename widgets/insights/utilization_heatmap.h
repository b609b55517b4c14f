// The utilization heatmap of the Insights dashboard: one row per CPU core and per GPU of every
// node, time across, colour = mean utilization in each pixel column (viridis, legend at the
// right), a tooltip with node, device, time, mean and max. Samples are binned once into pixel
// columns (heatmap_math) and painted from an image of the bins, so a paint is one image blit;
// live appends bin only the new samples and redraw only the columns they touch. Dragging over
// the plot selects a time window (timeWindowSelected). GUI thread only.
#pragma once

#include "models/insights/heatmap_math.h"
#include "widgets/common/described_widget.h"

#include <QImage>
#include <QString>
#include <QWidget>

#include <map>
#include <optional>
#include <span>
#include <utility>
#include <vector>

class QPainter;

namespace studio::widgets {

// One device of one node and its samples (percent, time-sorted).
struct HeatmapRow {
    int node = 0;
    QString device; // "cpu3", "gpu1"
    std::vector<models::HeatmapSample> samples;
};

// What lies under the mouse.
struct HeatmapHover {
    int row = -1;
    int node = 0;
    QString device;
    double time = 0; // unix seconds under the pointer
    double from = 0; // the pixel column's time span
    double to = 0;
    double mean = 0; // NaN when the column holds no sample
    double max = 0;
    int samples = 0;
};

class UtilizationHeatmap : public QWidget, public Describable {
    Q_OBJECT

public:
    QString describe() const override; // for screen readers (Describable)
    explicit UtilizationHeatmap(QWidget* parent = nullptr);
    ~UtilizationHeatmap() override;

    // Replaces every row (shown in this order) and shows the whole run.
    void setRows(std::vector<HeatmapRow> rows);
    // Live data: appends time-sorted samples to a device's row (a new row for an unknown
    // device). Only the new samples are binned; when the whole run is shown and a sample lies
    // past the window, the window doubles by merging column pairs.
    void appendSamples(int node, const QString& device,
                       std::span<const models::HeatmapSample> samples);
    void clear();

    // Shows [from, to] (binned again from the samples), or the whole run again.
    void setTimeWindow(double from, double to);
    void showWholeRun();
    bool showsWholeRun() const { return m_wholeRun; }
    // The time shown from the plot's left to its right edge.
    std::pair<double, double> timeWindow() const { return {m_viewFrom, m_viewTo}; }
    // The first and last sample time over every row; {0, 0} when none.
    std::pair<double, double> dataTimeRange() const;

    // A line under the title (e.g. why there are no GPU rows).
    void setNote(const QString& note);
    QString note() const { return m_note; }

    // What each node is called ("node 1 · ana@10.0.0.12" for a cluster host); "node N" else.
    void setNodeNames(std::map<int, QString> names);
    int rowCount() const { return static_cast<int>(m_rows.size()); }
    // "node 0 · cpu3"
    QString rowLabel(int row) const;
    QString nodeName(int node) const;
    const HeatmapRow& row(int index) const { return m_rows.at(index); }
    QRect plotRect() const { return m_plot; }
    const models::HeatmapGrid& grid() const { return m_grid; }
    const models::ColorMap& colorMap() const { return m_colors; }
    std::optional<HeatmapHover> hoverAt(QPoint pos) const;
    // The tooltip text at a point; "" outside the plot.
    QString toolTipAt(QPoint pos) const;
    // The selected time window; nullopt when none.
    std::optional<std::pair<double, double>> selection() const { return m_selection; }
    void clearSelection();
    // How many times every sample was binned again (rows set, resize, new window, new device);
    // live appends to known devices never do.
    int fullBinnings() const { return m_fullBinnings; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    // The user dragged over the plot from one time to another (from < to).
    void timeWindowSelected(double from, double to);

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    void drawHeader(QPainter& p);
    void drawRowLabels(QPainter& p);
    void drawTimeAxis(QPainter& p);
    void drawLegend(QPainter& p);
    void drawSelection(QPainter& p);
    void layoutPlot();
    void rebin();
    void renderColumns(int first, int last);
    int rowTop(int row) const;
    double timeAtX(double x) const;
    double xOfTime(double t) const;
    void updateHold();

    std::vector<HeatmapRow> m_rows;
    std::map<int, QString> m_nodeNames;
    models::HeatmapGrid m_grid;
    models::ColorMap m_colors = models::ColorMap::viridis();
    QImage m_image; // grid columns x plot height: row bands of cell colours
    QRect m_plot;
    QString m_note;
    bool m_wholeRun = true;
    double m_viewFrom = 0;
    double m_viewTo = 0;
    int m_labelWidth = 0;
    int m_fullBinnings = 0;
    int m_hold = 0; // columns a sample holds (heatmap_math holdColumns)
    std::optional<std::pair<double, double>> m_selection;
    std::optional<int> m_dragStartX;
    int m_dragX = 0;
};

} // namespace studio::widgets
