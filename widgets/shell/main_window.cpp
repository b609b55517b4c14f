#include "widgets/shell/main_window.h"

#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/spec/spec_parser.h"
#include "models/common/background_task.h"
#include "models/data/data_service.h"
#include "models/jobs/job_list_model.h"
#include "models/live/engine_bridge.h"
#include "widgets/billing/experiment_billing_view.h"
#include "widgets/charts/compare_view.h"
#include "widgets/clusters/clusters_browser.h"
#include "widgets/common/theme.h"
#include "widgets/console/console_panel.h"
#include "widgets/experiments/experiments_browser.h"
#include "widgets/experiments/leaderboard_widget.h"
#include "widgets/insights/insights_view.h"
#include "widgets/jobs/findings_panel.h"
#include "widgets/jobs/job_view.h"
#include "widgets/launch/launch_dialog.h"
#include "widgets/notebook/notebook_editor.h"
#include "widgets/shell/command_palette.h"
#include "widgets/shell/explorer.h"
#include "widgets/shell/notebook_tabs.h"
#include "widgets/shell/notifications.h"
#include "widgets/shell/running_jobs_bar.h"
#include "widgets/shell/tuning_tabs.h"

#include <QAction>
#include <QActionGroup>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>

namespace studio::widgets {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

} // namespace

MainWindow::MainWindow(control::Controller& controller, QWidget* parent)
    : QMainWindow(parent)
    , m_controller(controller)
    , m_bridge(new models::EngineBridge(controller, this))
    , m_service(new models::DataService(databasePath(), this)) {
    m_service->setBridge(m_bridge);
    setObjectName(QStringLiteral("studioWindow"));
    setWindowTitle(tr("ML Studio"));
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);

    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("centralTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->setTabsClosable(true);
    m_tabs->setMovable(true);
    m_tabs->tabBar()->setExpanding(false);
    setCentralWidget(m_tabs);
    connect(m_tabs, &QTabWidget::tabCloseRequested, this, &MainWindow::closeTab);

    // The theme in them is already applied (by the application, before any window).
    m_settings = models::StudioSettings::load(settingsPath());
    m_notebooks = new NotebookTabs(*this, settingsPath());
    m_tuning = new TuningTabs(*this);
    buildDocks();
    buildMenus();
    connect(m_explorer, &Explorer::pageChanged, this, &MainWindow::syncActivity);

    m_running = new RunningJobsBar(controller, m_service, this);
    m_message = new QLabel(this);
    statusBar()->addWidget(m_message, 1);
    statusBar()->addPermanentWidget(m_running);
    connect(m_running, &RunningJobsBar::jobClicked, this,
            [this](const QString& job) { openJob(job); });
    buildNotifications();
    m_palette = new CommandPalette(this);
    connect(m_palette, &CommandPalette::activated, this, &MainWindow::openPaletteEntry);
    applySettings(m_settings);

    connect(m_bridge, &models::EngineBridge::batchReady, this, &MainWindow::applyBatch);
    // A first start opens the Welcome tab; later starts reopen the tabs that were open, and
    // nothing the user closed.
    if (!restoreSession())
        openWelcome();
}

MainWindow::~MainWindow() = default;

QString MainWindow::databasePath() const {
    return qs(control::databasePath(m_controller.home()));
}

