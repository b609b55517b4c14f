#include "widgets/jobs/findings_panel.h"

#include "engine/store/store_reader.h"
#include "widgets/common/theme.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <set>

namespace studio::widgets {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

constexpr int kRecentJobs = 200;

} // namespace

FindingsPanel::FindingsPanel(QString databasePath, QWidget* parent)
    : QWidget(parent)
    , m_path(std::move(databasePath)) {
    m_scope = new QComboBox(this);
    m_scope->addItem(tr("All findings"), 0);
    m_scope->addItem(tr("Notified only"), 1);
    m_summary = new QLabel(this);
    m_summary->setForegroundRole(QPalette::PlaceholderText);
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 2);
    bar->addWidget(m_scope);
    bar->addWidget(m_summary, 1);

    m_table = new QTableWidget(0, 6, this);
    m_table->setObjectName(QStringLiteral("findingsTable"));
    m_table->setHorizontalHeaderLabels(
        {tr("Time"), tr("Job"), tr("Rule"), tr("Step"), tr("Finding"), tr("Advice")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setAlternatingRowColors(true);
    m_table->setShowGrid(false);
    m_table->setWordWrap(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_table->setFrameShape(QFrame::NoFrame);
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        if (auto* item = m_table->item(row, 1))
            Q_EMIT openJobRequested(item->data(Qt::UserRole).toString());
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
    const std::string path = m_path.toStdString();
    m_task.run(
        [path](const models::CancelFlag& cancel) {
            store::StoreReader reader(path);
            auto jobs = reader.components();
            std::sort(jobs.begin(), jobs.end(),
                      [](const auto& a, const auto& b) { return a.created > b.created; });
            if (jobs.size() > kRecentJobs)
                jobs.resize(kRecentJobs);
            std::set<std::pair<std::string, std::string>> notifiedRules;
            for (const auto& n : reader.notifications())
                notifiedRules.insert({n.component, n.rule});
            std::vector<FindingItem> items;
            for (const auto& j : jobs) {
                if (cancel.cancelled())
                    break;
                for (auto& f : reader.findings(j.id))
                    items.push_back(
                        {qs(j.name), qs(j.status), f, notifiedRules.count({j.name, f.rule}) > 0});
            }
            std::stable_sort(items.begin(), items.end(), [](const auto& a, const auto& b) {
                return a.finding.time > b.finding.time;
            });
            return items;
        },
        [this](std::vector<FindingItem> items) { present(std::move(items)); });
}

void FindingsPanel::present(std::vector<FindingItem> items) {
    m_items = std::move(items);
    const bool onlyNotified = m_scope->currentData().toInt() == 1;
    std::vector<const FindingItem*> shown;
    std::set<QString> jobs;
    for (const auto& i : m_items)
        if (!onlyNotified || i.notified) {
            shown.push_back(&i);
            jobs.insert(i.job);
        }
    m_table->setRowCount(static_cast<int>(shown.size()));
    for (std::size_t r = 0; r < shown.size(); ++r) {
        const FindingItem& i = *shown[r];
        const auto& f = i.finding;
        const QStringList cells = {models::formatTime(f.time),
                                   i.job,
                                   qs(f.rule),
                                   f.step >= 0 ? QString::number(f.step) : QString(),
                                   qs(f.message),
                                   qs(f.recommendation)};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            item->setToolTip(c >= 4 ? cells[c] : QString());
            if (c == 1)
                item->setData(Qt::UserRole, i.job);
            if (c == 2)
                item->setIcon(models::statusIcon(QStringLiteral("IssuesFound")));
            m_table->setItem(static_cast<int>(r), c, item);
        }
    }
    m_table->resizeColumnsToContents();
    for (int c = 4; c < 6; ++c)
        m_table->setColumnWidth(c, std::min(m_table->columnWidth(c), 520));
    m_summary->setText(shown.empty()
                           ? tr("No findings")
                           : tr("%1 findings in %2 jobs").arg(shown.size()).arg(jobs.size()));
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
    return m_table->rowCount();
}

} // namespace studio::widgets
