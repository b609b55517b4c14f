// Clusters in the studio window: the cluster tree over a real store with real checks (refused
// loopback ports, this machine) under QAbstractItemModelTester, a job's Nodes table and its
// model, and the Clusters page as a user drives it: add a cluster by typing, check it (each host's
// exact error), check "local" (ready, this build's launcher), remove (refused while a job runs
// there); the activity's shortcut in Help, and the close question's default answer. Network: only
// 127.0.0.1. The dialog's form rows are tested in test_cluster_form.
#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/remote/cluster_check.h"
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"
#include "models/clusters/cluster_tree_model.h"
#include "models/data/data_service.h"
#include "models/jobs/job_list_model.h"
#include "models/jobs/job_nodes_model.h"
#include "tests/support/screenshot.h"
#include "tests/support/test_controller.h"
#include "widgets/clusters/cluster_dialog.h"
#include "widgets/clusters/clusters_browser.h"
#include "widgets/common/theme.h"
#include "widgets/jobs/job_view.h"
#include "widgets/launch/launch_dialog.h"
#include "widgets/shell/explorer.h"
#include "widgets/shell/main_window.h"
#include "widgets/shell/window_dialogs.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>
#include <QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace studio;
using namespace studio::models;
using namespace studio::widgets;
using HostState = ClusterTreeModel::HostState;

namespace {

// A loopback port where nothing listens: bound, so nothing else takes it, but never listening,
// so a connection to it is refused. fd keeps it.
int refusedPort(int& fd) {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), len) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
        return 0;
    return ntohs(a.sin_port);
}

// Clicks a button of the next message box that opens (a question asked with exec()).
void answerNextMessageBox(QMessageBox::StandardButton which) {
    auto* timer = new QTimer(QCoreApplication::instance());
    QObject::connect(timer, &QTimer::timeout, [timer, which] {
        if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
            timer->stop();
            timer->deleteLater();
            box->button(which)->click();
        }
    });
    timer->start(20);
}

QString hostText(int port) {
    return QStringLiteral("127.0.0.1:%1").arg(port);
}

} // namespace

class TestClusters : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    std::string m_db;
    std::unique_ptr<control::Controller> m_controller;
    int m_fds[2] = {-1, -1};
    int m_ports[2] = {0, 0};
    QString m_busyJob; // InProgress on cluster "lab"
    remote::ClusterCheck m_labCheck;
    remote::ClusterCheck m_localCheck;

    remote::ClusterConfig loopbackCluster(const std::string& name) const {
        remote::ClusterConfig c;
        c.name = name;
        for (int port : m_ports)
            c.hosts.push_back(remote::parseSshTarget(hostText(port).toStdString()));
        return c;
    }

    remote::CheckOptions checkOptions() const {
        remote::CheckOptions o;
        o.controlDir = remote::controlDirectory(m_home.path().toStdString());
        o.localLauncher = STUDIO_BIN_DIR "/studio-launcher";
        return o;
    }

