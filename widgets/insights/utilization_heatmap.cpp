#include "widgets/insights/utilization_heatmap.h"

#include "models/charts/chart_math.h"
#include "widgets/common/theme.h"
#include "widgets/common/tool_tip.h"

#include <QDateTime>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace studio::widgets {

namespace {

constexpr int kLegendWidth = 64;
constexpr int kMargin = 6;

// Secondary text: axis labels, notes, the "no sample" swatch.
QColor faintText(const QPalette& pal) {
    return models::blend(pal.color(QPalette::Base), pal.color(QPalette::Text), 0.55);
}

int utcOffset() {
    return QDateTime::currentDateTime().offsetFromUtc();
}

QString clockTime(double t) {
    return QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(t * 1000))
        .toString(QStringLiteral("HH:mm:ss"));
}

} // namespace

UtilizationHeatmap::UtilizationHeatmap(QWidget* parent)
    : QWidget(parent) {
    setAccessibleName(tr("Utilization heatmap"));
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

UtilizationHeatmap::~UtilizationHeatmap() = default;

QSize UtilizationHeatmap::sizeHint() const {
    return {900, std::max(200, 40 + rowCount() * 14)};
}

QSize UtilizationHeatmap::minimumSizeHint() const {
    return {300, 140};
}

void UtilizationHeatmap::setNodeNames(std::map<int, QString> names) {
    if (names == m_nodeNames)
        return;
    m_nodeNames = std::move(names);
    layoutPlot();
    update();
}

QString UtilizationHeatmap::nodeName(int node) const {
    const auto it = m_nodeNames.find(node);
    return it != m_nodeNames.end() ? it->second : QStringLiteral("node %1").arg(node);
}

QString UtilizationHeatmap::rowLabel(int row) const {
    const HeatmapRow& r = m_rows.at(row);
    return nodeName(r.node) + QStringLiteral(" \u00b7 ") + r.device;
}

void UtilizationHeatmap::setRows(std::vector<HeatmapRow> rows) {
    m_rows = std::move(rows);
    m_wholeRun = true;
    m_selection.reset();
    layoutPlot();
    rebin();
    update();
}

void UtilizationHeatmap::clear() {
    setRows({});
}

void UtilizationHeatmap::setNote(const QString& note) {
    if (note == m_note)
        return;
    m_note = note;
    layoutPlot();
    rebin();
    update();
}

std::pair<double, double> UtilizationHeatmap::dataTimeRange() const {
    double lo = 0, hi = 0;
    bool any = false;
    for (const auto& r : m_rows) {
        if (r.samples.empty())
            continue;
        lo = any ? std::min(lo, r.samples.front().time) : r.samples.front().time;
        hi = any ? std::max(hi, r.samples.back().time) : r.samples.back().time;
        any = true;
    }
    return {lo, hi};
}

void UtilizationHeatmap::setTimeWindow(double from, double to) {
    if (!(to > from))
        return;
    m_wholeRun = false;
    m_viewFrom = from;
    m_viewTo = to;
    rebin();
    update();
}

void UtilizationHeatmap::showWholeRun() {
    m_wholeRun = true;
    rebin();
    update();
}

void UtilizationHeatmap::clearSelection() {
    m_selection.reset();
    update();
}

void UtilizationHeatmap::appendSamples(int node, const QString& device,
                                       std::span<const models::HeatmapSample> samples) {
    if (samples.empty())
        return;
    auto it = std::find_if(m_rows.begin(), m_rows.end(), [&](const HeatmapRow& r) {
        return r.node == node && r.device == device;
    });
    if (it == m_rows.end()) {
        // A device seen for the first time changes the rows' layout: bin everything again.
        m_rows.push_back({node, device, {samples.begin(), samples.end()}});
        rebin();
        update();
        return;
    }
    const int row = static_cast<int>(it - m_rows.begin());
    it->samples.insert(it->samples.end(), samples.begin(), samples.end());
    if (m_grid.rows() != rowCount() || m_plot.width() < 1) {
        rebin();
        update();
        return;
    }
    bool widened = false;
    for (const models::HeatmapSample& s : samples) {
        if (m_wholeRun) {
            while (s.time > m_grid.axis().to && std::isfinite(s.time)) {
                m_grid.widen();
                widened = true;
            }
        }
        m_grid.add(row, s.time, s.value);
    }
    if (m_wholeRun) // the view ends at the newest sample; the grid may reach further
        m_viewTo = std::max(m_viewTo, samples.back().time);
    if (widened)
        updateHold();
    const auto [first, last] = m_grid.dirtyColumns();
    if (first >= 0)
        renderColumns(widened ? 0 : first, widened ? m_grid.axis().columns - 1 : last + m_hold);
    m_grid.clearDirty();
    update();
}

void UtilizationHeatmap::layoutPlot() {
    const QFontMetrics fm(font());
    int labelWidth = fm.horizontalAdvance(QStringLiteral("node 00 \u00b7 gpu00"));
    for (int r = 0; r < rowCount(); ++r)
        labelWidth = std::max(labelWidth, fm.horizontalAdvance(rowLabel(r)));
    m_labelWidth = labelWidth + 2 * kMargin;
    const int top = kMargin + fm.height() * (m_note.isEmpty() ? 1 : 2) + kMargin;
    const int bottom = fm.height() + 2 * kMargin;
    m_plot = QRect(m_labelWidth, top, std::max(1, width() - m_labelWidth - kLegendWidth),
                   std::max(1, height() - top - bottom));
}

void UtilizationHeatmap::rebin() {
    ++m_fullBinnings;
    const auto [lo, hi] = dataTimeRange();
    if (m_wholeRun) {
        m_viewFrom = lo;
        m_viewTo = hi > lo ? hi : lo + 1;
    }
    m_grid = models::HeatmapGrid(
        rowCount(), models::TimeColumns{m_viewFrom, m_viewTo, std::max(1, m_plot.width())});
    for (int r = 0; r < rowCount(); ++r)
        m_grid.addSeries(r, m_rows[r].samples);
    m_grid.clearDirty();
    updateHold();
    m_image = QImage(m_grid.axis().columns, std::max(1, m_plot.height()), QImage::Format_RGB32);
    m_image.fill(palette().color(QPalette::Base));
    renderColumns(0, m_grid.axis().columns - 1);
}

void UtilizationHeatmap::updateHold() {
    // The sampling interval: the smallest mean spacing over the rows.
    double interval = 0;
    for (const auto& r : m_rows)
        if (r.samples.size() >= 2) {
            const double mean = (r.samples.back().time - r.samples.front().time) /
                                static_cast<double>(r.samples.size() - 1);
            if (mean > 0 && (interval == 0 || mean < interval))
                interval = mean;
        }
    m_hold = models::holdColumns(interval, m_grid.axis().columnWidth());
}

int UtilizationHeatmap::rowTop(int row) const {
    const int rows = std::max(1, rowCount());
    return static_cast<int>(std::lround(double(row) * m_image.height() / rows));
}

void UtilizationHeatmap::renderColumns(int first, int last) {
    if (m_image.isNull() || rowCount() == 0)
        return;
    first = std::max(0, first);
    last = std::min(last, m_image.width() - 1);
    if (last < first)
        return;
    const QRgb empty = palette().color(QPalette::Base).rgb();
    std::vector<QRgb> colors(static_cast<std::size_t>(last - first + 1));
    for (int r = 0; r < rowCount(); ++r) {
        for (int c = first; c <= last; ++c) {
            const int held = m_grid.heldColumn(r, c, m_hold);
            colors[c - first] = held >= 0 ? m_colors.colorFor(m_grid.mean(r, held), 0, 100) : empty;
        }
        const int y1 = rowTop(r + 1);
        for (int y = rowTop(r); y < y1; ++y)
            std::memcpy(reinterpret_cast<QRgb*>(m_image.scanLine(y)) + first, colors.data(),
                        colors.size() * sizeof(QRgb));
    }
}

double UtilizationHeatmap::timeAtX(double x) const {
    if (m_plot.width() < 1)
        return m_viewFrom;
    return m_viewFrom + (x - m_plot.left()) / m_plot.width() * (m_viewTo - m_viewFrom);
}

double UtilizationHeatmap::xOfTime(double t) const {
    if (!(m_viewTo > m_viewFrom))
        return m_plot.left();
    return m_plot.left() + (t - m_viewFrom) / (m_viewTo - m_viewFrom) * m_plot.width();
}

std::optional<HeatmapHover> UtilizationHeatmap::hoverAt(QPoint pos) const {
    if (!m_plot.contains(pos) || rowCount() == 0 || m_grid.rows() != rowCount())
        return std::nullopt;
    const int y = pos.y() - m_plot.top();
    int row = std::clamp(y * rowCount() / std::max(1, m_plot.height()), 0, rowCount() - 1);
    while (row + 1 < rowCount() && y >= rowTop(row + 1))
        ++row;
    while (row > 0 && y < rowTop(row))
        --row;
    HeatmapHover h;
    h.row = row;
    h.node = m_rows[row].node;
    h.device = m_rows[row].device;
    h.time = timeAtX(pos.x() + 0.5);
    const int own = m_grid.axis().columnOf(h.time);
    if (own < 0)
        return std::nullopt;
    // A column narrower than the sampling interval shows the sample it holds.
    const int held = m_grid.heldColumn(row, own, m_hold);
    const int column = held >= 0 ? held : own;
    const double w = m_grid.axis().columnWidth();
    h.from = m_grid.axis().from + column * w;
    h.to = h.from + w;
    h.mean = m_grid.mean(row, column);
    h.max = m_grid.max(row, column);
    h.samples = static_cast<int>(m_grid.cell(row, column).count);
    return h;
}

QString UtilizationHeatmap::toolTipAt(QPoint pos) const {
    const auto h = hoverAt(pos);
    if (!h)
        return {};
    QString text = QStringLiteral("<b>%1 \u00b7 %2</b><br>%3")
                       .arg(nodeName(h->node).toHtmlEscaped(), h->device, clockTime(h->time));
    if (h->samples == 0)
        return text + QStringLiteral("<br>no sample");
    text += QStringLiteral("<br>utilization %1 %").arg(h->mean, 0, 'f', 1);
    if (h->samples > 1)
        text += QStringLiteral("<br>max %1 % over %2 samples (%3\u2013%4)")
                    .arg(h->max, 0, 'f', 1)
                    .arg(h->samples)
                    .arg(clockTime(h->from), clockTime(h->to));
    return text;
}

bool UtilizationHeatmap::event(QEvent* event) {
    if (showPointToolTip(this, event, [this](QPoint at) { return toolTipAt(at); }))
        return true;
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) {
        layoutPlot();
        rebin();
    }
    return QWidget::event(event);
}

