#include "widgets/charts/curve_chart.h"

#include "engine/plot/scale.h"
#include "widgets/charts/curve_chart_view.h"

#include "widgets/common/theme.h"

#include <QCategoryAxis>
#include <QChart>
#include <QDateTime>
#include <QEvent>
#include <QGraphicsLayout>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace studio::widgets {

namespace {

constexpr int kBatchMs = 40;
constexpr double kMaxSmoothing = 0.999;

} // namespace

struct CurveChart::Line {
    QString name;
    QColor color;
    QList<models::CurvePoint> points;
    QList<models::CurvePoint> pending;
    std::vector<double> x; // axis units, non-decreasing
    std::vector<double> y;
    std::vector<double> smooth;   // empty without smoothing
    models::EmaState ema;         // where smooth left off, for appended points
    std::vector<qsizetype> order; // points index of x[i] when points are not in x order
    qsizetype nonFinite = 0;
    qsizetype nonPositive = 0;
    bool dirty = true;
    QLineSeries* raw = nullptr;
    QLineSeries* smoothed = nullptr;

    qsizetype pointIndex(qsizetype i) const { return order.empty() ? i : order[i]; }
};

CurveChart::CurveChart(QWidget* parent)
    : QWidget(parent)
    , m_chart(new QChart) {
    setAccessibleName(tr("Chart"));
    m_chart->setAnimationOptions(QChart::NoAnimation);
    m_chart->setBackgroundRoundness(0);
    m_chart->setMargins(QMargins(6, 4, 10, 4));
    m_chart->layout()->setContentsMargins(0, 0, 0, 0);
    m_chart->legend()->setAlignment(Qt::AlignTop);
    m_chart->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);
    m_chart->setLocalizeNumbers(false);
    m_view = new View(m_chart, this);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);

    m_xAxis = new QCategoryAxis;
    m_chart->addAxis(m_xAxis, Qt::AlignBottom);
    replaceYAxis();

    m_timer = new QTimer(this);
    m_timer->setSingleShot(true);
    m_timer->setInterval(kBatchMs);
    connect(m_timer, &QTimer::timeout, this, &CurveChart::rebuild);
    connect(m_chart, &QChart::plotAreaChanged, this, [this](const QRectF& plot) {
        if (std::fabs(plot.width() - m_lastPlotWidth) >= 1)
            scheduleRedraw();
    });
    applyPalette();
    setMinimumSize(240, 160);
    scheduleRedraw();
}

CurveChart::~CurveChart() = default;

void CurveChart::setSeries(const QList<models::CurveSeries>& series) {
    Q_ASSERT(QThread::currentThread() == thread());
    clear();
    for (int i = 0; i < series.size(); ++i) {
        auto line = std::make_unique<Line>();
        line->name = series[i].name;
        line->color = series[i].color.isValid() ? series[i].color : models::seriesColor(i);
        line->points = series[i].points;
        m_lines.push_back(std::move(line));
    }
    m_needsRecompute = true;
    scheduleRedraw();
}

void CurveChart::appendPoints(const QString& series, const QList<models::CurvePoint>& points) {
    Q_ASSERT(QThread::currentThread() == thread());
    auto it = std::find_if(m_lines.begin(), m_lines.end(),
                           [&](const auto& line) { return line->name == series; });
    if (it == m_lines.end()) {
        auto line = std::make_unique<Line>();
        line->name = series;
        line->color = models::seriesColor(static_cast<int>(m_lines.size()));
        m_lines.push_back(std::move(line));
        it = std::prev(m_lines.end());
    }
    (*it)->pending.append(points);
    scheduleRedraw();
}

void CurveChart::clear() {
    for (auto& line : m_lines) {
        for (QLineSeries* s : {line->raw, line->smoothed}) {
            if (s) {
                m_chart->removeSeries(s);
                delete s;
            }
        }
    }
    m_lines.clear();
    m_view->clearHover();
    setZoom(std::nullopt);
    scheduleRedraw();
}

void CurveChart::setXAxisMode(models::XAxisMode mode) {
    if (mode == m_xMode)
        return;
    m_xMode = mode;
    m_needsRecompute = true;
    setZoom(std::nullopt);
    scheduleRedraw();
}

void CurveChart::setSmoothing(double weight) {
    weight = std::isfinite(weight) ? std::clamp(weight, 0.0, kMaxSmoothing) : 0.0;
    if (weight == m_smoothing)
        return;
    m_smoothing = weight;
    m_needsRecompute = true;
    scheduleRedraw();
}

