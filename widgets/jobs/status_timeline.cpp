#include "widgets/jobs/status_timeline.h"

#include "widgets/common/theme.h"

#include <QDateTime>

namespace studio::widgets {

StatusTimeline::StatusTimeline(QWidget* parent)
    : StripView(parent) {
    setPlaceholder(tr("No status yet"));
}

void StatusTimeline::setTransitions(std::vector<store::StatusTransition> transitions) {
    m_transitions = std::move(transitions);
    // What a screen reader says: each status with how long it lasted.
    QStringList parts;
    for (const auto& t : m_transitions) {
        const QString s =
            QString::fromStdString(t.secondaryStatus.empty() ? t.status : t.secondaryStatus);
        parts << (t.endTime > 0 ? tr("%1 %2 s").arg(s).arg(t.endTime - t.startTime, 0, 'f', 1)
                                : tr("%1 (now)").arg(s));
    }
    setAccessibleDescription(parts.isEmpty() ? tr("No status yet")
                                             : parts.join(QStringLiteral(", ")));
    update();
}

StripView::Content StatusTimeline::content() const {
    const double now = static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
    const auto segments = models::layoutTimeline(m_transitions, now);
    Content c;
    for (const auto& s : segments) {
        const bool training = s.label == QLatin1String("Training");
        QColor color = models::statusColor(training ? QStringLiteral("InProgress") : s.status);
        if (s.status == QLatin1String("InProgress") && !training)
            color = color.lighter(135);
        c.items.push_back({s.x, s.width, color, s.label, {}});
    }
    if (!segments.empty()) {
        c.left = models::formatTime(segments.front().start);
        c.right = tr("%1 in all")
                      .arg(models::formatDuration(segments.back().end - segments.front().start));
    }
    return c;
}

} // namespace studio::widgets
