#include "widgets/insights/overview_tab.h"

#include "widgets/common/theme.h"
#include "widgets/insights/insights_charts.h"

#include <QGridLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QStandardItemModel>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace studio::widgets {

namespace {

QString fromStd(const std::string& s) {
    return QString::fromStdString(s);
}

QString number(double v) {
    if (std::isnan(v))
        return QStringLiteral("n/a");
    return QString::number(v, 'f', std::abs(v) >= 100 ? 1 : 2);
}

QStandardItem* readOnly(const QString& text) {
    auto* item = new QStandardItem(text);
    item->setEditable(false);
    return item;
}

// Breaks text into lines of at most about `width` characters at spaces, so that tree rows
// (whose delegates size text without knowing the column width) show all of it.
QString wrapped(const QString& text, int width = 80) {
    QString out;
    int line = 0;
    for (const QString& word : text.split(u' ', Qt::SkipEmptyParts)) {
        if (line > 0 && line + 1 + word.size() > width) {
            out += u'\n';
            line = 0;
        } else if (line > 0) {
            out += u' ';
            ++line;
        }
        out += word;
        line += static_cast<int>(word.size());
    }
    return out;
}

QGroupBox* group(const QString& title, QWidget* content) {
    auto* box = new QGroupBox(title);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addWidget(content);
    return box;
}

} // namespace

OverviewTab::OverviewTab(QWidget* parent)
    : QWidget(parent) {
    auto* content = new QWidget;
    auto* grid = new QGridLayout(content);

    auto* summaryBox = new QWidget;
    auto* summaryLayout = new QHBoxLayout(summaryBox);
    summaryLayout->setContentsMargins(0, 0, 0, 0);
    m_summary = new QLabel;
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_pie = new PhasePie;
    summaryLayout->addWidget(m_summary, 1);
    summaryLayout->addWidget(m_pie, 1);
    grid->addWidget(group(tr("Training job summary"), summaryBox), 0, 0);

    m_timeline = new TrainingTimeline;
    grid->addWidget(group(tr("Training timeline"), m_timeline), 0, 1);

    m_resourceModel = new QStandardItemModel(this);
    m_resourceView = new QTableView;
    m_resourceView->setModel(m_resourceModel);
    m_resourceView->verticalHeader()->hide();
    m_resourceView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_resourceView->setAlternatingRowColors(true);
    m_resourceView->horizontalHeader()->setStretchLastSection(false);
    m_resourceView->verticalHeader()->setDefaultSectionSize(QFontMetrics(font()).height() + 6);
    m_resourceView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_resourceView->setMinimumHeight(240);
    m_resourceNote = new QLabel;
    m_resourceNote->setWordWrap(true);
    m_resourceNote->hide();
    auto* resources = new QWidget;
    auto* resourcesLayout = new QVBoxLayout(resources);
    resourcesLayout->setContentsMargins(0, 0, 0, 0);
    resourcesLayout->addWidget(m_resourceNote);
    resourcesLayout->addWidget(m_resourceView, 1);
    grid->addWidget(group(tr("Resource utilization summary"), resources), 1, 0);

    m_rulesModel = new QStandardItemModel(this);
    m_rulesView = new QTreeView;
    m_rulesView->setModel(m_rulesModel);
    m_rulesView->setWordWrap(true);
    m_rulesView->setUniformRowHeights(false);
    m_rulesView->setAlternatingRowColors(true);
    m_rulesView->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_rulesView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_rulesView->setMinimumHeight(240);
    connect(m_rulesView, &QTreeView::expanded, this, [this](const QModelIndex& index) {
        const QString rule = index.siblingAtColumn(0).data().toString();
        if (!m_expandedRules.contains(rule))
            m_expandedRules.append(rule);
    });
    connect(m_rulesView, &QTreeView::collapsed, this, [this](const QModelIndex& index) {
        m_expandedRules.removeAll(index.siblingAtColumn(0).data().toString());
    });
    grid->addWidget(group(tr("Insights: rules"), m_rulesView), 1, 1);

    m_steps = new StepPhaseChart;
    m_steps->setTitle(tr("Time spent in training: the last 30 steps by phase"));
    m_steps->setPlaceholder(tr("No step timings recorded yet"));
    grid->addWidget(group(tr("Time spent in training"), m_steps), 2, 0, 1, 2);
    grid->setColumnStretch(0, 1);
    grid->setColumnStretch(1, 1);

    auto* scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(content);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scroll);
}