void CurveChart::setTitle(const QString& title) {
    m_chart->setTitle(title);
}

QString CurveChart::title() const {
    return m_chart->title();
}

void CurveChart::setYAxisTitle(const QString& title) {
    m_yTitle = title;
    m_yAxis->setTitleText(title);
}

void CurveChart::setLogY(bool on) {
    if (on == m_logY)
        return;
    m_logY = on;
    replaceYAxis();
    if (m_zoom)
        m_zoomY = false;
    scheduleRedraw();
}

void CurveChart::setLegendVisible(bool visible) {
    m_legendVisible = visible;
    m_chart->legend()->setVisible(visible);
}

void CurveChart::zoomToX(double xMin, double xMax) {
    if (!(xMin < xMax))
        return;
    m_zoomY = false;
    setZoom(QRectF(QPointF(xMin, 0), QPointF(xMax, 1)));
    redrawNow();
}

void CurveChart::resetZoom() {
    setZoom(std::nullopt);
    redrawNow();
}

void CurveChart::setZoom(std::optional<QRectF> zoom) {
    const bool was = m_zoom.has_value();
    m_zoom = zoom;
    if (!zoom)
        m_zoomY = false;
    if (was != m_zoom.has_value())
        Q_EMIT zoomChanged(m_zoom.has_value());
}

void CurveChart::zoomToViewRect(const QRectF& viewRect) {
    if (m_lines.empty() || !m_lines.front()->raw)
        return;
    QLineSeries* series = m_lines.front()->raw;
    const QPointF a = m_chart->mapToValue(viewRect.topLeft(), series);
    const QPointF b = m_chart->mapToValue(viewRect.bottomRight(), series);
    if (!(std::fabs(b.x() - a.x()) > 0))
        return;
    m_zoomY = viewRect.height() >= 8;
    setZoom(QRectF(a, b).normalized());
    redrawNow();
}

int CurveChart::seriesCount() const {
    return static_cast<int>(m_lines.size());
}

QStringList CurveChart::seriesNames() const {
    QStringList names;
    for (const auto& line : m_lines)
        names.append(line->name);
    return names;
}

qsizetype CurveChart::pointCount(const QString& series) const {
    for (const auto& line : m_lines)
        if (line->name == series)
            return line->points.size() + line->pending.size();
    return 0;
}

QList<QPointF> CurveChart::drawnPoints(const QString& series, bool smoothed) const {
    for (const auto& line : m_lines) {
        if (line->name != series)
            continue;
        QLineSeries* s = smoothed ? line->smoothed : line->raw;
        return s && s->isVisible() ? s->points() : QList<QPointF>();
    }
    return {};
}

QPointF CurveChart::visibleXRange() const {
    return m_visibleX;
}

bool CurveChart::hasData() const {
    return std::any_of(m_lines.cbegin(), m_lines.cend(),
                       [](const auto& line) { return !line->points.isEmpty(); });
}

QString CurveChart::noteText() const {
    qsizetype nonFinite = 0, nonPositive = 0;
    for (const auto& line : m_lines) {
        nonFinite += line->nonFinite;
        nonPositive += m_logY ? line->nonPositive : 0;
    }
    QString note;
    if (nonFinite > 0)
        note = nonFinite == 1 ? tr("1 NaN/Inf value not drawn")
                              : tr("%1 NaN/Inf values not drawn").arg(nonFinite);
    if (nonPositive > 0)
        note += (note.isEmpty() ? QString() : QStringLiteral(" \u00b7 ")) +
                (nonPositive == 1 ? tr("1 value \u2264 0 hidden on log scale")
                                  : tr("%1 values \u2264 0 hidden on log scale").arg(nonPositive));
    return note;
}

qsizetype CurveChart::hiddenValueCount() const {
    qsizetype n = 0;
    for (const auto& line : m_lines)
        n += line->nonFinite + (m_logY ? line->nonPositive : 0);
    return n;
}

void CurveChart::redrawNow() {
    m_timer->stop();
    rebuild();
}

void CurveChart::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange ||
        event->type() == QEvent::FontChange)
        applyPalette();
    QWidget::changeEvent(event);
}

void CurveChart::scheduleRedraw() {
    if (!m_timer->isActive())
        m_timer->start();
}

