#include "widgets/notebook/loss_sparkline.h"

#include "widgets/common/theme.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>

namespace studio::widgets {

QPolygonF sparklinePolygon(const QVector<QPointF>& points, const QRectF& area) {
    QPolygonF out;
    if (points.isEmpty())
        return out;
    double x0 = points.front().x(), x1 = x0, y0 = points.front().y(), y1 = y0;
    for (const QPointF& p : points) {
        x0 = std::min(x0, p.x());
        x1 = std::max(x1, p.x());
        y0 = std::min(y0, p.y());
        y1 = std::max(y1, p.y());
    }
    out.reserve(points.size());
    for (const QPointF& p : points) {
        const double fx = x1 > x0 ? (p.x() - x0) / (x1 - x0) : 0.5;
        const double fy = y1 > y0 ? (p.y() - y0) / (y1 - y0) : 0.5;
        out.append({area.left() + fx * area.width(), area.bottom() - fy * area.height()});
    }
    return out;
}

LossSparkline::LossSparkline(QWidget* parent)
    : QWidget(parent) {
    setAccessibleName(tr("Loss"));
    setMinimumSize(60, 36); // a narrow notebook squeezes the curve before the card overflows
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void LossSparkline::setPoints(QVector<QPointF> points) {
    m_points = std::move(points);
    update();
}

void LossSparkline::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QRectF frame = QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5);
    p.setPen(palette().color(QPalette::Mid));
    p.setBrush(palette().color(QPalette::Base));
    p.drawRoundedRect(frame, 4, 4);
    if (m_points.isEmpty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("no loss yet"));
        return;
    }
    // The last value is written at the right, so the line leaves room for it.
    const QString last = QString::number(m_points.back().y(), 'g', 4);
    const int textWidth = fontMetrics().horizontalAdvance(last) + 10;
    const QRectF area = frame.adjusted(6, 6, -6 - textWidth, -6);
    const QPolygonF line = sparklinePolygon(m_points, area);
    const QColor colour = models::seriesColor(0);
    QPainterPath fill;
    fill.moveTo(line.front().x(), area.bottom());
    for (const QPointF& pt : line)
        fill.lineTo(pt);
    fill.lineTo(line.back().x(), area.bottom());
    QColor shade = colour;
    shade.setAlpha(40);
    p.fillPath(fill, shade);
    p.setPen(QPen(colour, 1.6));
    p.setBrush(Qt::NoBrush);
    p.drawPolyline(line);
    p.setBrush(colour);
    p.drawEllipse(line.back(), 2.5, 2.5);
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRectF(frame.right() - textWidth - 2, frame.top(), textWidth, frame.height()),
               Qt::AlignVCenter | Qt::AlignRight, last);
}

QString LossSparkline::describe() const {
    if (m_points.isEmpty())
        return tr("No loss yet");
    double low = m_points.front().y();
    for (const QPointF& p : m_points)
        low = std::min(low, p.y());
    return tr("%n points; last %1 at step %2, lowest %3", nullptr,
              static_cast<int>(m_points.size()))
        .arg(spokenNumber(m_points.back().y()))
        .arg(m_points.back().x())
        .arg(spokenNumber(low));
}

} // namespace studio::widgets
