#include "widgets/jobs/status_timeline.h"

#include "widgets/common/theme.h"

#include <QDateTime>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>

namespace studio::widgets {

std::vector<TimelineSegment> layoutTimeline(const std::vector<store::StatusTransition>& t,
                                            double now, double minShare) {
    std::vector<TimelineSegment> out;
    for (const auto& s : t) {
        TimelineSegment seg;
        seg.label =
            QString::fromStdString(s.secondaryStatus.empty() ? s.status : s.secondaryStatus);
        seg.status = QString::fromStdString(s.status);
        seg.start = s.startTime;
        // A current status lasts until now; a final one (the job ended) has no length.
        const bool final = s.status == "Completed" || s.status == "Failed" || s.status == "Stopped";
        seg.end = s.endTime > 0 ? s.endTime : (final ? s.startTime : std::max(now, s.startTime));
        out.push_back(seg);
    }
    if (out.empty())
        return out;
    const double n = static_cast<double>(out.size());
    minShare = std::min(minShare, 1.0 / n);
    double total = 0;
    for (const auto& s : out)
        total += std::max(0.0, s.end - s.start);
    const double spread = 1.0 - minShare * n;
    double x = 0;
    for (auto& s : out) {
        const double share = total > 0 ? std::max(0.0, s.end - s.start) / total : 1.0 / n;
        s.x = x;
        s.width = minShare + spread * (total > 0 ? share : 0) + (total > 0 ? 0 : spread / n);
        x += s.width;
    }
    return out;
}

StatusTimeline::StatusTimeline(QWidget* parent)
    : QWidget(parent) {
    setMinimumHeight(46);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void StatusTimeline::setTransitions(std::vector<store::StatusTransition> transitions) {
    m_transitions = std::move(transitions);
    update();
}

QSize StatusTimeline::sizeHint() const {
    return {600, 46};
}

void StatusTimeline::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const double now = static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
    const auto segments = layoutTimeline(m_transitions, now);
    const QRectF bar(1, 4, width() - 2, 22);
    if (segments.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(bar, Qt::AlignCenter, tr("No status yet"));
        return;
    }
    QPainterPath clip;
    clip.addRoundedRect(bar, 5, 5);
    p.setClipPath(clip);
    const QFontMetrics fm(font());
    for (std::size_t i = 0; i < segments.size(); ++i) {
        const auto& s = segments[i];
        const QRectF r(bar.left() + s.x * bar.width(), bar.top(), s.width * bar.width(),
                       bar.height());
        QColor c = models::statusColor(
            s.label == QLatin1String("Training") ? QStringLiteral("InProgress") : s.status);
        if (s.status == QLatin1String("InProgress") && s.label != QLatin1String("Training"))
            c = c.lighter(135);
        p.fillRect(r, c);
        if (i + 1 < segments.size())
            p.fillRect(QRectF(r.right() - 1, r.top(), 1, r.height()),
                       palette().color(QPalette::Base));
        p.setPen(Qt::white);
        const QString text =
            fm.elidedText(s.label, Qt::ElideRight, static_cast<int>(r.width()) - 6);
        p.drawText(r.adjusted(3, 0, -3, 0), Qt::AlignCenter, text);
    }
    p.setClipping(false);
    p.setPen(palette().color(QPalette::PlaceholderText));
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    p.setFont(small);
    const auto& first = segments.front();
    const auto& last = segments.back();
    p.drawText(QRectF(bar.left(), bar.bottom() + 2, bar.width() / 2, 16), Qt::AlignLeft,
               models::formatTime(first.start));
    p.drawText(QRectF(bar.center().x(), bar.bottom() + 2, bar.width() / 2, 16), Qt::AlignRight,
               tr("%1 in all").arg(models::formatDuration(last.end - first.start)));
}

} // namespace studio::widgets