void UtilizationHeatmap::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    const QRect before = m_plot;
    layoutPlot();
    if (m_plot.size() != before.size() || m_grid.rows() != rowCount())
        rebin();
}

void UtilizationHeatmap::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QPalette pal = palette();
    p.fillRect(rect(), pal.color(QPalette::Window));
    drawHeader(p);
    if (rowCount() == 0 || m_image.isNull()) {
        p.setPen(faintText(pal));
        p.drawText(m_plot, Qt::AlignCenter,
                   QStringLiteral("No CPU or GPU utilization samples yet"));
        return;
    }
    // The image holds the grid's columns; the view may show only part of them (a live window
    // that has grown past its data), stretched to the plot.
    const double columns = m_grid.axis().xOf(m_viewTo) - m_grid.axis().xOf(m_viewFrom);
    if (std::abs(columns - m_image.width()) < 0.5 && m_image.width() == m_plot.width() &&
        m_image.height() == m_plot.height())
        p.drawImage(m_plot.topLeft(), m_image);
    else
        p.drawImage(
            QRectF(m_plot), m_image,
            QRectF(m_grid.axis().xOf(m_viewFrom), 0, std::max(1.0, columns), m_image.height()));

    drawRowLabels(p);
    drawTimeAxis(p);
    drawLegend(p);
    drawSelection(p);
}

