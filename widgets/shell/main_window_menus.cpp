// The studio window's activity bar and menus (File, View, Job, Window, Help) with their
// shortcuts.
#include "widgets/shell/main_window.h"

#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "widgets/common/theme.h"
#include "widgets/console/console_panel.h"
#include "widgets/experiments/experiments_browser.h"
#include "widgets/jobs/findings_panel.h"
#include "widgets/jobs/job_view.h"
#include "widgets/shell/explorer.h"
#include "widgets/shell/notebook_tabs.h"

#include <QAction>
#include <QActionGroup>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QMenuBar>
#include <QStyle>
#include <QTabWidget>
#include <QToolBar>

#include <iterator>

namespace studio::widgets {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

} // namespace

void MainWindow::buildMenus() {
    buildActivityBar();
    QAction* newJob = buildFileMenu();
    buildViewMenu();
    buildJobMenu(newJob);
    buildWindowMenu();
    buildHelpMenu();
    // The Welcome tab's Start row, in this order.
    for (const char* name :
         {"newJobAction", "openSpecAction", "newNotebookAction", "paletteAction", "settingsAction"})
        if (auto* a = findChild<QAction*>(QString::fromLatin1(name)))
            m_startActions.append(a);
}

// Activity bar: which explorer page shows.
void MainWindow::buildActivityBar() {
    auto* activity = new QToolBar(tr("Activity bar"), this);
    activity->setObjectName(QStringLiteral("activityBar"));
    activity->setMovable(false);
    activity->setFloatable(false);
    activity->setToolButtonStyle(Qt::ToolButtonTextUnderIcon);
    activity->setIconSize(QSize(22, 22));
    addToolBar(Qt::LeftToolBarArea, activity);
    m_activities = new QActionGroup(this);
    const struct {
        QString text;
        QStyle::StandardPixmap icon;
        QKeySequence keys;
    } pages[] = {
        {tr("Notebooks"), QStyle::SP_FileDialogContentsView, QKeySequence(tr("Ctrl+Shift+B"))},
        {tr("Experiments"), QStyle::SP_FileDialogDetailedView, QKeySequence(tr("Ctrl+Shift+E"))},
        {tr("Jobs"), QStyle::SP_MediaPlay, QKeySequence(tr("Ctrl+Shift+J"))},
        {tr("Tuning"), QStyle::SP_FileDialogInfoView, QKeySequence(tr("Ctrl+Shift+U"))},
        {tr("Clusters"), QStyle::SP_DriveNetIcon, QKeySequence(tr("Ctrl+Shift+K"))},
    };
    for (int i = 0; i < static_cast<int>(std::size(pages)); ++i) {
        const QIcon icon = pages[i].icon == QStyle::SP_MediaPlay
                               ? textColoredIcon(pages[i].icon, style(), palette())
                               : style()->standardIcon(pages[i].icon);
        QAction* a = activity->addAction(icon, pages[i].text);
        a->setObjectName(QStringLiteral("activity%1").arg(i));
        a->setCheckable(true);
        a->setShortcut(pages[i].keys);
        a->setToolTip(QStringLiteral("%1 (%2)").arg(
            pages[i].text, pages[i].keys.toString(QKeySequence::NativeText)));
        m_activities->addAction(a);
        connect(a, &QAction::triggered, this, [this, i] { showActivity(i); });
    }
}

// New job, open a spec, the notebooks' entries, quit; returns New job for the Job menu.
QAction* MainWindow::buildFileMenu() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* newJob = file->addAction(tr("&New job…"), this, [this] { openLaunchDialog(); });
    newJob->setObjectName(QStringLiteral("newJobAction"));
    newJob->setShortcut(QKeySequence::New);
    QAction* openSpec = file->addAction(tr("&Open spec…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open a job spec"), m_explorer->workspace(), tr("Job specs (*.json)"));
        if (!path.isEmpty())
            openSpecFile(path);
    });
    openSpec->setObjectName(QStringLiteral("openSpecAction"));
    openSpec->setShortcut(QKeySequence::Open);
    file->addSeparator();
    m_notebooks->addMenuEntries(file);
    file->addSeparator();
    QAction* settings = file->addAction(tr("&Settings…"), this, &MainWindow::openSettings);
    settings->setObjectName(QStringLiteral("settingsAction"));
    settings->setShortcut(QKeySequence(tr("Ctrl+,")));
    file->addSeparator();
    file->addAction(tr("&Quit"), this, &QWidget::close)->setShortcut(QKeySequence::Quit);
    return newJob;
}

