#include "widgets/charts/curve_chart_view.h"

#include "models/charts/chart_math.h"

#include <QChart>
#include <QGraphicsScene>
#include <QMouseEvent>
#include <QPainter>
#include <QRubberBand>

#include <algorithm>
#include <cmath>

namespace studio::widgets {

namespace {

constexpr int kMaxReadoutRows = 12;

QString formatValue(double v) {
    if (!std::isfinite(v))
        return std::isnan(v) ? QStringLiteral("NaN")
                             : (v > 0 ? QStringLiteral("Inf") : QStringLiteral("-Inf"));
    return QString::number(v, 'g', 5);
}

} // namespace

CurveChart::View::View(QChart* chart, CurveChart* owner)
    : QChartView(chart)
    , m_owner(owner)
    , m_band(new QRubberBand(QRubberBand::Rectangle, this)) {
    setRenderHint(QPainter::Antialiasing);
    setFrameShape(QFrame::NoFrame);
    setMouseTracking(true);
    setRubberBand(QChartView::NoRubberBand);
    // Lines change geometry on every redraw; a BSP index would be rebuilt each time.
    scene()->setItemIndexMethod(QGraphicsScene::NoIndex);
}

void CurveChart::View::clearHover() {
    if (m_hover) {
        m_hover.reset();
        viewport()->update();
    }
}

void CurveChart::View::refreshHover() {
    if (m_hover)
        setHover(m_hover->position);
}

void CurveChart::View::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton &&
        m_owner->m_chart->plotArea().contains(event->position())) {
        m_origin = event->position().toPoint();
        m_band->setGeometry(QRect(m_origin, QSize()));
        m_band->show();
        m_dragging = true;
        clearHover();
        event->accept();
        return;
    }
    QChartView::mousePressEvent(event);
}

void CurveChart::View::mouseMoveEvent(QMouseEvent* event) {
    if (m_dragging) {
        const QRect plot = m_owner->m_chart->plotArea().toAlignedRect();
        m_band->setGeometry(QRect(m_origin, event->position().toPoint()).normalized() & plot);
        event->accept();
        return;
    }
    setHover(event->position());
    QChartView::mouseMoveEvent(event);
}

void CurveChart::View::mouseReleaseEvent(QMouseEvent* event) {
    if (m_dragging && event->button() == Qt::LeftButton) {
        m_dragging = false;
        m_band->hide();
        const QRect r = m_band->geometry();
        if (r.width() > 4)
            m_owner->zoomToViewRect(QRectF(r.adjusted(0, 0, 1, 1)));
        event->accept();
        return;
    }
    QChartView::mouseReleaseEvent(event);
}

void CurveChart::View::mouseDoubleClickEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton) {
        m_owner->resetZoom();
        event->accept();
        return;
    }
    QChartView::mouseDoubleClickEvent(event);
}

void CurveChart::View::leaveEvent(QEvent* event) {
    clearHover();
    QChartView::leaveEvent(event);
}

void CurveChart::View::drawForeground(QPainter* painter, const QRectF& rect) {
    QChartView::drawForeground(painter, rect);
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    drawNote(painter);
    if (m_hover)
        drawHover(painter, *m_hover);
    painter->restore();
}

void CurveChart::View::setHover(QPointF position) {
    m_hover = m_owner->hoverAt(position);
    viewport()->update();
}

void CurveChart::View::drawNote(QPainter* painter) {
    const QRectF plot = m_owner->m_chart->plotArea();
    if (!m_owner->hasData()) {
        QFont f = m_owner->font();
        f.setPointSizeF(f.pointSizeF() * 1.1);
        painter->setFont(f);
        painter->setPen(m_owner->palette().color(QPalette::PlaceholderText));
        painter->drawText(plot, Qt::AlignCenter, QObject::tr("No data"));
        return;
    }
    const QString note = m_owner->noteText();
    if (note.isEmpty())
        return;
    QFont f = m_owner->font();
    f.setPointSizeF(f.pointSizeF() * 0.85);
    painter->setFont(f);
    painter->setPen(QColor(0xd2, 0x99, 0x22));
    painter->drawText(plot.adjusted(6, 4, -6, -4), Qt::AlignTop | Qt::AlignRight,
                      QStringLiteral("\u26a0 ") + note);
}

// The hover readout's fonts, column widths, rows shown (the rest are "+ N more") and box.
struct CurveChart::View::Readout {
    QFont font;
    QFont bold;
    bool smoothing = false;
    double pad = 8, swatch = 10, gap = 12;
    double rowH = 0;
    double nameW = 0, smoothW = 0, valueW = 0, stepW = 0;
    int rows = 0;
    QStringList names; // elided
    QRectF box;
};

void CurveChart::View::drawHover(QPainter* painter, const CurveChart::Hover& hover) {
    drawCrosshair(painter, hover);
    drawReadout(painter, hover, measureReadout(hover));
}

// Crosshair at the nearest point's x, and a dot on each line.
void CurveChart::View::drawCrosshair(QPainter* painter, const CurveChart::Hover& hover) {
    const QPalette& pal = m_owner->palette();
    const QRectF plot = m_owner->m_chart->plotArea();
    const QColor text = pal.color(QPalette::Text);
    const QColor base = pal.color(QPalette::Base);
    painter->setPen(QPen(models::blend(base, text, 0.45), 1, Qt::DashLine));
    painter->drawLine(QPointF(hover.crossX, plot.top()), QPointF(hover.crossX, plot.bottom()));
    for (int i = 0; i < hover.markers.size(); ++i) {
        if (!plot.adjusted(-1, -1, 1, 1).contains(hover.markers[i]))
            continue;
        painter->setPen(QPen(base, 1.5));
        painter->setBrush(hover.markerColors[i]);
        painter->drawEllipse(hover.markers[i], 4, 4);
    }
}