// The title with the time a pixel column covers, what an empty cell means, and the note.
void UtilizationHeatmap::drawHeader(QPainter& p) {
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::Text);
    const QColor faint = faintText(pal);
    const QFontMetrics fm(font());

    p.setPen(text);
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    QString title = QStringLiteral("System utilization heatmap");
    if (const double w = m_grid.axis().columnWidth(); w > 0)
        title += QStringLiteral("  (mean per pixel column: %1)")
                     .arg(w < 1 ? QStringLiteral("%1 ms").arg(w * 1000, 0, 'f', w < 0.01 ? 1 : 0)
                                : models::formatDuration(w));
    p.drawText(QPoint(kMargin, kMargin + fm.ascent()), title);
    p.setFont(font());
    {
        // What an empty cell means, at the title's right.
        const QString missing = QStringLiteral("no sample");
        const int w = fm.horizontalAdvance(missing);
        const int x = width() - kMargin - w;
        const QRect swatch(x - 16, kMargin + (fm.height() - 10) / 2, 10, 10);
        p.fillRect(swatch, pal.color(QPalette::Base));
        p.setPen(faint);
        p.drawRect(swatch);
        p.drawText(QPoint(x, kMargin + fm.ascent()), missing);
    }
    if (!m_note.isEmpty()) {
        p.setPen(faint);
        p.drawText(QPoint(kMargin, kMargin + fm.height() + fm.ascent()), m_note);
    }
}

