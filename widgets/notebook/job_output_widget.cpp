#include "widgets/notebook/job_output_widget.h"

#include "engine/control/controller.h"
#include "models/data/data_service.h"
#include "models/live/engine_bridge.h"
#include "widgets/common/theme.h"
#include "widgets/notebook/loss_sparkline.h"
#include "widgets/notebook/output_card.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace studio::widgets {

JobOutputWidget::JobOutputWidget(QString job, models::DataService* service, QWidget* parent)
    : QFrame(parent)
    , m_job(std::move(job))
    , m_service(service)
    , m_bridge(service->bridge()) {
    auto* grid = setUpOutputCard(this, "jobOutput");

    grid->addLayout(buildHead(), 0, 0, 1, 2);

    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("jobOutputProgress"));
    m_progress->setRange(0, 0);
    m_progress->setFormat(tr("starting"));
    m_progress->setTextVisible(true);
    m_progress->setFixedHeight(16);
    grid->addWidget(m_progress, 1, 0);

    m_chart = new LossSparkline(this);
    m_chart->setObjectName(QStringLiteral("jobOutputLoss"));
    m_chart->setToolTip(tr("Training loss"));
    grid->addWidget(m_chart, 1, 1, 2, 1);

    grid->addLayout(buildButtons(), 2, 0);
    grid->setColumnStretch(0, 3);
    grid->setColumnStretch(1, 2);

    m_repaint = new QTimer(this);
    m_repaint->setSingleShot(true);
    m_repaint->setInterval(40);
    connect(m_repaint, &QTimer::timeout, this, &JobOutputWidget::refresh);
    // Jobs of the window's own controller come live through the bridge; those another studio
    // process runs (a notebook's `mlstudio run`, started by the Python SDK) through the store.
    if (m_bridge && ownJob()) {
        connect(m_bridge, &models::EngineBridge::batchReady, this, &JobOutputWidget::applyBatch);
    } else {
        m_service->watchJob(m_job, this);
        connect(m_service, &models::DataService::jobChanged, this, [this](const QString& job) {
            if (job == m_job && !m_task.busy())
                reload();
        });
    }
    refresh();
    reload();
}

// The job's name, status and secondary status.
QLayout* JobOutputWidget::buildHead() {
    auto* head = new QHBoxLayout;
    head->setSpacing(8);
    m_name = new QLabel(m_job, this);
    m_name->setObjectName(QStringLiteral("jobOutputName"));
    m_name->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = m_name->font();
    bold.setBold(true);
    m_name->setFont(bold);
    m_statusLabel = new QLabel(tr("Starting"), this);
    m_statusLabel->setObjectName(QStringLiteral("jobOutputStatus"));
    m_secondaryLabel = new QLabel(this);
    m_secondaryLabel->setObjectName(QStringLiteral("jobOutputSecondary"));
    m_secondaryLabel->setForegroundRole(QPalette::PlaceholderText);
    // A long status message must not widen the card past a narrow notebook: it is cut instead.
    m_secondaryLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    head->addWidget(m_name);
    head->addWidget(m_statusLabel);
    head->addWidget(m_secondaryLabel, 1);
    return head;
}

// Logs, Insights and Stop.
QLayout* JobOutputWidget::buildButtons() {
    auto* buttons = new QHBoxLayout;
    buttons->setSpacing(6);
    auto* logs = new QPushButton(tr("Logs"), this);
    logs->setObjectName(QStringLiteral("jobOutputLogs"));
    auto* insights = new QPushButton(tr("Insights"), this);
    insights->setObjectName(QStringLiteral("jobOutputInsights"));
    m_stop = new QPushButton(tr("Stop"), this);
    m_stop->setObjectName(QStringLiteral("jobOutputStop"));
    for (QPushButton* b : {logs, insights, m_stop}) {
        b->setAutoDefault(false);
        buttons->addWidget(b);
    }
    buttons->addStretch(1);
    connect(logs, &QPushButton::clicked, this, [this] { Q_EMIT openLogs(m_job); });
    connect(insights, &QPushButton::clicked, this, [this] { Q_EMIT openInsights(m_job); });
    connect(m_stop, &QPushButton::clicked, this, [this] {
        m_stop->setEnabled(false);
        Q_EMIT stopJob(m_job);
    });
    return buttons;
}

bool JobOutputWidget::ownJob() const {
    const std::vector<std::string> running = m_bridge->controller().runningJobs();
    return std::find(running.begin(), running.end(), m_job.toStdString()) != running.end();
}

bool JobOutputWidget::ended() const {
    return !m_status.isEmpty() && m_status != QLatin1String("InProgress") &&
           m_status != QLatin1String("Stopping");
}

void JobOutputWidget::reload() {
    m_service->jobCard(
        m_task, m_job, [this](models::JobCardSnapshot s) { present(s); },
        [this](const QString& error) {
            m_secondaryLabel->setText(error);
            m_service->unwatchJob(m_job, this);
        });
}

