#include "widgets/experiments/experiments_browser.h"

#include "models/data/data_service.h"
#include "models/experiments/experiment_tree_model.h"
#include "widgets/experiments/leaderboard_widget.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStyle>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace studio::widgets {

namespace {

using Kind = models::ExperimentTreeModel::NodeKind;

Kind kindOf(const QModelIndex& index) {
    return static_cast<Kind>(index.data(models::ExperimentTreeModel::KindRole).toInt());
}

} // namespace

ExperimentsBrowser::ExperimentsBrowser(models::DataService* service, store::StoreWriter* writer,
                                       QWidget* parent)
    : QWidget(parent)
    , m_treeModel(new models::ExperimentTreeModel(service, this))
    , m_treeProxy(new QSortFilterProxyModel(this)) {
    setObjectName(QStringLiteral("experimentsBrowser"));
    m_treeModel->setFolderIcon(style()->standardIcon(QStyle::SP_DirIcon));
    auto* root = new QHBoxLayout(this);
    root->setContentsMargins(0, 0, 0, 0);
    m_split = new QSplitter(Qt::Horizontal, this);
    m_split->setObjectName(QStringLiteral("experimentsSplit"));
    m_split->setChildrenCollapsible(false);
    root->addWidget(m_split);

    QWidget* left = buildTreePane();
    m_leaderboard = new LeaderboardWidget(service, writer, m_split);
    m_split->addWidget(left);
    m_split->addWidget(m_leaderboard);
    m_split->setStretchFactor(0, 0);
    m_split->setStretchFactor(1, 1);
    m_split->setSizes({300, 1100});

    connectUi();

    connect(service, &models::DataService::experimentsChanged, this, &ExperimentsBrowser::refresh);
    m_treeModel->refresh();
}

// The left pane: title and reload, search, and the experiment tree.
QWidget* ExperimentsBrowser::buildTreePane() {
    auto* left = new QWidget(m_split);
    left->setObjectName(QStringLiteral("experimentsPane"));
    auto* lv = new QVBoxLayout(left);
    lv->setContentsMargins(8, 8, 4, 8);
    lv->setSpacing(6);
    auto* head = new QHBoxLayout;
    auto* title = new QLabel(QStringLiteral("EXPERIMENTS"), left);
    QFont tf = title->font();
    tf.setBold(true);
    tf.setPointSizeF(tf.pointSizeF() * 0.9);
    tf.setLetterSpacing(QFont::PercentageSpacing, 106);
    title->setFont(tf);
    title->setForegroundRole(QPalette::PlaceholderText);
    head->addWidget(title);
    head->addStretch();
    auto* reload = new QToolButton(left);
    reload->setIcon(style()->standardIcon(QStyle::SP_BrowserReload));
    reload->setAutoRaise(true);
    reload->setToolTip(QStringLiteral("Reload experiments and jobs"));
    head->addWidget(reload);
    lv->addLayout(head);

    m_search = new QLineEdit(left);
    m_search->setObjectName(QStringLiteral("experimentSearch"));
    m_search->setPlaceholderText(QStringLiteral("Search experiments, trials, jobs"));
    m_search->setClearButtonEnabled(true);
    lv->addWidget(m_search);

    m_treeProxy->setSourceModel(m_treeModel);
    m_treeProxy->setFilterRole(models::ExperimentTreeModel::NameRole);
    m_treeProxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_treeProxy->setRecursiveFilteringEnabled(true);
    m_treeProxy->setAutoAcceptChildRows(true);

    m_tree = new QTreeView(left);
    m_tree->setObjectName(QStringLiteral("experimentTree"));
    m_tree->setModel(m_treeProxy);
    m_tree->setHeaderHidden(true);
    m_tree->setColumnHidden(models::ExperimentTreeModel::StatusColumn, true);
    m_tree->setUniformRowHeights(true);
    m_tree->setSelectionMode(QAbstractItemView::SingleSelection);
    m_tree->setExpandsOnDoubleClick(true);
    m_tree->setIconSize(QSize(14, 14));
    m_tree->setAnimated(false);
    m_tree->header()->setStretchLastSection(true);
    lv->addWidget(m_tree, 1);
    connect(reload, &QToolButton::clicked, this, &ExperimentsBrowser::refresh);
    return left;
}

void ExperimentsBrowser::connectUi() {
    connect(m_search, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_treeProxy->setFilterFixedString(text);
        if (!text.isEmpty())
            m_tree->expandAll();
    });
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &ExperimentsBrowser::scopeToCurrent);
    connect(m_tree, &QTreeView::doubleClicked, this, [this](const QModelIndex& index) {
        if (kindOf(index) == Kind::Component)
            Q_EMIT openJobRequested(index.data(models::ExperimentTreeModel::NameRole).toString());
    });
    connect(m_leaderboard, &LeaderboardWidget::scopeChanged, this,
            [this](const QString& experiment, const QString&) {
                if (experiment.isEmpty())
                    m_tree->setCurrentIndex({});
            });
    connect(m_treeModel, &models::ExperimentTreeModel::loaded, this, [this] {
        if (m_expandedOnce)
            return;
        m_expandedOnce = true;
        // Experiments open on first sight unless there are too many trials to scan.
        for (int r = 0; r < m_treeProxy->rowCount(); ++r) {
            const QModelIndex e = m_treeProxy->index(r, 0);
            if (m_treeProxy->rowCount(e) <= 50)
                m_tree->expand(e);
        }
    });
    connect(m_leaderboard, &LeaderboardWidget::openJobRequested, this,
            &ExperimentsBrowser::openJobRequested);
    connect(m_leaderboard, &LeaderboardWidget::compareRequested, this,
            &ExperimentsBrowser::compareRequested);
    connect(m_leaderboard, &LeaderboardWidget::cloneRequested, this,
            &ExperimentsBrowser::cloneRequested);
    connect(m_leaderboard, &LeaderboardWidget::insightsRequested, this,
            &ExperimentsBrowser::insightsRequested);
}

void ExperimentsBrowser::setTreeShown(bool shown) {
    m_split->widget(0)->setVisible(shown);
}

void ExperimentsBrowser::refresh() {
    m_treeModel->refresh();
    m_leaderboard->refresh();
}

void ExperimentsBrowser::scopeToCurrent() {
    const QModelIndex index = m_tree->currentIndex();
    if (!index.isValid()) {
        m_leaderboard->setScope({}, {});
        return;
    }
    const QString experiment = index.data(models::ExperimentTreeModel::ExperimentRole).toString();
    switch (kindOf(index)) {
    case Kind::Experiment:
        m_leaderboard->setScope(experiment, {});
        break;
    case Kind::Trial:
        m_leaderboard->setScope(experiment,
                                index.data(models::ExperimentTreeModel::TrialRole).toString());
        break;
    case Kind::Component:
        m_leaderboard->setScope(experiment,
                                index.data(models::ExperimentTreeModel::TrialRole).toString());
        m_leaderboard->selectComponent(
            index.data(models::ExperimentTreeModel::ComponentIdRole).toLongLong());
        break;
    }
}

} // namespace studio::widgets