// Row labels, thinned out when rows are lower than the text; a line between nodes.
void UtilizationHeatmap::drawRowLabels(QPainter& p) {
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::Text);
    const QFontMetrics fm(font());
    const double rowHeight = double(m_plot.height()) / rowCount();
    const int every = std::max(1, static_cast<int>(std::ceil(fm.height() / rowHeight)));
    p.setPen(text);
    for (int r = 0; r < rowCount(); ++r) {
        const int y0 = m_plot.top() + rowTop(r);
        const int y1 = m_plot.top() + rowTop(r + 1);
        if (r > 0 && m_rows[r].node != m_rows[r - 1].node) {
            p.setPen(QPen(pal.color(QPalette::Window), 2));
            p.drawLine(m_plot.left(), y0, m_plot.right(), y0);
            p.setPen(text);
        }
        const bool first = r == 0 || m_rows[r].node != m_rows[r - 1].node;
        if (r % every == 0 || first)
            p.drawText(QRect(kMargin, (y0 + y1) / 2 - fm.height() / 2, m_labelWidth - 2 * kMargin,
                             fm.height()),
                       Qt::AlignRight | Qt::AlignVCenter, rowLabel(r));
    }
}

void UtilizationHeatmap::drawTimeAxis(QPainter& p) {
    const QColor faint = faintText(palette());
    const QFontMetrics fm(font());
    p.setPen(faint);
    const int maxTicks = std::max(2, m_plot.width() / 110);
    for (const models::AxisTick& tick :
         models::wallTimeTicks(m_viewFrom, m_viewTo, maxTicks, utcOffset())) {
        const int x = static_cast<int>(std::lround(xOfTime(tick.value)));
        p.drawLine(x, m_plot.bottom() + 1, x, m_plot.bottom() + 4);
        const int w = fm.horizontalAdvance(tick.label);
        p.drawText(QPoint(std::clamp(x - w / 2, 0, width() - w), m_plot.bottom() + 4 + fm.ascent()),
                   tick.label);
    }
}

