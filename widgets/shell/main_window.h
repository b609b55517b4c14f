// The studio window: activity bar (Notebooks, Experiments, Jobs, Tuning, Clusters), side
// explorer, central tabs (experiments, jobs, tuning jobs, comparisons, notebooks), bottom panels
// (Console, Findings) and a status bar with the running jobs. Owns the engine bridge and the
// data service its views read through; the controller is the application's. Remembers its layout
// and open tabs. GUI thread only.
#pragma once

#include "models/live/live_batch.h"
#include "models/shell/example_catalog.h"
#include "models/shell/palette_index.h"
#include "models/shell/studio_settings.h"
#include "widgets/common/theme.h"
#include "widgets/shell/window_dialogs.h"

#include <QList>
#include <QMainWindow>
#include <QPointer>

#include <functional>

class QAction;
class QActionGroup;
class QDockWidget;
class QLabel;
class QSettings;
class QTabWidget;

namespace studio::control {
class Controller;
class Tuner;
} // namespace studio::control

namespace studio::models {
class DataService;
class EngineBridge;
class NotebookKernel;
} // namespace studio::models

namespace studio::widgets {

class CommandPalette;
class ConsolePanel;
class DesktopNotifier;
class ExperimentsBrowser;
class Explorer;
class FindingsPanel;
class InsightsView;
class JobView;
class NotebookEditor;
class NotebookTabs;
class NotificationButton;
class NotificationCenter;
class RunningJobsBar;
class TuningTabs;
class TuningView;
class WelcomePage;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // The property that names what a central tab shows ("job:<name>", "notebook:<path>", ...).
    static constexpr const char* kTabKey = "studioTabKey";

    explicit MainWindow(control::Controller& controller, QWidget* parent = nullptr);
    ~MainWindow() override;

    QString databasePath() const;
    models::EngineBridge* bridge() const { return m_bridge; }
    models::DataService* dataService() const { return m_service; }
    QTabWidget* tabs() const { return m_tabs; }
    ConsolePanel* console() const { return m_console; }
    FindingsPanel* findings() const { return m_findings; }
    Explorer* explorer() const { return m_explorer; }
    ExperimentsBrowser* experiments(); // opens the Experiments tab when needed
    JobView* openJob(const QString& job);
    void openCompare(const QList<qint64>& componentIds);
    // An experiment's bill: every job's costs and the spot savings of the whole experiment.
    void openExperimentBilling(const QString& experiment);
    // The job's Debugger Insights dashboard (one tab per job), live while it runs.
    InsightsView* openInsights(const QString& job);
    // The application's tuner (it outlives the window): tuning jobs stop and start through it
    // and their progress shows live. Without one, tuning jobs are shown from the store only.
    void setTuner(control::Tuner* tuner);
    TuningTabs* tuning() const { return m_tuning; }
    // A tuning job's tab: its training jobs, charts and importance, live while it runs.
    TuningView* openTuningJob(const QString& name);
    // Opens the job and then the launch dialog with its spec.
    void cloneJob(const QString& job);
    // "New job" with an empty spec, or "Clone and edit" with a spec's JSON.
    void openLaunchDialog(const QString& specJson = {});
    // Parses and submits a spec off the GUI thread, then opens the job's tab.
    void submitSpec(const QString& specJson, const QString& baseDir = {});
    // A notebook's tab (brought forward when open); newNotebook() starts an untitled one.
    NotebookEditor* openNotebook(const QString& path);
    NotebookEditor* newNotebook();
    // Makes the kernel of each notebook (the application's JavaScript kernel); without one,
    // notebooks open view-only. Notebooks already open get theirs now.
    void setKernelFactory(
        std::function<models::NotebookKernel*(const QString& workingDir, const QString& kernelName,
                                              QObject* parent)>
            factory);
    NotebookTabs* notebooks() const { return m_notebooks; }
    QDockWidget* consoleDock() const { return m_consoleDock; }
    QDockWidget* findingsDock() const { return m_findingsDock; }

