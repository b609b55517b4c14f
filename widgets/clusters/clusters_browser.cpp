#include "widgets/clusters/clusters_browser.h"

#include "engine/remote/host_executor.h"
#include "engine/store/store_writer.h"
#include "models/data/data_service.h"
#include "widgets/clusters/cluster_dialog.h"
#include "widgets/common/theme.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPointer>
#include <QStyledItemDelegate>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace studio::widgets {

namespace {

using HostState = models::ClusterTreeModel::HostState;

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

// The status a host state is painted as.
QString statusOf(const QModelIndex& index) {
    switch (static_cast<HostState>(index.data(models::ClusterTreeModel::StateRole).toInt())) {
    case HostState::Ready:
        return QStringLiteral("Completed");
    case HostState::NotReady:
        return QStringLiteral("Failed");
    case HostState::Checking:
        return QStringLiteral("InProgress");
    case HostState::NeverChecked:
        break;
    }
    return QStringLiteral("NotApplicable");
}

// Status icons on names and status colours on states: the model knows states, not looks.
class ClusterStateDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override {
        QStyledItemDelegate::initStyleOption(option, index);
        const QString status = statusOf(index);
        if (index.column() == models::ClusterTreeModel::NameColumn) {
            option->icon = models::statusIcon(status);
            option->features |= QStyleOptionViewItem::HasDecoration;
        } else if (index.column() == models::ClusterTreeModel::StateColumn &&
                   status != QLatin1String("NotApplicable")) {
            option->palette.setColor(QPalette::Text, models::statusColor(status));
        }
    }
};

} // namespace

ClustersBrowser::ClustersBrowser(models::DataService* service, store::StoreWriter& writer,
                                 QString home, QString localLauncher, QWidget* parent)
    : QWidget(parent)
    , m_service(service)
    , m_writer(writer)
    , m_home(std::move(home))
    , m_localLauncher(std::move(localLauncher))
    , m_model(new models::ClusterTreeModel(this)) {
    setObjectName(QStringLiteral("clustersBrowser"));
    m_view = new QTreeView(this);
    m_view->setObjectName(QStringLiteral("clusterTree"));
    m_view->setFrameShape(QFrame::NoFrame);
    m_view->setUniformRowHeights(true);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setModel(m_model);
    m_view->setItemDelegate(new ClusterStateDelegate(m_view));
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    // The explorer is narrow: names and states show, the rest is in the details below.
    for (int c = models::ClusterTreeModel::VersionColumn; c < models::ClusterTreeModel::ColumnCount;
         ++c)
        m_view->hideColumn(c);
    m_view->header()->setStretchLastSection(true);
    m_view->header()->setSectionResizeMode(models::ClusterTreeModel::NameColumn,
                                           QHeaderView::ResizeToContents);

    m_details = new QLabel(this);
    m_details->setObjectName(QStringLiteral("clusterDetails"));
    m_details->setWordWrap(true);
    m_details->setTextFormat(Qt::PlainText);
    m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_details->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_details->setContentsMargins(8, 6, 8, 6);
    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("clustersMessage"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setContentsMargins(8, 4, 8, 8);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(buildButtons());
    layout->addWidget(m_view, 1);
    layout->addWidget(m_details);
    layout->addWidget(m_message);

    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, [this] {
        updateActions();
        showDetails();
    });
    connect(m_model, &QAbstractItemModel::dataChanged, this, &ClustersBrowser::showDetails);
    connect(m_view, &QTreeView::activated, this, [this](const QModelIndex& index) {
        if (index.data(models::ClusterTreeModel::KindRole).toInt() ==
            static_cast<int>(models::ClusterTreeModel::NodeKind::Cluster))
            editCluster(index.data(models::ClusterTreeModel::ClusterNameRole).toString());
    });
    connect(m_view, &QTreeView::customContextMenuRequested, this, [this](const QPoint& at) {
        if (!m_view->indexAt(at).isValid())
            return;
        QMenu menu(this);
        for (QToolButton* b : {m_check, m_edit, m_remove})
            menu.addAction(b->defaultAction());
        menu.exec(m_view->viewport()->mapToGlobal(at));
    });
    updateActions();
    refresh();
}

