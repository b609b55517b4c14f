#include "widgets/charts/parallel_coordinates_plot.h"

#include "models/charts/chart_math.h"

#include <QLinearGradient>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>

#include <cmath>

namespace studio::widgets {

namespace {

constexpr double kLeft = 84;  // tick labels left of the first axis
constexpr double kRight = 96; // tick labels of the last (colour) axis
constexpr double kTop = 54;   // axis titles
constexpr double kBottom = 24;
constexpr double kAxisOverhang = 8; // axes reach past the extreme values
constexpr double kHoverDistance = 6;

bool valid(QPointF p) {
    return std::isfinite(p.x()) && std::isfinite(p.y());
}

} // namespace

ParallelCoordinatesPlot::ParallelCoordinatesPlot(QWidget* parent)
    : QWidget(parent) {
    setAccessibleName(tr("Parallel coordinates"));
    setMouseTracking(true);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
}

void ParallelCoordinatesPlot::setData(const models::ParallelData& data) {
    m_data = data;
    m_hovered = -1;
    update();
}

void ParallelCoordinatesPlot::setHoveredLine(int line) {
    if (line < -1 || line >= m_data.lines.size())
        line = -1;
    if (line == m_hovered)
        return;
    m_hovered = line;
    update();
    Q_EMIT hoveredLineChanged(line);
}

models::ParallelGeometry ParallelCoordinatesPlot::axesGeometry() const {
    models::ParallelGeometry g;
    g.count = static_cast<int>(m_data.axes.size());
    g.plot = QRectF(kLeft, kTop, std::max(1.0, width() - kLeft - kRight),
                    std::max(1.0, height() - kTop - kBottom));
    return g;
}

QList<QPolygonF> ParallelCoordinatesPlot::polylines() const {
    const models::ParallelGeometry g = axesGeometry();
    QList<QPolygonF> lines;
    for (const models::ParallelLine& line : m_data.lines) {
        QPolygonF poly;
        for (int a = 0; a < line.positions.size(); ++a)
            poly.append(g.point(a, line.positions[a]));
        lines.append(poly);
    }
    return lines;
}

QSize ParallelCoordinatesPlot::sizeHint() const {
    return QSize(720, 360);
}

QSize ParallelCoordinatesPlot::minimumSizeHint() const {
    return QSize(320, 200);
}

void ParallelCoordinatesPlot::mouseMoveEvent(QMouseEvent* event) {
    m_mouse = event->position();
    setHoveredLine(models::nearestPolyline(m_mouse, polylines(), kHoverDistance));
    if (m_hovered >= 0)
        update();
    QWidget::mouseMoveEvent(event);
}

void ParallelCoordinatesPlot::leaveEvent(QEvent* event) {
    setHoveredLine(-1);
    QWidget::leaveEvent(event);
}

void ParallelCoordinatesPlot::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const models::ParallelGeometry g = axesGeometry();

    if (m_data.axes.isEmpty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No parameters or metrics to compare"));
        return;
    }
    drawAxes(p, g);
    // Lines: coloured by the metric; the hovered one drawn last, on top, the others faded.
    const QList<QPolygonF> lines = polylines();
    for (int i = 0; i < lines.size(); ++i)
        if (i != m_hovered)
            drawLine(p, i, lines[i], 2.0, m_hovered >= 0 ? 0.22 : 0.85);
    if (m_hovered >= 0 && m_hovered < lines.size())
        drawLine(p, m_hovered, lines[m_hovered], 3.5, 1.0);
    drawTicks(p, g);
    if (m_hovered >= 0 && m_hovered < lines.size())
        drawReadout(p, m_data.lines[m_hovered], m_mouse);
}

double ParallelCoordinatesPlot::axisSpacing(const models::ParallelGeometry& g) const {
    return g.count > 1 ? g.plot.width() / (g.count - 1) : g.plot.width();
}