void MainWindow::buildDocks() {
    const QString home = qs(m_controller.home());
    const QString workspace = m_settings.workspaceOr(home);

    auto* clusters = new ClustersBrowser(m_service, m_controller.writer(), home,
                                         qs(control::findProgram("studio-launcher")), this);
    m_explorer = new Explorer(m_service, workspace, clusters, this);
    m_explorerDock = new QDockWidget(tr("Explorer"), this);
    m_explorerDock->setObjectName(QStringLiteral("explorerDock"));
    m_explorerDock->setWidget(m_explorer);
    m_explorerDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetClosable);
    addDockWidget(Qt::LeftDockWidgetArea, m_explorerDock);
    connect(m_explorer, &Explorer::openJobRequested, this,
            [this](const QString& j) { openJob(j); });
    connect(m_explorer, &Explorer::openSpecRequested, this, [this](const QString& path) {
        QFile f(path);
        if (f.open(QIODevice::ReadOnly))
            openLaunchDialog(QString::fromUtf8(f.readAll()));
    });
    connect(m_explorer, &Explorer::openNotebookRequested, this,
            [this](const QString& path) { openNotebook(path); });
    connect(m_explorer, &Explorer::scopeRequested, this,
            [this](const QString& e, const QString& t, qint64 component) {
                ExperimentsBrowser* b = experiments();
                b->leaderboard()->setScope(e, t);
                if (component > 0)
                    b->leaderboard()->selectComponent(component);
                m_tabs->setCurrentWidget(b);
            });
    connect(m_explorer, &Explorer::insightsRequested, this,
            [this](const QString& j) { openInsights(j); });
    connect(m_explorer, &Explorer::experimentBillingRequested, this,
            &MainWindow::openExperimentBilling);
    connect(m_explorer, &Explorer::stopJobRequested, this,
            [this](const QString& j) { m_controller.stop(j.toStdString()); });
    connect(m_explorer, &Explorer::cloneJobRequested, this,
            [this](const QString& j) { cloneJob(j); });
    connect(m_explorer, &Explorer::openTuningJobRequested, this, &MainWindow::openTuningJob);
    connect(m_explorer, &Explorer::stopTuningJobRequested, m_tuning, &TuningTabs::stop);

    m_console = new ConsolePanel(nullptr, this);
    m_consoleDock = new QDockWidget(tr("Console"), this);
    m_consoleDock->setObjectName(QStringLiteral("consoleDock"));
    m_consoleDock->setWidget(m_console);
    addDockWidget(Qt::BottomDockWidgetArea, m_consoleDock);

    m_findings = new FindingsPanel(m_service, this);
    m_findingsDock = new QDockWidget(tr("Findings"), this);
    m_findingsDock->setObjectName(QStringLiteral("findingsDock"));
    m_findingsDock->setWidget(m_findings);
    addDockWidget(Qt::BottomDockWidgetArea, m_findingsDock);
    tabifyDockWidget(m_consoleDock, m_findingsDock);
    m_consoleDock->raise();
    connect(m_findings, &FindingsPanel::openJobRequested, this,
            [this](const QString& j) { openJob(j); });
    connect(m_findings, &FindingsPanel::notified, this,
            [this](const QString& job, const QString& rule, const QString& message) {
                m_message->setText(tr("%1: %2 — %3").arg(rule, message, job));
                revealDock(m_findingsDock);
                m_findingsDock->raise();
            });
    resizeDocks({m_explorerDock}, {280}, Qt::Horizontal);
    resizeDocks({m_consoleDock}, {220}, Qt::Vertical);
}

void MainWindow::showActivity(int index) {
    m_explorer->showPage(static_cast<Explorer::Page>(index));
    syncActivity();
    m_explorerDock->show();
}

void MainWindow::syncActivity() {
    const Explorer::Page page = m_explorer->page();
    m_explorerDock->setWindowTitle(m_explorer->pageTitle(page));
    if (QAction* a = m_activities->actions().value(static_cast<int>(page)))
        a->setChecked(true);
}

int MainWindow::tabIndexOf(const QString& key) const {
    for (int i = 0; i < m_tabs->count(); ++i)
        if (m_tabs->widget(i)->property(kTabKey).toString() == key)
            return i;
    return -1;
}

void MainWindow::addTab(QWidget* w, const QString& key, const QString& title, const QIcon& icon) {
    w->setProperty(kTabKey, key);
    const int at = m_tabs->addTab(w, icon, title);
    m_tabs->setTabToolTip(at, title);
    m_tabs->setCurrentIndex(at);
}

void MainWindow::closeTab(int index) {
    if (index < 0 || index >= m_tabs->count())
        return;
    QWidget* w = m_tabs->widget(index);
    if (!m_notebooks->mayClose(w))
        return;
    m_tabs->removeTab(index);
    w->deleteLater();
}

