// CurveChart's Qt Charts view, private to the charts library: mouse handling (rubber-band zoom,
// double-click reset, hover) and what is painted over the scene (the hover readout with a
// crosshair and markers, the note about values not drawn). GUI thread only.
#pragma once

#include "widgets/charts/curve_chart.h"

#include <QChartView>

#include <optional>

class QRubberBand;

namespace studio::widgets {

class CurveChart::View : public QChartView {
public:
    View(QChart* chart, CurveChart* owner);

    void clearHover();
    // Recomputes the readout at the last mouse position (the data under it changed).
    void refreshHover();

protected:
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void drawForeground(QPainter* painter, const QRectF& rect) override;

private:
    void setHover(QPointF position);
    void drawNote(QPainter* painter);
    struct Readout;
    void drawHover(QPainter* painter, const CurveChart::Hover& hover);
    void drawCrosshair(QPainter* painter, const CurveChart::Hover& hover);
    Readout measureReadout(const CurveChart::Hover& hover) const;
    void drawReadout(QPainter* painter, const CurveChart::Hover& hover, const Readout& readout);

    CurveChart* m_owner;
    QRubberBand* m_band;
    QPoint m_origin;
    bool m_dragging = false;
    std::optional<CurveChart::Hover> m_hover;
};

} // namespace studio::widgets
