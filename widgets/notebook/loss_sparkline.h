// A small painted line of a job's training loss for the notebook's job cards: no axes, the
// newest value written at the right. The mapping from (step, loss) to pixels is a free function
// so it is tested without painting.
#pragma once

#include "widgets/common/described_widget.h"
#include <QPolygonF>
#include <QRectF>
#include <QVector>
#include <QWidget>

namespace studio::widgets {

// Maps (step, value) points into area: steps left to right, the smallest value at the bottom.
// A single point or a flat series sits in the middle; an empty series gives an empty polygon.
QPolygonF sparklinePolygon(const QVector<QPointF>& points, const QRectF& area);

class LossSparkline : public QWidget, public Describable {
    Q_OBJECT
public:
    QString describe() const override; // for screen readers (Describable)
    explicit LossSparkline(QWidget* parent = nullptr);

    // Points sorted by step.
    void setPoints(QVector<QPointF> points);
    const QVector<QPointF>& points() const { return m_points; }
    QSize sizeHint() const override { return {180, 44}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QVector<QPointF> m_points;
};

} // namespace studio::widgets
