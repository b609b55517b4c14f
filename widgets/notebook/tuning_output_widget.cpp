#include "widgets/notebook/tuning_output_widget.h"

#include "models/common/status_style.h"
#include "models/data/data_service.h"
#include "widgets/notebook/output_card.h"
#include "widgets/notebook/tuning_output_bars.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

namespace studio::widgets {

TuningOutputWidget::TuningOutputWidget(QString tuning, models::DataService* service,
                                       QWidget* parent)
    : QFrame(parent)
    , m_tuning(std::move(tuning))
    , m_service(service) {
    auto* grid = setUpOutputCard(this, "tuningOutput");
    grid->addLayout(buildHead(), 0, 0, 1, 2);

    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("tuningOutputProgress"));
    m_progress->setTextVisible(true);
    m_progress->setFixedHeight(16);
    grid->addWidget(m_progress, 1, 0);
    m_best = new QLabel(this);
    m_best->setObjectName(QStringLiteral("tuningOutputBest"));
    m_best->setTextInteractionFlags(Qt::TextSelectableByMouse);
    grid->addWidget(m_best, 2, 0);
    grid->addLayout(buildButtons(), 3, 0);

    m_bars = new TuningOutputBars(this);
    m_bars->setObjectName(QStringLiteral("tuningOutputBars"));
    grid->addWidget(m_bars, 1, 1, 3, 1);
    grid->setColumnStretch(0, 3);
    grid->setColumnStretch(1, 2);

    m_summary.tuning = m_tuning;
    present(m_summary);
    m_service->watchTuningJob(m_tuning, this);
    connect(m_service, &models::DataService::tuningChanged, this, [this](const QString& name) {
        if (name == m_tuning && !m_task.busy())
            reload();
    });
    reload();
}

// The tuning job's name, its status pill and its progress in words.
QLayout* TuningOutputWidget::buildHead() {
    auto* head = new QHBoxLayout;
    head->setSpacing(8);
    auto* kind = new QLabel(tr("Tuning"), this);
    kind->setForegroundRole(QPalette::PlaceholderText);
    m_name = new QLabel(m_tuning, this);
    m_name->setObjectName(QStringLiteral("tuningOutputName"));
    m_name->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = m_name->font();
    bold.setBold(true);
    m_name->setFont(bold);
    m_statusLabel = new QLabel(this);
    m_statusLabel->setObjectName(QStringLiteral("tuningOutputStatus"));
    m_progressLabel = new QLabel(this);
    m_progressLabel->setObjectName(QStringLiteral("tuningOutputSecondary"));
    m_progressLabel->setForegroundRole(QPalette::PlaceholderText);
    head->addWidget(kind);
    head->addWidget(m_name);
    head->addWidget(m_statusLabel);
    head->addWidget(m_progressLabel, 1);
    return head;
}

// Open (the tuning job's tab) and Stop.
QLayout* TuningOutputWidget::buildButtons() {
    auto* buttons = new QHBoxLayout;
    buttons->setSpacing(6);
    auto* open = new QPushButton(tr("Open"), this);
    open->setObjectName(QStringLiteral("tuningOutputOpen"));
    m_stop = new QPushButton(tr("Stop"), this);
    m_stop->setObjectName(QStringLiteral("tuningOutputStop"));
    for (QPushButton* b : {open, m_stop}) {
        b->setAutoDefault(false);
        buttons->addWidget(b);
    }
    buttons->addStretch(1);
    connect(open, &QPushButton::clicked, this, [this] { Q_EMIT openTuning(m_tuning); });
    connect(m_stop, &QPushButton::clicked, this, [this] {
        m_stop->setEnabled(false);
        Q_EMIT stopTuning(m_tuning);
    });
    return buttons;
}

void TuningOutputWidget::setInfo(const QJsonObject& payload) {
    if (m_fromStore)
        return; // the store is newer than what the kernel displayed
    models::TuningCardSummary s = models::TuningCardSummary::fromPayload(payload);
    s.tuning = m_tuning;
    present(s);
}

void TuningOutputWidget::reload() {
    m_service->tuningJob(
        m_task, m_tuning,
        [this](models::TuningJobData data) {
            m_fromStore = true;
            present(models::TuningCardSummary::fromData(data));
        },
        [this](const QString& error) {
            // Not in the store (yet, or ever: a notebook run elsewhere); the payload stays.
            m_progressLabel->setToolTip(error);
            if (m_summary.ended())
                m_service->unwatchTuningJob(m_tuning, this);
        });
}

void TuningOutputWidget::present(const models::TuningCardSummary& s) {
    m_summary = s;
    const QString status = s.status.isEmpty() ? tr("Starting") : s.status;
    m_statusLabel->setText(status);
    // The same status pill as the job cards and the tuning tab.
    m_statusLabel->setStyleSheet(QStringLiteral("QLabel { background: %1; color: white; "
                                                "border-radius: 8px; padding: 1px 8px; "
                                                "font-weight: 600; }")
                                     .arg(models::statusColor(status).name()));
    QString secondary = s.progressText();
    if (s.ended() && !s.statusMessage.isEmpty())
        secondary += QStringLiteral(" · ") + s.statusMessage;
    m_progressLabel->setText(secondary);
    m_progress->setRange(0, std::max(1, s.maxJobs));
    m_progress->setValue(std::min(s.done, std::max(1, s.maxJobs)));
    m_progress->setFormat(tr("%1 / %2 training jobs").arg(s.done).arg(s.maxJobs));
    const QString objective = s.objectiveName.isEmpty() ? tr("objective") : s.objectiveName;
    m_best->setText(s.bestObjective
                        ? tr("Best %1 %2 by %3")
                              .arg(objective, QString::number(*s.bestObjective, 'g', 5), s.bestJob)
                        : tr("No %1 yet").arg(objective));
    m_bars->setSummary(s);
    m_stop->setEnabled(!s.ended() && s.status != QLatin1String("Stopping"));
    if (m_fromStore && s.ended())
        m_service->unwatchTuningJob(m_tuning, this);
}

QString TuningOutputWidget::text() const {
    return QStringList{m_tuning, m_statusLabel->text(), m_progressLabel->text(), m_best->text()}
        .join(QLatin1Char('\n'));
}

} // namespace studio::widgets
