#include "widgets/insights/insights_charts.h"

#include "engine/plot/scale.h"
#include "engine/report/report_data.h"
#include "engine/report/report_math.h"
#include "models/charts/chart_math.h"
#include "models/insights/insights_data.h"
#include "widgets/common/theme.h"
#include "widgets/common/tool_tip.h"

#include <QDateTime>
#include <QHelpEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>

namespace studio::widgets {

namespace {

constexpr int kPad = 8;

QColor faintText(const QWidget* w) {
    return models::blend(w->palette().color(QPalette::Base), w->palette().color(QPalette::Text),
                         0.6);
}

void drawTitle(QPainter& p, const QWidget* w, const QString& title) {
    QFont bold = w->font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(w->palette().color(QPalette::Text));
    p.drawText(QPoint(kPad, kPad + QFontMetrics(bold).ascent()), title);
    p.setFont(w->font());
}

int utcOffset() {
    return QDateTime::currentDateTime().offsetFromUtc();
}

} // namespace

QString stepPhaseName(int phase) {
    static const QString kNames[] = {QStringLiteral("data"), QStringLiteral("forward"),
                                     QStringLiteral("backward"), QStringLiteral("comm"),
                                     QStringLiteral("optimizer")};
    return kNames[std::clamp(phase, 0, kStepPhaseCount - 1)];
}

QColor stepPhaseColor(int phase) {
    static const QColor kColors[] = {QColor(0xe4, 0x9b, 0x2f), QColor(0x3b, 0x7d, 0xd8),
                                     QColor(0x8e, 0x5c, 0xc8), QColor(0xd6, 0x4f, 0x5a),
                                     QColor(0x3a, 0xa6, 0x6a)};
    return kColors[std::clamp(phase, 0, kStepPhaseCount - 1)];
}

double stepPhaseMs(const store::StepTiming& t, int phase) {
    switch (phase) {
    case 0:
        return t.dataMs;
    case 1:
        return t.forwardMs;
    case 2:
        return t.backwardMs;
    case 3:
        return t.commMs;
    default:
        return t.optimizerMs;
    }
}

// ---- PhasePie -----------------------------------------------------------------------------

PhasePie::PhasePie(QWidget* parent)
    : QWidget(parent) {
    setMinimumSize(280, 150);
}

void PhasePie::setEntries(const QList<PieEntry>& entries) {
    m_entries = entries;
    update();
}

void PhasePie::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QFontMetrics fm(font());
    std::vector<double> values;
    for (const auto& e : m_entries)
        values.push_back(e.value);
    const auto slices = report::pieSlices(values);
    double total = 0;
    for (double v : values)
        total += std::max(0.0, v);
    const int d = std::min(height() - 2 * kPad, 150);
    const QRectF circle(kPad, (height() - d) / 2.0, d, d);
    if (total <= 0) {
        p.setPen(faintText(this));
        p.drawEllipse(circle);
        p.drawText(circle, Qt::AlignCenter, QStringLiteral("no data"));
    } else {
        for (std::size_t i = 0; i < slices.size(); ++i) {
            if (slices[i].fraction <= 0)
                continue;
            // pieSlices: radians clockwise from 12 o'clock; Qt: 1/16 degree counter-clockwise
            // from 3 o'clock.
            const double startDeg = 90 - slices[i].startAngle * 180 / std::numbers::pi;
            const double spanDeg =
                -(slices[i].endAngle - slices[i].startAngle) * 180 / std::numbers::pi;
            p.setPen(QPen(palette().color(QPalette::Base), 1.5));
            p.setBrush(m_entries[static_cast<qsizetype>(i)].color);
            if (slices[i].fraction >= 0.9999)
                p.drawEllipse(circle);
            else
                p.drawPie(circle, static_cast<int>(std::lround(startDeg * 16)),
                          static_cast<int>(std::lround(spanDeg * 16)));
        }
    }
    // Legend: colour, label, duration, share.
    int y = static_cast<int>(circle.top()) + fm.height();
    const int x = static_cast<int>(circle.right()) + 16;
    for (qsizetype i = 0; i < m_entries.size(); ++i) {
        const auto& e = m_entries[i];
        p.setPen(Qt::NoPen);
        p.setBrush(e.color);
        p.drawRect(x, y - fm.ascent() + 2, 10, 10);
        p.setPen(palette().color(QPalette::Text));
        const double share = total > 0 ? std::max(0.0, e.value) / total : 0;
        p.drawText(QPoint(x + 16, y), e.label);
        p.setPen(faintText(this));
        p.drawText(QPoint(x + 16, y + fm.height()), QStringLiteral("%1  \u00b7  %2 %")
                                                        .arg(models::formatDuration(e.value))
                                                        .arg(share * 100, 0, 'f', 1));
        y += 2 * fm.height() + 6;
    }
}

