#include "widgets/jobs/job_view.h"

#include "models/data/data_service.h"
#include "models/jobs/findings_model.h"
#include "models/jobs/job_detail_models.h"
#include "models/jobs/job_nodes_model.h"
#include "models/jobs/job_ranks_model.h"
#include "models/jobs/job_rules_model.h"
#include "widgets/billing/job_billing_view.h"
#include "widgets/common/theme.h"
#include "widgets/console/console_panel.h"
#include "widgets/jobs/metrics_grid.h"
#include "widgets/jobs/slurm_job_panel.h"
#include "widgets/jobs/status_timeline.h"
#include "widgets/jobs/what_ran_view.h"

#include <QDesktopServices>
#include <QFontDatabase>
#include <QFrame>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QUrl>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

namespace studio::widgets {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

void styleTable(QTableView* t) {
    t->verticalHeader()->hide();
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setAlternatingRowColors(true);
    t->setShowGrid(false);
    t->horizontalHeader()->setStretchLastSection(true);
    t->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 8);
    t->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
}

QTableView* makeTable(QAbstractItemModel* model, QWidget* parent) {
    auto* t = new QTableView(parent);
    t->setModel(model);
    styleTable(t);
    return t;
}

// A table sized to show all its rows (up to a limit) so the overview scrolls as one page; an
// empty one gives way to its "none" note.
void fitRows(QTableView* t, int maxRows = 12) {
    const int count = t->model()->rowCount();
    t->resizeColumnsToContents();
    t->horizontalHeader()->setSectionResizeMode(t->model()->columnCount() - 1,
                                                QHeaderView::Stretch);
    if (auto* none = t->property("noneLabel").value<QLabel*>()) {
        none->setVisible(count == 0);
        t->setVisible(count > 0);
    }
    const int rows = std::min(count, maxRows);
    // Columns wider than the view bring a scroll bar, which must not hide the last row.
    const bool wide = t->horizontalHeader()->length() > t->viewport()->width();
    const int h = t->horizontalHeader()->height() +
                  rows * t->verticalHeader()->defaultSectionSize() + 2 * t->frameWidth() + 2 +
                  (wide ? t->horizontalScrollBar()->sizeHint().height() : 0);
    t->setFixedHeight(std::max(h, t->horizontalHeader()->height() + 30));
}

QLabel* sectionLabel(const QString& text, QWidget* parent) {
    auto* l = new QLabel(text, parent);
    QFont f = l->font();
    f.setBold(true);
    f.setPointSizeF(f.pointSizeF() * 1.05);
    l->setFont(f);
    l->setContentsMargins(0, 10, 0, 2);
    return l;
}

} // namespace

JobView::JobView(models::DataService* service, QString job, QWidget* parent)
    : QWidget(parent)
    , m_service(service)
    , m_job(std::move(job)) {
    setObjectName(QStringLiteral("jobView"));
    m_reloadSoon = new QTimer(this);
    m_reloadSoon->setSingleShot(true);
    m_reloadSoon->setInterval(250);
    connect(m_reloadSoon, &QTimer::timeout, this, &JobView::reload);

    QLayout* titleRow = buildHeader();

    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(buildOverview(), tr("Overview"));
    m_metrics = new MetricsGrid(this);
    m_tabs->addTab(m_metrics, tr("Metrics"));
    m_console = new ConsolePanel(nullptr, this);
    m_console->setFixedJob(m_job);
    m_tabs->addTab(m_console, tr("Logs"));
    m_tabs->addTab(buildRulesPage(), tr("Rules"));
    m_whatRan = new WhatRanView(this);
    m_tabs->addTab(m_whatRan, tr("What ran"));
    m_billing = new JobBillingView(m_service, m_job, this);
    m_tabs->addTab(m_billing, tr("Billing"));
    m_spec = new QPlainTextEdit(this);
    m_spec->setObjectName(QStringLiteral("jobSpec"));
    m_spec->setReadOnly(true);
    m_spec->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_tabs->addTab(m_spec, tr("Spec"));

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 10, 12, 6);
    layout->addLayout(titleRow);
    layout->addWidget(m_subtitle);
    layout->addWidget(m_tabs, 1);
    reload();
}