    // The Welcome tab (first start, Help → Welcome), refreshed with the recent files, jobs and
    // clusters; one click on an example runs it (a notebook opens as a workspace copy and runs).
    WelcomePage* openWelcome();
    void runExample(const studio::models::Example& example);
    // Opens a spec file in the launch dialog and remembers it among the recent specs.
    void openSpecFile(const QString& path);
    // Ctrl+Shift+P (commands: every menu action, job, experiment, trial, notebook, spec, tuning
    // job and cluster) or Ctrl+P (jobs, notebooks and specs by name).
    void openPalette(bool commands);
    CommandPalette* commandPalette() const { return m_palette; }
    NotificationCenter* notifications() const { return m_notices; }
    NotificationButton* notificationButton() const { return m_noticeButton; }
    // Settings (studio.ini): the dialog, and applying a value (theme, notifications, workspace,
    // smoothing, refresh) without a restart. The window owns the values; the dialog and
    // View → Theme change them through applySettings(), which the caller saves.
    void openSettings();
    void applySettings(const models::StudioSettings& settings);
    const models::StudioSettings& settings() const { return m_settings; }
    QString settingsPath() const;
    // Asked on close while jobs run (remote: how many of them run on a cluster); defaults to a
    // dialog. KeepRunning detaches them (a studio follows them again later), Stop stops them.
    void setCloseConfirmation(std::function<CloseChoice(int running, int remote)> ask) {
        m_confirmClose = std::move(ask);
    }

Q_SIGNALS:
    void jobSubmitted(const QString& job);
    void submitFailed(const QString& message);

protected:
    void closeEvent(QCloseEvent* event) override;
    void changeEvent(QEvent* event) override; // a theme change recolours the activity bar

private:
    friend class NotebookTabs; // add and find their tabs like the window's own
    friend class TuningTabs;

    void buildMenus();
    void buildActivityBar();
    QAction* buildFileMenu();
    void buildViewMenu();
    void buildJobMenu(QAction* newJob);
    void buildWindowMenu();
    void buildHelpMenu();
    void buildDocks();
    void applyBatch(const models::LiveBatch& batch);
    void showActivity(int index);
    void syncActivity();
    bool restoreSession(); // false on a first start (no session kept yet)
    void saveSession() const;
    int tabIndexOf(const QString& key) const;
    void addTab(QWidget* w, const QString& key, const QString& title, const QIcon& icon = {});
    void closeTab(int index);
    void stopCurrentJob();
    void buildNotifications();
    void fillPalette();
    void fillPaletteActions();
    void openPaletteEntry(const models::PaletteEntry& entry);
    void revealDock(QDockWidget* dock);
    void restoreLayout(QSettings& s);
    void restoreSplitters(QSettings& s);
    void saveLayout(QSettings& s) const;

    control::Controller& m_controller;
    models::EngineBridge* m_bridge;
    models::DataService* m_service;
    Explorer* m_explorer;
    QTabWidget* m_tabs;
    QDockWidget* m_explorerDock;
    QDockWidget* m_consoleDock;
    QDockWidget* m_findingsDock;
    ConsolePanel* m_console;
    FindingsPanel* m_findings;
    RunningJobsBar* m_running;
    QLabel* m_message;
    QActionGroup* m_activities = nullptr;
    NotebookTabs* m_notebooks;
    TuningTabs* m_tuning;
    std::function<CloseChoice(int, int)> m_confirmClose;
    CommandPalette* m_palette = nullptr;
    QList<QPointer<QAction>> m_paletteActions; // the palette's Action entries, by index
    QList<QAction*> m_startActions;            // the Welcome tab's Start row
    NotificationCenter* m_notices = nullptr;
    NotificationButton* m_noticeButton = nullptr;
    DesktopNotifier* m_desktop = nullptr;
    models::StudioSettings m_settings;
    QActionGroup* m_themeActions = nullptr; // View → Theme, in ThemeChoice order
    bool m_consoleRevealed = false;
    bool m_findingsRevealed = false;
};

} // namespace studio::widgets