void CurveChart::applyPending() {
    std::vector<qsizetype> appendedFrom(m_lines.size(), -1);
    for (std::size_t i = 0; i < m_lines.size(); ++i) {
        Line& line = *m_lines[i];
        if (!line.pending.isEmpty()) {
            appendedFrom[i] = line.points.size();
            line.points.append(line.pending);
            line.pending.clear();
        }
    }
    if (m_xMode == models::XAxisMode::RelativeTime) {
        double span = 0;
        for (const auto& line : m_lines)
            if (!line->points.isEmpty())
                span = std::max(span, line->points.back().time - line->points.front().time);
        const models::TimeUnit unit = models::relativeTimeUnit(span);
        if (unit.seconds != m_relativeUnit.seconds)
            m_needsRecompute = true;
        m_relativeUnit = unit;
    }
    for (std::size_t i = 0; i < m_lines.size(); ++i) {
        Line& line = *m_lines[i];
        if (line.dirty || m_needsRecompute)
            recomputeLine(line);
        else if (appendedFrom[i] >= 0)
            extendLine(line, appendedFrom[i]);
    }
    m_needsRecompute = false;
}

void CurveChart::extendLine(Line& line, qsizetype from) {
    // Live appends cost only the new points, unless they break the x order.
    const qsizetype n = line.points.size();
    if (!line.order.empty() || from == 0 || from != static_cast<qsizetype>(line.x.size())) {
        recomputeLine(line);
        return;
    }
    const double origin = line.points.front().time;
    const double unit = m_xMode == models::XAxisMode::RelativeTime ? m_relativeUnit.seconds : 1;
    std::vector<double> x(static_cast<std::size_t>(n - from));
    for (qsizetype i = from; i < n; ++i)
        x[i - from] = models::mapX(m_xMode, line.points[i], origin) / unit;
    if (!std::is_sorted(x.begin(), x.end()) || x.front() < line.x.back()) {
        recomputeLine(line);
        return;
    }
    line.x.insert(line.x.end(), x.begin(), x.end());
    line.y.reserve(n);
    for (qsizetype i = from; i < n; ++i) {
        const double v = line.points[i].value;
        line.y.push_back(v);
        line.nonFinite += std::isfinite(v) ? 0 : 1;
        line.nonPositive += std::isfinite(v) && v <= 0 ? 1 : 0;
    }
    if (m_smoothing > 0)
        models::extendEma(line.y, m_smoothing, line.ema, line.smooth);
}

void CurveChart::recomputeLine(Line& line) {
    line.dirty = false;
    const qsizetype n = line.points.size();
    line.x = models::mapX(m_xMode, std::span<const models::CurvePoint>(line.points.constData(), n));
    if (m_xMode == models::XAxisMode::RelativeTime && m_relativeUnit.seconds != 1)
        for (double& v : line.x)
            v /= m_relativeUnit.seconds;
    line.y.resize(n);
    line.nonFinite = line.nonPositive = 0;
    for (qsizetype i = 0; i < n; ++i) {
        const double v = line.points[i].value;
        line.y[i] = v;
        line.nonFinite += std::isfinite(v) ? 0 : 1;
        line.nonPositive += std::isfinite(v) && v <= 0 ? 1 : 0;
    }
    line.ema = models::EmaState{};
    line.smooth.clear();
    if (m_smoothing > 0)
        models::extendEma(line.y, m_smoothing, line.ema, line.smooth);
    line.order.clear();
    if (!std::is_sorted(line.x.begin(), line.x.end())) {
        // Wall time can step back (clock changes, a resumed attempt): draw in x order.
        line.order.resize(n);
        std::iota(line.order.begin(), line.order.end(), 0);
        std::stable_sort(line.order.begin(), line.order.end(),
                         [&](qsizetype a, qsizetype b) { return line.x[a] < line.x[b]; });
        const auto permute = [&](std::vector<double>& v) {
            if (v.empty())
                return;
            std::vector<double> sorted(v.size());
            for (qsizetype i = 0; i < n; ++i)
                sorted[i] = v[line.order[i]];
            v.swap(sorted);
        };
        permute(line.x);
        permute(line.y);
        permute(line.smooth);
    }
}