// The title row (name, status and the job's actions) and the subtitle under it.
QLayout* JobView::buildHeader() {
    m_title = new QLabel(m_job, this);
    QFont tf = m_title->font();
    tf.setPointSizeF(tf.pointSizeF() * 1.35);
    tf.setBold(true);
    m_title->setFont(tf);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("jobStatus"));
    m_subtitle = new QLabel(this);
    m_subtitle->setObjectName(QStringLiteral("jobSubtitle"));
    m_subtitle->setForegroundRole(QPalette::PlaceholderText);
    m_stop = new QPushButton(tr("Stop"), this);
    m_stop->setObjectName(QStringLiteral("jobStop"));
    m_stop->setEnabled(false);
    m_clone = new QPushButton(tr("Clone and edit…"), this);
    m_clone->setObjectName(QStringLiteral("jobClone"));
    auto* folder = new QPushButton(tr("Open folder"), this);
    auto* insights = new QPushButton(tr("Debugger insights"), this);
    insights->setObjectName(QStringLiteral("jobInsights"));
    insights->setToolTip(tr("Where the time and the hardware went: utilization, steps, rules"));
    connect(insights, &QPushButton::clicked, this, [this] { Q_EMIT insightsRequested(m_job); });
    connect(m_stop, &QPushButton::clicked, this, [this] { Q_EMIT stopRequested(m_job); });
    m_interrupt = new QPushButton(tr("Interrupt"), this);
    m_interrupt->setObjectName(QStringLiteral("jobInterrupt"));
    m_interrupt->setToolTip(tr("Send a spot interruption notice: the job checkpoints, waits for "
                               "capacity and resumes, as on EC2"));
    m_interrupt->hide();
    connect(m_interrupt, &QPushButton::clicked, this, [this] { Q_EMIT interruptRequested(m_job); });
    connect(m_clone, &QPushButton::clicked, this,
            [this] { Q_EMIT cloneRequested(qs(m_detail.specJson)); });
    connect(folder, &QPushButton::clicked, this, [this] {
        if (!m_detail.row.jobDir.empty())
            QDesktopServices::openUrl(QUrl::fromLocalFile(qs(m_detail.row.jobDir)));
    });

    auto* titleRow = new QHBoxLayout;
    titleRow->addWidget(m_title);
    titleRow->addSpacing(8);
    titleRow->addWidget(m_status);
    titleRow->addStretch(1);
    titleRow->addWidget(folder);
    titleRow->addWidget(insights);
    titleRow->addWidget(m_clone);
    titleRow->addWidget(m_interrupt);
    titleRow->addWidget(m_stop);
    return titleRow;
}

// The rules as they ran above what they found.
QWidget* JobView::buildRulesPage() {
    auto* rulesPage = new QSplitter(Qt::Vertical, this);
    m_rulesModel = new models::JobRulesModel(this);
    m_rules = makeTable(m_rulesModel, rulesPage);
    m_rules->setObjectName(QStringLiteral("jobRules"));
    m_findingsModel = new models::FindingsModel(models::FindingsModel::Scope::OneJob, this);
    m_findings = makeTable(m_findingsModel, rulesPage);
    m_findings->setWordWrap(true);
    rulesPage->addWidget(m_rules);
    rulesPage->addWidget(m_findings);
    return rulesPage;
}

