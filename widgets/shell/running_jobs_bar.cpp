#include "widgets/shell/running_jobs_bar.h"

#include "engine/control/controller.h"
#include "models/data/data_service.h"
#include "widgets/common/theme.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>

namespace studio::widgets {

RunningJobsBar::RunningJobsBar(control::Controller& controller, models::DataService* service,
                               QWidget* parent)
    : QWidget(parent)
    , m_controller(controller) {
    m_layout = new QHBoxLayout(this);
    m_layout->setContentsMargins(0, 0, 6, 0);
    m_layout->setSpacing(12);
    m_idle = new QLabel(tr("No jobs running"), this);
    m_idle->setForegroundRole(QPalette::PlaceholderText);
    m_layout->addWidget(m_idle);
    connect(service, &models::DataService::refreshed, this, &RunningJobsBar::poll);
    poll();
}

void RunningJobsBar::poll() {
    QStringList running;
    for (const auto& j : m_controller.runningJobs())
        running.append(QString::fromStdString(j));
    sync(running);
    for (auto it = m_items.begin(); it != m_items.end(); ++it) {
        const control::JobProgress p = m_controller.progress(it.key().toStdString());
        it->total = p.total;
        if (p.total > 0) {
            it->bar->setRange(0, static_cast<int>(p.total));
            it->bar->setValue(static_cast<int>(std::clamp<qint64>(p.step + 1, 0, p.total)));
            it->bar->setFormat(tr("step %1/%2").arg(std::max<qint64>(0, p.step + 1)).arg(p.total));
        } else if (p.step >= 0) {
            it->bar->setRange(0, 0); // busy: no known total
            it->bar->setFormat(tr("step %1").arg(p.step + 1));
        }
    }
}

void RunningJobsBar::sync(const QStringList& running) {
    for (auto it = m_items.begin(); it != m_items.end();) {
        if (!running.contains(it.key())) {
            it->box->deleteLater();
            it = m_items.erase(it);
        } else {
            ++it;
        }
    }
    for (const QString& job : running) {
        if (m_items.contains(job))
            continue;
        Item item;
        item.box = new QWidget(this);
        item.box->setCursor(Qt::PointingHandCursor);
        item.box->setToolTip(tr("%1: click to open").arg(job));
        item.box->setProperty("job", job);
        item.box->installEventFilter(this);
        auto* h = new QHBoxLayout(item.box);
        h->setContentsMargins(0, 0, 0, 0);
        h->setSpacing(6);
        auto* icon = new QLabel(item.box);
        icon->setPixmap(models::statusIcon(QStringLiteral("InProgress")).pixmap(14, 14));
        item.label = new QLabel(item.box);
        item.label->setText(fontMetrics().elidedText(job, Qt::ElideMiddle, 220));
        item.bar = new QProgressBar(item.box);
        item.bar->setObjectName(QStringLiteral("runningJobProgress"));
        item.bar->setFixedWidth(130);
        item.bar->setFixedHeight(14);
        item.bar->setTextVisible(true);
        item.bar->setRange(0, 0);
        item.bar->setFormat(tr("starting"));
        h->addWidget(icon);
        h->addWidget(item.label);
        h->addWidget(item.bar);
        m_layout->addWidget(item.box);
        m_items.insert(job, item);
    }
    m_idle->setVisible(m_items.isEmpty());
}

void RunningJobsBar::applyBatch(const models::LiveBatch& batch) {
    if (!batch.statuses.isEmpty())
        poll();
    for (const auto& s : batch.steps) {
        auto it = m_items.find(s.job);
        if (it == m_items.end() || it->total <= 0)
            continue;
        it->bar->setValue(static_cast<int>(std::clamp<qint64>(s.step + 1, 0, it->total)));
        it->bar->setFormat(tr("step %1/%2").arg(s.step + 1).arg(it->total));
    }
}

qint64 RunningJobsBar::totalSteps(const QString& job) const {
    const auto it = m_items.constFind(job);
    return it == m_items.constEnd() ? -1 : it->total;
}

bool RunningJobsBar::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::MouseButtonRelease) {
        const QString job = watched->property("job").toString();
        if (!job.isEmpty())
            Q_EMIT jobClicked(job);
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace studio::widgets