private Q_SLOTS:
    void initTestCase() {
        applyTheme(*qobject_cast<QApplication*>(QCoreApplication::instance()), ThemeChoice::Light);
        qputenv("STUDIO_NO_DIALOGS", "1");
        // The window's check of "local" runs the studio-launcher it finds beside the program or
        // on the PATH: this build's.
        qputenv("PATH", QByteArray(STUDIO_BIN_DIR ":") + qgetenv("PATH"));
        for (int i = 0; i < 2; ++i) {
            m_ports[i] = refusedPort(m_fds[i]);
            QVERIFY(m_ports[i] > 0);
        }
        m_db = control::databasePath(m_home.path().toStdString());
        m_controller = std::make_unique<control::Controller>(testControllerOptions(m_home.path()));
        // Real checks: two refused loopback ports, and this machine.
        m_labCheck = remote::checkCluster(loopbackCluster("lab"), checkOptions());
        QCOMPARE(m_labCheck.hosts.size(), std::size_t(2));
        QVERIFY(!m_labCheck.ok());
        remote::ClusterConfig local = remote::localCluster();
        local.workdir = m_home.path().toStdString();
        m_localCheck = remote::checkCluster(local, checkOptions());
        QVERIFY2(m_localCheck.ok(), m_localCheck.hosts.front().error.c_str());
    }

    void clusterTreeModel() {
        const remote::ClusterCheck& lab = m_labCheck;
        store::StoreWriter& w = m_controller->writer();
        const remote::ClusterConfig labConfig = loopbackCluster("lab");
        w.saveCluster({"lab", "ssh", remote::clusterToJson(labConfig), 1, 1, ""});
        w.setClusterCheck("lab", remote::clusterCheckToJson(lab));
        remote::ClusterConfig never;
        never.name = "never";
        never.hosts = {remote::parseSshTarget("studio@10.77.0.9")};
        w.saveCluster({"never", "ssh", remote::clusterToJson(never), 2, 2, ""});
        w.saveCluster({"broken", "ssh", "not json", 3, 3, ""});
        w.flush();

        ClusterTreeModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        store::StoreReader reader(m_db);
        model.setClusters(loadClusterEntries(reader));
        QCOMPARE(model.rowCount(), 4); // local first, then by name
        const QStringList names = {QStringLiteral("local"), QStringLiteral("broken"),
                                   QStringLiteral("lab"), QStringLiteral("never")};
        for (int r = 0; r < 4; ++r)
            QCOMPARE(model.index(r, 0).data().toString(), names[r]);

        // Each refused host: its exact error, host named.
        const QModelIndex labRow = model.indexOf(QStringLiteral("lab"));
        QCOMPARE(model.rowCount(labRow), 2);
        for (int h = 0; h < 2; ++h) {
            const QModelIndex host = model.index(h, 0, labRow);
            QCOMPARE(host.data().toString(), hostText(m_ports[h]));
            QCOMPARE(host.data(ClusterTreeModel::StateRole).toInt(), int(HostState::NotReady));
            const QString error = host.data(ClusterTreeModel::ErrorRole).toString();
            QCOMPARE(error, QString::fromStdString(lab.hosts[std::size_t(h)].error));
            QVERIFY2(error.startsWith(QStringLiteral("host ") + hostText(m_ports[h]) +
                                      QStringLiteral(": ")) &&
                         error.contains(QStringLiteral("Connection refused")),
                     qPrintable(error));
            QCOMPARE(model.index(h, ClusterTreeModel::StateColumn, labRow).data().toString(),
                     error);
        }
        QCOMPARE(model.index(labRow.row(), ClusterTreeModel::StateColumn).data().toString(),
                 QStringLiteral("2 of 2 hosts not ready"));

        const QModelIndex neverHost = model.indexOf(QStringLiteral("never"), 0);
        QCOMPARE(neverHost.data().toString(), QStringLiteral("studio@10.77.0.9"));
        QCOMPARE(neverHost.siblingAtColumn(ClusterTreeModel::StateColumn).data().toString(),
                 QStringLiteral("never checked"));
        const QModelIndex broken = model.indexOf(QStringLiteral("broken"));
        QVERIFY(broken.data(ClusterTreeModel::ErrorRole)
                    .toString()
                    .contains(QStringLiteral("not JSON")));
        QCOMPARE(model.rowCount(broken), 0);

        // The broken definition goes; the others stay for the page.
        w.removeCluster("broken");
        w.removeCluster("never");
    }

    void clusterTreeModelDuringACheck() {
        ClusterTreeModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setClusters({ClusterEntry{remote::localCluster(), {}, {}}});
        const remote::ClusterCheck& here = m_localCheck;
        // A check in progress, one host's answer, then the whole result.
        const QString l = QStringLiteral("local");
        QCOMPARE(model.indexOf(l, 0).siblingAtColumn(1).data().toString(),
                 QStringLiteral("never checked"));
        model.setChecking(l);
        QCOMPARE(model.indexOf(l).data(ClusterTreeModel::StateRole).toInt(),
                 int(HostState::Checking));
        model.setHostCheck(l, here.hosts.front());
        model.setCheck(l, here);
        const QModelIndex me = model.indexOf(l, 0);
        QCOMPARE(me.data(ClusterTreeModel::StateRole).toInt(), int(HostState::Ready));
        QCOMPARE(me.siblingAtColumn(ClusterTreeModel::VersionColumn).data().toString(),
                 QString::fromStdString(remote::launcherVersionLine()));
        QVERIFY(me.siblingAtColumn(ClusterTreeModel::CoresColumn).data().toInt() > 0);
        QVERIFY(!me.siblingAtColumn(ClusterTreeModel::DiskFreeColumn).data().toString().isEmpty());
        QVERIFY(me.data(Qt::ToolTipRole).toString().contains(QStringLiteral("Clock offset")));
    }

    void jobNodesModel() {
        // A job on "lab" that a studio took over, one node's link down.
        store::StoreWriter& w = m_controller->writer();
        store::NewComponent c;
        c.name = "lab-job-2026-11-25-10-00-00-000";
        c.experiment = "clusters";
        c.cluster = "lab";
        c.instanceCount = 2;
        c.entryPoint = "builtin:mlp";
        c.specJson = R"({"entry_point":"builtin:mlp","cluster":"lab","instance_count":2})";
        const double t0 = 1795300000;
        c.created = t0 - 20;
        const auto id = w.createComponent(c);
        w.setStarted(id, t0 - 15);
        w.setStatus(id, "InProgress", "Training", "", t0 - 15);
        w.setStatus(id, "InProgress", "Training",
                    "taken over: following the job again from its journals", t0 + 60);
        for (int node = 0; node < 2; ++node) {
            const std::string host = hostText(m_ports[node]).toStdString();
            w.upsertNode(id, {node, host, 4100 + node, 8, 0, t0, 0, std::nullopt});
            store::JournalRow j;
            j.node = node;
            j.host = host;
            j.path = "/home/studio/.mlstudio/jobs/lab-job/node-" + std::to_string(node) + ".jsonl";
            j.launcherPid = 4100 + node;
            j.state = node == 0 ? "following" : "reconnecting";
            j.stateSince = t0 + 90;
            j.message =
                node == 0 ? "" : "host " + host + ": lost the connection (Connection reset)";
            w.upsertJournal(id, j);
        }
        w.setStatus(id, "InProgress", "Reconnecting",
                    "host " + hostText(m_ports[1]).toStdString() + ": lost the connection",
                    t0 + 90);
        w.flush();
        m_busyJob = QString::fromStdString(c.name);

        store::StoreReader reader(m_db);
        const auto detail = reader.detail(c.name);
        QVERIFY(detail);
        JobNodesModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setDetail(*detail);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.takenOver(), t0 + 60);
        const QString since =
            QDateTime::fromSecsSinceEpoch(qint64(t0 + 90)).toString(QStringLiteral("HH:mm:ss"));
        QCOMPARE(model.index(0, JobNodesModel::HostColumn).data().toString(), hostText(m_ports[0]));
        QCOMPARE(model.index(0, JobNodesModel::LauncherPidColumn).data().toInt(), 4100);
        QCOMPARE(model.index(0, JobNodesModel::ConnectionColumn).data().toString(),
                 QStringLiteral("following"));
        QCOMPARE(model.index(1, JobNodesModel::ConnectionColumn).data().toString(),
                 QStringLiteral("reconnecting since ") + since);
        QVERIFY(model.index(1, JobNodesModel::MessageColumn)
                    .data()
                    .toString()
                    .contains(QStringLiteral("Connection reset")));
        QVERIFY(model.index(1, JobNodesModel::FollowedColumn)
                    .data()
                    .toString()
                    .startsWith(QStringLiteral("taken over at ")));
        model.setDetail(*detail); // same rows: updated in place
        model.setDetail({});
        QCOMPARE(model.rowCount(), 0);
    }

    void jobTabAndListNameTheCluster() {
        // The job's tab: where it runs in the header, the Nodes table in the overview.
        DataService service(QString::fromStdString(m_db));
        JobView view(&service, m_busyJob);
        view.resize(1300, 800);
        view.show();
        QTRY_VERIFY(view.loaded());
        QVERIFY2(view.findChild<QLabel*>(QStringLiteral("jobSubtitle"))
                     ->text()
                     .contains(QStringLiteral("on cluster lab")),
                 qPrintable(view.findChild<QLabel*>(QStringLiteral("jobSubtitle"))->text()));
        auto* nodes = view.findChild<QTableView*>(QStringLiteral("jobNodes"));
        QVERIFY(nodes && nodes->isVisible());
        QCOMPARE(nodes->model()->rowCount(), 2);
        shoot(&view, "job-nodes.png");

        // The Jobs list names a remote job's cluster.
        JobListModel jobs(&service);
        QAbstractItemModelTester jobsTester(&jobs,
                                            QAbstractItemModelTester::FailureReportingMode::QtTest);
        QTRY_VERIFY(jobs.rowOf(m_busyJob) >= 0);
        const int r = jobs.rowOf(m_busyJob);
        QCOMPARE(jobs.index(r, JobListModel::ClusterColumn).data().toString(),
                 QStringLiteral("lab"));
        QVERIFY(jobs.index(r, JobListModel::StatusColumn)
                    .data()
                    .toString()
                    .endsWith(QStringLiteral(" · lab")));
    }

    void addAndCheckACluster() {
        MainWindow w(*m_controller);
        w.resize(1440, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // The Clusters activity, by its shortcut.
        QTest::keyClick(&w, Qt::Key_K, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(w.explorer()->page(), Explorer::ClustersPage);
        ClustersBrowser* page = w.explorer()->clusters();
        QVERIFY(page->isVisible());
        ClusterTreeModel* model = page->model();
        QAbstractItemModelTester tester(model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QTRY_VERIFY(model->indexOf(QStringLiteral("lab")).isValid());

        // Add a cluster by typing into the dialog; a mistake shows under its field first.
        page->findChild<QToolButton*>(QStringLiteral("clusterAdd"))->click();
        auto* dialog = page->findChild<ClusterDialog*>(QStringLiteral("clusterDialog"));
        QVERIFY(dialog);
        QTRY_VERIFY(dialog->isVisible());
        auto* name = dialog->findChild<QLineEdit*>(QStringLiteral("clusterName"));
        auto* hosts = dialog->findChild<QPlainTextEdit*>(QStringLiteral("clusterHosts"));
        auto* save = dialog->findChild<QPushButton*>(QStringLiteral("clusterSave"));
        QVERIFY(!save->isEnabled());
        QTest::keyClicks(name, QStringLiteral("loopback"));
        QTest::keyClicks(hosts, QStringLiteral("127.0.0.1:99999"));
        auto* hostsMessage = dialog->findChild<QLabel*>(QStringLiteral("clusterHostsMessage"));
        QVERIFY(hostsMessage->isVisible());
        QVERIFY2(hostsMessage->text().startsWith(QStringLiteral("line 1: \"127.0.0.1:99999\"")),
                 qPrintable(hostsMessage->text()));
        QVERIFY(!save->isEnabled());
        shoot(dialog, "cluster-dialog-problem.png");
        hosts->selectAll();
        QTest::keyClick(hosts, Qt::Key_Delete);
        QTest::keyClicks(hosts, hostText(m_ports[0]));
        QTest::keyClick(hosts, Qt::Key_Return);
        QTest::keyClicks(hosts, hostText(m_ports[1]));
        QVERIFY2(save->isEnabled(), qPrintable(dialog->problems().join(QLatin1Char('\n'))));
        QVERIFY(hostsMessage->isHidden());
        QSignalSpy checked(page, &ClustersBrowser::checkFinished);
        save->click();
        // Saving checks the hosts, as `mlstudio cluster add` does.
        QTRY_COMPARE_WITH_TIMEOUT(checked.count(), 1, 60000);
        QCOMPARE(checked.at(0).at(0).toString(), QStringLiteral("loopback"));
        QCOMPARE(checked.at(0).at(1).toBool(), false);

        // Check again from the page: the hosts read "checking…" until each answers.
        page->selectCluster(QStringLiteral("loopback"));
        page->findChild<QToolButton*>(QStringLiteral("clusterCheck"))->click();
        QCOMPARE(
            model->indexOf(QStringLiteral("loopback"), 1).data(ClusterTreeModel::StateRole).toInt(),
            int(HostState::Checking));
        QTRY_COMPARE_WITH_TIMEOUT(checked.count(), 2, 60000);
        for (int h = 0; h < 2; ++h) {
            const QModelIndex host = model->indexOf(QStringLiteral("loopback"), h);
            const QString error = host.data(ClusterTreeModel::ErrorRole).toString();
            QVERIFY2(error.startsWith(QStringLiteral("host ") + hostText(m_ports[h])) &&
                         error.contains(QStringLiteral("Connection refused")),
                     qPrintable(error));
            QCOMPARE(host.siblingAtColumn(ClusterTreeModel::StateColumn).data().toString(), error);
        }
        // The result is stored with the cluster.
        auto stored = [this] {
            store::StoreReader reader(m_db);
            const auto row = reader.cluster("loopback");
            return row ? remote::clusterCheckFromJson(row->lastCheck) : remote::ClusterCheck{};
        };
        QTRY_COMPARE_WITH_TIMEOUT(stored().hosts.size(), std::size_t(2), 10000);
        QCOMPARE(QString::fromStdString(stored().hosts[1].error),
                 model->indexOf(QStringLiteral("loopback"), 1)
                     .data(ClusterTreeModel::ErrorRole)
                     .toString());

        QVERIFY(w.close());
    }

    void checkThisMachineAndShowTheClusters() {
        MainWindow w(*m_controller);
        w.resize(1440, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.explorer()->showPage(Explorer::ClustersPage);
        ClustersBrowser* page = w.explorer()->clusters();
        ClusterTreeModel* model = page->model();
        QTRY_VERIFY(model->indexOf(QStringLiteral("loopback"), 1).isValid());
        // The stored check shows at once.
        QVERIFY(model->indexOf(QStringLiteral("loopback"), 1)
                    .data(ClusterTreeModel::ErrorRole)
                    .toString()
                    .contains(QStringLiteral("Connection refused")));
        QSignalSpy checked(page, &ClustersBrowser::checkFinished);

        // This machine: ready, with this build's launcher.
        page->selectCluster(QStringLiteral("local"));
        page->findChild<QToolButton*>(QStringLiteral("clusterCheck"))->click();
        QTRY_COMPARE_WITH_TIMEOUT(checked.count(), 1, 60000);
        QCOMPARE(checked.at(0).at(1).toBool(), true);
        const QModelIndex me = model->indexOf(QStringLiteral("local"), 0);
        QCOMPARE(me.siblingAtColumn(ClusterTreeModel::StateColumn).data().toString(),
                 QStringLiteral("ready"));
        QCOMPARE(me.siblingAtColumn(ClusterTreeModel::VersionColumn).data().toString(),
                 QString::fromStdString(remote::launcherVersionLine()));

        // The launch dialog offers the clusters with their host counts.
        w.openLaunchDialog();
        auto* launch = w.findChild<LaunchDialog*>(QStringLiteral("launchDialog"));
        QVERIFY(launch);
        auto* runOn = launch->findChild<QComboBox*>(QStringLiteral("runOn"));
        QVERIFY(runOn->findData(QStringLiteral("loopback")) > 0);
        QVERIFY(runOn->itemText(runOn->findData(QStringLiteral("loopback")))
                    .contains(QStringLiteral("2 hosts")));
        launch->reject();

        w.findChild<QDockWidget*>(QStringLiteral("explorerDock"))->setMinimumWidth(560);
        // The details under the tree show the selected host's settings and check.
        auto* details = page->findChild<QLabel*>(QStringLiteral("clusterDetails"));
        QVERIFY(details);
        const auto hostDetails = [&](const char* cluster) {
            return model->indexOf(QString::fromLatin1(cluster), 0).data(Qt::ToolTipRole).toString();
        };
        page->selectCluster(QStringLiteral("loopback"), 0);
        QTRY_COMPARE(details->text(), hostDetails("loopback"));
        shoot(&w, "clusters-page.png");
        page->selectCluster(QStringLiteral("local"), 0);
        QTRY_COMPARE(details->text(), hostDetails("local"));
        shoot(&w, "clusters-page-local.png");
        QVERIFY(w.close());
    }

    void removeRefusedWhileAJobRuns() {
        MainWindow w(*m_controller);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        ClustersBrowser* page = w.explorer()->clusters();
        ClusterTreeModel* model = page->model();
        QTRY_VERIFY(model->indexOf(QStringLiteral("loopback")).isValid());
        // Remove: refused while a job runs there (named), then done.
        QSignalSpy removed(page, &ClustersBrowser::removed);
        answerNextMessageBox(QMessageBox::Yes);
        page->removeCluster(QStringLiteral("lab"));
        QTRY_VERIFY_WITH_TIMEOUT(page->message().contains(m_busyJob), 10000);
        QVERIFY(page->message().contains(QStringLiteral("stop it")));
        QVERIFY(removed.isEmpty());
        QVERIFY(model->indexOf(QStringLiteral("lab")).isValid());
        answerNextMessageBox(QMessageBox::Yes);
        page->selectCluster(QStringLiteral("loopback"));
        page->findChild<QToolButton*>(QStringLiteral("clusterRemove"))->click();
        QTRY_COMPARE_WITH_TIMEOUT(removed.count(), 1, 10000);
        QTRY_VERIFY(!model->indexOf(QStringLiteral("loopback")).isValid());
        store::StoreReader reader(m_db);
        QVERIFY(!reader.cluster("loopback"));
        QVERIFY(w.close());
    }

    void clustersActivityInTheShortcuts() {
        MainWindow w(*m_controller);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QString listed;
        auto* timer = new QTimer(&w);
        connect(timer, &QTimer::timeout, [timer, &listed] {
            if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
                timer->stop();
                listed = box->text();
                box->accept();
            }
        });
        timer->start(20);
        QAction* help = nullptr;
        for (QAction* a : w.findChildren<QAction*>())
            if (a->text() == QStringLiteral("&Keyboard shortcuts"))
                help = a;
        QVERIFY(help);
        help->trigger();
        QVERIFY2(listed.contains(QStringLiteral("Ctrl+Shift+K</b></td><td>Clusters")),
                 qPrintable(listed));
        QVERIFY(w.close());
    }

    void closeQuestionDefaults_data() {
        QTest::addColumn<int>("remote");
        QTest::addColumn<QString>("defaultButton");
        QTest::newRow("all local") << 0 << "Cancel";
        QTest::newRow("one on a cluster") << 1 << "Keep running";
    }
    void closeQuestionDefaults() {
        QFETCH(int, remote);
        QFETCH(QString, defaultButton);
        QString shown;
        QString text;
        auto* timer = new QTimer(this);
        connect(timer, &QTimer::timeout, [timer, &shown, &text] {
            if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
                timer->stop();
                timer->deleteLater();
                shown = box->defaultButton()->text();
                text = box->text() + box->informativeText();
                box->defaultButton()->click();
            }
        });
        timer->start(20);
        const CloseChoice choice = askAboutRunningJobs(nullptr, 2, remote);
        QCOMPARE(shown, defaultButton);
        QCOMPARE(choice, remote > 0 ? CloseChoice::KeepRunning : CloseChoice::Cancel);
        QVERIFY2(text.contains(QStringLiteral("mlstudio attach")), qPrintable(text));
    }

    void cleanupTestCase() {
        m_controller.reset();
        for (int fd : m_fds)
            if (fd >= 0)
                ::close(fd);
    }
};

QTEST_MAIN(TestClusters)
#include "test_clusters.moc"