ClustersBrowser::~ClustersBrowser() = default;

QWidget* ClustersBrowser::buildButtons() {
    auto* bar = new QWidget(this);
    auto* h = new QHBoxLayout(bar);
    h->setContentsMargins(6, 0, 6, 4);
    h->setSpacing(2);
    const auto button = [this, bar, h](const QString& name, const QString& text, const QString& tip,
                                       auto slot) {
        auto* action = new QAction(text, bar);
        action->setToolTip(tip);
        connect(action, &QAction::triggered, this, slot);
        auto* b = new QToolButton(bar);
        b->setObjectName(name);
        b->setDefaultAction(action);
        b->setAutoRaise(true);
        h->addWidget(b);
        return b;
    };
    m_add = button(QStringLiteral("clusterAdd"), tr("Add…"), tr("Define a cluster of SSH hosts"),
                   [this] { addCluster(); });
    m_edit = button(QStringLiteral("clusterEdit"), tr("Edit…"), tr("Change the cluster"),
                    [this] { editCluster(currentCluster()); });
    m_remove = button(QStringLiteral("clusterRemove"), tr("Remove"), tr("Forget the cluster"),
                      [this] { removeCluster(currentCluster()); });
    m_check = button(QStringLiteral("clusterCheck"), tr("Check"),
                     tr("Connect to every host: reachable, launcher version, resources"),
                     [this] { checkCluster(currentCluster()); });
    h->addStretch(1);
    return bar;
}

QString ClustersBrowser::message() const {
    return m_message->text();
}

void ClustersBrowser::setMessage(const QString& text, bool problem) {
    m_message->setText(text);
    QPalette p = palette();
    if (problem)
        p.setColor(QPalette::WindowText, models::statusColor(QStringLiteral("Failed")));
    m_message->setPalette(p);
}

QModelIndex ClustersBrowser::currentIndex() const {
    return m_view->selectionModel()->currentIndex();
}

QString ClustersBrowser::currentCluster() const {
    return currentIndex().data(models::ClusterTreeModel::ClusterNameRole).toString();
}

void ClustersBrowser::selectCluster(const QString& name, int host) {
    const QModelIndex index = m_model->indexOf(name, host);
    if (index.isValid())
        m_view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                             QItemSelectionModel::Rows);
}

void ClustersBrowser::updateActions() {
    const QString name = currentCluster();
    const bool builtIn = name == QLatin1String(remote::kLocalCluster);
    m_edit->setEnabled(!name.isEmpty() && !builtIn);
    m_remove->setEnabled(!name.isEmpty() && !builtIn && !m_runningJobs.busy() && !m_removal.busy());
    m_check->setEnabled(!name.isEmpty() && m_checking.isEmpty());
}

void ClustersBrowser::showDetails() {
    const QModelIndex index = currentIndex();
    m_details->setText(index.isValid()
                           ? index.siblingAtColumn(0).data(Qt::ToolTipRole).toString()
                           : tr("Select a cluster or a host to see its settings and what its "
                                "last check found."));
}

void ClustersBrowser::refresh() {
    m_service->clusters(
        m_load, [this](std::vector<models::ClusterEntry> entries) { present(std::move(entries)); },
        [this](const QString& error) { setMessage(error, true); });
}

void ClustersBrowser::present(std::vector<models::ClusterEntry> entries) {
    const QString selected = m_selectAfterLoad.isEmpty() ? currentCluster() : m_selectAfterLoad;
    const int host = m_selectAfterLoad.isEmpty()
                         ? currentIndex().data(models::ClusterTreeModel::HostIndexRole).toInt()
                         : -1;
    m_selectAfterLoad.clear();
    // A check run here may be newer than what the store had written when it was read; the
    // local cluster's checks are never stored.
    for (auto& e : entries)
        if (auto it = m_checks.find(qs(e.config.name));
            it != m_checks.end() && it->second.time > e.lastCheck.time)
            e.lastCheck = it->second;
    m_model->setClusters(std::move(entries));
    if (!m_checking.isEmpty()) {
        m_model->setChecking(m_checking);
        for (const auto& h : m_answered)
            m_model->setHostCheck(m_checking, h);
    }
    m_view->expandAll();
    selectCluster(selected.isEmpty() ? QString::fromLatin1(remote::kLocalCluster) : selected,
                  selected.isEmpty() ? -1 : host);
    updateActions();
    showDetails();
    Q_EMIT loaded();
}

