// The studio's first hour as a new user meets it (offscreen): a first start opens the Welcome
// tab, maximized on a small screen, with the Console and Findings collapsed; one click runs an
// example to Completed and the bottom panel opens with its logs; notifications reach a desktop
// sink only while the window is not active (and a real D-Bus notification server on a private
// bus); the command palette finds commands and jobs; a job is launched and stopped with the
// keyboard alone; Settings apply and keep a sane focus order; the painted views tell a screen
// reader what they show; the layout is kept per screen size and closed tabs stay closed.
// Screenshots: build/screenshots/first-start-{light,dark}.png (first-start-2x-*.png when run
// with QT_SCALE_FACTOR=2).
#include "engine/control/controller.h"
#include "models/jobs/job_list_model.h"
#include "models/shell/palette_model.h"
#include "tests/support/screenshot.h"
#include "tests/support/test_controller.h"
#include "widgets/charts/curve_chart.h"
#include "widgets/charts/parallel_coordinates_plot.h"
#include "widgets/clusters/cluster_dialog.h"
#include "widgets/common/theme.h"
#include "widgets/insights/utilization_heatmap.h"
#include "widgets/jobs/job_view.h"
#include "widgets/jobs/status_timeline.h"
#include "widgets/launch/launch_dialog.h"
#include "widgets/notebook/loss_sparkline.h"
#include "widgets/shell/command_palette.h"
#include "widgets/shell/explorer.h"
#include "widgets/shell/main_window.h"
#include "widgets/shell/notifications.h"
#include "widgets/shell/settings_dialog.h"
#include "widgets/shell/welcome_page.h"
#include "widgets/tuning/importance_chart.h"
#include "widgets/tuning/tuning_plot.h"

#include <QAccessible>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDBusConnection>
#include <QDBusMessage>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLineEdit>
#include <QListView>
#include <QProcess>
#include <QPushButton>
#include <QScopeGuard>
#include <QSettings>
#include <QSignalSpy>
#include <QSplitter>
#include <QSystemTrayIcon>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace studio;
using namespace studio::models;
using namespace studio::widgets;

namespace {

class FakeSink : public NotificationSink {
public:
    std::vector<Notice> got;
    bool deliver(const Notice& n) override {
        got.push_back(n);
        return true;
    }
};

QString scaleTag() {
    return qEnvironmentVariableIsSet("QT_SCALE_FACTOR") ? QStringLiteral("2x-") : QString();
}

QString jobStatus(MainWindow& w, const QString& job) {
    const int r = w.explorer()->jobs()->rowOf(job);
    return r < 0 ? QString()
                 : w.explorer()->jobs()->index(r, 0).data(JobListModel::StatusRole).toString();
}

// Tab from the focused field round the dialog: each stop should not sit above the one before
// (rows are read top to bottom, then the buttons). Returns what breaks that, or the chain
// when it is shorter than `least`.
QStringList readingOrderProblems(QDialog& dialog, int least = 6) {
    QWidget* first = QApplication::focusWidget();
    QList<QWidget*> chain{first};
    for (int i = 0; i < 60 && first; ++i) {
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        if (QApplication::focusWidget() == first)
            break;
        chain << QApplication::focusWidget();
    }
    QStringList problems;
    auto name = [](QWidget* w) {
        return w ? QString::fromLatin1(w->metaObject()->className()) + QLatin1Char('#') +
                       w->objectName()
                 : QStringLiteral("nothing");
    };
    if (chain.size() < least)
        problems << QStringLiteral("only %1 stops on the Tab chain").arg(chain.size());
    for (int i = 1; i < chain.size(); ++i) {
        if (!chain[i] || !dialog.isAncestorOf(chain[i])) {
            problems << QStringLiteral("Tab left the dialog for %1").arg(name(chain[i]));
            break;
        }
        const int y0 = chain[i - 1]->mapTo(&dialog, QPoint(0, 0)).y();
        const int y1 = chain[i]->mapTo(&dialog, QPoint(0, 0)).y();
        if (y1 < y0 - 2)
            problems << QStringLiteral("%1 comes after %2 but sits above it")
                            .arg(name(chain[i]), name(chain[i - 1]));
    }
    return problems;
}

QString accessibleText(QWidget* w, QAccessible::Text t) {
    QAccessibleInterface* i = QAccessible::queryAccessibleInterface(w);
    return i ? i->text(t) : QString();
}

} // namespace

