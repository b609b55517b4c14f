// The studio window's ways in: the Welcome tab and its examples, the command palette and quick
// open, notifications, the Settings dialog, and the layout kept per screen size with the bottom
// panels collapsed until they have something to show.
#include "widgets/shell/main_window.h"

#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/spot/instance_catalog.h"
#include "models/clusters/cluster_tree_model.h"
#include "models/data/data_service.h"
#include "models/experiments/experiment_tree_model.h"
#include "models/jobs/job_list_model.h"
#include "models/shell/window_layout.h"
#include "models/tuning/tuning_job_list_model.h"
#include "widgets/clusters/clusters_browser.h"
#include "widgets/common/theme.h"
#include "widgets/console/console_panel.h"
#include "widgets/experiments/experiments_browser.h"
#include "widgets/experiments/leaderboard_widget.h"
#include "widgets/jobs/metrics_grid.h"
#include "widgets/notebook/notebook_editor.h"
#include "widgets/notebook/notebook_files.h"
#include "widgets/shell/command_palette.h"
#include "widgets/shell/explorer.h"
#include "widgets/shell/notebook_tabs.h"
#include "widgets/shell/notifications.h"
#include "widgets/shell/settings_dialog.h"
#include "widgets/shell/tuning_tabs.h"
#include "widgets/shell/welcome_page.h"

#include <QActionGroup>
#include <QApplication>
#include <QDir>
#include <QDirIterator>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>

namespace studio::widgets {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

QString resourcesRoot() {
    try {
        return qs(spot::findResourceRoot("welcome.json").path);
    } catch (const std::exception&) {
        return {};
    }
}

// The workspace's notebooks and specs (at most kMaxFiles of each), in one walk that looks at no
// more than kMaxVisited files (a workspace may hold a dataset), skipping hidden folders.
struct WorkspaceFiles {
    QStringList notebooks;
    QStringList specs;
};
constexpr int kMaxFiles = 2000;
constexpr int kMaxVisited = 20000;

WorkspaceFiles workspaceFiles(const QString& folder) {
    WorkspaceFiles out;
    QDirIterator it(folder, QDir::Files, QDirIterator::Subdirectories);
    for (int visited = 0; it.hasNext() && visited < kMaxVisited; ++visited) {
        const QString path = it.next();
        if (path.endsWith(QLatin1String(".ipynb")) && out.notebooks.size() < kMaxFiles)
            out.notebooks << path;
        else if (path.endsWith(QLatin1String(".json")) && out.specs.size() < kMaxFiles)
            out.specs << path;
    }
    return out;
}

models::PaletteEntry entry(models::PaletteKind kind, const QString& name, const QString& detail,
                           const QString& target, int order) {
    return {kind, name, detail, {}, target, order};
}

// One entry per path not seen yet (recent files first, then the workspace's).
std::vector<models::PaletteEntry> fileEntries(models::PaletteKind kind, const QStringList& paths,
                                              QStringList& seen) {
    std::vector<models::PaletteEntry> out;
    for (const QString& p : paths)
        if (!seen.contains(p)) {
            seen << p;
            out.push_back(entry(kind, QFileInfo(p).fileName(), QFileInfo(p).absolutePath(), p,
                                static_cast<int>(out.size())));
        }
    return out;
}

// Experiments (with their job counts) and trials ("experiment\ntrial" as the target).
void experimentEntries(const models::ExperimentTreeModel& tree,
                       std::vector<models::PaletteEntry>& experiments,
                       std::vector<models::PaletteEntry>& trials) {
    using Tree = models::ExperimentTreeModel;
    for (int e = 0; e < tree.rowCount(); ++e) {
        const QModelIndex ei = tree.index(e, 0);
        const QString exp = ei.data(Tree::NameRole).toString();
        experiments.push_back(
            entry(models::PaletteKind::Experiment, exp,
                  QObject::tr("%n jobs", nullptr, ei.data(Tree::JobCountRole).toInt()), exp, e));
        for (int t = 0; t < tree.rowCount(ei); ++t) {
            const QString trial = tree.index(t, 0, ei).data(Tree::NameRole).toString();
            trials.push_back(entry(models::PaletteKind::Trial, trial, exp,
                                   exp + QLatin1Char('\n') + trial,
                                   static_cast<int>(trials.size())));
        }
    }
}

} // namespace