OverviewTab::~OverviewTab() = default;

QString OverviewTab::resourceNote() const {
    return m_resourceNote->isHidden() ? QString() : m_resourceNote->text();
}

QString OverviewTab::summaryText() const {
    return m_summary->text();
}

void OverviewTab::setData(const models::InsightsData& data) {
    fillSummary(data);
    fillResources(data);
    fillRules(data);
    m_steps->setBars(models::lastSteps(data.steps, 30));
}

void OverviewTab::fillSummary(const models::InsightsData& data) {
    const report::JobSummary& s = data.summary;
    const QString status = fromStd(data.job.status);
    QString html = QStringLiteral("<table cellspacing=3>");
    auto row = [&](const QString& name, const QString& value) {
        html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(name, value);
    };
    row(tr("Job"), fromStd(data.job.name).toHtmlEscaped());
    row(tr("Status"),
        QStringLiteral("<span style='color:%1'>%2</span>%3")
            .arg(models::statusColor(status).name(), status.toHtmlEscaped(),
                 data.job.secondaryStatus.empty()
                     ? QString()
                     : QStringLiteral(" (%1)").arg(fromStd(data.job.secondaryStatus))));
    row(tr("Instance"), QStringLiteral("%1 \u00d7 %2")
                            .arg(data.job.instanceCount)
                            .arg(fromStd(data.job.instanceType)));
    row(tr("Start"), models::formatTime(s.start));
    row(tr("End"), s.running ? tr("running (last data %1)").arg(models::formatTime(s.end))
                             : models::formatTime(s.end));
    row(tr("Duration"),
        models::formatDuration(s.jobDuration) + (s.running ? tr(" so far") : QString()));
    const double total = s.jobDuration > 0 ? s.jobDuration : 1;
    auto share = [&](double v) {
        return QStringLiteral("%1 (%2 %)")
            .arg(models::formatDuration(v))
            .arg(v / total * 100, 0, 'f', 1);
    };
    if (s.hasSteps) {
        row(tr("Initialization"), share(s.initialization));
        row(tr("Training loop"),
            s.running ? share(s.end - s.loopStart) + tr(" so far") : share(s.loopDuration));
        row(tr("Finalization"), s.running ? tr("not yet") : share(s.finalization));
    } else {
        row(tr("Training loop"), tr("no step timings recorded"));
    }
    html += QStringLiteral("</table>");
    m_summary->setText(html);

    const QColor init(0xe4, 0x9b, 0x2f), loop(0x3b, 0x7d, 0xd8), fin(0x8e, 0x5c, 0xc8);
    if (s.hasSteps && s.running)
        m_pie->setEntries({{tr("Initialization"), s.initialization, init},
                           {tr("Training loop (so far)"), s.end - s.loopStart, loop}});
    else if (s.hasSteps)
        m_pie->setEntries({{tr("Initialization"), s.initialization, init},
                           {tr("Training loop"), s.loopDuration, loop},
                           {tr("Finalization"), s.finalization, fin}});
    else
        m_pie->setEntries({{tr("Job (no steps)"), s.jobDuration, init}});

    QList<TimelineSpan> phases;
    if (s.hasSteps) {
        phases.append({s.start, s.loopStart, tr("init"), init});
        phases.append({s.loopStart, s.running ? s.end : s.loopEnd, tr("training loop"), loop});
        if (!s.running && s.end > s.loopEnd)
            phases.append({s.loopEnd, s.end, tr("final"), fin});
    } else if (s.end > s.start) {
        phases.append({s.start, s.end, tr("job"), init});
    }
    m_timeline->setPhases(phases);
    m_timeline->setBilling(data.billing);
}