void CurveChart::ensureSeries() {
    const auto make = [this](const Line& line) {
        auto* s = new QLineSeries;
        s->setName(line.name);
        m_chart->addSeries(s);
        s->attachAxis(m_xAxis);
        s->attachAxis(m_yAxis);
        return s;
    };
    bool added = false;
    for (auto& line : m_lines)
        if (!line->raw) {
            line->raw = make(*line);
            added = true;
        }
    // Smoothed lines after every raw one, so faint raw lines never cover them.
    for (auto& line : m_lines)
        if (!line->smoothed) {
            line->smoothed = make(*line);
            added = true;
        }
    if (added) {
        updatePens();
        updateLegend();
    }
}

void CurveChart::updatePens() {
    const bool smoothing = m_smoothing > 0;
    const bool dark = palette().color(QPalette::Base).lightness() < 128;
    for (auto& line : m_lines) {
        if (!line->raw)
            continue;
        QColor faint = line->color;
        faint.setAlphaF(dark ? 0.35 : 0.28);
        QPen raw(smoothing ? faint : line->color, smoothing ? 1.0 : 1.6);
        raw.setCosmetic(true);
        QPen strong(line->color, 1.8);
        strong.setCosmetic(true);
        // Each setter re-strokes the whole line in Qt Charts: only call them on a change.
        if (line->raw->pen() != raw)
            line->raw->setPen(raw);
        if (line->smoothed->pen() != strong)
            line->smoothed->setPen(strong);
        if (line->smoothed->isVisible() != smoothing)
            line->smoothed->setVisible(smoothing);
    }
}

void CurveChart::updateLegend() {
    const bool smoothing = m_smoothing > 0;
    QLegend* legend = m_chart->legend();
    for (auto& line : m_lines) {
        if (!line->raw)
            continue;
        // Set every time: the legend lays itself out again only when told (cheap).
        for (QLegendMarker* m : legend->markers(line->raw))
            m->setVisible(!smoothing);
        for (QLegendMarker* m : legend->markers(line->smoothed))
            m->setVisible(smoothing);
    }
    const bool visible = m_legendVisible && !m_lines.empty();
    if (legend->isVisible() != visible)
        legend->setVisible(visible);
}

void CurveChart::replaceYAxis() {
    QAbstractAxis* old = m_yAxis;
    if (m_logY) {
        auto* axis = new QLogValueAxis;
        axis->setBase(10);
        axis->setLabelFormat(QStringLiteral("%g"));
        axis->setMinorTickCount(-1);
        m_yAxis = axis;
    } else {
        m_yAxis = new QCategoryAxis;
    }
    if (old) {
        m_chart->removeAxis(old);
        delete old;
    }
    m_chart->addAxis(m_yAxis, Qt::AlignLeft);
    m_yAxis->setTitleText(m_yTitle);
    styleAxis(m_yAxis);
    // The points drawn for the old scale go (values <= 0 upset a log axis); rebuild() refills.
    for (auto& line : m_lines)
        for (QLineSeries* s : {line->raw, line->smoothed})
            if (s) {
                s->clear();
                s->attachAxis(m_yAxis);
            }
}