QString MainWindow::settingsPath() const {
    return qs(control::settingsPath(m_controller.home()));
}

void MainWindow::changeEvent(QEvent* event) {
    QMainWindow::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && m_activities)
        if (QAction* jobs = m_activities->actions().value(Explorer::JobsPage))
            jobs->setIcon(textColoredIcon(QStyle::SP_MediaPlay, style(), palette()));
}

void MainWindow::buildNotifications() {
    m_notices = new NotificationCenter(this);
    m_desktop = new DesktopNotifier(QDBusConnection::sessionBus(), this);
    m_notices->setSink(m_desktop);
    m_notices->setActiveCheck([this] { return isActiveWindow(); });
    m_noticeButton = new NotificationButton(m_notices->list(), this);
    statusBar()->addPermanentWidget(m_noticeButton);
    auto open = [this](const QString& target) {
        if (target.startsWith(QLatin1String("job:")))
            openJob(target.mid(4));
        else if (target.startsWith(QLatin1String("tuning:")))
            openTuningJob(target.mid(7));
        raise();
        activateWindow();
    };
    connect(m_noticeButton, &NotificationButton::openRequested, this, open);
    connect(m_desktop, &DesktopNotifier::openRequested, this, open);
    connect(m_notices, &NotificationCenter::posted, this,
            [this](const models::Notice& n, bool desktop) {
                if (!desktop)
                    m_message->setText(n.body.isEmpty() ? n.title
                                                        : n.title + QStringLiteral(" — ") + n.body);
            });
    connect(m_tuning, &TuningTabs::progressed, m_notices, &NotificationCenter::applyTuning);
}

// What changed from the values applied before (the theme the application applied at start
// counts as applied; a workspace picked in the explorer stays unless the settings change it).
void MainWindow::applySettings(const models::StudioSettings& s) {
    const QString home = qs(m_controller.home());
    const bool newTheme = s.theme != m_settings.theme;
    const bool newWorkspace = s.workspaceOr(home) != m_settings.workspaceOr(home);
    m_settings = s;
    for (int k = 0; k < models::kNoticeKinds; ++k)
        m_notices->setEnabled(static_cast<models::NoticeKind>(k),
                              s.notifies(static_cast<models::NoticeKind>(k)));
    m_service->setRefreshInterval(s.refreshMs);
    MetricsGrid::setDefaultSmoothing(s.smoothing);
    if (newWorkspace && s.workspaceOr(home) != m_explorer->workspace())
        m_explorer->setWorkspace(s.workspaceOr(home));
    if (QAction* a = m_themeActions ? m_themeActions->actions().value(s.theme) : nullptr)
        a->setChecked(true);
    if (auto* app = qobject_cast<QApplication*>(QCoreApplication::instance()); app && newTheme)
        applyTheme(*app, static_cast<ThemeChoice>(s.theme));
}

void MainWindow::openSettings() {
    QStringList clusters;
    for (const auto& c : m_explorer->clusters()->model()->clusters())
        clusters << qs(c.config.name);
    // The workspace can also be picked in the Notebooks explorer.
    models::StudioSettings current = m_settings;
    current.workspace = m_explorer->workspace(); // the dialog keeps the default as "default"
    auto* dialog = new SettingsDialog(current, clusters, qs(m_controller.home()), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const models::StudioSettings s = dialog->settings();
        s.save(settingsPath());
        applySettings(s);
    });
    dialog->open();
}

