// The Compare view's parallel-coordinates plot: one vertical axis per parameter and a last axis
// for a metric summary (drawn as the colour scale), one polyline per job coloured by that
// metric; hovering a line highlights it and shows the job's values. The layout and scaling
// math lives in parallel_coordinates_math.h. GUI thread only.
#pragma once

#include "models/charts/compare_data.h"
#include "widgets/common/described_widget.h"

#include <QWidget>

namespace studio::widgets {

class ParallelCoordinatesPlot : public QWidget, public Describable {
    Q_OBJECT

public:
    QString describe() const override; // for screen readers (Describable)
    explicit ParallelCoordinatesPlot(QWidget* parent = nullptr);

    void setData(const models::ParallelData& data);
    const models::ParallelData& plotData() const { return m_data; }

    // The highlighted line (an index into plotData().lines), -1 for none.
    int hoveredLine() const { return m_hovered; }
    void setHoveredLine(int line);

    // Where the axes stand for the widget's current size.
    models::ParallelGeometry axesGeometry() const;
    // Each job's polyline for the current size (NaN points where values are missing).
    QList<QPolygonF> polylines() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void hoveredLineChanged(int line);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    double axisSpacing(const models::ParallelGeometry& g) const;
    void drawAxes(QPainter& p, const models::ParallelGeometry& g);
    void drawLine(QPainter& p, int index, const QPolygonF& poly, double width, double alpha);
    void drawTicks(QPainter& p, const models::ParallelGeometry& g);
    void drawReadout(QPainter& painter, const models::ParallelLine& line, QPointF at);

    models::ParallelData m_data;
    int m_hovered = -1;
    QPointF m_mouse;
};

} // namespace studio::widgets