// ---- TrainingTimeline ---------------------------------------------------------------------

TrainingTimeline::TrainingTimeline(QWidget* parent)
    : QWidget(parent) {
    setMinimumHeight(120);
}

void TrainingTimeline::setPhases(const QList<TimelineSpan>& phases) {
    m_phases = phases;
    update();
}

void TrainingTimeline::setBilling(const std::vector<store::BillingSegment>& segments) {
    m_billing = segments;
    std::sort(m_billing.begin(), m_billing.end(),
              [](const auto& a, const auto& b) { return a.start < b.start; });
    update();
}

QList<double> TrainingTimeline::interruptions() const {
    QList<double> out;
    for (std::size_t i = 0; i + 1 < m_billing.size(); ++i)
        if (m_billing[i].kind == "running" &&
            std::any_of(m_billing.begin() + static_cast<std::ptrdiff_t>(i) + 1, m_billing.end(),
                        [&](const auto& s) { return s.attempt > m_billing[i].attempt; }))
            out.push_back(m_billing[i].end);
    return out;
}

TrainingTimeline::Layout TrainingTimeline::layout() const {
    const QFontMetrics fm(font());
    Layout l;
    bool any = false;
    auto extend = [&](double a, double b) {
        if (!(b >= a) || a <= 0)
            return;
        l.lo = any ? std::min(l.lo, a) : a;
        l.hi = any ? std::max(l.hi, b) : b;
        any = true;
    };
    for (const auto& s : m_phases)
        extend(s.start, s.end);
    for (const auto& s : m_billing)
        extend(s.start, s.end);
    l.labelWidth = fm.horizontalAdvance(QStringLiteral("Spot capacity")) + 2 * kPad;
    l.area =
        QRect(l.labelWidth, kPad + fm.height() + 8, std::max(10, width() - l.labelWidth - kPad),
              std::max(10, height() - (kPad + fm.height() + 8) - fm.height() - 8));
    l.valid = any && l.hi > l.lo;
    l.lane = std::min(28, (l.area.height() - 6) / 2);
    l.billingTop = l.area.top() + l.lane + 6;
    return l;
}

QString TrainingTimeline::toolTipAt(QPoint pos) const {
    const Layout l = layout();
    if (!l.valid || pos.x() < l.area.left() || pos.x() > l.area.right())
        return {};
    const plot::LinearScale toTime{double(l.area.left()), double(l.area.right()), l.lo, l.hi};
    const double t = toTime(pos.x());
    auto describe = [](const QString& what, double a, double b) {
        return QStringLiteral("<b>%1</b><br>%2 \u2013 %3<br>%4")
            .arg(what, models::formatTime(a), models::formatTime(b), models::formatDuration(b - a));
    };
    if (pos.y() >= l.area.top() && pos.y() < l.area.top() + l.lane) {
        for (const auto& s : m_phases)
            if (t >= s.start && t <= s.end)
                return describe(s.label, s.start, s.end);
    } else if (pos.y() >= l.billingTop && pos.y() < l.billingTop + l.lane) {
        for (const auto& s : m_billing)
            if (t >= s.start && t <= s.end)
                return describe(s.kind == "running"
                                    ? QStringLiteral("attempt %1: running, billed").arg(s.attempt)
                                    : QStringLiteral("waiting for spot capacity (not billed)"),
                                s.start, s.end);
    }
    return {};
}

bool TrainingTimeline::event(QEvent* event) {
    if (showPointToolTip(this, event, [this](QPoint at) { return toolTipAt(at); }))
        return true;
    return QWidget::event(event);
}