WelcomePage* MainWindow::openWelcome() {
    const QString key = QStringLiteral("welcome");
    WelcomePage* page = nullptr;
    if (const int at = tabIndexOf(key); at >= 0) {
        m_tabs->setCurrentIndex(at);
        page = qobject_cast<WelcomePage*>(m_tabs->widget(at));
    } else {
        const QString root = resourcesRoot();
        models::ExampleCatalog catalog =
            root.isEmpty() ? models::ExampleCatalog{} : models::ExampleCatalog::load(root);
        if (root.isEmpty())
            catalog.problems << tr("The examples were not found (resources/welcome.json)");
        page = new WelcomePage(std::move(catalog), m_startActions, this);
        connect(page, &WelcomePage::runExampleRequested, this, &MainWindow::runExample);
        connect(page, &WelcomePage::openNotebookRequested, this,
                [this](const QString& p) { openNotebook(p); });
        connect(page, &WelcomePage::openSpecRequested, this, &MainWindow::openSpecFile);
        connect(page, &WelcomePage::openJobRequested, this,
                [this](const QString& j) { openJob(j); });
        QList<QPair<QString, QString>> docs;
        const QDir top(root + QStringLiteral("/.."));
        const struct {
            QString title;
            QString path;
        } files[] = {
            {tr("README: commands, CLI, clusters, GPUs"),
             top.filePath(QStringLiteral("README.md"))},
            {tr("The job spec format"), root + QStringLiteral("/specs/SPEC.md")},
            {tr("Hyperparameter tuning specs"), root + QStringLiteral("/specs/TUNING.md")},
            {tr("Notebooks"), root + QStringLiteral("/notebooks/README.md")},
        };
        for (const auto& f : files)
            if (QFileInfo::exists(f.path))
                docs.append({f.title, QFileInfo(f.path).canonicalFilePath()});
        page->setDocuments(docs);
        addTab(page, key, tr("Welcome"), style()->standardIcon(QStyle::SP_DirHomeIcon));
    }
    QList<WelcomePage::RecentJob> jobs;
    const models::JobListModel* list = m_explorer->jobs();
    for (int r = 0; r < std::min(6, list->rowCount()); ++r)
        jobs.append({qs(list->row(r).name), qs(list->row(r).status)});
    QSettings ini(settingsPath(), QSettings::IniFormat);
    page->setRecent(recentNotebooks(ini).mid(0, 5),
                    ini.value(QStringLiteral("recentSpecs")).toStringList().mid(0, 5), jobs);
    QList<WelcomePage::ClusterGlance> clusters;
    for (const auto& c : m_explorer->clusters()->model()->clusters()) {
        if (c.config.isLocal())
            continue;
        QString detail = c.config.kind == "slurm"
                             ? qs(c.config.slurm.url)
                             : tr("%n hosts", nullptr, static_cast<int>(c.config.hosts.size()));
        if (!c.definitionError.empty())
            detail = qs(c.definitionError);
        clusters.append({qs(c.config.name), qs(c.config.kind), detail});
    }
    page->setClusters(clusters);
    return page;
}

void MainWindow::openSpecFile(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        m_message->setText(tr("%1: %2").arg(path, f.errorString()));
        return;
    }
    QSettings ini(settingsPath(), QSettings::IniFormat);
    QStringList recent = ini.value(QStringLiteral("recentSpecs")).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    ini.setValue(QStringLiteral("recentSpecs"), recent.mid(0, 10));
    openLaunchDialog(QString::fromUtf8(f.readAll()));
}

