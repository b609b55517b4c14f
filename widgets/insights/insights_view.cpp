#include "widgets/insights/insights_view.h"

#include "models/data/data_service.h"
#include "widgets/common/theme.h"
#include "widgets/insights/nodes_tab.h"
#include "widgets/insights/overview_tab.h"

#include <QLabel>
#include <QTabWidget>
#include <QThread>
#include <QVBoxLayout>

namespace studio::widgets {

InsightsView::InsightsView(models::DataService* service, QString jobName, QWidget* parent)
    : QWidget(parent)
    , m_service(service)
    , m_jobName(std::move(jobName))
    , m_task(this) {
    m_header = new QLabel(tr("Loading the insights of %1\u2026").arg(m_jobName));
    m_header->setTextFormat(Qt::RichText);
    m_header->setContentsMargins(8, 6, 8, 2);
    m_tabs = new QTabWidget;
    m_overview = new OverviewTab;
    m_nodes = new NodesTab;
    m_tabs->addTab(m_overview, tr("Overview"));
    m_tabs->addTab(m_nodes, tr("Nodes"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_header);
    layout->addWidget(m_tabs, 1);

    connect(m_service, &models::DataService::jobChanged, this, [this](const QString& job) {
        if (job == m_jobName)
            poll();
    });
    refresh();
}

InsightsView::~InsightsView() = default;

UtilizationHeatmap* InsightsView::heatmap() const {
    return m_nodes->heatmap();
}

void InsightsView::refresh() {
    m_service->insights(
        m_task, m_jobName, nullptr, [this](models::InsightsData d) { apply(std::move(d)); },
        [this](const QString& e) { fail(e); });
}

void InsightsView::poll() {
    if (m_task.busy())
        return; // the previous read is still running: skip this tick
    if (!m_data) {
        refresh();
        return;
    }
    m_service->insights(
        m_task, m_jobName, m_data, [this](models::InsightsData d) { apply(std::move(d)); },
        [this](const QString& e) { fail(e); });
}

void InsightsView::apply(models::InsightsData data) {
    Q_ASSERT(QThread::currentThread() == thread());
    ++m_reads;
    m_error.clear();
    auto shared = std::make_shared<const models::InsightsData>(std::move(data));
    m_data = shared;
    m_overview->setData(*shared);
    m_nodes->setData(*shared);
    updateHeader();
    m_live = shared->running();
    if (m_live)
        m_service->watchJob(m_jobName, this);
    else
        m_service->unwatchJob(m_jobName, this); // this read already saw the job's end
    Q_EMIT loaded();
}

void InsightsView::fail(const QString& message) {
    m_error = message;
    m_header->setText(tr("<b>Could not read the insights of %1:</b> %2")
                          .arg(m_jobName.toHtmlEscaped(), message.toHtmlEscaped()));
    Q_EMIT loadFailed(message);
}

void InsightsView::updateHeader() {
    const QString status = QString::fromStdString(m_data->job.status);
    std::size_t samples = 0;
    for (const auto& s : *m_data->series)
        samples += s.samples.size();
    m_header->setText(
        tr("<b>Debugger insights: %1</b> &nbsp; <span style='color:%2'>\u25cf %3</span> &nbsp; "
           "%4 \u00b7 %5 system samples \u00b7 %6 steps%7")
            .arg(m_jobName.toHtmlEscaped(), models::statusColor(status).name(), status)
            .arg(m_data->nodes().size() == 1 ? tr("1 node")
                                             : tr("%1 nodes").arg(m_data->nodes().size()))
            .arg(samples)
            .arg(m_data->steps.size())
            .arg(m_data->running() ? tr(" \u00b7 <i>live: updated every second</i>") : QString()));
}

} // namespace studio::widgets