ExperimentsBrowser* MainWindow::experiments() {
    const int at = tabIndexOf(QStringLiteral("experiments"));
    if (at >= 0)
        return qobject_cast<ExperimentsBrowser*>(m_tabs->widget(at));
    auto* b = new ExperimentsBrowser(m_service, &m_controller.writer(), this);
    b->setTreeShown(false); // the Experiments explorer is the one tree
    connect(b, &ExperimentsBrowser::openJobRequested, this,
            [this](const QString& j) { openJob(j); });
    connect(b, &ExperimentsBrowser::compareRequested, this, &MainWindow::openCompare);
    connect(b, &ExperimentsBrowser::cloneRequested, this, &MainWindow::cloneJob);
    connect(b, &ExperimentsBrowser::insightsRequested, this,
            [this](const QString& j) { openInsights(j); });
    addTab(b, QStringLiteral("experiments"), tr("Experiments"),
           style()->standardIcon(QStyle::SP_FileDialogDetailedView));
    return b;
}

NotebookEditor* MainWindow::openNotebook(const QString& path) {
    return m_notebooks->open(path);
}

NotebookEditor* MainWindow::newNotebook() {
    return m_notebooks->create();
}

void MainWindow::setKernelFactory(
    std::function<models::NotebookKernel*(const QString& workingDir, const QString& kernelName,
                                          QObject* parent)>
        factory) {
    m_notebooks->setKernelFactory(std::move(factory));
}

JobView* MainWindow::openJob(const QString& job) {
    if (job.isEmpty())
        return nullptr;
    const QString key = QStringLiteral("job:") + job;
    if (const int at = tabIndexOf(key); at >= 0) {
        m_tabs->setCurrentIndex(at);
        return qobject_cast<JobView*>(m_tabs->widget(at));
    }
    auto* v = new JobView(m_service, job, this);
    const auto running = m_controller.runningJobs();
    v->setStoppable(std::find(running.begin(), running.end(), job.toStdString()) != running.end());
    connect(v, &JobView::stopRequested, this,
            [this](const QString& j) { m_controller.stop(j.toStdString()); });
    connect(v, &JobView::cloneRequested, this,
            [this](const QString& spec) { openLaunchDialog(spec); });
    connect(v, &JobView::insightsRequested, this, [this](const QString& j) { openInsights(j); });
    connect(v, &JobView::interruptRequested, this, [this](const QString& j) {
        if (!m_controller.interrupt(j.toStdString()))
            m_message->setText(tr("%1 cannot be interrupted: it is not a running spot job").arg(j));
    });
    connect(v, &JobView::dataLoaded, this, [this, v] {
        const int at = m_tabs->indexOf(v);
        if (at >= 0)
            m_tabs->setTabIcon(at, models::statusIcon(v->status()));
    });
    addTab(v, key, job, models::statusIcon(QStringLiteral("InProgress")));
    return v;
}

void MainWindow::cloneJob(const QString& job) {
    JobView* v = openJob(job);
    if (!v)
        return;
    auto open = [this, v] {
        openLaunchDialog(v->specJson());
    };
    if (v->loaded())
        open();
    else
        connect(v, &JobView::dataLoaded, this, open, Qt::SingleShotConnection);
}

void MainWindow::openCompare(const QList<qint64>& ids) {
    if (ids.size() < 2)
        return;
    QStringList parts;
    for (qint64 id : ids)
        parts.append(QString::number(id));
    const QString key = QStringLiteral("compare:") + parts.join(QLatin1Char(','));
    if (const int at = tabIndexOf(key); at >= 0) {
        m_tabs->setCurrentIndex(at);
        return;
    }
    auto* view = new CompareView(m_service, this);
    view->setJobs(ids);
    addTab(view, key, tr("Compare %1 jobs").arg(ids.size()),
           style()->standardIcon(QStyle::SP_FileDialogListView));
}

InsightsView* MainWindow::openInsights(const QString& job) {
    if (job.isEmpty())
        return nullptr;
    const QString key = QStringLiteral("insights:") + job;
    if (const int at = tabIndexOf(key); at >= 0) {
        m_tabs->setCurrentIndex(at);
        return qobject_cast<InsightsView*>(m_tabs->widget(at));
    }
    auto* view = new InsightsView(m_service, job, this);
    addTab(view, key, tr("Insights: %1").arg(job), style()->standardIcon(QStyle::SP_ComputerIcon));
    return view;
}