void CurveChart::rebuild() {
    applyPending();
    ensureSeries();
    updatePens();
    updateLegend();

    const QRectF plot = m_chart->plotArea();
    m_lastPlotWidth = plot.width();
    const int buckets = std::max(32, static_cast<int>(plot.width()));

    double fullMin = std::numeric_limits<double>::infinity();
    double fullMax = -fullMin;
    for (const auto& line : m_lines) {
        if (line->x.empty())
            continue;
        fullMin = std::min(fullMin, line->x.front());
        fullMax = std::max(fullMax, line->x.back());
    }
    if (!(fullMin <= fullMax))
        fullMin = 0, fullMax = 1;
    double xMin = m_zoom ? m_zoom->left() : fullMin;
    double xMax = m_zoom ? m_zoom->right() : fullMax;
    if (xMin == xMax) {
        const double pad = m_xMode == models::XAxisMode::Step ? 1 : 0.5;
        xMin -= pad;
        xMax += pad;
    }
    m_visibleX = QPointF(xMin, xMax);

    double yMin = std::numeric_limits<double>::infinity();
    double yMax = -yMin;
    const bool smoothing = m_smoothing > 0;
    for (auto& line : m_lines) {
        const models::Decimation raw =
            models::decimateMinMaxLast(line->x, line->y, xMin, xMax, buckets, m_logY);
        line->raw->replace(raw.points);
        if (!std::isnan(raw.yMin)) {
            yMin = std::min(yMin, raw.yMin);
            yMax = std::max(yMax, raw.yMax);
        }
        if (smoothing && !line->smooth.empty()) {
            // Smoothing already removed what finer buckets would show: half the resolution.
            const models::Decimation s = models::decimateMinMaxLast(
                line->x, line->smooth, xMin, xMax, std::max(32, buckets / 2), m_logY);
            line->smoothed->replace(s.points);
        } else {
            line->smoothed->clear();
        }
    }
    plot::ValueRange y = plot::paddedRange(yMin <= yMax ? yMin : std::nan(""),
                                           yMin <= yMax ? yMax : std::nan(""), m_logY);
    if (m_zoom && m_zoomY)
        y = {m_zoom->top(), m_zoom->bottom()};

    const int xTicks = std::max(2, static_cast<int>(plot.width() / 110));
    const int yTicks = std::max(2, static_cast<int>(plot.height() / 42));
    QList<models::AxisTick> ticks;
    if (m_xMode == models::XAxisMode::WallTime) {
        const int offset = QDateTime::fromSecsSinceEpoch(static_cast<qint64>(xMin)).offsetFromUtc();
        ticks = models::wallTimeTicks(xMin, xMax, xTicks, offset);
    } else {
        ticks = models::numberTicks(xMin, xMax, xTicks);
    }
    m_xAxis->setTitleText(xAxisTitle());
    applyTicks(m_xAxis, xMin, xMax, ticks);
    applyTicks(m_yAxis, y.min, y.max,
               m_logY ? QList<models::AxisTick>() : models::numberTicks(y.min, y.max, yTicks));
    // Lay the axes and legend out now rather than at the next event loop pass, so that what
    // redrawNow() leaves is what paints (and what the benchmark measures).
    m_chart->layout()->activate();
    m_view->refreshHover();
    Q_EMIT redrawn();
}

std::optional<CurveChart::Hover> CurveChart::hoverAt(QPointF viewPos) const {
    const QRectF plot = m_chart->plotArea();
    if (!plot.contains(viewPos) || m_lines.empty() || !m_lines.front()->raw)
        return std::nullopt;
    const double target = m_chart->mapToValue(viewPos, m_lines.front()->raw).x();
    Hover hover;
    hover.position = viewPos;
    double bestDistance = std::numeric_limits<double>::infinity();
    const bool smoothing = m_smoothing > 0;
    for (const auto& line : m_lines) {
        const qsizetype i = models::nearestIndex(line->x, target);
        if (i < 0 || line->x[i] < m_visibleX.x() || line->x[i] > m_visibleX.y())
            continue;
        HoverRow row;
        row.name = line->name;
        row.color = line->color;
        row.value = line->y[i];
        row.smoothed = smoothing && !line->smooth.empty() ? line->smooth[i] : row.value;
        row.step = line->points[line->pointIndex(i)].step;
        const double distance = std::fabs(line->x[i] - target);
        if (distance < bestDistance) {
            bestDistance = distance;
            hover.x = line->x[i];
        }
        const double shown = row.smoothed;
        if (std::isfinite(shown) && (!m_logY || shown > 0)) {
            hover.markers.append(m_chart->mapToPosition(QPointF(line->x[i], shown), line->raw));
            hover.markerColors.append(line->color);
        }
        hover.rows.append(row);
    }
    if (hover.rows.isEmpty())
        return std::nullopt;
    const double span = m_visibleX.y() - m_visibleX.x();
    hover.crossX = plot.left() + (hover.x - m_visibleX.x()) / span * plot.width();
    hover.xLabel = formatX(hover.x);
    return hover;
}

QString CurveChart::describe() const {
    QStringList parts; // points waiting for the next redraw count: this is what arrived
    for (const auto& l : m_lines) {
        const auto n = static_cast<int>(l->points.size() + l->pending.size());
        const models::CurvePoint* last = !l->pending.isEmpty() ? &l->pending.back()
                                         : n                   ? &l->points.back()
                                                               : nullptr;
        parts << (last ? tr("%1: %n points, last %2 at step %3", nullptr, n)
                             .arg(l->name, spokenNumber(last->value))
                             .arg(last->step)
                       : tr("%1: no points").arg(l->name));
    }
    const QString body = parts.isEmpty() ? tr("no data") : parts.join(QStringLiteral("; "));
    return title().isEmpty() ? body : title() + QStringLiteral(": ") + body;
}

} // namespace studio::widgets
