#include "widgets/shell/explorer.h"

#include "models/data/data_service.h"
#include "models/experiments/experiment_tree_model.h"
#include "models/jobs/job_list_model.h"
#include "models/tuning/tuning_job_list_model.h"
#include "widgets/clusters/clusters_browser.h"

#include <QDir>
#include <QFileDialog>
#include <QFileSystemModel>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QStackedWidget>
#include <QStyle>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace studio::widgets {

namespace {

QLabel* header(const QString& text, QWidget* parent) {
    auto* l = new QLabel(text.toUpper(), parent);
    QFont f = l->font();
    f.setPointSizeF(f.pointSizeF() * 0.85);
    f.setBold(true);
    f.setLetterSpacing(QFont::AbsoluteSpacing, 0.8);
    l->setFont(f);
    l->setForegroundRole(QPalette::PlaceholderText);
    l->setContentsMargins(8, 8, 8, 4);
    return l;
}

QTreeView* makeTree(QWidget* parent) {
    auto* v = new QTreeView(parent);
    v->setFrameShape(QFrame::NoFrame);
    v->setUniformRowHeights(true);
    v->setAlternatingRowColors(false);
    v->setEditTriggers(QAbstractItemView::NoEditTriggers);
    v->setHeaderHidden(true);
    return v;
}

} // namespace

Explorer::Explorer(models::DataService* service, QString workspace, ClustersBrowser* clusters,
                   QWidget* parent)
    : QWidget(parent)
    , m_service(service)
    , m_workspace(std::move(workspace))
    , m_clusters(clusters) {
    m_stack = new QStackedWidget(this);
    m_stack->addWidget(buildNotebooks());
    m_stack->addWidget(buildExperiments());
    m_stack->addWidget(buildJobs());
    m_stack->addWidget(buildTuning());
    m_stack->addWidget(buildClusters());
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_stack);
    setMinimumWidth(220);
}

QString Explorer::pageTitle(Page page) const {
    switch (page) {
    case NotebooksPage:
        return tr("Notebooks");
    case ExperimentsPage:
        return tr("Experiments");
    case JobsPage:
        return tr("Jobs");
    case TuningPage:
        return tr("Tuning");
    case ClustersPage:
        return tr("Clusters");
    }
    return {};
}

QWidget* Explorer::buildNotebooks() {
    auto* page = new QWidget(this);
    auto* v = new QVBoxLayout(page);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(0);
    auto* row = new QHBoxLayout;
    row->addWidget(header(tr("Workspace"), page), 1);
    auto* choose = new QToolButton(page);
    choose->setText(tr("…"));
    choose->setToolTip(tr("Choose the workspace folder"));
    choose->setAutoRaise(true);
    row->addWidget(choose);
    v->addLayout(row);

    m_files = new QFileSystemModel(page);
    m_files->setNameFilters({QStringLiteral("*.json"), QStringLiteral("*.py"),
                             QStringLiteral("*.ipynb"), QStringLiteral("*.sh")});
    m_files->setNameFilterDisables(false);
    m_filesView = makeTree(page);
    m_filesView->setObjectName(QStringLiteral("workspaceFiles"));
    m_filesView->setModel(m_files);
    for (int c = 1; c < m_files->columnCount(); ++c)
        m_filesView->hideColumn(c);
    v->addWidget(m_filesView, 1);
    auto* hint = new QLabel(
        tr("Double-click a spec (.json) to open it in the launch dialog, a notebook (.ipynb) "
           "to open it in a tab."),
        page);
    hint->setWordWrap(true);
    hint->setForegroundRole(QPalette::PlaceholderText);
    hint->setContentsMargins(8, 4, 8, 8);
    v->addWidget(hint);
    setWorkspace(m_workspace);

    connect(choose, &QToolButton::clicked, this, [this] {
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("Workspace folder"), m_workspace);
        if (!dir.isEmpty())
            setWorkspace(dir);
    });
    connect(m_filesView, &QTreeView::activated, this, [this](const QModelIndex& index) {
        const QString path = m_files->filePath(index);
        if (path.endsWith(QLatin1String(".json")))
            Q_EMIT openSpecRequested(path);
        else if (path.endsWith(QLatin1String(".ipynb")))
            Q_EMIT openNotebookRequested(path);
    });
    return page;
}

void Explorer::setWorkspace(const QString& folder) {
    m_workspace = folder;
    QDir().mkpath(folder);
    m_filesView->setRootIndex(m_files->setRootPath(folder));
}