// The colour map from 0 % (bottom) to 100 % (top).
void UtilizationHeatmap::drawLegend(QPainter& p) {
    const QColor faint = faintText(palette());
    const QFontMetrics fm(font());
    const int legendTop = m_plot.top() + fm.height();
    const QRect bar(m_plot.right() + 12, legendTop, 12, std::max(20, m_plot.bottom() - legendTop));
    for (int y = 0; y < bar.height(); ++y) {
        p.setPen(
            QColor::fromRgb(m_colors.colorAt(1.0 - double(y) / std::max(1, bar.height() - 1))));
        p.drawLine(bar.left(), bar.top() + y, bar.right(), bar.top() + y);
    }
    p.setPen(faint);
    for (const models::AxisTick& tick :
         models::numberTicks(0, 100, std::max(2, bar.height() / 40))) {
        const int y =
            bar.bottom() - static_cast<int>(std::lround(tick.value / 100 * (bar.height() - 1)));
        p.drawLine(bar.right() + 1, y, bar.right() + 3, y);
        p.drawText(QPoint(bar.right() + 5, y + fm.ascent() / 2 - 1), tick.label);
    }
    p.drawText(QPoint(bar.left() - 4, m_plot.top() + fm.ascent() - 4), QStringLiteral("util %"));
}

// The selected time window, or the one being dragged.
void UtilizationHeatmap::drawSelection(QPainter& p) {
    const QPalette pal = palette();
    auto band = [&](double x0, double x1) {
        const QRectF r(QPointF(std::min(x0, x1), m_plot.top()),
                       QPointF(std::max(x0, x1), m_plot.bottom() + 1));
        QColor fill = pal.color(QPalette::Highlight);
        fill.setAlpha(60);
        p.fillRect(r, fill);
        p.setPen(QPen(pal.color(QPalette::Highlight), 1.5));
        p.drawRect(r);
    };
    if (m_dragStartX)
        band(*m_dragStartX, m_dragX);
    else if (m_selection)
        band(xOfTime(m_selection->first), xOfTime(m_selection->second));
}

void UtilizationHeatmap::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton && m_plot.contains(event->position().toPoint())) {
        m_dragStartX = std::clamp(event->position().toPoint().x(), m_plot.left(), m_plot.right());
        m_dragX = *m_dragStartX;
        update();
        return;
    }
    QWidget::mousePressEvent(event);
}

void UtilizationHeatmap::mouseMoveEvent(QMouseEvent* event) {
    if (m_dragStartX) {
        m_dragX = std::clamp(event->position().toPoint().x(), m_plot.left(), m_plot.right());
        update();
        return;
    }
    QWidget::mouseMoveEvent(event);
}

void UtilizationHeatmap::mouseReleaseEvent(QMouseEvent* event) {
    if (!m_dragStartX || event->button() != Qt::LeftButton) {
        QWidget::mouseReleaseEvent(event);
        return;
    }
    const int x0 = std::min(*m_dragStartX, m_dragX);
    const int x1 = std::max(*m_dragStartX, m_dragX);
    m_dragStartX.reset();
    if (x1 - x0 >= 3) {
        const double from = timeAtX(x0);
        const double to = timeAtX(x1 + 1);
        m_selection = std::make_pair(from, to);
        Q_EMIT timeWindowSelected(from, to);
    }
    update();
}

QString UtilizationHeatmap::describe() const {
    if (m_rows.empty())
        return m_note.isEmpty() ? tr("No samples yet") : m_note;
    // Each device's mean over the whole run, the busiest first.
    std::vector<std::pair<double, QString>> means;
    double first = 0, last = 0;
    for (const HeatmapRow& r : m_rows) {
        if (r.samples.empty())
            continue;
        double sum = 0;
        for (const auto& s : r.samples)
            sum += s.value;
        means.emplace_back(sum / static_cast<double>(r.samples.size()),
                           tr("node %1 %2").arg(r.node).arg(r.device));
        first = first == 0 ? r.samples.front().time : std::min(first, r.samples.front().time);
        last = std::max(last, r.samples.back().time);
    }
    std::sort(means.begin(), means.end(),
              [](const auto& a, const auto& b) { return a.first > b.first; });
    QStringList parts;
    for (std::size_t i = 0; i < std::min<std::size_t>(means.size(), 4); ++i)
        parts << tr("%1 %2%").arg(means[i].second).arg(qRound(means[i].first));
    return tr("%n devices over %1 s; busiest: %2", nullptr, static_cast<int>(m_rows.size()))
        .arg(qRound(last - first))
        .arg(parts.join(QStringLiteral(", ")));
}

} // namespace studio::widgets