QWidget* JobView::buildOverview() {
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* page = new QWidget(scroll);
    auto* v = new QVBoxLayout(page);
    v->setContentsMargins(2, 6, 8, 8);

    m_timeline = new StatusTimeline(page);
    v->addWidget(m_timeline);
    m_failure = new QLabel(page);
    m_failure->setObjectName(QStringLiteral("jobFailure"));
    m_failure->setWordWrap(true);
    m_failure->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_failure->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    const QColor red = models::statusColor(QStringLiteral("Failed"));
    m_failure->setStyleSheet(QStringLiteral("QLabel { border: 1px solid %1; border-left: 4px solid "
                                            "%1; border-radius: 4px; padding: 8px; }")
                                 .arg(red.name()));
    m_failure->hide();
    v->addWidget(m_failure);

    m_facts = new QLabel(page);
    m_facts->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_facts->setTextFormat(Qt::RichText);
    v->addWidget(m_facts);

    buildOverviewTables(page);
    QLayout* columns = overviewSections(page);
    // Jobs on Slurm only, the page's full width (scripts have long lines): Slurm's ids, states
    // and pending reasons, nodes and batch scripts.
    m_slurmTitle = sectionLabel(tr("Slurm"), page);
    m_slurm = new SlurmJobPanel(page);
    styleTable(m_slurm->table());
    v->addWidget(m_slurmTitle);
    v->addWidget(m_slurm);
    v->addLayout(columns);
    v->addStretch(1);
    scroll->setWidget(page);
    return scroll;
}

void JobView::buildOverviewTables(QWidget* page) {
    m_transitionsModel = new models::JobTransitionsModel(this);
    m_transitions = makeTable(m_transitionsModel, page);
    m_ranksModel = new models::JobRanksModel(this);
    m_ranks = makeTable(m_ranksModel, page);
    m_ranks->setObjectName(QStringLiteral("jobRanks"));
    m_nodesModel = new models::JobNodesModel(this);
    m_nodes = makeTable(m_nodesModel, page);
    m_nodes->setObjectName(QStringLiteral("jobNodes"));
    m_parametersModel = new models::JobParametersModel(this);
    m_parameters = makeTable(m_parametersModel, page);
    m_checkpointsModel = new models::JobCheckpointsModel(this);
    m_checkpoints = makeTable(m_checkpointsModel, page);
    m_artifactsModel = new models::JobArtifactsModel(this);
    m_artifacts = makeTable(m_artifactsModel, page);
}

// Two columns of titled tables: the job's course on the left, its parameters on the right.
QLayout* JobView::overviewSections(QWidget* page) {
    // An empty table gives way to its "none" note.
    auto section = [page](QVBoxLayout* into, const QString& title, QTableView* table,
                          const QString& none) {
        into->addWidget(sectionLabel(title, page));
        if (!none.isEmpty()) {
            auto* label = new QLabel(none, page);
            label->setForegroundRole(QPalette::PlaceholderText);
            table->setProperty("noneLabel", QVariant::fromValue(label));
            into->addWidget(label);
        }
        into->addWidget(table);
    };
    auto* left = new QVBoxLayout;
    auto* right = new QVBoxLayout;
    section(left, tr("Status transitions"), m_transitions, {});
    section(left, tr("Nodes"), m_nodes, tr("No nodes started."));
    section(left, tr("Ranks and exit codes"), m_ranks, tr("No ranks started."));
    section(left, tr("Checkpoints"), m_checkpoints, tr("No checkpoints were written."));
    section(left, tr("Artifacts"), m_artifacts, tr("No artifacts."));
    left->addStretch(1);
    section(right, tr("Parameters"), m_parameters, tr("No parameters."));
    right->addStretch(1);
    auto* columns = new QHBoxLayout;
    columns->setSpacing(18);
    columns->addLayout(left, 3);
    columns->addLayout(right, 2);
    return columns;
}

QString JobView::status() const {
    return qs(m_detail.row.status);
}

void JobView::setStoppable(bool stoppable) {
    m_stoppable = stoppable;
    m_stop->setEnabled(stoppable && m_detail.row.status == "InProgress");
    m_interrupt->setEnabled(m_stop->isEnabled());
}

void JobView::reload() {
    if (m_loaded)
        m_billing->reload();
    m_service->job(
        m_task, m_job, !m_logsLoaded, [this](models::JobData data) { present(std::move(data)); },
        [this](const QString& error) {
            m_status->setText(error);
            m_loaded = true;
            Q_EMIT dataLoaded();
        });
}