void MainWindow::setTuner(control::Tuner* tuner) {
    m_tuning->setTuner(tuner);
}

TuningView* MainWindow::openTuningJob(const QString& name) {
    return m_tuning->open(name);
}

void MainWindow::openExperimentBilling(const QString& experiment) {
    const QString key = QStringLiteral("billing:") + experiment;
    if (const int at = tabIndexOf(key); at >= 0) {
        m_tabs->setCurrentIndex(at);
        return;
    }
    auto* view = new ExperimentBillingView(m_service, experiment, this);
    connect(view, &ExperimentBillingView::openJobRequested, this,
            [this](const QString& j) { openJob(j); });
    addTab(view, key, tr("Billing: %1").arg(experiment));
}

void MainWindow::openLaunchDialog(const QString& specJson) {
    auto* dialog = new LaunchDialog(this);
    dialog->setObjectName(QStringLiteral("launchDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    std::vector<ClusterChoice> clusters;
    for (const auto& c : m_explorer->clusters()->model()->clusters())
        if (!c.config.isLocal() && c.definitionError.empty())
            clusters.push_back(clusterChoiceOf(c.config)); // Slurm: lists its partitions
    dialog->setClusters(std::move(clusters));
    QString spec = specJson;
    if (spec.isEmpty()) {
        // A new job goes to the default cluster of the settings.
        QJsonObject o = QJsonDocument::fromJson(LaunchDialog::newJobSpec().toUtf8()).object();
        if (!m_settings.defaultCluster.isEmpty() &&
            m_settings.defaultCluster != QLatin1String("local"))
            o.insert(QStringLiteral("cluster"), m_settings.defaultCluster);
        spec = QString::fromUtf8(QJsonDocument(o).toJson());
    }
    dialog->setSpec(spec, m_explorer->workspace());
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        if (dialog->tuning())
            m_tuning->submit(dialog->spec(), dialog->baseDir());
        else
            submitSpec(dialog->spec(), dialog->baseDir());
    });
    dialog->open();
}

void MainWindow::submitSpec(const QString& specJson, const QString& baseDir) {
    const std::string text = specJson.toStdString();
    const std::string base = (baseDir.isEmpty() ? QDir::currentPath() : baseDir).toStdString();
    m_message->setText(tr("Submitting…"));
    auto* task = new models::BackgroundTask<QString>(this);
    control::Controller* controller = &m_controller;
    task->run(
        [=](const models::CancelFlag&) {
            spec::ParseResult r = spec::parseSpecText(text, base);
            if (!r.ok()) {
                std::string message;
                for (const auto& e : r.errors)
                    message += (message.empty() ? "" : "\n") + e.text();
                throw std::runtime_error(message);
            }
            return qs(controller->submit(*r.spec).name);
        },
        [this, task](QString job) {
            delete task;
            m_message->setText(tr("Started %1").arg(job));
            m_explorer->jobs()->refresh();
            openJob(job);
            revealDock(m_consoleDock);
            m_consoleDock->raise();
            m_console->showJob(job);
            Q_EMIT jobSubmitted(job);
        },
        [this, task](const QString& error) {
            delete task;
            m_message->setText(tr("The job did not start"));
            Q_EMIT submitFailed(error);
            if (!qEnvironmentVariableIsSet("STUDIO_NO_DIALOGS"))
                QMessageBox::warning(this, tr("The job did not start"), error);
        });
}

void MainWindow::stopCurrentJob() {
    if (auto* v = qobject_cast<JobView*>(m_tabs->currentWidget()))
        m_controller.stop(v->job().toStdString());
}

