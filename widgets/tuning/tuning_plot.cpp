#include "widgets/tuning/tuning_plot.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <cmath>

namespace studio::widgets {

namespace {

QColor faded(const QPalette& palette, double t) {
    return models::blend(palette.color(QPalette::Base), palette.color(QPalette::Text), t);
}

bool finite(const QPointF& p) {
    return std::isfinite(p.x()) && std::isfinite(p.y());
}

} // namespace

void drawPlotMarker(QPainter& p, PlotLayer::Marker marker, const QPointF& c, qreal size) {
    const qreal h = size / 2;
    switch (marker) {
    case PlotLayer::Marker::Circle:
        p.drawEllipse(c, h, h);
        break;
    case PlotLayer::Marker::Square:
        p.drawRect(QRectF(c.x() - h, c.y() - h, size, size));
        break;
    case PlotLayer::Marker::Triangle: {
        const QPointF t[3] = {{c.x(), c.y() - h * 1.15},
                              {c.x() - h, c.y() + h * 0.85},
                              {c.x() + h, c.y() + h * 0.85}};
        p.drawPolygon(t, 3);
        break;
    }
    case PlotLayer::Marker::Cross:
        p.drawLine(QPointF(c.x() - h, c.y() - h), QPointF(c.x() + h, c.y() + h));
        p.drawLine(QPointF(c.x() - h, c.y() + h), QPointF(c.x() + h, c.y() - h));
        break;
    }
}

TuningPlot::TuningPlot(QWidget* parent)
    : QWidget(parent) {
    setAccessibleName(tr("Tuning plot"));
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void TuningPlot::setData(PlotData data) {
    m_data = std::move(data);
    if (!m_data.title.isEmpty())
        setAccessibleName(m_data.title);
    update();
}

QRectF TuningPlot::plotRect() const {
    const QFontMetrics fm(font());
    qreal left = 0;
    for (const models::AxisTick& t : m_data.y.ticks(6))
        left = std::max<qreal>(left, fm.horizontalAdvance(t.label));
    left = std::min<qreal>(left, 90) + 8 + (m_data.y.title.isEmpty() ? 4 : fm.height() + 6);
    bool legend = false;
    for (const PlotLayer& l : m_data.layers)
        legend = legend || !l.name.isEmpty();
    const qreal top = m_data.title.isEmpty() && !legend ? 10 : fm.height() + 14;
    const qreal bottom = fm.height() * (m_data.x.title.isEmpty() ? 1 : 2) + 14;
    return QRectF(left, top, std::max<qreal>(width() - left - 14, 10),
                  std::max<qreal>(height() - top - bottom, 10));
}

QPointF TuningPlot::toPixel(const QPointF& value, const QRectF& r) const {
    return {r.left() + m_data.x.fraction(value.x()) * r.width(),
            r.bottom() - m_data.y.fraction(value.y()) * r.height()};
}

QPair<int, int> TuningPlot::pointAt(const QPointF& at, qreal maxDistance) const {
    const QRectF r = plotRect();
    QPair<int, int> best{-1, -1};
    qreal bestDistance = maxDistance * maxDistance;
    for (int l = 0; l < m_data.layers.size(); ++l) {
        const PlotLayer& layer = m_data.layers[l];
        if (layer.kind == PlotLayer::Kind::Line && !layer.endMarker)
            continue;
        for (int i = 0; i < layer.points.size(); ++i) {
            if (layer.kind == PlotLayer::Kind::Line && i != layer.points.size() - 1)
                continue;
            QPointF c = toPixel(layer.points[i], r);
            if (layer.kind == PlotLayer::Kind::Rug)
                c.setY(r.bottom() - layer.size);
            const QPointF d = c - at;
            const qreal dd = d.x() * d.x() + d.y() * d.y();
            if (dd <= bestDistance) {
                bestDistance = dd;
                best = {l, i};
            }
        }
    }
    return best;
}

void TuningPlot::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    p.setRenderHint(QPainter::Antialiasing);
    const QRectF r = plotRect();
    if (!m_data.title.isEmpty()) {
        QFont f = font();
        f.setWeight(QFont::DemiBold);
        p.setFont(f);
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRectF(8, 4, width() - 16, QFontMetrics(f).height() + 4),
                   Qt::AlignLeft | Qt::AlignVCenter, m_data.title);
        p.setFont(font());
    }
    drawAxes(p, r);
    bool any = false;
    p.save();
    p.setClipRect(r.adjusted(-6, -6, 6, 6));
    for (const PlotLayer& layer : m_data.layers) {
        any = any || !layer.points.isEmpty();
        drawLayer(p, r, layer);
    }
    p.restore();
    if (!any && !m_data.emptyText.isEmpty()) {
        p.setPen(faded(palette(), 0.55));
        p.drawText(r, Qt::AlignCenter | Qt::TextWordWrap, m_data.emptyText);
    }
    drawLegend(p, r);
}