QWidget* Explorer::buildExperiments() {
    auto* page = new QWidget(this);
    auto* v = new QVBoxLayout(page);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(0);
    v->addWidget(header(tr("Experiments"), page));
    m_tree = new models::ExperimentTreeModel(m_service, page);
    m_tree->setFolderIcon(style()->standardIcon(QStyle::SP_DirIcon));
    m_tree->refresh();
    connect(m_service, &models::DataService::jobsChanged, m_tree,
            &models::ExperimentTreeModel::refresh);
    auto* view = makeTree(page);
    view->setObjectName(QStringLiteral("experimentTree"));
    view->setModel(m_tree);
    for (int c = 1; c < m_tree->columnCount(); ++c)
        view->hideColumn(c);
    v->addWidget(view, 1);
    auto scope = [this](const QModelIndex& index) {
        using Tree = models::ExperimentTreeModel;
        if (!index.isValid())
            return;
        const auto kind = static_cast<Tree::NodeKind>(index.data(Tree::KindRole).toInt());
        const QString experiment = index.data(Tree::ExperimentRole).toString();
        if (kind == Tree::NodeKind::Experiment)
            Q_EMIT scopeRequested(experiment, {});
        else
            Q_EMIT scopeRequested(experiment, index.data(Tree::TrialRole).toString(),
                                  kind == Tree::NodeKind::Component
                                      ? index.data(Tree::ComponentIdRole).toLongLong()
                                      : 0);
    };
    connect(view, &QTreeView::clicked, this, scope);
    connect(view->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [scope](const QModelIndex& current) { scope(current); });
    view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(view, &QTreeView::customContextMenuRequested, this, [this, view](const QPoint& at) {
        const QModelIndex index = view->indexAt(at);
        if (!index.isValid())
            return;
        const QString experiment =
            index.data(models::ExperimentTreeModel::ExperimentRole).toString();
        QMenu menu(this);
        menu.addAction(tr("Billing and spot savings"), this,
                       [this, experiment] { Q_EMIT experimentBillingRequested(experiment); });
        if (static_cast<models::ExperimentTreeModel::NodeKind>(
                index.data(models::ExperimentTreeModel::KindRole).toInt()) ==
            models::ExperimentTreeModel::NodeKind::Component) {
            const QString job = index.data(models::ExperimentTreeModel::NameRole).toString();
            menu.addAction(tr("Open"), this, [this, job] { Q_EMIT openJobRequested(job); });
            menu.addAction(tr("Open Debugger for insights"), this,
                           [this, job] { Q_EMIT insightsRequested(job); });
        }
        menu.exec(view->viewport()->mapToGlobal(at));
    });
    connect(view, &QTreeView::activated, this, [this](const QModelIndex& index) {
        if (static_cast<models::ExperimentTreeModel::NodeKind>(
                index.data(models::ExperimentTreeModel::KindRole).toInt()) ==
            models::ExperimentTreeModel::NodeKind::Component)
            Q_EMIT openJobRequested(index.data(models::ExperimentTreeModel::NameRole).toString());
    });
    return page;
}

QWidget* Explorer::buildJobs() {
    auto* page = new QWidget(this);
    auto* v = new QVBoxLayout(page);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(0);
    v->addWidget(header(tr("Jobs"), page));
    auto* filter = new QLineEdit(page);
    filter->setObjectName(QStringLiteral("jobsFilter"));
    filter->setPlaceholderText(tr("Filter jobs"));
    filter->setClearButtonEnabled(true);
    auto* fl = new QHBoxLayout;
    fl->setContentsMargins(6, 0, 6, 4);
    fl->addWidget(filter);
    v->addLayout(fl);

    m_jobs = new models::JobListModel(m_service, page);
    m_jobsFilter = new QSortFilterProxyModel(page);
    m_jobsFilter->setSourceModel(m_jobs);
    m_jobsFilter->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_jobsFilter->setFilterKeyColumn(-1);
    m_jobsView = makeTree(page);
    m_jobsView->setObjectName(QStringLiteral("jobsList"));
    m_jobsView->setRootIsDecorated(false);
    m_jobsView->setModel(m_jobsFilter);
    m_jobsView->setHeaderHidden(false);
    m_jobsView->header()->setStretchLastSection(false);
    m_jobsView->header()->setSectionResizeMode(models::JobListModel::NameColumn,
                                               QHeaderView::Stretch);
    m_jobsView->header()->setSectionResizeMode(models::JobListModel::StatusColumn,
                                               QHeaderView::ResizeToContents);
    m_jobsView->hideColumn(models::JobListModel::CreatedColumn);
    m_jobsView->hideColumn(models::JobListModel::DurationColumn);
    m_jobsView->hideColumn(models::JobListModel::ClusterColumn);
    // The Slurm column (job id, partition, nodes or pending reason) once some job ran on Slurm.
    m_jobsView->header()->setSectionResizeMode(models::JobListModel::SlurmColumn,
                                               QHeaderView::ResizeToContents);
    m_jobsView->hideColumn(models::JobListModel::SlurmColumn);
    connect(m_jobs, &models::JobListModel::loaded, this, [this] {
        m_jobsView->setColumnHidden(models::JobListModel::SlurmColumn, !m_jobs->hasSlurmJobs());
    });
    m_jobsView->setContextMenuPolicy(Qt::CustomContextMenu);
    v->addWidget(m_jobsView, 1);

    connect(filter, &QLineEdit::textChanged, m_jobsFilter,
            &QSortFilterProxyModel::setFilterFixedString);
    connect(m_jobsView, &QTreeView::activated, this, [this](const QModelIndex& index) {
        Q_EMIT openJobRequested(index.data(models::JobListModel::JobNameRole).toString());
    });
    connect(m_jobsView, &QTreeView::customContextMenuRequested, this, [this](const QPoint& at) {
        const QModelIndex index = m_jobsView->indexAt(at);
        if (!index.isValid())
            return;
        const QString job = index.data(models::JobListModel::JobNameRole).toString();
        QMenu menu(this);
        menu.addAction(tr("Open"), this, [this, job] { Q_EMIT openJobRequested(job); });
        menu.addAction(tr("Clone and edit…"), this, [this, job] { Q_EMIT cloneJobRequested(job); });
        menu.addAction(tr("Open Debugger for insights"), this,
                       [this, job] { Q_EMIT insightsRequested(job); });
        QAction* stop =
            menu.addAction(tr("Stop"), this, [this, job] { Q_EMIT stopJobRequested(job); });
        stop->setEnabled(index.data(models::JobListModel::StatusRole).toString() ==
                         QLatin1String("InProgress"));
        menu.exec(m_jobsView->viewport()->mapToGlobal(at));
    });
    return page;
}