// A line per parameter, the metric axis as the colour scale; titles above.
void ParallelCoordinatesPlot::drawAxes(QPainter& p, const models::ParallelGeometry& g) {
    const QPalette& pal = palette();
    const QColor base = pal.color(QPalette::Base);
    const QColor text = pal.color(QPalette::Text);
    QFont titleFont = font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(font().pointSizeF() * 0.9);
    QFont tickFont = font();
    tickFont.setPointSizeF(font().pointSizeF() * 0.8);
    const QFontMetricsF tfm(titleFont);
    const int metricAxis = m_data.metricTitle.isEmpty() ? -1 : g.count - 1;
    const double spacing = axisSpacing(g);
    const bool dark = base.lightness() < 128;
    const double top = g.plot.top() - kAxisOverhang;
    const double bottom = g.plot.bottom() + kAxisOverhang;

    for (int a = 0; a < g.count; ++a) {
        const double x = g.axisX(a);
        if (a == metricAxis) {
            QLinearGradient gradient(QPointF(x, g.plot.bottom()), QPointF(x, g.plot.top()));
            for (int k = 0; k <= 8; ++k)
                gradient.setColorAt(k / 8.0, models::lineColorScale(k / 8.0, dark));
            p.setPen(QPen(models::blend(base, text, 0.45), 1.2));
            p.drawLine(QPointF(x, top), QPointF(x, g.plot.top()));
            p.drawLine(QPointF(x, g.plot.bottom()), QPointF(x, bottom));
            p.setPen(Qt::NoPen);
            p.setBrush(gradient);
            p.drawRoundedRect(QRectF(x - 3, g.plot.top(), 6, g.plot.height()), 3, 3);
        } else {
            p.setPen(QPen(models::blend(base, text, 0.45), 1.2));
            p.drawLine(QPointF(x, top), QPointF(x, bottom));
        }
        // Title above, elided to the space between axes (full title in the readout).
        const double titleWidth = std::max(40.0, std::min(spacing - 8, 200.0));
        p.setFont(titleFont);
        p.setPen(text);
        const QString title = tfm.elidedText(m_data.axes[a].title(), Qt::ElideMiddle, titleWidth);
        p.drawText(QRectF(x - titleWidth / 2, 2, titleWidth, kTop - 28),
                   Qt::AlignHCenter | Qt::AlignBottom, title);
        if (m_data.axes[a].scale() == models::ParallelAxis::Scale::Log) {
            p.setFont(tickFont);
            p.setPen(models::blend(base, text, 0.55));
            p.drawText(QRectF(x - titleWidth / 2, kTop - 26, titleWidth, 14),
                       Qt::AlignHCenter | Qt::AlignTop, tr("log scale"));
        }
    }
}

