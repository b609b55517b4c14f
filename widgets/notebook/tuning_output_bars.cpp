#include "widgets/notebook/tuning_output_bars.h"

#include "models/common/status_style.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <cmath>

namespace studio::widgets {

TuningOutputBars::TuningOutputBars(QWidget* parent)
    : QWidget(parent) {
    setAccessibleName(tr("Objective per training job"));
    setMinimumSize(120, 44);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void TuningOutputBars::setSummary(const models::TuningCardSummary& summary) {
    m_summary = summary;
    update();
}

QRectF TuningOutputBars::barArea() const {
    return QRectF(rect()).adjusted(6, 6, -6, -6);
}

int TuningOutputBars::barAt(const QPoint& point) const {
    const qsizetype n = m_summary.jobs.size();
    const QRectF area = barArea();
    if (n == 0 || !area.contains(point))
        return -1;
    const int i = static_cast<int>((point.x() - area.left()) / (area.width() / double(n)));
    return i >= 0 && i < n ? i : -1;
}

bool TuningOutputBars::event(QEvent* event) {
    if (event->type() != QEvent::ToolTip)
        return QWidget::event(event);
    auto* help = static_cast<QHelpEvent*>(event);
    const int i = barAt(help->pos());
    if (i < 0) {
        QToolTip::hideText();
        event->ignore();
        return true;
    }
    const models::TuningCardJob& job = m_summary.jobs.at(i);
    const QString value =
        std::isfinite(job.objective) ? QString::number(job.objective, 'g', 5) : tr("no objective");
    QToolTip::showText(
        help->globalPos(),
        QStringLiteral("%1\n%2: %3 · %4").arg(job.job, m_summary.objectiveName, value, job.status),
        this);
    return true;
}

void TuningOutputBars::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QRectF frame = QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5);
    p.setPen(palette().color(QPalette::Mid));
    p.setBrush(palette().color(QPalette::Base));
    p.drawRoundedRect(frame, 4, 4);
    if (m_summary.jobs.isEmpty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("no training jobs yet"));
        return;
    }
    const QVector<QRectF> bars = models::objectiveBars(m_summary.objectives(), barArea());
    const QColor colour = models::seriesColor(0);
    const QColor best = models::statusColor(QStringLiteral("Completed"));
    const QColor failed = models::statusColor(QStringLiteral("Failed"));
    for (qsizetype i = 0; i < bars.size(); ++i) {
        const models::TuningCardJob& job = m_summary.jobs.at(i);
        QRectF bar = bars.at(i);
        if (job.status == QLatin1String("Failed")) {
            p.fillRect(QRectF(bar.left(), bar.bottom() - 3, bar.width(), 3), failed);
            continue;
        }
        if (bar.height() <= 0) // running, or ended without an objective
            bar.setTop(bar.bottom() - 3);
        const bool isBest = !m_summary.bestJob.isEmpty() && job.job == m_summary.bestJob;
        QColor fill = isBest ? best : colour;
        if (job.stoppedEarly)
            fill.setAlpha(110);
        const bool running =
            job.status == QLatin1String("InProgress") || job.status == QLatin1String("Pending");
        p.setPen(running ? QPen(colour, 1) : Qt::NoPen);
        p.setBrush(running ? QBrush(Qt::NoBrush) : QBrush(fill));
        p.drawRect(bar);
    }
}

QString TuningOutputBars::describe() const {
    if (m_summary.jobs.isEmpty())
        return tr("No training jobs yet");
    QString text = tr("%n training jobs", nullptr, static_cast<int>(m_summary.jobs.size()));
    if (m_summary.bestObjective)
        text += tr("; best %1 %2 by %3")
                    .arg(m_summary.objectiveName, spokenNumber(*m_summary.bestObjective),
                         m_summary.bestJob);
    return text;
}

} // namespace studio::widgets