void TuningPlot::drawAxes(QPainter& p, const QRectF& r) const {
    const QFontMetrics fm(font());
    p.setPen(QPen(faded(palette(), 0.12), 1));
    const auto yTicks = m_data.y.ticks(6);
    for (const models::AxisTick& t : yTicks) {
        const qreal y = r.bottom() - m_data.y.fraction(t.value) * r.height();
        if (std::isfinite(y))
            p.drawLine(QPointF(r.left(), y), QPointF(r.right(), y));
    }
    p.setPen(QPen(faded(palette(), 0.45), 1));
    p.drawLine(r.bottomLeft(), r.bottomRight());
    p.drawLine(r.bottomLeft(), r.topLeft());
    p.setPen(faded(palette(), 0.7));
    for (const models::AxisTick& t : yTicks) {
        const qreal y = r.bottom() - m_data.y.fraction(t.value) * r.height();
        if (std::isfinite(y))
            p.drawText(QRectF(0, y - fm.height() / 2.0, r.left() - 6, fm.height()),
                       Qt::AlignRight | Qt::AlignVCenter,
                       fm.elidedText(t.label, Qt::ElideRight, int(r.left()) - 8));
    }
    const int maxX = std::max(2, int(r.width() / 70));
    const auto xTicks = m_data.x.ticks(maxX);
    const qreal slot = r.width() / std::max<qsizetype>(xTicks.size(), 1);
    for (const models::AxisTick& t : xTicks) {
        const qreal x = r.left() + m_data.x.fraction(t.value) * r.width();
        if (!std::isfinite(x))
            continue;
        p.drawLine(QPointF(x, r.bottom()), QPointF(x, r.bottom() + 4));
        const QString label =
            fm.elidedText(t.label, Qt::ElideRight, int(std::max<qreal>(slot, 40)));
        p.drawText(QRectF(x - slot / 2 - 20, r.bottom() + 5, slot + 40, fm.height()),
                   Qt::AlignHCenter | Qt::AlignTop, label);
    }
    if (!m_data.x.title.isEmpty())
        p.drawText(QRectF(r.left(), r.bottom() + 6 + fm.height(), r.width(), fm.height() + 2),
                   Qt::AlignHCenter | Qt::AlignTop, m_data.x.title);
    if (!m_data.y.title.isEmpty()) {
        p.save();
        p.translate(4, r.center().y());
        p.rotate(-90);
        p.drawText(QRectF(-r.height() / 2, 0, r.height(), fm.height() + 2), Qt::AlignCenter,
                   fm.elidedText(m_data.y.title, Qt::ElideRight, int(r.height())));
        p.restore();
    }
}