void TrainingTimeline::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QFontMetrics fm(font());
    drawTitle(p, this, QStringLiteral("Training progress over time"));
    const Layout l = layout();
    const QRect area = l.area;
    const int labelW = l.labelWidth;
    const double lo = l.lo, hi = l.hi;
    if (!l.valid) {
        p.setPen(faintText(this));
        p.drawText(area, Qt::AlignCenter, QStringLiteral("No timing recorded yet"));
        return;
    }
    const plot::LinearScale x{lo, hi, double(area.left()), double(area.right())};
    const int lane = l.lane;
    auto drawSpan = [&](int top, double a, double b, const QColor& color, const QString& label,
                        const QString& shortLabel) {
        const QRectF r(QPointF(x(a), top), QPointF(std::max(x(b), x(a) + 1), top + lane));
        p.setPen(Qt::NoPen);
        p.setBrush(color);
        p.drawRect(r);
        p.setPen(Qt::white);
        if (fm.horizontalAdvance(label) + 6 < r.width())
            p.drawText(r, Qt::AlignCenter, label);
        else if (fm.horizontalAdvance(shortLabel) + 4 < r.width())
            p.drawText(r, Qt::AlignCenter, shortLabel);
    };
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRect(0, area.top(), labelW - kPad, lane), Qt::AlignRight | Qt::AlignVCenter,
               QStringLiteral("Job"));
    for (const auto& s : m_phases)
        drawSpan(area.top(), s.start, s.end, s.color, s.label, s.label.left(1));

    const int billingTop = l.billingTop;
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRect(0, billingTop, labelW - kPad, lane), Qt::AlignRight | Qt::AlignVCenter,
               QStringLiteral("Spot capacity"));
    if (m_billing.empty()) {
        p.setPen(faintText(this));
        p.drawText(QRect(area.left(), billingTop, area.width(), lane),
                   Qt::AlignLeft | Qt::AlignVCenter,
                   QStringLiteral("no spot data: on-demand run, no interruptions"));
    } else {
        for (const auto& s : m_billing) {
            const bool running = s.kind == "running";
            drawSpan(billingTop, s.start, s.end,
                     running ? QColor(0x3a, 0xa6, 0x6a) : QColor(0x9a, 0x9a, 0x9a),
                     running ? QStringLiteral("attempt %1 (billed)").arg(s.attempt)
                             : QStringLiteral("waiting for capacity"),
                     running ? QStringLiteral("#%1").arg(s.attempt) : QStringLiteral("waiting"));
        }
        const QColor red(0xd6, 0x3b, 0x3b);
        for (double t : interruptions()) {
            const double px = x(t);
            p.setPen(QPen(red, 2));
            p.drawLine(QPointF(px, area.top() - 2), QPointF(px, billingTop + lane + 2));
            QPainterPath mark;
            mark.moveTo(px - 5, area.top() - 8);
            mark.lineTo(px + 5, area.top() - 8);
            mark.lineTo(px, area.top() - 1);
            mark.closeSubpath();
            p.fillPath(mark, red);
            p.drawText(QPointF(px + 6, area.top() - 1), QStringLiteral("spot interruption"));
        }
    }
    // Time axis.
    p.setPen(faintText(this));
    const int axisY = billingTop + lane + 4;
    for (const models::AxisTick& tick :
         models::wallTimeTicks(lo, hi, std::max(2, area.width() / 110), utcOffset())) {
        const double px = x(tick.value);
        p.drawLine(QPointF(px, axisY), QPointF(px, axisY + 3));
        const double w = fm.horizontalAdvance(tick.label);
        p.drawText(QPointF(std::clamp(px - w / 2.0, 0.0, width() - w - 1), axisY + 3 + fm.ascent()),
                   tick.label);
    }
}

// ---- StepPhaseChart -----------------------------------------------------------------------

StepPhaseChart::StepPhaseChart(QWidget* parent)
    : QWidget(parent) {
    setMinimumHeight(180);
}

void StepPhaseChart::setTitle(const QString& title) {
    m_title = title;
    update();
}

void StepPhaseChart::setBars(const std::vector<store::StepTiming>& steps) {
    m_steps = steps;
    m_timeline = false;
    update();
}

void StepPhaseChart::setTimeline(const std::vector<store::StepTiming>& steps, double from,
                                 double to) {
    m_steps = models::stepsOverlapping(steps, from, to);
    m_timeline = true;
    m_from = from;
    m_to = to;
    update();
}

