#include "widgets/jobs/findings_panel.h"

#include "models/data/data_service.h"
#include "widgets/common/theme.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <set>

namespace studio::widgets {

namespace {

constexpr int kRecentJobs = 200;

} // namespace

FindingsPanel::FindingsPanel(models::DataService* service, QWidget* parent)
    : QWidget(parent)
    , m_service(service) {
    m_scope = new QComboBox(this);
    m_scope->addItem(tr("All findings"), 0);
    m_scope->addItem(tr("Notified only"), 1);
    m_summary = new QLabel(this);
    m_summary->setForegroundRole(QPalette::PlaceholderText);
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 2);
    bar->addWidget(m_scope);
    bar->addWidget(m_summary, 1);

    m_model = new models::FindingsModel(models::FindingsModel::Scope::RecentJobs, this);
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("findingsTable"));
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setAlternatingRowColors(true);
    m_table->setShowGrid(false);
    m_table->setWordWrap(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_table->setFrameShape(QFrame::NoFrame);
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        Q_EMIT openJobRequested(index.data(models::FindingsModel::JobRole).toString());
    });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    layout->addWidget(m_table, 1);

    m_reloadSoon = new QTimer(this);
    m_reloadSoon->setSingleShot(true);
    m_reloadSoon->setInterval(400);
    connect(m_reloadSoon, &QTimer::timeout, this, &FindingsPanel::refresh);
    connect(m_scope, &QComboBox::currentIndexChanged, this, [this] { present(m_items); });
    refresh();
}

void FindingsPanel::refresh() {
    m_service->recentFindings(m_task, kRecentJobs, [this](std::vector<models::FindingItem> items) {
        present(std::move(items));
    });
}

void FindingsPanel::present(std::vector<models::FindingItem> items) {
    m_items = std::move(items);
    const bool onlyNotified = m_scope->currentData().toInt() == 1;
    std::vector<models::FindingItem> shown;
    std::set<QString> jobs;
    for (const auto& i : m_items)
        if (!onlyNotified || i.notified) {
            shown.push_back(i);
            jobs.insert(i.job);
        }
    m_model->setFindings(std::move(shown));
    m_table->resizeColumnsToContents();
    // The long texts get at most 520 pixels; their tooltips show the rest.
    for (auto field : {models::FindingsModel::FindingField, models::FindingsModel::AdviceField}) {
        const int c = m_model->columnOf(field);
        m_table->setColumnWidth(c, std::min(m_table->columnWidth(c), 520));
    }
    const int count = m_model->rowCount();
    m_summary->setText(count == 0 ? tr("No findings")
                                  : tr("%1 findings in %2 jobs").arg(count).arg(jobs.size()));
}

void FindingsPanel::applyBatch(const models::LiveBatch& batch) {
    for (const auto& n : batch.notifications) {
        ++m_notificationsSeen;
        Q_EMIT notified(n.job, n.rule, n.message);
    }
    bool ended = false;
    for (const auto& s : batch.statuses)
        ended = ended || s.status != QLatin1String("InProgress");
    if (!batch.notifications.isEmpty() || ended)
        m_reloadSoon->start();
}

int FindingsPanel::count() const {
    return m_model->rowCount();
}

} // namespace studio::widgets