void MainWindow::applyBatch(const models::LiveBatch& batch) {
    m_console->model()->append(batch.logs);
    if (!batch.logs.isEmpty())
        revealDock(m_consoleDock);
    m_notices->applyBatch(batch);
    m_explorer->applyBatch(batch);
    m_findings->applyBatch(batch);
    m_running->applyBatch(batch);
    for (const auto& s : batch.steps)
        m_explorer->jobs()->setTotalSteps(s.job, m_running->totalSteps(s.job));
    for (int i = 0; i < m_tabs->count(); ++i)
        if (auto* v = qobject_cast<JobView*>(m_tabs->widget(i))) {
            v->applyBatch(batch);
            for (const auto& s : batch.statuses)
                if (s.job == v->job()) {
                    v->setStoppable(s.status == QLatin1String("InProgress"));
                    m_tabs->setTabIcon(i, models::statusIcon(s.status));
                }
        }
    if (batch.droppedLogs > 0)
        m_message->setText(tr("%n log lines were too fast to show (they are in the log files)",
                              nullptr, static_cast<int>(batch.droppedLogs)));
}

bool MainWindow::restoreSession() {
    QSettings s(settingsPath(), QSettings::IniFormat);
    const bool kept = s.contains(QStringLiteral("tabs"));
    restoreLayout(s);
    showActivity(s.value(QStringLiteral("activity"), 1).toInt());
    const QStringList tabs = s.value(QStringLiteral("tabs")).toStringList();
    for (const QString& key : tabs) {
        if (key == QLatin1String("experiments"))
            experiments();
        else if (key.startsWith(QLatin1String("job:")))
            openJob(key.mid(4));
        else if (key.startsWith(QLatin1String("insights:")))
            openInsights(key.mid(9));
        else if (key.startsWith(QLatin1String("tuning:")))
            openTuningJob(key.mid(7));
        else if (key.startsWith(QLatin1String("notebook:")) && QFile::exists(key.mid(9)))
            openNotebook(key.mid(9));
        else if (key == QLatin1String("welcome"))
            openWelcome();
        else if (key.startsWith(QLatin1String("billing:")))
            openExperimentBilling(key.mid(8));
        else if (key.startsWith(QLatin1String("compare:"))) {
            QList<qint64> ids;
            for (const QString& p : key.mid(8).split(QLatin1Char(','), Qt::SkipEmptyParts))
                ids.append(p.toLongLong());
            openCompare(ids);
        }
    }
    restoreSplitters(s);
    const int current = s.value(QStringLiteral("currentTab"), 0).toInt();
    if (current >= 0 && current < m_tabs->count())
        m_tabs->setCurrentIndex(current);
    return kept;
}

void MainWindow::saveSession() const {
    QSettings s(settingsPath(), QSettings::IniFormat);
    saveLayout(s);
    s.setValue(QStringLiteral("activity"), static_cast<int>(m_explorer->page()));
    s.setValue(QStringLiteral("workspace"), m_explorer->workspace());
    QStringList tabs;
    for (int i = 0; i < m_tabs->count(); ++i)
        tabs.append(m_tabs->widget(i)->property(kTabKey).toString());
    s.setValue(QStringLiteral("tabs"), tabs);
    s.setValue(QStringLiteral("currentTab"), m_tabs->currentIndex());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!m_notebooks->mayCloseAll()) {
        event->ignore();
        return;
    }
    const auto running = m_controller.runningJobs();
    if (!running.empty()) {
        // Where each job runs, from the Jobs list (status batches keep it current); one it has
        // not loaded yet counts as local, which only changes the default answer.
        int remote = 0;
        for (const auto& j : running) {
            const int r = m_explorer->jobs()->rowOf(qs(j));
            remote += r >= 0 && m_explorer->jobs()->row(r).cluster != "local";
        }
        const int n = static_cast<int>(running.size());
        const CloseChoice choice =
            m_confirmClose ? m_confirmClose(n, remote) : askAboutRunningJobs(this, n, remote);
        if (choice == CloseChoice::Cancel) {
            event->ignore();
            return;
        }
        if (choice == CloseChoice::KeepRunning)
            m_controller.detachAll();
        else
            for (const auto& j : running)
                m_controller.stop(j, "Stopped: the studio was closed");
    }
    saveSession();
    event->accept();
}

} // namespace studio::widgets