// A stand-in for the desktop's notification daemon: the freedesktop interface's Notify and
// GetCapabilities on a private session bus, recording what it was asked to show.
class FakeNotificationServer : public QObject {
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "org.freedesktop.Notifications")
public:
    QStringList summaries;
    QStringList bodies;
    QVariantMap lastHints;
    QStringList lastActions;
    uint lastId = 0;

public Q_SLOTS:
    uint Notify(const QString& app, uint replaces, const QString& icon, const QString& summary,
                const QString& body, const QStringList& actions, const QVariantMap& hints,
                int timeout) {
        Q_UNUSED(app);
        Q_UNUSED(replaces);
        Q_UNUSED(icon);
        Q_UNUSED(timeout);
        summaries << summary;
        bodies << body;
        lastActions = actions;
        lastHints = hints;
        return ++lastId;
    }
    QStringList GetCapabilities() { return {QStringLiteral("actions"), QStringLiteral("body")}; }
};

class TestFirstHour : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    std::unique_ptr<control::Controller> m_controller;
    QString m_exampleJob;

private Q_SLOTS:
    void initTestCase() {
        qputenv("STUDIO_NO_DIALOGS", "1");
        m_controller = std::make_unique<control::Controller>(testControllerOptions(m_home.path()));
    }

    void firstStartWelcomesWithPanelsCollapsed() {
        MainWindow w(*m_controller);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* welcome = qobject_cast<WelcomePage*>(w.tabs()->currentWidget());
        QVERIFY2(welcome, "a first start shows the Welcome tab");
        QCOMPARE(w.tabs()->count(), 1);
        QVERIFY2(welcome->catalog().problems.isEmpty(),
                 qPrintable(welcome->catalog().problems.join(QLatin1Char('\n'))));
        // One Run button per example, each with an accessible name saying what it runs.
        const auto runs =
            welcome->findChildren<QPushButton*>(QRegularExpression(QStringLiteral("^example:")));
        QCOMPARE(runs.size(), static_cast<qsizetype>(welcome->catalog().examples.size()));
        for (QPushButton* b : runs)
            QVERIFY(accessibleText(b, QAccessible::Name).contains(QLatin1Char(':')));
        // Cluster examples wait for their cluster.
        QVERIFY(!welcome->findChild<QPushButton*>(QStringLiteral("example:pytorch-ddp-slurm.json"))
                     ->isEnabled());
        // The offscreen screen (800×600) is smaller than the default size: maximized.
        QVERIFY(w.windowState() & Qt::WindowMaximized);
        QVERIFY(!w.consoleDock()->isVisible());
        QVERIFY(!w.findingsDock()->isVisible());
        auto* app = qobject_cast<QApplication*>(QCoreApplication::instance());
        applyTheme(*app, ThemeChoice::Light);
        w.resize(1280, 800);
        shoot(&w, QStringLiteral("first-start-%1light.png").arg(scaleTag()));
        applyTheme(*app, ThemeChoice::Dark);
        QVERIFY(darkThemeActive());
        shoot(&w, QStringLiteral("first-start-%1dark.png").arg(scaleTag()));
        applyTheme(*app, ThemeChoice::Light);
    }

    void welcomeRunsAnExampleAndNotifies() {
        if (!scaleTag().isEmpty())
            QSKIP("the 2× run only takes the first start's pictures");
        MainWindow w(*m_controller);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // Not a first start any more: the tabs of last time, the Welcome tab among them.
        auto* welcome = qobject_cast<WelcomePage*>(w.tabs()->currentWidget());
        QVERIFY(welcome);
        FakeSink sink;
        bool active = false;
        w.notifications()->setSink(&sink);
        w.notifications()->setActiveCheck([&active] { return active; });
        QSignalSpy submitted(&w, &MainWindow::jobSubmitted);
        QSignalSpy failed(&w, &MainWindow::submitFailed);
        auto* run =
            welcome->findChild<QPushButton*>(QStringLiteral("example:pytorch-ddp-script.json"));
        QVERIFY(run && run->isEnabled());
        QTest::mouseClick(run, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(submitted.count() + failed.count() > 0, 30000);
        QVERIFY2(failed.isEmpty(),
                 failed.isEmpty() ? "" : qPrintable(failed.at(0).at(0).toString()));
        m_exampleJob = submitted.at(0).at(0).toString();
        QVERIFY(m_exampleJob.startsWith(QLatin1String("pytorch-ddp-script")));
        // The job's logs open the Console once.
        QTRY_VERIFY_WITH_TIMEOUT(w.consoleDock()->isVisible(), 30000);
        QTRY_COMPARE_WITH_TIMEOUT(jobStatus(w, m_exampleJob), QStringLiteral("Completed"), 120000);
        // Its end reached the desktop (the window was not active) and the list.
        QTRY_VERIFY_WITH_TIMEOUT(!sink.got.empty(), 10000);
        QCOMPARE(sink.got.back().title, m_exampleJob + QStringLiteral(" completed"));
        QCOMPARE(sink.got.back().target, QStringLiteral("job:") + m_exampleJob);
        QCOMPARE(w.notifications()->list()->rowCount(), 1);
        QCOMPARE(w.notificationButton()->text(), QStringLiteral("1"));
        // While the window is active, notices go to the list only; a kind turned off, nowhere.
        active = true;
        LiveBatch b;
        b.statuses.append({QStringLiteral("other-job"),
                           0,
                           QStringLiteral("Failed"),
                           {},
                           QStringLiteral("rank 0 exited with code 1"),
                           0});
        w.notifications()->applyBatch(b);
        QCOMPARE(sink.got.size(), std::size_t(1));
        QCOMPARE(w.notifications()->list()->rowCount(), 2);
        StudioSettings s = w.settings();
        s.notify[static_cast<std::size_t>(NoticeKind::JobEnded)] = false;
        w.applySettings(s);
        active = false;
        b.statuses[0].job = QStringLiteral("third-job");
        w.notifications()->applyBatch(b);
        QCOMPARE(w.notifications()->list()->rowCount(), 2);
        QCOMPARE(sink.got.size(), std::size_t(1));
        // The list opens from the status bar; activating a notice opens its job.
        QSignalSpy open(w.notificationButton(), &NotificationButton::openRequested);
        w.notificationButton()->showList();
        QCOMPARE(w.notificationButton()->text(), QString());
        QListView* list = w.notificationButton()->view();
        QTRY_VERIFY(list->isVisible());
        list->setCurrentIndex(list->model()->index(1, 0));
        QTest::keyClick(list, Qt::Key_Return);
        QCOMPARE(open.count(), 1);
        QTRY_VERIFY(qobject_cast<JobView*>(w.tabs()->currentWidget()));
        QCOMPARE(qobject_cast<JobView*>(w.tabs()->currentWidget())->job(), m_exampleJob);
        s.notify[static_cast<std::size_t>(NoticeKind::JobEnded)] = true;
        w.applySettings(s);
    }

    void paletteFindsCommandsAndJobs() {
        if (!scaleTag().isEmpty())
            QSKIP("the 2× run only takes the first start's pictures");
        MainWindow w(*m_controller);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QTRY_VERIFY_WITH_TIMEOUT(w.explorer()->jobs()->rowOf(m_exampleJob) >= 0, 10000);
        QTest::keyClick(&w, Qt::Key_P, Qt::ControlModifier | Qt::ShiftModifier);
        CommandPalette* palette = w.commandPalette();
        QTRY_VERIFY(palette->isVisible());
        QCOMPARE(QApplication::focusWidget(), palette->input());
        PaletteModel* model = palette->model();
        QVERIFY(model->paletteIndex().count(PaletteKind::Action) > 20);
        QTest::keyClicks(palette->input(), QStringLiteral("settings"));
        QVERIFY(model->rowCount() >= 1);
        QCOMPARE(model->index(0, 0).data().toString(), QStringLiteral("Settings…"));
        QCOMPARE(model->index(0, 0).data(PaletteModel::ShortcutRole).toString(),
                 QKeySequence(QStringLiteral("Ctrl+,")).toString(QKeySequence::NativeText));
        shoot(palette, QStringLiteral("command-palette.png"));
        QTest::keyClick(palette->input(), Qt::Key_Return);
        QVERIFY(!palette->isVisible());
        auto* settings = w.findChild<SettingsDialog*>(QStringLiteral("settingsDialog"));
        QTRY_VERIFY(settings && settings->isVisible());
        settings->reject();

        // Jobs by name, fuzzily: "ddpscript" finds the example's job.
        w.openPalette(true);
        QTest::keyClicks(palette->input(), QStringLiteral("ddpscript"));
        int jobRow = -1;
        for (int r = 0; r < model->rowCount(); ++r)
            if (model->index(r, 0).data().toString() == m_exampleJob)
                jobRow = r;
        QVERIFY(jobRow >= 0);
        QCOMPARE(model->index(jobRow, 0).data(PaletteModel::KindRole).toInt(),
                 static_cast<int>(PaletteKind::Job));
        for (int r = 0; r < jobRow; ++r)
            QTest::keyClick(palette->input(), Qt::Key_Down);
        QTest::keyClick(palette->input(), Qt::Key_Return);
        QTRY_VERIFY(qobject_cast<JobView*>(w.tabs()->currentWidget()));
        QCOMPARE(qobject_cast<JobView*>(w.tabs()->currentWidget())->job(), m_exampleJob);

        // Ctrl+P: jobs, notebooks and specs only.
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QTest::keyClick(&w, Qt::Key_P, Qt::ControlModifier);
        QTRY_VERIFY(palette->isVisible());
        QTest::keyClicks(palette->input(), QStringLiteral("settings"));
        for (int r = 0; r < model->rowCount(); ++r)
            QVERIFY(model->index(r, 0).data(PaletteModel::KindRole).toInt() !=
                    static_cast<int>(PaletteKind::Action));
        QTest::keyClick(palette->input(), Qt::Key_Escape);
        QVERIFY(!palette->isVisible());
    }

    void keyboardOnlyLaunchAndStop() {
        if (!scaleTag().isEmpty())
            QSKIP("the 2× run only takes the first start's pictures");
        MainWindow w(*m_controller);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QSignalSpy submitted(&w, &MainWindow::jobSubmitted);
        QTest::keyClick(&w, Qt::Key_N, Qt::ControlModifier); // File → New job
        LaunchDialog* dialog = nullptr;
        QTRY_VERIFY((dialog = w.findChild<LaunchDialog*>(QStringLiteral("launchDialog"))) &&
                    dialog->isVisible());
        QVERIFY(QTest::qWaitForWindowActive(dialog));
        // Typing starts in the job's name; Tab from there goes round the dialog and back.
        auto* name = dialog->findChild<QLineEdit*>(QStringLiteral("jobName"));
        QVERIFY(name);
        QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget*>(name));
        QTest::keyClick(name, Qt::Key_Tab);
        QVERIFY(QApplication::focusWidget() != name);
        QVERIFY(dialog->isAncestorOf(QApplication::focusWidget()));
        int presses = 0;
        QStringList visited;
        while (QApplication::focusWidget() != name && presses < 80) {
            visited << (QApplication::focusWidget()
                            ? QString::fromLatin1(
                                  QApplication::focusWidget()->metaObject()->className()) +
                                  QLatin1Char('#') + QApplication::focusWidget()->objectName()
                            : QStringLiteral("none"));
            QTest::keyClick(QApplication::focusWidget() ? QApplication::focusWidget()
                                                        : static_cast<QWidget*>(dialog),
                            Qt::Key_Tab);
            ++presses;
        }
        QVERIFY2(QApplication::focusWidget() == name,
                 qPrintable(QStringLiteral("the job name is not on the Tab chain (%1 presses): %2")
                                .arg(presses)
                                .arg(visited.mid(0, 20).join(QLatin1Char(' ')))));
        name->selectAll();
        QTest::keyClicks(name, QStringLiteral("keyboard-only"));
        QTRY_VERIFY_WITH_TIMEOUT(!dialog->validationPending(), 10000);
        QTest::keyClick(name, Qt::Key_Return, Qt::ControlModifier); // Run
        QTRY_VERIFY_WITH_TIMEOUT(submitted.count() > 0, 30000);
        const QString job = submitted.at(0).at(0).toString();
        QVERIFY(job.startsWith(QLatin1String("keyboard-only")));
        // Job → Stop job (Ctrl+.) on the job's tab.
        QTRY_VERIFY(qobject_cast<JobView*>(w.tabs()->currentWidget()));
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QTRY_VERIFY_WITH_TIMEOUT(jobStatus(w, job) == QLatin1String("InProgress"), 20000);
        QTest::keyClick(&w, Qt::Key_Period, Qt::ControlModifier);
        QTRY_COMPARE_WITH_TIMEOUT(jobStatus(w, job), QStringLiteral("Stopped"), 60000);
    }

    void desktopNotificationsOverDBus() {
        if (!scaleTag().isEmpty())
            QSKIP("the 2× run only takes the first start's pictures");
        // A private bus of the test's own, with no service folders (nothing is activatable):
        // nothing reaches the user's desktop.
        QTemporaryDir dir;
        QFile config(dir.filePath(QStringLiteral("bus.conf")));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write("<busconfig><type>session</type><listen>unix:path=");
        config.write(dir.filePath(QStringLiteral("bus")).toUtf8());
        config.write("</listen><auth>EXTERNAL</auth><policy context=\"default\">"
                     "<allow send_destination=\"*\" eavesdrop=\"true\"/>"
                     "<allow eavesdrop=\"true\"/><allow own=\"*\"/></policy></busconfig>\n");
        config.close();
        QProcess daemon;
        daemon.start(QStringLiteral("dbus-daemon"),
                     {QStringLiteral("--config-file=") + config.fileName(),
                      QStringLiteral("--nofork"), QStringLiteral("--print-address=1")});
        QVERIFY2(daemon.waitForStarted(5000), "dbus-daemon (Debian's dbus-daemon) did not start");
        auto stop = qScopeGuard([&daemon] {
            daemon.terminate();
            if (!daemon.waitForFinished(5000))
                daemon.kill();
        });
        QTRY_VERIFY_WITH_TIMEOUT(daemon.canReadLine(), 5000);
        const QString address = QString::fromUtf8(daemon.readLine()).trimmed();
        QDBusConnection server = QDBusConnection::connectToBus(address, QStringLiteral("server"));
        QVERIFY(server.isConnected());
        FakeNotificationServer fake;
        QVERIFY(server.registerObject(QStringLiteral("/org/freedesktop/Notifications"), &fake,
                                      QDBusConnection::ExportAllSlots));
        QVERIFY(server.registerService(QStringLiteral("org.freedesktop.Notifications")));
        QDBusConnection client = QDBusConnection::connectToBus(address, QStringLiteral("client"));
        {
            DesktopNotifier notifier(client);
            QSignalSpy open(&notifier, &DesktopNotifier::openRequested);
            Notice n{NoticeKind::JobEnded,
                     QStringLiteral("fmnist-7 failed"),
                     QStringLiteral("rank 1 exited with code 3"),
                     QStringLiteral("job:fmnist-7"),
                     QStringLiteral("Failed"),
                     0};
            QVERIFY(notifier.deliver(n));
            QTRY_COMPARE_WITH_TIMEOUT(fake.summaries.size(), 1, 5000);
            QCOMPARE(fake.summaries[0], n.title);
            QCOMPARE(fake.bodies[0], n.body);
            QCOMPARE(fake.lastHints.value(QStringLiteral("urgency")).toInt(), 2);
            QVERIFY(fake.lastActions.contains(QStringLiteral("default")));
            // The user clicks it: the daemon says ActionInvoked; the studio opens the job.
            QTest::qWait(100); // the reply with the id reaches the notifier first
            QDBusMessage clicked = QDBusMessage::createSignal(
                QStringLiteral("/org/freedesktop/Notifications"),
                QStringLiteral("org.freedesktop.Notifications"), QStringLiteral("ActionInvoked"));
            clicked << fake.lastId << QStringLiteral("default");
            QVERIFY(server.send(clicked));
            QTRY_COMPARE_WITH_TIMEOUT(open.count(), 1, 5000);
            QCOMPARE(open.at(0).at(0).toString(), QStringLiteral("job:fmnist-7"));
        }
        // No service on the bus: the notifier says no (the notice stays in the list).
        server.unregisterService(QStringLiteral("org.freedesktop.Notifications"));
        DesktopNotifier orphan(client);
        if (!QSystemTrayIcon::isSystemTrayAvailable())
            QVERIFY(!orphan.deliver({NoticeKind::JobEnded, QStringLiteral("x"), {}, {}, {}, 0}));
        QDBusConnection::disconnectFromBus(QStringLiteral("client"));
        QDBusConnection::disconnectFromBus(QStringLiteral("server"));
    }

    void settingsApplyAndReadInOrder() {
        if (!scaleTag().isEmpty())
            QSKIP("the 2× run only takes the first start's pictures");
        StudioSettings s;
        s.problems << QStringLiteral("refreshMs: 5 is not between 250 and 60000 ms");
        SettingsDialog dialog(s, {QStringLiteral("lab"), QStringLiteral("hpc")}, m_home.path());
        dialog.show();
        QVERIFY(QTest::qWaitForWindowActive(&dialog));
        // Tab walks the form top to bottom, then the buttons.
        QCOMPARE(QApplication::focusWidget(), static_cast<QWidget*>(dialog.findChild<QComboBox*>(
                                                  QStringLiteral("settingsTheme"))));
        const QStringList problems = readingOrderProblems(dialog);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        dialog.findChild<QComboBox*>(QStringLiteral("settingsTheme"))->setCurrentIndex(2);
        dialog.findChild<QCheckBox*>(QStringLiteral("settingsNotify_tuning"))->setChecked(false);
        auto* cluster = dialog.findChild<QComboBox*>(QStringLiteral("settingsCluster"));
        cluster->setCurrentIndex(cluster->findData(QStringLiteral("hpc")));
        dialog.findChild<QDoubleSpinBox*>(QStringLiteral("settingsRefresh"))->setValue(2.5);
        const StudioSettings out = dialog.settings();
        QCOMPARE(out.theme, 2);
        QVERIFY(!out.notifies(NoticeKind::TuningBest));
        QCOMPARE(out.defaultCluster, QStringLiteral("hpc"));
        QCOMPARE(out.refreshMs, 2500);
        QVERIFY(out.workspace.isEmpty()); // the default folder stays "the default"
        shoot(&dialog, QStringLiteral("settings-dialog.png"));

        // The cluster dialog reads the same way.
        ClusterDialog clusterDialog(ClusterDialog::Mode::Add, {});
        clusterDialog.show();
        QVERIFY(QTest::qWaitForWindowActive(&clusterDialog));
        QVERIFY(clusterDialog.isAncestorOf(QApplication::focusWidget()));
        const QStringList clusterProblems = readingOrderProblems(clusterDialog);
        QVERIFY2(clusterProblems.isEmpty(), qPrintable(clusterProblems.join(QLatin1Char('\n'))));
    }

    void themeMenuAndSettingsShareTheirValues() {
        if (!scaleTag().isEmpty())
            QSKIP("the 2× run only takes the first start's pictures");
        QTemporaryDir home;
        control::Controller controller(testControllerOptions(home.path()));
        MainWindow w(controller);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // A folder picked in the Notebooks explorer survives a theme change from the menu.
        const QString picked = home.filePath(QStringLiteral("picked"));
        w.explorer()->setWorkspace(picked);
        QAction* dark = nullptr;
        for (QAction* a : w.findChildren<QAction*>())
            if (a->text() == QLatin1String("Dark") && a->isCheckable())
                dark = a;
        QVERIFY(dark);
        dark->trigger();
        QVERIFY(darkThemeActive());
        QCOMPARE(w.settings().theme, 2);
        QCOMPARE(StudioSettings::load(w.settingsPath()).theme, 2);
        QCOMPARE(w.explorer()->workspace(), picked);
        // The Settings dialog starts from those values, and its theme checks the menu's item.
        w.openSettings();
        auto* dialog = w.findChild<SettingsDialog*>(QStringLiteral("settingsDialog"));
        QTRY_VERIFY(dialog && dialog->isVisible());
        QCOMPARE(dialog->findChild<QComboBox*>(QStringLiteral("settingsTheme"))->currentIndex(), 2);
        QCOMPARE(dialog->findChild<QLineEdit*>(QStringLiteral("settingsWorkspace"))->text(),
                 picked);
        dialog->findChild<QComboBox*>(QStringLiteral("settingsTheme"))->setCurrentIndex(1);
        dialog->accept();
        QVERIFY(!darkThemeActive());
        QVERIFY(!dark->isChecked());
        QCOMPARE(w.explorer()->workspace(), picked);
        QCOMPARE(StudioSettings::load(w.settingsPath()).workspaceOr(home.path()), picked);
    }

    void paintedViewsDescribeThemselves() {
        if (!scaleTag().isEmpty())
            QSKIP("the 2× run only takes the first start's pictures");
        CurveChart chart;
        chart.setTitle(QStringLiteral("loss"));
        chart.setSeries(
            {{QStringLiteral("train"), {}, {{10, 1.0, 2.5}, {20, 2.0, 1.25}, {30, 3.0, 0.75}}}});
        QAccessibleInterface* i = QAccessible::queryAccessibleInterface(&chart);
        QVERIFY(i);
        QCOMPARE(i->role(), QAccessible::Chart);
        QCOMPARE(i->text(QAccessible::Name), QStringLiteral("Chart"));
        QCOMPARE(i->text(QAccessible::Description),
                 QStringLiteral("loss: train: 3 points, last 0.75 at step 30"));
        chart.appendPoints(QStringLiteral("train"), {{40, 4.0, 0.5}});
        QTRY_VERIFY(accessibleText(&chart, QAccessible::Description)
                        .contains(QLatin1String("4 points, last 0.5")));

        UtilizationHeatmap heat;
        heat.setRows({{0, QStringLiteral("cpu0"), {{100, 20}, {110, 40}}},
                      {1, QStringLiteral("gpu0"), {{100, 90}, {110, 70}}}});
        QCOMPARE(accessibleText(&heat, QAccessible::Name), QStringLiteral("Utilization heatmap"));
        QCOMPARE(accessibleText(&heat, QAccessible::Description),
                 QStringLiteral("2 devices over 10 s; busiest: node 1 gpu0 80%, node 0 cpu0 30%"));

        StatusTimeline timeline;
        store::StatusTransition a{"InProgress", "Starting", 100, 103, ""};
        store::StatusTransition b{"InProgress", "Training", 103, 143, ""};
        store::StatusTransition c{"Completed", "", 143, 0, ""};
        timeline.setTransitions({a, b, c});
        QCOMPARE(accessibleText(&timeline, QAccessible::Description),
                 QStringLiteral("Starting 3.0 s, Training 40.0 s, Completed (now)"));

        LossSparkline spark;
        spark.setPoints({{1, 2.0}, {2, 1.5}, {3, 1.7}});
        QCOMPARE(accessibleText(&spark, QAccessible::Description),
                 QStringLiteral("3 points; last 1.7 at step 3, lowest 1.5"));

        ImportanceChart importance;
        QVERIFY(accessibleText(&importance, QAccessible::Description)
                    .startsWith(QLatin1String("No importance")));
        TuningPlot plot;
        PlotData data;
        data.title = QStringLiteral("Objective by training job");
        PlotLayer layer;
        layer.name = QStringLiteral("jobs");
        layer.points = {{1, 0.5}, {2, 0.6}};
        data.layers = {layer};
        plot.setData(data);
        QCOMPARE(accessibleText(&plot, QAccessible::Name), data.title);
        QCOMPARE(accessibleText(&plot, QAccessible::Description), QStringLiteral("jobs: 2 points"));
        ParallelCoordinatesPlot parallel;
        QCOMPARE(accessibleText(&parallel, QAccessible::Description), QStringLiteral("No jobs"));
    }

    void layoutPerScreenAndClosedTabsStayClosed() {
        if (!scaleTag().isEmpty())
            QSKIP("the 2× run only takes the first start's pictures");
        QTemporaryDir home;
        control::Controller controller(testControllerOptions(home.path()));
        const QString ini = home.filePath(QStringLiteral("studio.ini"));
        {
            MainWindow w(controller);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QCOMPARE(w.tabs()->count(), 1); // Welcome
            w.tabs()->tabCloseRequested(0); // the user closes it
            QCOMPARE(w.tabs()->count(), 0);
            w.experiments();
            auto* split = w.findChild<QSplitter*>(QStringLiteral("experimentsSplit"));
            QVERIFY(split);
            w.close();
        }
        QSettings s(ini, QSettings::IniFormat);
        const QStringList keys = s.allKeys();
        const QString screen =
            QStringLiteral("layout/%1x%2/")
                .arg(QGuiApplication::primaryScreen()->availableGeometry().width())
                .arg(QGuiApplication::primaryScreen()->availableGeometry().height());
        QVERIFY2(keys.contains(screen + QStringLiteral("state")), qPrintable(keys.join(u' ')));
        QVERIFY(keys.contains(screen + QStringLiteral("splitters/experimentsSplit")));
        QVERIFY(!keys.contains(QStringLiteral("state")));
        {
            // Another screen's layout is left alone; this one's comes back.
            s.setValue(QStringLiteral("layout/3840x2100/geometry"), QByteArray("other"));
            s.sync();
            MainWindow w(controller);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QCOMPARE(w.tabs()->count(), 1);
            QVERIFY(!qobject_cast<WelcomePage*>(w.tabs()->widget(0))); // closed on purpose
            QVERIFY(!w.consoleDock()->isVisible());
            w.close();
        }
        QSettings after(ini, QSettings::IniFormat);
        QCOMPARE(after.value(QStringLiteral("layout/3840x2100/geometry")).toByteArray(),
                 QByteArray("other"));
    }
};

QTEST_MAIN(TestFirstHour)
#include "test_first_hour.moc"
