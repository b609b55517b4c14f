// A light plot for the tuning tab, painted with QPainter so that hundreds of training jobs draw
// in a few milliseconds: layers of markers (scatter), lines (curves, best so far) or a rug of
// markers along the bottom edge (jobs without a value), over PlotAxis axes. Hovering a marker
// shows its label; double-clicking one emits its layer and index. GUI thread only.
#pragma once

#include "models/tuning/plot_axis.h"
#include "widgets/common/described_widget.h"

#include <QColor>
#include <QPointF>
#include <QWidget>

namespace studio::widgets {

struct PlotLayer {
    enum class Kind { Markers, Line, Rug };
    enum class Marker { Circle, Triangle, Cross, Square };
    Kind kind = Kind::Markers;
    QString name;          // in the legend; "" keeps it out
    QList<QPointF> points; // x, y in axis values; NaN y breaks a line
    QColor color;
    QList<QColor> colors; // per point (markers); empty: color
    Marker marker = Marker::Circle;
    qreal size = 6; // marker diameter, line width
    qreal opacity = 1;
    bool dashed = false;
    QStringList labels; // per point, shown on hover; empty: none
    QList<int> ids;     // per point, emitted on double-click; empty: the index
    // Line layers: a marker at the last point (a stopped curve's ×).
    bool endMarker = false;
};

struct PlotData {
    models::PlotAxis x;
    models::PlotAxis y;
    QList<PlotLayer> layers;
    QString title;
    QString emptyText; // shown when no layer has a point
};

class TuningPlot : public QWidget, public Describable {
    Q_OBJECT
public:
    QString describe() const override; // for screen readers (Describable)
    explicit TuningPlot(QWidget* parent = nullptr);

    void setData(PlotData data);
    const PlotData& plotData() const { return m_data; }
    // The plotting area for the current size.
    QRectF plotRect() const;
    QPointF toPixel(const QPointF& value) const { return toPixel(value, plotRect()); }
    QPointF toPixel(const QPointF& value, const QRectF& plot) const;
    // The point under p within maxDistance pixels: (layer, index), or (-1, -1).
    QPair<int, int> pointAt(const QPointF& p, qreal maxDistance = 6) const;

    QSize sizeHint() const override { return {420, 260}; }
    QSize minimumSizeHint() const override { return {220, 150}; }

Q_SIGNALS:
    void pointActivated(int id);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;

private:
    void drawAxes(QPainter& p, const QRectF& r) const;
    void drawLayer(QPainter& p, const QRectF& r, const PlotLayer& layer) const;
    void drawLegend(QPainter& p, const QRectF& r) const;

    PlotData m_data;
};

// Draws one marker of the given diameter centred at c.
void drawPlotMarker(QPainter& p, PlotLayer::Marker marker, const QPointF& c, qreal size);

} // namespace studio::widgets
