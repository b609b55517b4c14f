#include "widgets/insights/insights_charts.h"

#include "engine/plot/scale.h"
#include "engine/report/report_data.h"
#include "engine/report/report_math.h"
#include "models/charts/chart_math.h"
#include "models/charts/strip_layout.h"
#include "models/common/status_style.h"
#include "models/insights/insights_data.h"
#include "widgets/charts/strip_view.h"
#include "widgets/common/theme.h"
#include "widgets/common/tool_tip.h"

#include <QDateTime>
#include <QGridLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QPainter>
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

namespace {

// A lane's name, right-aligned beside its strip and level with the strip's bar.
QLabel* laneLabel(const QString& text, QWidget* parent) {
    auto* label = new QLabel(text, parent);
    label->setAlignment(Qt::AlignRight | Qt::AlignTop);
    label->setContentsMargins(0, 6, 0, 0);
    return label;
}

// The spot lane in the billing view's colours: running, waiting for capacity, interruption.
QColor spotColor(const char* status) {
    return models::statusColor(QString::fromLatin1(status));
}

} // namespace

TrainingTimeline::TrainingTimeline(QWidget* parent)
    : QWidget(parent)
    , m_job(new StripView(this))
    , m_spot(new StripView(this)) {
    auto* title = new QLabel(tr("Training progress over time"), this);
    QFont bold = title->font();
    bold.setBold(true);
    title->setFont(bold);
    m_job->setPlaceholder(tr("No timing recorded yet"));
    m_spot->setPlaceholder(tr("no spot data: on-demand run, no interruptions"));
    m_spot->setLegend({{spotColor("InProgress"), tr("running (billed)")},
                       {spotColor("Stopping"), tr("waiting for capacity")},
                       {spotColor("Failed"), tr("spot interruption")}});
    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(kPad, kPad, kPad, kPad);
    grid->addWidget(title, 0, 0, 1, 2);
    grid->addWidget(laneLabel(tr("Job"), this), 1, 0);
    grid->addWidget(m_job, 1, 1);
    grid->addWidget(laneLabel(tr("Spot capacity"), this), 2, 0);
    grid->addWidget(m_spot, 2, 1);
    grid->setColumnStretch(1, 1);
    grid->setAlignment(Qt::AlignTop); // the strips keep their height; the rest stays below
}

void TrainingTimeline::setPhases(const QList<TimelineSpan>& phases) {
    m_phases = phases;
    relayout();
}

void TrainingTimeline::setBilling(const std::vector<store::BillingSegment>& segments) {
    m_billing = segments;
    std::sort(m_billing.begin(), m_billing.end(),
              [](const auto& a, const auto& b) { return a.start < b.start; });
    relayout();
}

std::vector<std::size_t> TrainingTimeline::interruptedSegments() const {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i + 1 < m_billing.size(); ++i)
        if (m_billing[i].kind == "running" &&
            std::any_of(m_billing.begin() + static_cast<std::ptrdiff_t>(i) + 1, m_billing.end(),
                        [&](const auto& s) { return s.attempt > m_billing[i].attempt; }))
            out.push_back(i);
    return out;
}

QList<double> TrainingTimeline::interruptions() const {
    QList<double> out;
    for (std::size_t i : interruptedSegments())
        out.push_back(m_billing[i].end);
    return out;
}

void TrainingTimeline::relayout() {
    // Both strips on one time axis: from the earliest start to the latest end.
    models::StripOptions axis;
    bool any = false;
    auto extend = [&](double a, double b) {
        if (!(b >= a) || a <= 0)
            return;
        axis.from = any ? std::min(axis.from, a) : a;
        axis.to = any ? std::max(axis.to, b) : b;
        any = true;
    };
    for (const auto& s : m_phases)
        extend(s.start, s.end);
    for (const auto& s : m_billing)
        extend(s.start, s.end);
    std::vector<models::StripItem> job, spot;
    if (any && axis.to > axis.from) {
        std::vector<models::StripSpan> spans;
        for (const auto& s : m_phases)
            spans.push_back({s.start, s.end});
        const auto phases = models::placeOnStrip(spans, axis);
        for (std::size_t i = 0; i < phases.size(); ++i) {
            const TimelineSpan& s = m_phases[static_cast<qsizetype>(i)];
            job.push_back({phases[i].x, phases[i].width, s.color, s.label, {}});
        }
        spans.clear();
        for (const auto& s : m_billing)
            spans.push_back({s.start, s.end});
        const auto segments = models::placeOnStrip(spans, axis);
        for (std::size_t i = 0; i < segments.size(); ++i) {
            const bool running = m_billing[i].kind == "running";
            spot.push_back(
                {segments[i].x,
                 segments[i].width,
                 spotColor(running ? "InProgress" : "Stopping"),
                 running ? tr("attempt %1").arg(m_billing[i].attempt) : tr("waiting for capacity"),
                 {}});
        }
        // An interruption ends a running segment: the mark at the left edge of the next one.
        for (std::size_t i : interruptedSegments())
            spot[i + 1].mark = spotColor("Failed");
        m_job->setCaptions(models::formatTime(axis.from),
                           tr("%1 in all").arg(models::formatDuration(axis.to - axis.from)));
    }
    m_job->setItems(std::move(job));
    m_spot->setItems(std::move(spot));
}

QString TrainingTimeline::toolTipAt(QPoint pos) const {
    auto describe = [](const QString& what, double a, double b) {
        return QStringLiteral("<b>%1</b><br>%2 \u2013 %3<br>%4")
            .arg(what, models::formatTime(a), models::formatTime(b), models::formatDuration(b - a));
    };
    const int phase = m_job->itemAt(m_job->mapFrom(this, pos));
    if (phase >= 0 && phase < m_phases.size()) {
        const TimelineSpan& s = m_phases[phase];
        return describe(s.label, s.start, s.end);
    }
    const int segment = m_spot->itemAt(m_spot->mapFrom(this, pos));
    if (segment >= 0 && static_cast<std::size_t>(segment) < m_billing.size()) {
        const store::BillingSegment& s = m_billing[static_cast<std::size_t>(segment)];
        return describe(s.kind == "running" ? tr("attempt %1: running, billed").arg(s.attempt)
                                            : tr("waiting for spot capacity (not billed)"),
                        s.start, s.end);
    }
    return {};
}

bool TrainingTimeline::event(QEvent* event) {
    if (showPointToolTip(this, event, [this](QPoint at) { return toolTipAt(at); }))
        return true;
    return QWidget::event(event);
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