namespace {

// "on this machine", "on cluster lab", "on cluster hpc, Slurm job 4101 (partition gpu)".
QString where(const store::ComponentDetail& d) {
    if (d.row.cluster == "local")
        return JobView::tr("on this machine");
    const QString cluster = JobView::tr("on cluster %1").arg(qs(d.row.cluster));
    if (d.slurmJobs.empty())
        return cluster;
    const store::SlurmJobRow& j = d.slurmJobs.back();
    return j.partition.empty() ? JobView::tr("%1, Slurm job %2").arg(cluster).arg(j.jobId)
                               : JobView::tr("%1, Slurm job %2 (partition %3)")
                                     .arg(cluster)
                                     .arg(j.jobId)
                                     .arg(qs(j.partition));
}

// "InProgress · Training"; a job that Slurm holds back says why: "InProgress · Pending
// (Resources)".
QString statusText(const store::ComponentDetail& d) {
    const auto& r = d.row;
    if (r.secondaryStatus.empty() || r.secondaryStatus == r.status)
        return qs(r.status);
    QString text = qs(r.status) + QStringLiteral(" · ") + qs(r.secondaryStatus);
    if (!d.slurmJobs.empty() && r.status == "InProgress") {
        const store::SlurmJobRow& j = d.slurmJobs.back();
        if (j.state == "PENDING" && !j.reason.empty() && j.reason != "None")
            text += QStringLiteral(" (") + qs(j.reason) + QLatin1Char(')');
    }
    return text;
}

} // namespace

void JobView::present(models::JobData data) {
    m_detail = std::move(data.detail);
    const auto& r = m_detail.row;
    const QString status = qs(r.status);
    const QColor c = models::statusColor(status);
    m_status->setText(statusText(m_detail));
    m_status->setStyleSheet(QStringLiteral("QLabel { background: %1; color: white; border-radius: "
                                           "9px; padding: 2px 10px; font-weight: 600; }")
                                .arg(c.name()));
    m_subtitle->setText(tr("Experiment %1 · trial %2 · %3 · %4 × %5 (%6 per host) · %7")
                            .arg(qs(r.experiment), qs(r.trial), where(m_detail), qs(r.instanceType))
                            .arg(r.instanceCount)
                            .arg(r.processesPerHost)
                            .arg(qs(r.entryPoint)));
    m_stop->setEnabled(m_stoppable && r.status == "InProgress");
    // An imported job (or a notebook's tracker) has no specification to launch again.
    m_clone->setEnabled(!m_detail.specJson.empty());
    m_clone->setToolTip(m_detail.specJson.empty() ? tr("This job has no job specification to "
                                                       "clone (it was imported or tracked)")
                                                  : QString());
    const auto parsed = nlohmann::json::parse(m_detail.specJson, nullptr, false);
    m_spot = parsed.is_object() && parsed.value("use_spot_instances", false);
    m_interrupt->setVisible(m_spot);
    m_interrupt->setEnabled(m_stop->isEnabled());
    fillOverview(m_detail);
    fillRules(m_detail);
    m_whatRan->setFacts(m_detail.facts, qs(r.jobDir));
    if (!data.metrics.empty() || !m_loaded)
        m_metrics->setMetrics(data.metrics);
    if (!m_logsLoaded) {
        // Live lines newer than the files' last line were not in the files yet.
        const double last = data.logs.isEmpty() ? 0 : data.logs.back().time;
        for (const auto& l : m_earlyLogs)
            if (l.time > last)
                data.logs.append(l);
        m_earlyLogs.clear();
        m_console->model()->append(data.logs);
        m_logsLoaded = true;
    }
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(m_detail.specJson));
    const QString spec = doc.isNull() ? qs(m_detail.specJson)
                                      : QString::fromUtf8(doc.toJson(QJsonDocument::Indented));
    if (m_spec->toPlainText() != spec)
        m_spec->setPlainText(spec);
    m_loaded = true;
    Q_EMIT dataLoaded();
}