// The readout's size from its texts, placed beside the mouse and kept inside the chart.
CurveChart::View::Readout CurveChart::View::measureReadout(const CurveChart::Hover& hover) const {
    Readout r;
    r.font = m_owner->font();
    r.font.setPointSizeF(r.font.pointSizeF() * 0.9);
    r.bold = r.font;
    r.bold.setBold(true);
    const QFontMetricsF fm(r.font);
    const QFontMetricsF bm(r.bold);
    r.smoothing = m_owner->m_smoothing > 0;
    r.rowH = fm.height() + 3;
    r.rows = static_cast<int>(std::min<qsizetype>(hover.rows.size(), kMaxReadoutRows));
    r.smoothW = bm.horizontalAdvance(QObject::tr("Smoothed"));
    r.valueW = bm.horizontalAdvance(QObject::tr("Value"));
    r.stepW = bm.horizontalAdvance(QObject::tr("Step"));
    for (int i = 0; i < r.rows; ++i) {
        const HoverRow& row = hover.rows[i];
        r.names.append(fm.elidedText(row.name, Qt::ElideMiddle, 220));
        r.nameW = std::max(r.nameW, fm.horizontalAdvance(r.names.back()));
        r.smoothW = std::max(r.smoothW, fm.horizontalAdvance(formatValue(row.smoothed)));
        r.valueW = std::max(r.valueW, fm.horizontalAdvance(formatValue(row.value)));
        r.stepW = std::max(r.stepW, fm.horizontalAdvance(QString::number(row.step)));
    }
    r.nameW = std::max(r.nameW, bm.horizontalAdvance(QObject::tr("Name")));
    const double tableW = r.swatch + 6 + r.nameW + r.gap + (r.smoothing ? r.smoothW + r.gap : 0) +
                          r.valueW + r.gap + r.stepW;
    const double width = std::max(tableW, bm.horizontalAdvance(hover.xLabel)) + 2 * r.pad;
    const int extra = hover.rows.size() > r.rows ? 1 : 0;
    const double height = r.pad * 2 + bm.height() + 4 + r.rowH * (r.rows + 1 + extra);
    const QRectF plot = m_owner->m_chart->plotArea();
    QPointF topLeft = hover.position + QPointF(16, 16);
    if (topLeft.x() + width > plot.right())
        topLeft.setX(hover.position.x() - 16 - width);
    if (topLeft.y() + height > m_owner->m_chart->rect().bottom())
        topLeft.setY(std::max(2.0, hover.position.y() - 16 - height));
    r.box = QRectF(topLeft, QSizeF(width, height));
    return r;
}

// The readout: x on top, then one row per line.
void CurveChart::View::drawReadout(QPainter* painter, const CurveChart::Hover& hover,
                                   const Readout& r) {
    const QPalette& pal = m_owner->palette();
    const QColor text = pal.color(QPalette::Text);
    const QColor base = pal.color(QPalette::Base);
    const QFontMetricsF fm(r.font);
    const QFontMetricsF bm(r.bold);
    const QRectF& box = r.box;
    QColor fill = base;
    fill.setAlphaF(0.94);
    painter->setPen(QPen(models::blend(base, text, 0.25), 1));
    painter->setBrush(fill);
    painter->drawRoundedRect(box, 4, 4);

    double y = box.top() + r.pad;
    painter->setFont(r.bold);
    painter->setPen(text);
    painter->drawText(QPointF(box.left() + r.pad, y + bm.ascent()), hover.xLabel);
    y += bm.height() + 4;
    const QColor muted = models::blend(base, text, 0.6);
    const auto columns = [&](double rowTop, const QString& name, const QString& smoothed,
                             const QString& value, const QString& step) {
        double x = box.left() + r.pad + r.swatch + 6;
        const double baseline = rowTop + fm.ascent() + 1;
        painter->drawText(QPointF(x, baseline), name);
        x += r.nameW + r.gap;
        if (r.smoothing) {
            painter->drawText(QRectF(x, rowTop, r.smoothW, r.rowH), Qt::AlignRight | Qt::AlignTop,
                              smoothed);
            x += r.smoothW + r.gap;
        }
        painter->drawText(QRectF(x, rowTop, r.valueW, r.rowH), Qt::AlignRight | Qt::AlignTop,
                          value);
        x += r.valueW + r.gap;
        painter->drawText(QRectF(x, rowTop, r.stepW, r.rowH), Qt::AlignRight | Qt::AlignTop, step);
    };
    painter->setFont(r.bold);
    painter->setPen(muted);
    columns(y, QObject::tr("Name"), QObject::tr("Smoothed"), QObject::tr("Value"),
            QObject::tr("Step"));
    y += r.rowH;
    painter->setFont(r.font);
    for (int i = 0; i < r.rows; ++i) {
        const HoverRow& row = hover.rows[i];
        painter->setPen(Qt::NoPen);
        painter->setBrush(row.color);
        painter->drawRoundedRect(
            QRectF(box.left() + r.pad, y + (r.rowH - r.swatch) / 2 - 1, r.swatch, r.swatch), 2, 2);
        painter->setPen(text);
        columns(y, r.names[i], formatValue(row.smoothed), formatValue(row.value),
                QString::number(row.step));
        y += r.rowH;
    }
    if (hover.rows.size() > r.rows) {
        painter->setPen(muted);
        painter->drawText(QPointF(box.left() + r.pad, y + fm.ascent()),
                          QObject::tr("+ %1 more").arg(hover.rows.size() - r.rows));
    }
}

} // namespace studio::widgets