void StepPhaseChart::setPlaceholder(const QString& text) {
    m_placeholder = text;
    update();
}

QRect StepPhaseChart::plotArea() const {
    const QFontMetrics fm(font());
    const int legendBottom = kPad + 2 * fm.height() + 4;
    return QRect(56, legendBottom + 10, std::max(10, width() - 56 - kPad),
                 std::max(10, height() - legendBottom - 10 - fm.height() - 10));
}

std::vector<std::pair<std::pair<int, int>, std::vector<const store::StepTiming*>>>
StepPhaseChart::lanes() const {
    std::map<std::pair<int, int>, std::vector<const store::StepTiming*>> byRank;
    for (const auto& t : m_steps)
        byRank[{t.node, t.rank}].push_back(&t);
    return {byRank.begin(), byRank.end()};
}

QString StepPhaseChart::toolTipAt(QPoint pos) const {
    const QRect area = plotArea();
    if (m_steps.empty() || !area.contains(pos))
        return {};
    const store::StepTiming* hit = nullptr;
    if (!m_timeline) {
        const double slot = double(area.width()) / m_steps.size();
        const auto i = static_cast<std::size_t>((pos.x() - area.left()) / slot);
        if (i < m_steps.size())
            hit = &m_steps[i];
    } else {
        const auto all = lanes();
        const double laneH =
            std::min(26.0, double(area.height()) / std::max<std::size_t>(1, all.size()));
        const auto lane = static_cast<std::size_t>((pos.y() - area.top()) / laneH);
        const plot::LinearScale toTime{double(area.left()), double(area.right()), m_from, m_to};
        const double t = toTime(pos.x());
        if (lane < all.size())
            for (const auto* s : all[lane].second)
                if (t >= s->time - report::stepDurationMs(*s) / 1000.0 && t <= s->time)
                    hit = s;
    }
    if (!hit)
        return {};
    QString text = QStringLiteral("<b>step %1</b> \u00b7 node %2 rank %3<br>")
                       .arg(hit->step)
                       .arg(hit->node)
                       .arg(hit->rank);
    for (int k = 0; k < kStepPhaseCount; ++k)
        text += QStringLiteral("%1: %2 ms<br>")
                    .arg(stepPhaseName(k))
                    .arg(stepPhaseMs(*hit, k), 0, 'f', 1);
    return text +
           QStringLiteral("<b>total: %1 ms</b>").arg(report::stepDurationMs(*hit), 0, 'f', 1);
}

bool StepPhaseChart::event(QEvent* event) {
    if (showPointToolTip(this, event, [this](QPoint at) { return toolTipAt(at); }))
        return true;
    return QWidget::event(event);
}

void StepPhaseChart::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QFontMetrics fm(font());
    drawTitle(p, this, m_title);
    const QRect legend(kPad, kPad + fm.height() + 4, width() - 2 * kPad, fm.height());
    const QRect area = plotArea();
    if (m_steps.empty()) {
        p.setPen(faintText(this));
        p.drawText(area, Qt::AlignCenter | Qt::TextWordWrap,
                   m_placeholder.isEmpty() ? QStringLiteral("No step timings") : m_placeholder);
        return;
    }
    paintLegend(p, legend);
    if (m_timeline)
        paintTimeline(p, area);
    else
        paintBars(p, area);
}

void StepPhaseChart::paintLegend(QPainter& p, const QRect& area) {
    const QFontMetrics fm(font());
    int x = area.left();
    for (int k = 0; k < kStepPhaseCount; ++k) {
        p.fillRect(QRect(x, area.top() + 2, 10, 10), stepPhaseColor(k));
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QPoint(x + 14, area.top() + fm.ascent()), stepPhaseName(k));
        x += 14 + fm.horizontalAdvance(stepPhaseName(k)) + 14;
    }
}