void JobView::fillOverview(const store::ComponentDetail& d) {
    fillFacts(d);
    m_timeline->setTransitions(d.transitions);
    m_transitionsModel->setTransitions(d.transitions, d.row.ended > 0);
    fitRows(m_transitions);

    const bool onSlurm = !d.slurmJobs.empty();
    m_slurmTitle->setVisible(onSlurm);
    m_slurm->setVisible(onSlurm);
    m_slurm->setJobs(d.slurmJobs);
    fitRows(m_slurm->table(), 6);

    m_ranksModel->setRanks(d.ranks);
    fitRows(m_ranks, 16);
    m_nodesModel->setDetail(d);
    fitRows(m_nodes, 16);
    m_parametersModel->setParameters(d.parameters);
    fitRows(m_parameters, 20);
    m_checkpointsModel->setCheckpoints(d.checkpoints);
    fitRows(m_checkpoints, 8);
    m_artifactsModel->setArtifacts(d.artifacts);
    fitRows(m_artifacts, 8);
}

// When the job ran, where its files are, and why it failed or stopped.
void JobView::fillFacts(const store::ComponentDetail& d) {
    const auto& r = d.row;
    const double end = r.ended > 0 ? r.ended : 0;
    QString facts = QStringLiteral("<table cellspacing=0 cellpadding=3>");
    auto fact = [&facts](const QString& k, const QString& v) {
        facts +=
            QStringLiteral("<tr><td style='color:gray; padding-right:14px'>%1</td><td>%2</td></tr>")
                .arg(k, v.toHtmlEscaped());
    };
    fact(tr("Created"), models::formatTime(r.created));
    fact(tr("Started"), r.started > 0 ? models::formatTime(r.started) : tr("not yet"));
    fact(tr("Ended"), end > 0 ? models::formatTime(end) : tr("running"));
    if (r.started > 0 && end > 0)
        fact(tr("Training time"), models::formatDuration(end - r.started));
    fact(tr("Job folder"), qs(r.jobDir));
    if (r.protocolErrors > 0)
        fact(tr("Protocol errors"), QString::number(r.protocolErrors));
    facts += QStringLiteral("</table>");
    m_facts->setText(facts);

    if (!r.failureReason.empty() && r.status != "Completed") {
        m_failure->setText((r.status == "Failed" ? tr("Failure reason") : tr("Stop reason")) +
                           QStringLiteral("\n") + qs(r.failureReason));
        m_failure->show();
    } else {
        m_failure->hide();
    }
}

void JobView::fillRules(const store::ComponentDetail& d) {
    m_rulesModel->setRules(d.rules);
    m_rules->resizeColumnsToContents();
    m_findingsModel->setJobFindings(d.findings);
    m_findings->resizeColumnsToContents();
    const int rulesTab = m_tabs->indexOf(m_rules->parentWidget());
    if (rulesTab >= 0) {
        const int issues = m_rulesModel->issueCount();
        m_tabs->setTabText(rulesTab, issues ? tr("Rules (%1 issues)").arg(issues) : tr("Rules"));
    }
}

void JobView::applyBatch(const models::LiveBatch& batch) {
    QList<models::LiveLogLine> mine;
    for (const auto& l : batch.logs)
        if (l.job == m_job)
            mine.append(l);
    if (m_logsLoaded)
        m_console->model()->append(mine);
    else
        m_earlyLogs.append(mine);
    QList<models::LiveMetricPoint> points;
    for (const auto& m : batch.metrics)
        if (m.job == m_job)
            points.append(m);
    m_metrics->appendPoints(points);
    for (const auto& s : batch.statuses)
        if (s.job == m_job) {
            m_reloadSoon->start();
            break;
        }
    for (const auto& n : batch.notifications)
        if (n.job == m_job) {
            m_reloadSoon->start();
            break;
        }
}

} // namespace studio::widgets