void MainWindow::runExample(const models::Example& e) {
    if (e.kind == models::Example::Kind::Notebook) {
        // A copy in the workspace: the user's outputs and edits never touch resources/.
        const QString dir = m_explorer->workspace() + QStringLiteral("/examples");
        QDir().mkpath(dir);
        const QString copy = dir + QLatin1Char('/') + QFileInfo(e.path).fileName();
        if (!QFileInfo::exists(copy) && !QFile::copy(e.path, copy)) {
            m_message->setText(tr("Cannot copy %1 to %2").arg(e.path, copy));
            return;
        }
        QFile::setPermissions(copy, QFile::permissions(copy) | QFile::WriteOwner);
        if (NotebookEditor* editor = openNotebook(copy))
            editor->runAll();
        return;
    }
    QFile f(e.path);
    if (!f.open(QIODevice::ReadOnly)) {
        m_message->setText(tr("%1: %2").arg(e.path, f.errorString()));
        return;
    }
    const QString text = QString::fromUtf8(f.readAll());
    const QString base = QFileInfo(e.path).absolutePath();
    if (e.kind == models::Example::Kind::Tuning)
        m_tuning->submit(text, base);
    else
        submitSpec(text, base);
}

// The palette's commands: every enabled action of the menus, with the menu path as detail.
void MainWindow::fillPaletteActions() {
    std::vector<models::PaletteEntry> actions;
    m_paletteActions.clear();
    std::function<void(QMenu*, const QString&)> walk = [&](QMenu* menu, const QString& path) {
        for (QAction* a : menu->actions()) {
            if (a->isSeparator() || !a->isVisible())
                continue;
            const QString text = QString(a->text()).remove(QLatin1Char('&'));
            if (a->menu()) {
                walk(a->menu(), path + QStringLiteral(" › ") + text);
                continue;
            }
            if (!a->isEnabled())
                continue;
            m_paletteActions.append(a);
            actions.push_back({models::PaletteKind::Action, text, path,
                               a->shortcut().toString(QKeySequence::NativeText),
                               QString::number(m_paletteActions.size() - 1),
                               static_cast<int>(actions.size())});
        }
    };
    for (QAction* top : menuBar()->actions())
        if (top->menu())
            walk(top->menu(), QString(top->text()).remove(QLatin1Char('&')));
    m_palette->model()->paletteIndex().setEntries(models::PaletteKind::Action, std::move(actions));
}

void MainWindow::fillPalette() {
    fillPaletteActions();
    models::PaletteIndex& index = m_palette->model()->paletteIndex();
    using Kind = models::PaletteKind;
    std::vector<models::PaletteEntry> jobs;
    const models::JobListModel* list = m_explorer->jobs();
    jobs.reserve(static_cast<std::size_t>(list->rowCount()));
    for (int r = 0; r < list->rowCount(); ++r) {
        const auto& row = list->row(r);
        jobs.push_back(entry(Kind::Job, qs(row.name),
                             qs(row.status) + QStringLiteral(" · ") + qs(row.experiment),
                             qs(row.name), r));
    }
    index.setEntries(Kind::Job, std::move(jobs));

    std::vector<models::PaletteEntry> experiments, trials;
    experimentEntries(*m_explorer->experimentTree(), experiments, trials);
    index.setEntries(Kind::Experiment, std::move(experiments));
    index.setEntries(Kind::Trial, std::move(trials));

    QStringList seen;
    QSettings ini(settingsPath(), QSettings::IniFormat);
    const WorkspaceFiles files = workspaceFiles(m_explorer->workspace());
    index.setEntries(Kind::Notebook,
                     fileEntries(Kind::Notebook, recentNotebooks(ini) + files.notebooks, seen));
    index.setEntries(
        Kind::Spec,
        fileEntries(Kind::Spec,
                    ini.value(QStringLiteral("recentSpecs")).toStringList() + files.specs, seen));
    std::vector<models::PaletteEntry> tuning, clusters;
    const auto* tuningList = m_explorer->tuningJobs();
    for (int r = 0; r < tuningList->rowCount(); ++r) {
        const QModelIndex i = tuningList->index(r, 0);
        const QString name = i.data(models::TuningJobListModel::NameRole).toString();
        tuning.push_back(entry(Kind::TuningJob, name,
                               i.data(models::TuningJobListModel::StatusRole).toString(), name, r));
    }
    index.setEntries(Kind::TuningJob, std::move(tuning));
    for (const auto& c : m_explorer->clusters()->model()->clusters())
        clusters.push_back(entry(Kind::Cluster, qs(c.config.name), qs(c.config.kind),
                                 qs(c.config.name), static_cast<int>(clusters.size())));
    index.setEntries(Kind::Cluster, std::move(clusters));
}