void JobOutputWidget::present(const models::JobCardSnapshot& s) {
    if (!s.found) {
        // A job the kernel just submitted may not be in the store yet; the live status follows.
        if (m_status.isEmpty())
            m_secondaryLabel->setText(tr("waiting for the job to start"));
        else if (ended()) // shown from the output alone: nothing more will come
            m_service->unwatchJob(m_job, this);
        return;
    }
    // The live status is newer than a read that started before it came.
    const bool liveEnded = ended();
    if (!liveEnded || s.status != QLatin1String("InProgress")) {
        m_status = s.status;
        m_secondary = s.secondaryStatus;
        m_message = s.message;
    }
    if (!s.lossMetric.isEmpty())
        m_lossMetric = s.lossMetric;
    for (auto it = s.loss.begin(); it != s.loss.end(); ++it)
        m_loss.insert(it.key(), it.value());
    if (!m_loss.isEmpty())
        m_step = std::max(m_step, m_loss.lastKey());
    if (m_total <= 0)
        m_total = s.total;
    if (ended())
        m_service->unwatchJob(m_job, this);
    refresh();
}

void JobOutputWidget::setInfo(const QJsonObject& info) {
    const qint64 total = info.value(QStringLiteral("total")).toInteger(-1);
    if (total > 0 && total != m_total) {
        m_total = total;
        scheduleRefresh();
    }
    // What the kernel displayed stands until the store or the live batches say more: all a
    // notebook run elsewhere (a store without the job) ever shows.
    const QString status = info.value(QStringLiteral("status")).toString();
    if (m_status.isEmpty() && !status.isEmpty()) {
        m_status = status;
        m_secondary = info.value(QStringLiteral("secondary_status")).toString();
        m_message = info.value(QStringLiteral("failure_reason")).toString();
        m_step = std::max(m_step, info.value(QStringLiteral("step")).toInteger(-1));
        scheduleRefresh();
    }
}

void JobOutputWidget::applyBatch(const models::LiveBatch& batch) {
    bool changed = false;
    bool justEnded = false;
    for (const models::LiveStatus& s : batch.statuses) {
        if (s.job != m_job)
            continue;
        const bool wasEnded = ended();
        m_status = s.status;
        m_secondary = s.secondaryStatus;
        m_message = s.message;
        justEnded = justEnded || (!wasEnded && ended());
        changed = true;
    }
    for (const models::LiveMetricPoint& p : batch.metrics) {
        if (p.job != m_job || p.rank != 0)
            continue;
        if (m_lossMetric.isEmpty() &&
            (models::isTrainLoss(p.name) || models::looksLikeLoss(p.name)))
            m_lossMetric = p.name;
        if (p.name == m_lossMetric) {
            m_loss.insert(p.step, p.value);
            changed = true;
        }
    }
    for (const models::LiveStep& s : batch.steps) {
        if (s.job != m_job)
            continue;
        m_step = std::max(m_step, s.step);
        changed = true;
    }
    // The runner's total (epochs and max-steps together) beats the max-steps hyperparameter.
    if (changed && m_bridge) {
        const control::JobProgress p = m_bridge->controller().progress(m_job.toStdString());
        if (p.total > 0)
            m_total = p.total;
    }
    if (justEnded)
        reload(); // the final loss values and the failure reason, as the store has them
    if (changed)
        scheduleRefresh();
}

void JobOutputWidget::scheduleRefresh() {
    if (!m_repaint->isActive())
        m_repaint->start();
}

void JobOutputWidget::refresh() {
    const QString status = m_status.isEmpty() ? tr("Starting") : m_status;
    // The same status pill as the job's tab.
    m_statusLabel->setText(m_secondary.isEmpty() || m_secondary == m_status
                               ? status
                               : QString(status + QStringLiteral(" · ") + m_secondary));
    m_statusLabel->setStyleSheet(QStringLiteral("QLabel { background: %1; color: white; "
                                                "border-radius: 8px; padding: 1px 8px; "
                                                "font-weight: 600; }")
                                     .arg(models::statusColor(status).name()));
    m_secondaryLabel->setText(ended() ? m_message : QString());
    m_secondaryLabel->setToolTip(m_message);
    m_stop->setEnabled(!ended() && m_status != QLatin1String("Stopping"));

    const qint64 done = m_step + 1; // steps count from 0
    if (m_total > 0) {
        m_progress->setRange(0, static_cast<int>(m_total));
        const qint64 value =
            m_status == QLatin1String("Completed") ? m_total : std::clamp<qint64>(done, 0, m_total);
        m_progress->setValue(static_cast<int>(value));
        m_progress->setFormat(
            tr("step %1 / %2").arg(std::clamp<qint64>(done, 0, m_total)).arg(m_total));
    } else if (ended()) {
        m_progress->setRange(0, 1);
        m_progress->setValue(1);
        m_progress->setFormat(m_step >= 0 ? tr("%n steps", nullptr, static_cast<int>(done))
                                          : status);
    } else if (m_step >= 0) {
        m_progress->setRange(0, 0);
        m_progress->setFormat(tr("step %1").arg(done));
    }
    QVector<QPointF> points;
    points.reserve(m_loss.size());
    for (auto it = m_loss.cbegin(); it != m_loss.cend(); ++it)
        points.append(QPointF(static_cast<double>(it.key()), it.value()));
    m_chart->setPoints(std::move(points));
    m_chart->setToolTip(m_lossMetric.isEmpty() ? tr("Training loss") : m_lossMetric);
}

} // namespace studio::widgets