// A job's polyline (a dot where a value stands alone between missing ones).
void ParallelCoordinatesPlot::drawLine(QPainter& p, int i, const QPolygonF& poly, double width,
                                       double alpha) {
    const bool dark = palette().color(QPalette::Base).lightness() < 128;
    const bool hasMetric = !m_data.metricTitle.isEmpty();
    const models::ParallelLine& line = m_data.lines[i];
    QColor c = hasMetric ? models::lineColorScale(line.colorPosition, dark) : line.jobColor;
    c.setAlphaF(alpha);
    p.setPen(QPen(c, width, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    p.setBrush(Qt::NoBrush);
    QPainterPath path;
    bool open = false;
    for (qsizetype k = 0; k < poly.size(); ++k) {
        if (!valid(poly[k])) {
            open = false;
            continue;
        }
        const bool lone =
            (k == 0 || !valid(poly[k - 1])) && (k + 1 >= poly.size() || !valid(poly[k + 1]));
        if (lone) {
            p.setBrush(c);
            p.drawEllipse(poly[k], width + 1, width + 1);
            p.setBrush(Qt::NoBrush);
        }
        if (open)
            path.lineTo(poly[k]);
        else
            path.moveTo(poly[k]);
        open = true;
    }
    p.drawPath(path);
}

// Ticks over the lines: min/max (or each category), labels left of the axis (right of the
// last one) on a backing of the base colour so that lines never run through them.
void ParallelCoordinatesPlot::drawTicks(QPainter& p, const models::ParallelGeometry& g) {
    const QPalette& pal = palette();
    const QColor base = pal.color(QPalette::Base);
    const QColor text = pal.color(QPalette::Text);
    QFont tickFont = font();
    tickFont.setPointSizeF(font().pointSizeF() * 0.8);
    const QFontMetricsF kfm(tickFont);
    const double spacing = axisSpacing(g);
    p.setFont(tickFont);
    for (int a = 0; a < g.count; ++a) {
        const double x = g.axisX(a);
        const bool right = a == g.count - 1 && g.count > 1;
        const double labelWidth = std::min(spacing - 12, 150.0);
        for (const models::ParallelTick& tick : m_data.axes[a].ticks()) {
            const double y = g.y(tick.position);
            p.setPen(QPen(models::blend(base, text, 0.45), 1));
            p.drawLine(QPointF(right ? x + 4 : x - 4, y), QPointF(x, y));
            const QString label = kfm.elidedText(tick.label, Qt::ElideRight, labelWidth);
            const double w = kfm.horizontalAdvance(label) + 6;
            const QRectF box =
                right ? QRectF(x + 6, y - 8, w, 16) : QRectF(x - 6 - w, y - 8, w, 16);
            QColor backing = base;
            backing.setAlphaF(0.85);
            p.setPen(Qt::NoPen);
            p.setBrush(backing);
            p.drawRoundedRect(box, 3, 3);
            p.setPen(models::blend(base, text, 0.75));
            p.drawText(box, Qt::AlignCenter, label);
        }
    }
}

void ParallelCoordinatesPlot::drawReadout(QPainter& p, const models::ParallelLine& line,
                                          QPointF at) {
    const QPalette& pal = palette();
    const QColor base = pal.color(QPalette::Base);
    const QColor text = pal.color(QPalette::Text);
    QFont font = this->font();
    font.setPointSizeF(this->font().pointSizeF() * 0.9);
    QFont bold = font;
    bold.setBold(true);
    const QFontMetricsF fm(font);
    const QFontMetricsF bm(bold);
    double keyW = 0, valueW = 0;
    for (int a = 0; a < m_data.axes.size(); ++a) {
        keyW = std::max(keyW, fm.horizontalAdvance(m_data.axes[a].title()));
        const QString v = a < line.values.size() && !line.values[a].isEmpty()
                              ? line.values[a]
                              : QStringLiteral("\u2014");
        valueW = std::max(valueW, fm.horizontalAdvance(v));
    }
    const double pad = 8, rowH = fm.height() + 2;
    const double width =
        std::max(bm.horizontalAdvance(line.job) + 18, keyW + 16 + valueW) + 2 * pad;
    const double height = 2 * pad + bm.height() + 4 + rowH * m_data.axes.size();
    QPointF topLeft = at + QPointF(14, 14);
    if (topLeft.x() + width > this->width() - 2)
        topLeft.setX(at.x() - 14 - width);
    if (topLeft.y() + height > this->height() - 2)
        topLeft.setY(std::max(2.0, at.y() - 14 - height));
    const QRectF box(topLeft, QSizeF(width, height));
    QColor fill = base;
    fill.setAlphaF(0.95);
    p.setPen(QPen(models::blend(base, text, 0.25), 1));
    p.setBrush(fill);
    p.drawRoundedRect(box, 4, 4);
    double y = box.top() + pad;
    p.setPen(Qt::NoPen);
    p.setBrush(line.jobColor);
    p.drawRoundedRect(QRectF(box.left() + pad, y + (bm.height() - 10) / 2, 10, 10), 2, 2);
    p.setFont(bold);
    p.setPen(text);
    p.drawText(QPointF(box.left() + pad + 16, y + bm.ascent()), line.job);
    y += bm.height() + 4;
    p.setFont(font);
    for (int a = 0; a < m_data.axes.size(); ++a) {
        p.setPen(models::blend(base, text, 0.6));
        p.drawText(QPointF(box.left() + pad, y + fm.ascent()), m_data.axes[a].title());
        p.setPen(text);
        const QString v = a < line.values.size() && !line.values[a].isEmpty()
                              ? line.values[a]
                              : QStringLiteral("\u2014");
        p.drawText(QRectF(box.right() - pad - valueW, y, valueW, rowH),
                   Qt::AlignRight | Qt::AlignTop, v);
        y += rowH;
    }
}

QString ParallelCoordinatesPlot::describe() const {
    if (m_data.lines.isEmpty())
        return tr("No jobs");
    QStringList axes;
    for (const auto& a : m_data.axes)
        axes << a.title();
    return tr("%n jobs over %1; colour: %2", nullptr, static_cast<int>(m_data.lines.size()))
        .arg(axes.join(QStringLiteral(", ")), m_data.metricTitle);
}

} // namespace studio::widgets