void OverviewTab::fillResources(const models::InsightsData& data) {
    m_resourceModel->clear();
    m_resourceModel->setHorizontalHeaderLabels({tr("Node"), tr("Resource"), tr("Unit"), tr("Min"),
                                                tr("Max"), tr("p99"), tr("p90"), tr("p50")});
    for (const models::ResourceStat& r : data.resources) {
        QList<QStandardItem*> items{readOnly(data.nodeName(r.node)), readOnly(fromStd(r.resource)),
                                    readOnly(fromStd(r.unit)),       readOnly(number(r.min)),
                                    readOnly(number(r.max)),         readOnly(number(r.p99)),
                                    readOnly(number(r.p90)),         readOnly(number(r.p50))};
        for (int c = 3; c < items.size(); ++c)
            items[c]->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_resourceModel->appendRow(items);
    }
    if (data.resources.empty())
        m_resourceModel->appendRow({readOnly(tr("no system samples yet"))});
    const bool anyGpu =
        std::any_of(data.resources.begin(), data.resources.end(),
                    [](const models::ResourceStat& r) { return r.resource == "GPU"; });
    m_resourceNote->setVisible(!data.resources.empty() && !anyGpu);
    m_resourceNote->setText(tr("<b>CPU-only run:</b> no GPU was recorded on any node, so there "
                               "are no GPU or GPU memory rows."));
    m_resourceView->resizeColumnsToContents();
    m_resourceView->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
}

void OverviewTab::fillRules(const models::InsightsData& data) {
    m_rulesModel->clear();
    m_rulesModel->setHorizontalHeaderLabels({tr("Rule"), tr("Status and insight")});
    for (const report::RuleView& v : data.rules) {
        const QString status = fromStd(v.status.status);
        auto* name = readOnly(fromStd(v.status.rule));
        auto* state = readOnly(status);
        state->setIcon(models::statusIcon(status));
        auto addDetail = [&](const QString& label, const QString& text) {
            if (text.isEmpty())
                return;
            auto* key = readOnly(label);
            QFont f = key->font();
            f.setBold(true);
            key->setFont(f);
            auto* value = readOnly(wrapped(text));
            value->setToolTip(text);
            name->appendRow({key, value});
        };
        QString finding = fromStd(v.status.message);
        QString recommendation;
        QString criteria = fromStd(v.status.criteria);
        if (!v.findings.empty()) {
            const auto& f = v.findings.back();
            finding = fromStd(f.message);
            if (f.node >= 0)
                finding += tr(" (node %1%2)")
                               .arg(f.node)
                               .arg(f.device.empty() ? QString()
                                                     : QStringLiteral(", ") + fromStd(f.device));
            if (v.findings.size() > 1)
                finding += tr(" \u2014 %1 findings, the latest shown").arg(v.findings.size());
            recommendation = fromStd(f.recommendation);
            if (!f.criteria.empty())
                criteria = fromStd(f.criteria);
        }
        addDetail(tr("Finding"), finding.isEmpty() ? tr("no issue found") : finding);
        addDetail(tr("Recommendation"), recommendation);
        addDetail(tr("Description"), fromStd(v.description));
        addDetail(tr("Trigger criteria"), criteria);
        addDetail(tr("Triggered"),
                  v.status.datapoints > 0
                      ? tr("%1 of %2 datapoints").arg(v.status.fired).arg(v.status.datapoints)
                      : QString::number(v.status.fired));
        addDetail(tr("Parameters"), fromStd(v.status.parameters));
        if (!finding.isEmpty() && v.status.status == "IssuesFound")
            state->setText(
                status + QStringLiteral(": ") +
                fromStd(v.findings.empty() ? v.status.message : v.findings.back().message)
                    .left(90));
        m_rulesModel->appendRow({name, state});
    }
    if (data.rules.empty())
        m_rulesModel->appendRow({readOnly(tr("no rules ran for this job")), readOnly(QString())});
    // Rules that found issues open by default (once); the user's choices are kept after that.
    if (!m_rulesSeen && !data.rules.empty()) {
        for (const auto& v : data.rules)
            if (v.status.status == "IssuesFound")
                m_expandedRules.append(fromStd(v.status.rule));
        m_rulesSeen = true;
    }
    for (int r = 0; r < m_rulesModel->rowCount(); ++r) {
        const QModelIndex index = m_rulesModel->index(r, 0);
        m_rulesView->setFirstColumnSpanned(r, {}, false);
        if (m_expandedRules.contains(index.data().toString()))
            m_rulesView->expand(index);
    }
    m_rulesView->resizeColumnToContents(0);
}

} // namespace studio::widgets