void StepPhaseChart::paintBars(QPainter& p, const QRect& area) {
    const QFontMetrics fm(font());
    double maxMs = 0;
    for (const auto& t : m_steps)
        maxMs = std::max(maxMs, report::stepDurationMs(t));
    const auto ticks =
        models::numberTicks(0, maxMs > 0 ? maxMs * 1.05 : 1, std::max(2, area.height() / 35));
    const double top = ticks.isEmpty() ? maxMs : std::max(maxMs, ticks.back().value);
    const plot::LinearScale y{0, top > 0 ? top : 1, double(area.bottom()), double(area.top())};
    const QColor grid =
        models::blend(palette().color(QPalette::Base), palette().color(QPalette::Text), 0.15);
    p.setPen(faintText(this));
    for (const auto& tick : ticks) {
        const int py = static_cast<int>(std::lround(y(tick.value)));
        p.setPen(grid);
        p.drawLine(area.left(), py, area.right(), py);
        p.setPen(faintText(this));
        p.drawText(QRect(0, py - fm.height() / 2, area.left() - 6, fm.height()),
                   Qt::AlignRight | Qt::AlignVCenter, tick.label);
    }
    p.save();
    p.translate(12, area.center().y());
    p.rotate(-90);
    p.drawText(QRect(-area.height() / 2, -fm.height(), area.height(), fm.height()), Qt::AlignCenter,
               QStringLiteral("ms"));
    p.restore();
    const double slot = double(area.width()) / m_steps.size();
    const double barW = std::max(1.0, slot * 0.75);
    const int labelEvery = std::max(
        1, static_cast<int>(std::ceil((fm.horizontalAdvance(QStringLiteral("00000")) + 6) / slot)));
    for (std::size_t i = 0; i < m_steps.size(); ++i) {
        const auto& t = m_steps[i];
        const double x0 = area.left() + i * slot + (slot - barW) / 2;
        double acc = 0;
        for (int k = 0; k < kStepPhaseCount; ++k) {
            const double v = std::max(0.0, stepPhaseMs(t, k));
            p.fillRect(QRectF(QPointF(x0, y(acc + v)), QPointF(x0 + barW, y(acc))),
                       stepPhaseColor(k));
            acc += v;
        }
        if (static_cast<int>(i) % labelEvery == 0) {
            p.setPen(faintText(this));
            const QString label = QString::number(t.step);
            p.drawText(QPointF(x0 + barW / 2 - fm.horizontalAdvance(label) / 2.0,
                               area.bottom() + 4 + fm.ascent()),
                       label);
        }
    }
}

void StepPhaseChart::paintTimeline(QPainter& p, const QRect& area) {
    const QFontMetrics fm(font());
    const auto lanes = this->lanes();
    const plot::LinearScale x{m_from, m_to, double(area.left()), double(area.right())};
    const double laneH =
        std::min(26.0, double(area.height()) / std::max<std::size_t>(1, lanes.size()));
    p.save();
    p.setClipRect(area.adjusted(0, 0, 1, 1));
    int lane = 0;
    for (const auto& [key, steps] : lanes) {
        const double top = area.top() + lane * laneH;
        for (const auto* t : steps) {
            double start = t->time - report::stepDurationMs(*t) / 1000.0;
            for (int k = 0; k < kStepPhaseCount; ++k) {
                const double end = start + std::max(0.0, stepPhaseMs(*t, k)) / 1000.0;
                p.fillRect(QRectF(QPointF(x(start), top + 1),
                                  QPointF(std::max(x(end), x(start) + 0.5), top + laneH - 2)),
                           stepPhaseColor(k));
                start = end;
            }
        }
        ++lane;
    }
    p.restore();
    lane = 0;
    p.setPen(palette().color(QPalette::Text));
    for (const auto& [key, steps] : lanes) {
        p.drawText(QRectF(0, area.top() + lane * laneH, area.left() - 6, laneH),
                   Qt::AlignRight | Qt::AlignVCenter,
                   QStringLiteral("n%1 r%2").arg(key.first).arg(key.second));
        ++lane;
    }
    p.setPen(faintText(this));
    const int axisY = static_cast<int>(area.top() + lane * laneH) + 2;
    for (const models::AxisTick& tick :
         models::wallTimeTicks(m_from, m_to, std::max(2, area.width() / 110), utcOffset())) {
        const double px = x(tick.value);
        p.drawLine(QPointF(px, axisY), QPointF(px, axisY + 3));
        p.drawText(QPointF(px - fm.horizontalAdvance(tick.label) / 2.0, axisY + 3 + fm.ascent()),
                   tick.label);
    }
}

} // namespace studio::widgets