void MainWindow::openPalette(bool commands) {
    fillPalette();
    m_palette->popup(commands ? models::PaletteMode::commands() : models::PaletteMode::open(),
                     commands ? tr("Type a command, job, experiment, notebook or cluster")
                              : tr("Open a job, notebook or spec by name"));
}

void MainWindow::openPaletteEntry(const models::PaletteEntry& e) {
    switch (e.kind) {
    case models::PaletteKind::Action:
        if (QAction* a = m_paletteActions.value(e.target.toInt()))
            a->trigger();
        break;
    case models::PaletteKind::Job:
        openJob(e.target);
        break;
    case models::PaletteKind::Notebook:
        openNotebook(e.target);
        break;
    case models::PaletteKind::Spec:
        openSpecFile(e.target);
        break;
    case models::PaletteKind::Experiment:
    case models::PaletteKind::Trial: {
        const QStringList parts = e.target.split(QLatin1Char('\n'));
        ExperimentsBrowser* b = experiments();
        b->leaderboard()->setScope(parts.value(0), parts.value(1));
        m_tabs->setCurrentWidget(b);
        break;
    }
    case models::PaletteKind::TuningJob:
        openTuningJob(e.target);
        break;
    case models::PaletteKind::Cluster:
        showActivity(Explorer::ClustersPage);
        break;
    case models::PaletteKind::Count:
        break;
    }
}

// The bottom panels stay collapsed until they have something; each opens by itself once.
void MainWindow::revealDock(QDockWidget* dock) {
    bool& once = dock == m_consoleDock ? m_consoleRevealed : m_findingsRevealed;
    if (once)
        return;
    once = true;
    dock->show();
    dock->raise();
}

void MainWindow::restoreLayout(QSettings& s) {
    const QSize screenSize =
        screen() ? screen()->availableGeometry().size() : models::WindowLayout::kDefaultSize;
    const QString group = models::WindowLayout::group(screenSize);
    const QString prefix = s.contains(group + QStringLiteral("geometry")) ? group : QString();
    if (s.contains(prefix + QStringLiteral("geometry"))) {
        restoreGeometry(s.value(prefix + QStringLiteral("geometry")).toByteArray());
        restoreState(s.value(prefix + QStringLiteral("state")).toByteArray());
    } else if (models::WindowLayout::maximizeOnFirstStart(screenSize)) {
        setWindowState(windowState() | Qt::WindowMaximized);
    } else {
        resize(models::WindowLayout::kDefaultSize);
    }
    // Collapsed until they have something to show.
    m_consoleDock->hide();
    m_findingsDock->hide();
}

void MainWindow::restoreSplitters(QSettings& s) {
    const QString group = models::WindowLayout::group(
        screen() ? screen()->availableGeometry().size() : models::WindowLayout::kDefaultSize);
    for (QSplitter* sp : findChildren<QSplitter*>())
        if (!sp->objectName().isEmpty())
            sp->restoreState(
                s.value(group + QStringLiteral("splitters/") + sp->objectName()).toByteArray());
}

void MainWindow::saveLayout(QSettings& s) const {
    const QString group = models::WindowLayout::group(
        screen() ? screen()->availableGeometry().size() : models::WindowLayout::kDefaultSize);
    s.setValue(group + QStringLiteral("geometry"), saveGeometry());
    s.setValue(group + QStringLiteral("state"), saveState());
    for (const QSplitter* sp : findChildren<QSplitter*>())
        if (!sp->objectName().isEmpty())
            s.setValue(group + QStringLiteral("splitters/") + sp->objectName(), sp->saveState());
}

} // namespace studio::widgets