void TuningPlot::drawLayer(QPainter& p, const QRectF& r, const PlotLayer& layer) const {
    p.setOpacity(layer.opacity);
    if (layer.kind == PlotLayer::Kind::Line) {
        QPen pen(layer.color, layer.size);
        if (layer.dashed)
            pen.setStyle(Qt::DashLine);
        p.setPen(pen);
        p.setBrush(Qt::NoBrush);
        QPolygonF run;
        auto flush = [&] {
            if (run.size() > 1)
                p.drawPolyline(run);
            run.clear();
        };
        for (const QPointF& v : layer.points) {
            const QPointF px = toPixel(v, r);
            if (finite(px))
                run.append(px);
            else
                flush();
        }
        flush();
        if (layer.endMarker && !layer.points.isEmpty() && finite(toPixel(layer.points.back(), r))) {
            p.setOpacity(std::min<qreal>(1, layer.opacity * 2));
            p.setPen(QPen(layer.color.darker(115), 1.8));
            drawPlotMarker(p, PlotLayer::Marker::Cross, toPixel(layer.points.back(), r), 7);
        }
    } else {
        for (int i = 0; i < layer.points.size(); ++i) {
            QPointF c = toPixel(layer.points[i], r);
            if (layer.kind == PlotLayer::Kind::Rug)
                c.setY(r.bottom() - layer.size);
            if (!finite(c))
                continue;
            const QColor color = layer.colors.value(i, layer.color);
            const bool open = layer.marker == PlotLayer::Marker::Cross;
            p.setPen(QPen(open ? color : color.darker(125), open ? 1.6 : 0.8));
            p.setBrush(open ? QBrush(Qt::NoBrush) : QBrush(color));
            drawPlotMarker(p, layer.marker, c, layer.size);
        }
    }
    p.setOpacity(1);
}

void TuningPlot::drawLegend(QPainter& p, const QRectF& r) const {
    const QFontMetrics fm(font());
    qreal x = r.right();
    const qreal y = 4;
    for (qsizetype l = m_data.layers.size() - 1; l >= 0; --l) {
        const PlotLayer& layer = m_data.layers[l];
        if (layer.name.isEmpty())
            continue;
        const qreal w = fm.horizontalAdvance(layer.name) + 20;
        x -= w + 8;
        const QPointF c(x + 6, y + fm.height() / 2.0 + 2);
        p.setPen(QPen(layer.color, layer.kind == PlotLayer::Kind::Line ? layer.size : 1.2));
        p.setBrush(layer.marker == PlotLayer::Marker::Cross ? QBrush(Qt::NoBrush)
                                                            : QBrush(layer.color));
        if (layer.kind == PlotLayer::Kind::Line)
            p.drawLine(c - QPointF(6, 0), c + QPointF(6, 0));
        else
            drawPlotMarker(p, layer.marker, c, 7);
        p.setPen(faded(palette(), 0.7));
        p.drawText(QRectF(x + 15, y + 2, w, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   layer.name);
    }
}

void TuningPlot::mouseMoveEvent(QMouseEvent* event) {
    const auto [l, i] = pointAt(event->position());
    if (l < 0 || m_data.layers[l].labels.isEmpty()) {
        QToolTip::hideText();
        return;
    }
    QToolTip::showText(event->globalPosition().toPoint(), m_data.layers[l].labels.value(i), this);
}

void TuningPlot::mouseDoubleClickEvent(QMouseEvent* event) {
    const auto [l, i] = pointAt(event->position());
    if (l >= 0)
        Q_EMIT pointActivated(m_data.layers[l].ids.value(i, i));
}

QString TuningPlot::describe() const {
    QStringList parts;
    for (const PlotLayer& l : m_data.layers) {
        if (l.points.isEmpty())
            continue;
        parts << tr("%1: %n points", nullptr, static_cast<int>(l.points.size()))
                     .arg(l.name.isEmpty() ? tr("points") : l.name);
    }
    if (parts.isEmpty())
        return m_data.emptyText;
    return parts.join(QStringLiteral("; "));
}

} // namespace studio::widgets