void ClustersBrowser::addCluster() {
    openDialog(std::nullopt);
}

void ClustersBrowser::editCluster(const QString& name) {
    const auto entry = m_model->cluster(name);
    if (!entry || entry->config.isLocal())
        return;
    openDialog(entry->config);
}

void ClustersBrowser::openDialog(const std::optional<remote::ClusterConfig>& existing) {
    std::vector<std::string> taken;
    for (const auto& e : m_model->clusters())
        taken.push_back(e.config.name);
    auto* dialog = new ClusterDialog(
        existing ? ClusterDialog::Mode::Edit : ClusterDialog::Mode::Add, std::move(taken), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (existing)
        dialog->setCluster(*existing);
    connect(dialog, &QDialog::accepted, this,
            [this, dialog] { save(dialog->cluster(), dialog->acceptNewHostKeys()); });
    dialog->open();
}

void ClustersBrowser::save(const remote::ClusterConfig& c, bool acceptNewHostKeys) {
    store::StoreWriter* writer = &m_writer;
    setMessage(tr("Saving cluster %1…").arg(qs(c.name)));
    m_save.run(
        [writer, c](const models::CancelFlag&) {
            const double now = static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
            writer->saveCluster(
                store::ClusterRow{c.name, c.kind, remote::clusterToJson(c), now, now, ""});
            return c;
        },
        [this, acceptNewHostKeys](remote::ClusterConfig saved) {
            setMessage(tr("Saved cluster %1").arg(qs(saved.name)));
            m_selectAfterLoad = qs(saved.name);
            refresh();
            // As `mlstudio cluster add` does: the hosts are checked once the cluster is saved.
            startCheck(std::move(saved), acceptNewHostKeys);
        },
        [this](const QString& error) { setMessage(error, true); });
}

void ClustersBrowser::removeCluster(const QString& name) {
    if (name.isEmpty() || name == QLatin1String(remote::kLocalCluster))
        return;
    const auto answer = QMessageBox::question(
        this, tr("Remove cluster"),
        tr("Remove cluster %1? Jobs that ran on it keep their records.").arg(name),
        QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel);
    if (answer != QMessageBox::Yes)
        return;
    // The jobs that run on it first (through the service), then the removal (the writer's).
    store::StoreWriter* writer = &m_writer;
    auto remove = [this, name, writer](QStringList busyJobs) {
        if (!busyJobs.isEmpty()) {
            removeDone(name, {busyJobs, false});
            return;
        }
        m_removal.run(
            [cluster = name.toStdString(), writer](const models::CancelFlag&) {
                return RemoveOutcome{{}, writer->removeCluster(cluster)};
            },
            [this, name](RemoveOutcome outcome) { removeDone(name, outcome); },
            [this](const QString& error) { setMessage(error, true); });
    };
    m_service->jobsRunningOn(m_runningJobs, name, remove,
                             [this](const QString& error) { setMessage(error, true); });
    updateActions();
}

void ClustersBrowser::removeDone(const QString& cluster, const RemoveOutcome& outcome) {
    updateActions();
    if (!outcome.busyJobs.isEmpty()) {
        const int n = static_cast<int>(outcome.busyJobs.size());
        setMessage(n == 1 ? tr("Cluster %1 runs job %2: stop it before removing the cluster.")
                                .arg(cluster, outcome.busyJobs.front())
                          : tr("Cluster %1 runs %2 jobs (%3, …): stop them before removing the "
                               "cluster.")
                                .arg(cluster)
                                .arg(n)
                                .arg(outcome.busyJobs.front()),
                   true);
        return;
    }
    setMessage(outcome.removed ? tr("Removed cluster %1").arg(cluster)
                               : tr("There is no cluster %1").arg(cluster),
               !outcome.removed);
    m_checks.erase(cluster);
    refresh();
    Q_EMIT removed(cluster);
}

void ClustersBrowser::checkCluster(const QString& name) {
    const auto entry = m_model->cluster(name);
    if (!entry)
        return;
    if (!entry->definitionError.empty()) {
        setMessage(qs(entry->definitionError), true);
        return;
    }
    startCheck(entry->config, false);
}

void ClustersBrowser::startCheck(remote::ClusterConfig c, bool acceptNewHostKeys) {
    if (!m_checking.isEmpty()) {
        m_queuedCheck = std::make_pair(std::move(c), acceptNewHostKeys);
        return;
    }
    const QString name = qs(c.name);
    // This machine's check reports the free disk where its jobs are written.
    if (c.isLocal())
        c.workdir = m_home.toStdString();
    m_checking = name;
    m_answered.clear();
    m_model->setChecking(name);
    const int hosts = c.isLocal() ? 1 : static_cast<int>(c.hosts.size());
    setMessage(hosts == 1 ? tr("Checking %1…").arg(name)
                          : tr("Checking the %1 hosts of %2…").arg(hosts).arg(name));
    updateActions();
    remote::CheckOptions o;
    o.localLauncher = m_localLauncher.toStdString();
    o.acceptNewHostKeys = acceptNewHostKeys;
    const std::string home = m_home.toStdString();
    QPointer<ClustersBrowser> self(this);
    m_checkTask.run(
        [c, o, home, self, name](const models::CancelFlag& cancel) {
            remote::CheckOptions options = o;
            options.controlDir = remote::controlDirectory(home);
            // Runs on the check's worker threads: hand each result to the GUI thread, where
            // the page (if it still exists) shows it.
            options.progress = [self, name, cancel](std::size_t, const remote::HostCheck& h) {
                QCoreApplication* app = QCoreApplication::instance();
                if (cancel.cancelled() || !app)
                    return;
                QMetaObject::invokeMethod(
                    app,
                    [self, name, h] {
                        if (self)
                            self->hostChecked(name, h);
                    },
                    Qt::QueuedConnection);
            };
            return remote::checkCluster(c, options);
        },
        [this, name](remote::ClusterCheck check) { checkDone(name, check); },
        [this, name](const QString& error) {
            m_checking.clear();
            setMessage(tr("Checking %1 failed: %2").arg(name, error), true);
            refresh();
            startQueuedCheck();
        });
}

void ClustersBrowser::hostChecked(const QString& cluster, const remote::HostCheck& host) {
    if (cluster != m_checking)
        return;
    m_answered.push_back(host);
    m_model->setHostCheck(cluster, host);
}

void ClustersBrowser::checkDone(const QString& cluster, const remote::ClusterCheck& check) {
    m_checking.clear();
    m_answered.clear();
    m_checks[cluster] = check;
    // The local cluster has no row in the store (it is built in): its checks stay here.
    if (cluster != QLatin1String(remote::kLocalCluster))
        m_writer.setClusterCheck(cluster.toStdString(), remote::clusterCheckToJson(check));
    m_model->setCheck(cluster, check);
    int failed = 0;
    for (const auto& h : check.hosts)
        failed += !h.ok();
    const int n = static_cast<int>(check.hosts.size());
    if (failed == 0)
        setMessage(n == 1 ? tr("%1 is ready").arg(cluster)
                          : tr("%1: all %2 hosts are ready").arg(cluster).arg(n));
    else
        setMessage(n == 1 ? tr("%1 is not ready").arg(cluster)
                          : tr("%1: %2 of %3 hosts are not ready").arg(cluster).arg(failed).arg(n),
                   true);
    updateActions();
    Q_EMIT checkFinished(cluster, check.ok());
    startQueuedCheck();
}

void ClustersBrowser::startQueuedCheck() {
    if (!m_queuedCheck)
        return;
    auto [config, acceptNew] = std::move(*m_queuedCheck);
    m_queuedCheck.reset();
    startCheck(std::move(config), acceptNew);
}

} // namespace studio::widgets
