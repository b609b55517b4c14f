#include "widgets/tuning/tuning_header.h"

#include "models/tuning/tuning_job_list_model.h"
#include "widgets/common/theme.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>

namespace studio::widgets {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

QFont scaled(const QFont& base, double factor, QFont::Weight weight) {
    QFont f = base;
    f.setPointSizeF(f.pointSizeF() * factor);
    f.setWeight(weight);
    return f;
}

} // namespace

TuningHeader::TuningHeader(const QString& name, QWidget* parent)
    : QWidget(parent) {
    setObjectName(QStringLiteral("tuningHeader"));
    auto* outer = new QHBoxLayout(this);
    outer->setContentsMargins(14, 10, 14, 6);
    outer->setSpacing(24);

    auto* left = new QVBoxLayout;
    left->setSpacing(3);
    auto* title = new QLabel(name);
    title->setObjectName(QStringLiteral("tuningTitle"));
    title->setFont(scaled(font(), 1.35, QFont::DemiBold));
    title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status = new QLabel;
    m_status->setObjectName(QStringLiteral("tuningStatus"));
    m_summary = new QLabel;
    m_summary->setObjectName(QStringLiteral("tuningSummary"));
    m_summary->setForegroundRole(QPalette::PlaceholderText);
    auto* titleRow = new QHBoxLayout;
    titleRow->addWidget(title);
    titleRow->addSpacing(10);
    titleRow->addWidget(m_status);
    titleRow->addStretch(1);
    left->addLayout(titleRow);
    left->addWidget(m_summary);
    m_best = new QLabel;
    m_best->setObjectName(QStringLiteral("tuningBest"));
    m_best->setTextFormat(Qt::RichText);
    connect(m_best, &QLabel::linkActivated, this, &TuningHeader::openJobRequested);
    m_bestValues = new QLabel;
    m_bestValues->setObjectName(QStringLiteral("tuningBestValues"));
    m_bestValues->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_bestValues->setWordWrap(true);
    left->addWidget(m_best);
    left->addWidget(m_bestValues);
    outer->addLayout(left, 1);

    auto* counters = new QGridLayout;
    counters->setHorizontalSpacing(22);
    counters->setVerticalSpacing(0);
    const struct {
        const char* key;
        QString caption;
        const char* status;
    } items[] = {{"completed", tr("completed"), "Completed"},
                 {"stoppedEarly", tr("stopped early"), "Stopping"},
                 {"failed", tr("failed"), "Failed"},
                 {"inProgress", tr("in progress"), "InProgress"}};
    int column = 0;
    for (const auto& item : items) {
        QLabel* value = counter(QLatin1String(item.key), item.caption, QLatin1String(item.status));
        counters->addWidget(value, 0, column, Qt::AlignHCenter);
        auto* caption = new QLabel(item.caption);
        caption->setForegroundRole(QPalette::PlaceholderText);
        counters->addWidget(caption, 1, column++, Qt::AlignHCenter);
    }
    outer->addLayout(counters);

    m_stop = new QPushButton(style()->standardIcon(QStyle::SP_MediaStop), tr("Stop"));
    m_stop->setObjectName(QStringLiteral("stopTuningButton"));
    m_stop->setToolTip(tr("Stop the tuning job: no new training jobs, the running ones stopped"));
    m_stop->setEnabled(false);
    connect(m_stop, &QPushButton::clicked, this, &TuningHeader::stopRequested);
    outer->addWidget(m_stop, 0, Qt::AlignTop);
}

QLabel* TuningHeader::counter(const QString& key, const QString& caption, const QString& status) {
    auto* value = new QLabel(QStringLiteral("0"));
    value->setObjectName(key + QStringLiteral("Count"));
    value->setFont(scaled(font(), 1.6, QFont::DemiBold));
    QPalette pal = value->palette();
    pal.setColor(QPalette::WindowText, models::statusColor(status));
    value->setPalette(pal);
    value->setToolTip(caption);
    m_fields.insert(key, value);
    return value;
}

void TuningHeader::present(const models::TuningJobData& data) {
    const store::TuningJobRow& j = data.job;
    const QString status = qs(j.status);
    m_running = status == QLatin1String("InProgress");
    m_status->setText(QStringLiteral("<span style=\"color:%1\">●</span> %2%3")
                          .arg(models::statusColor(status).name(), status.toHtmlEscaped(),
                               j.statusMessage.empty()
                                   ? QString()
                                   : QStringLiteral(" · ") + qs(j.statusMessage).toHtmlEscaped()));
    m_summary->setText(tr("%1 search · %2 %3 · %4 jobs at most, %5 at a time · early stopping %6")
                           .arg(qs(j.strategy), qs(j.objectiveType), qs(j.objectiveName))
                           .arg(j.maxJobs)
                           .arg(j.maxParallelJobs)
                           .arg(qs(j.earlyStopping)));
    const store::TuningCounters& c = j.counters;
    m_fields[QStringLiteral("completed")]->setText(QString::number(c.completed));
    m_fields[QStringLiteral("stoppedEarly")]->setText(QString::number(c.stoppedEarly));
    m_fields[QStringLiteral("failed")]->setText(QString::number(c.failed));
    m_fields[QStringLiteral("inProgress")]->setText(QString::number(c.inProgress));
    if (j.bestJob.empty()) {
        m_best->setText(tr("Best: none yet"));
        m_bestValues->clear();
    } else {
        m_best->setText(tr("Best: <a href=\"%1\">%1</a> &nbsp; %2 = <b>%3</b>")
                            .arg(qs(j.bestJob).toHtmlEscaped(), qs(j.objectiveName).toHtmlEscaped(),
                                 models::objectiveText(j.bestObjective)));
        QStringList values;
        for (const models::TuningTrial& t : data.trials)
            if (t.component == j.bestComponent)
                for (std::size_t r = 0; r < data.ranges.size(); ++r)
                    values << data.ranges[r].name + QStringLiteral(" = ") +
                                  t.values.value(qsizetype(r));
        m_bestValues->setText(values.join(QStringLiteral("   ")));
    }
    setStoppable(m_stoppable);
}

void TuningHeader::setStoppable(bool stoppable) {
    m_stoppable = stoppable;
    m_stop->setEnabled(m_stoppable && m_running);
}

QString TuningHeader::text(const QString& field) const {
    if (field == QLatin1String("best"))
        return m_best->text();
    if (field == QLatin1String("bestHyperparameters"))
        return m_bestValues->text();
    if (field == QLatin1String("status"))
        return m_status->text();
    if (field == QLatin1String("summary"))
        return m_summary->text();
    const QLabel* l = m_fields.value(field);
    return l ? l->text() : QString();
}

} // namespace studio::widgets