QWidget* Explorer::buildTuning() {
    auto* page = new QWidget(this);
    auto* v = new QVBoxLayout(page);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(0);
    v->addWidget(header(tr("Tuning jobs"), page));
    m_tuningJobs = new models::TuningJobListModel(m_service, page);
    auto* sorted = new QSortFilterProxyModel(page);
    sorted->setSourceModel(m_tuningJobs);
    m_tuningView = makeTree(page);
    m_tuningView->setObjectName(QStringLiteral("tuningList"));
    m_tuningView->setRootIsDecorated(false);
    m_tuningView->setModel(sorted);
    m_tuningView->setHeaderHidden(false);
    m_tuningView->header()->setStretchLastSection(false);
    m_tuningView->header()->setSectionResizeMode(models::TuningJobListModel::NameColumn,
                                                 QHeaderView::Stretch);
    for (int c = 1; c < models::TuningJobListModel::ColumnCount; ++c)
        m_tuningView->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_tuningView->hideColumn(
        models::TuningJobListModel::StrategyColumn); // in the tooltip and the tab
    m_tuningView->setContextMenuPolicy(Qt::CustomContextMenu);
    v->addWidget(m_tuningView, 1);
    auto* hint = new QLabel(tr("Start one from New job… with Tune hyperparameters, or from the "
                               "CLI (mlstudio tune)."),
                            page);
    hint->setWordWrap(true);
    hint->setForegroundRole(QPalette::PlaceholderText);
    hint->setContentsMargins(8, 4, 8, 8);
    v->addWidget(hint);
    connect(m_tuningView, &QTreeView::activated, this, [this](const QModelIndex& index) {
        Q_EMIT openTuningJobRequested(index.data(models::TuningJobListModel::NameRole).toString());
    });
    connect(m_tuningView, &QTreeView::customContextMenuRequested, this, [this](const QPoint& at) {
        const QModelIndex index = m_tuningView->indexAt(at);
        if (!index.isValid())
            return;
        const QString name = index.data(models::TuningJobListModel::NameRole).toString();
        QMenu menu(this);
        menu.addAction(tr("Open"), this, [this, name] { Q_EMIT openTuningJobRequested(name); });
        menu.addAction(tr("Stop"), this, [this, name] { Q_EMIT stopTuningJobRequested(name); })
            ->setEnabled(index.data(models::TuningJobListModel::StatusRole).toString() ==
                         QLatin1String("InProgress"));
        menu.exec(m_tuningView->viewport()->mapToGlobal(at));
    });
    return page;
}

QWidget* Explorer::buildClusters() {
    auto* page = new QWidget(this);
    auto* v = new QVBoxLayout(page);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(0);
    v->addWidget(header(tr("Clusters"), page));
    m_clusters->setParent(page);
    v->addWidget(m_clusters, 1);
    return page;
}

void Explorer::showPage(Page page) {
    if (m_stack->currentIndex() == static_cast<int>(page))
        return;
    m_stack->setCurrentIndex(static_cast<int>(page));
    Q_EMIT pageChanged(page);
}

Explorer::Page Explorer::page() const {
    return static_cast<Page>(m_stack->currentIndex());
}

void Explorer::applyBatch(const models::LiveBatch& batch) {
    m_jobs->applyBatch(batch);
}

void Explorer::refresh() {
    m_jobs->refresh();
    m_tuningJobs->refresh();
    m_tree->refresh();
    m_clusters->refresh();
}

} // namespace studio::widgets