void MainWindow::buildViewMenu() {
    QMenu* view = menuBar()->addMenu(tr("&View"));
    QAction* palette =
        view->addAction(tr("&Command palette…"), this, [this] { openPalette(true); });
    palette->setObjectName(QStringLiteral("paletteAction"));
    palette->setShortcut(QKeySequence(tr("Ctrl+Shift+P")));
    QAction* quickOpen =
        view->addAction(tr("&Go to job or notebook…"), this, [this] { openPalette(false); });
    quickOpen->setObjectName(QStringLiteral("quickOpenAction"));
    quickOpen->setShortcut(QKeySequence(tr("Ctrl+P")));
    view->addSeparator();
    for (QAction* a : m_activities->actions())
        view->addAction(a);
    view->addSeparator();
    QAction* experimentsTab = view->addAction(tr("Experiments &leaderboard"), this,
                                              [this] { m_tabs->setCurrentWidget(experiments()); });
    experimentsTab->setShortcut(QKeySequence(tr("Ctrl+L")));
    QAction* console = m_consoleDock->toggleViewAction();
    console->setShortcut(QKeySequence(tr("Ctrl+`")));
    view->addAction(console);
    QAction* findings = m_findingsDock->toggleViewAction();
    findings->setShortcut(QKeySequence(tr("Ctrl+Shift+F")));
    view->addAction(findings);
    view->addAction(m_explorerDock->toggleViewAction());
    QAction* search = view->addAction(tr("Search the console"), this, [this] {
        m_consoleDock->show();
        m_consoleDock->raise();
        m_console->focusSearch();
    });
    search->setShortcut(QKeySequence(tr("Ctrl+Shift+L")));
    QAction* refresh = view->addAction(tr("&Refresh"), this, [this] {
        m_explorer->refresh();
        m_findings->refresh();
        if (auto* b = qobject_cast<ExperimentsBrowser*>(
                m_tabs->widget(tabIndexOf(QStringLiteral("experiments")))))
            b->refresh();
        if (auto* v = qobject_cast<JobView*>(m_tabs->currentWidget()))
            v->reload();
    });
    refresh->setShortcut(QKeySequence::Refresh);
    view->addSeparator();
    m_themeActions =
        addThemeMenu(view, static_cast<ThemeChoice>(m_settings.theme), [this](ThemeChoice choice) {
            models::StudioSettings s = m_settings;
            s.theme = static_cast<int>(choice);
            s.save(settingsPath());
            applySettings(s);
        });
}

void MainWindow::buildJobMenu(QAction* newJob) {
    QMenu* job = menuBar()->addMenu(tr("&Job"));
    job->addAction(newJob);
    QAction* stop = job->addAction(tr("&Stop job"), this, &MainWindow::stopCurrentJob);
    stop->setShortcut(QKeySequence(tr("Ctrl+.")));
    QAction* clone = job->addAction(tr("&Clone and edit…"), this, [this] {
        if (auto* v = qobject_cast<JobView*>(m_tabs->currentWidget()))
            openLaunchDialog(v->specJson());
    });
    clone->setShortcut(QKeySequence(tr("Ctrl+Shift+C")));
}

void MainWindow::buildWindowMenu() {
    QMenu* window = menuBar()->addMenu(tr("&Window"));
    window->addAction(tr("&Close tab"), this, [this] { closeTab(m_tabs->currentIndex()); })
        ->setShortcut(QKeySequence::Close);
    window
        ->addAction(tr("&Next tab"), this,
                    [this] {
                        if (m_tabs->count())
                            m_tabs->setCurrentIndex((m_tabs->currentIndex() + 1) % m_tabs->count());
                    })
        ->setShortcut(QKeySequence::NextChild);
    window
        ->addAction(tr("&Previous tab"), this,
                    [this] {
                        if (m_tabs->count())
                            m_tabs->setCurrentIndex((m_tabs->currentIndex() + m_tabs->count() - 1) %
                                                    m_tabs->count());
                    })
        ->setShortcut(QKeySequence::PreviousChild);
}

void MainWindow::buildHelpMenu() {
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Welcome"), this, [this] { openWelcome(); })
        ->setObjectName(QStringLiteral("welcomeAction"));
    help->addAction(tr("&Keyboard shortcuts"), this,
                    [this] { showKeyboardShortcuts(this, menuBar()); });
    help->addAction(tr("&About ML Studio"), this,
                    [this] { showAbout(this, qs(m_controller.home())); });
}

} // namespace studio::widgets
