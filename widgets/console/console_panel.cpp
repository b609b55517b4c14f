#include "widgets/console/console_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QScrollBar>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace studio::widgets {

namespace {

QToolButton* toggle(const QString& text, const QString& tip, QWidget* parent) {
    auto* b = new QToolButton(parent);
    b->setText(text);
    b->setToolTip(tip);
    b->setCheckable(true);
    b->setChecked(true);
    b->setAutoRaise(true);
    return b;
}

} // namespace

ConsolePanel::ConsolePanel(models::LogModel* model, QWidget* parent)
    : QWidget(parent)
    , m_model(model ? model : new models::LogModel(200000, this))
    , m_proxy(new models::LogFilterProxy(this)) {
    m_proxy->setSourceModel(m_model);
    QLayout* bar = buildFilterBar();

    m_view = new QListView(this);
    m_view->setObjectName(QStringLiteral("consoleView"));
    m_view->setModel(m_proxy);
    m_view->setUniformItemSizes(true);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    m_view->setFrameShape(QFrame::NoFrame);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);

    refreshChoosers();
    connectUi();
    updateCount();
}

// Job, node and rank choosers, stream toggles, the search, the line count, Follow and Clear.
QLayout* ConsolePanel::buildFilterBar() {
    m_job = new QComboBox(this);
    m_job->setObjectName(QStringLiteral("consoleJob"));
    m_job->setMinimumContentsLength(18);
    m_job->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_node = new QComboBox(this);
    m_node->setObjectName(QStringLiteral("consoleNode"));
    m_rank = new QComboBox(this);
    m_rank->setObjectName(QStringLiteral("consoleRank"));
    m_stdout = toggle(QStringLiteral("stdout"), tr("Show standard output"), this);
    m_stderr = toggle(QStringLiteral("stderr"), tr("Show standard error"), this);
    m_events = toggle(QStringLiteral("events"), tr("Show event lines"), this);
    m_events->setChecked(false);
    m_proxy->setStreamShown(QStringLiteral("events"), false);
    m_search = new QLineEdit(this);
    m_search->setObjectName(QStringLiteral("consoleSearch"));
    m_search->setPlaceholderText(tr("Filter lines (Ctrl+F)"));
    m_search->setClearButtonEnabled(true);
    m_follow = toggle(tr("Follow"), tr("Keep the newest line in view"), this);
    auto* clear = new QToolButton(this);
    clear->setText(tr("Clear"));
    clear->setAutoRaise(true);
    m_count = new QLabel(this);
    m_count->setForegroundRole(QPalette::PlaceholderText);

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 2);
    bar->setSpacing(6);
    bar->addWidget(m_job);
    bar->addWidget(m_node);
    bar->addWidget(m_rank);
    bar->addWidget(m_stdout);
    bar->addWidget(m_stderr);
    bar->addWidget(m_events);
    bar->addWidget(m_search, 1);
    bar->addWidget(m_count);
    bar->addWidget(m_follow);
    bar->addWidget(clear);

    connect(clear, &QToolButton::clicked, m_model, &models::LogModel::clear);
    return bar;
}

void ConsolePanel::connectUi() {
    connect(m_model, &models::LogModel::sourcesChanged, this, &ConsolePanel::refreshChoosers);
    connect(m_job, &QComboBox::currentIndexChanged, this,
            [this] { m_proxy->setJob(m_job->currentData().toString()); });
    connect(m_node, &QComboBox::currentIndexChanged, this,
            [this] { m_proxy->setNode(m_node->currentData().toInt()); });
    connect(m_rank, &QComboBox::currentIndexChanged, this,
            [this] { m_proxy->setRank(m_rank->currentData().toInt()); });
    for (const auto& [button, stream] :
         {std::pair{m_stdout, "stdout"}, std::pair{m_stderr, "stderr"},
          std::pair{m_events, "events"}})
        connect(
            button, &QToolButton::toggled, this,
            [this, s = QString::fromLatin1(stream)](bool on) { m_proxy->setStreamShown(s, on); });
    // Filtering 200k lines on every key would stutter: wait for a pause in typing.
    auto* debounce = new QTimer(this);
    debounce->setSingleShot(true);
    debounce->setInterval(120);
    connect(m_search, &QLineEdit::textChanged, debounce, qOverload<>(&QTimer::start));
    connect(debounce, &QTimer::timeout, this, [this] { m_proxy->setText(m_search->text()); });
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, [this] {
        if (m_follow->isChecked())
            m_view->scrollToBottom();
        updateCount();
    });
    connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, &ConsolePanel::updateCount);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &ConsolePanel::updateCount);
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &ConsolePanel::updateCount);
    // Scrolling up stops following; reaching the bottom again resumes it.
    connect(m_view->verticalScrollBar(), &QScrollBar::valueChanged, this, [this](int v) {
        auto* sb = m_view->verticalScrollBar();
        if (sb->isSliderDown())
            m_follow->setChecked(v >= sb->maximum());
    });
}

void ConsolePanel::refreshChoosers() {
    auto fill = [](QComboBox* box, const QString& all, const QList<QPair<QString, QVariant>>& items,
                   const QVariant& allValue) {
        const QVariant current = box->currentData();
        const QSignalBlocker block(box);
        box->clear();
        box->addItem(all, allValue);
        for (const auto& [text, value] : items)
            box->addItem(text, value);
        const int at = box->findData(current);
        box->setCurrentIndex(at < 0 ? 0 : at);
    };
    QList<QPair<QString, QVariant>> jobs, nodes, ranks;
    for (const QString& j : m_model->jobs())
        jobs.append({j, j});
    for (int n : m_model->nodes())
        nodes.append({tr("node %1").arg(n), n});
    for (int r : m_model->ranks())
        ranks.append({r < 0 ? tr("launcher") : tr("rank %1").arg(r), r});
    fill(m_job, tr("All jobs"), jobs, QString());
    fill(m_node, tr("All nodes"), nodes, -1);
    fill(m_rank, tr("All ranks"), ranks, -2);
    if (!m_fixedJob.isEmpty())
        m_job->setCurrentIndex(std::max(0, m_job->findData(m_fixedJob)));
}

void ConsolePanel::updateCount() {
    const int shown = m_proxy->rowCount();
    const int all = m_model->rowCount();
    m_count->setText(shown == all ? tr("%n lines", nullptr, all)
                                  : tr("%1 of %2 lines").arg(shown).arg(all));
}

void ConsolePanel::setFixedJob(const QString& job) {
    m_fixedJob = job;
    m_job->setVisible(job.isEmpty());
    m_proxy->setJob(job);
    refreshChoosers();
}

void ConsolePanel::showJob(const QString& job) {
    const int at = m_job->findData(job);
    if (at >= 0)
        m_job->setCurrentIndex(at);
    else
        m_proxy->setJob(job);
}

void ConsolePanel::focusSearch() {
    m_search->setFocus();
    m_search->selectAll();
}

} // namespace studio::widgets
