// A job whose studio process or launcher dies, as the command line shows it: the crashed studio's
// job is shown ended at once when its launcher died too, and followed here when its launcher
// still runs, and what its ranks report meanwhile (their devices) is read from the journal; a
// launcher that dies fails the job with its node named and takes the ranks' children with it;
// `mlstudio run --logs | head` ends the streaming, not the job.
#include "tests/support/mlstudio_cli.h"
#include "tests/support/process_check.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <csignal>
#include <fstream>

class TestLostJobs : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    QTemporaryDir m_specs;

    MlstudioCli m_cli{m_home.path()};

    QString writeSpec(const char* name, const std::string& script) {
        const QString path = m_specs.path() + QLatin1Char('/') + QLatin1String(name) + ".json";
        std::ofstream(path.toStdString())
            << nlohmann::json{{"name", name}, {"entry_point", {"/bin/sh", "-c", script}}}.dump();
        return path;
    }

    void start(QProcess& p, const QStringList& args) { QVERIFY(m_cli.start(p, args)); }
    CliResult run(const QStringList& args, int timeoutMs = 60000) {
        return m_cli.run(args, timeoutMs);
    }
    nlohmann::json show(const QString& job) { return m_cli.show(job); }

    // Waits until the job's logs hold `text`; returns the logs.
    QString waitForLog(const QString& job, const QString& text) {
        QString logs;
        for (int i = 0; i < 100 && !logs.contains(text); ++i) {
            QTest::qWait(150);
            logs = run({QStringLiteral("logs"), job}).out;
        }
        return logs;
    }

    static long grandchildIn(const QString& logs) {
        const int at = logs.indexOf(QStringLiteral("grandchild "));
        return at < 0 ? -1 : logs.mid(at + 11).section(QLatin1Char('\n'), 0, 0).toLong();
    }

    static constexpr const char* kSpawner = "sleep 300 & echo grandchild $!; echo ready; wait";

private Q_SLOTS:
    // Before: the job stayed InProgress for ever, its end time growing, and `logs --follow`
    // never returned; the rank's child kept running.
    void crashedStudioAndLauncherShowAsEnded() {
        QProcess runner;
        start(runner, {QStringLiteral("run"), writeSpec("crashed", kSpawner)});
        const QString logs = waitForLog(QStringLiteral("crashed"), QStringLiteral("ready"));
        const long grandchild = grandchildIn(logs);
        QVERIFY2(grandchild > 0, qPrintable(logs));
        const auto before = show(QStringLiteral("crashed"));
        const long launcher = before["nodes"][0]["launcher_pid"].get<long>();
        ::kill(static_cast<pid_t>(runner.processId()), SIGKILL);
        runner.waitForFinished();
        ::kill(static_cast<pid_t>(launcher), SIGKILL);
        QTRY_VERIFY_WITH_TIMEOUT(processGone(launcher), 5000);

        // The first read after the crash already shows the end: no other studio process ran.
        const auto after = show(QStringLiteral("crashed"));
        QCOMPARE(after["status"].get<std::string>(), std::string("Failed"));
        const std::string reason = after["failure_reason"].get<std::string>();
        QVERIFY2(reason.find("node 0 (algo-1)") != std::string::npos, reason.c_str());
        QVERIFY(!after["ended"].is_null());
        QVERIFY2(processGone(grandchild), "the rank's child outlived its launcher");
        const CliResult follow = run(
            {QStringLiteral("logs"), QStringLiteral("--follow"), QStringLiteral("crashed")}, 10000);
        QVERIFY(follow.out.contains(QStringLiteral("ready")));
        const CliResult list = run({QStringLiteral("list"), QStringLiteral("jobs")});
        QVERIFY2(list.out.contains(QStringLiteral("Failed")), qPrintable(list.out));
    }

    // The studio died, the launcher did not: `logs --follow` follows it here to its end.
    void crashedStudioWithALiveLauncherIsFollowed() {
        QProcess runner;
        start(runner, {QStringLiteral("run"),
                       writeSpec("survivor", "for i in 1 2 3 4 5 6 7 8; do echo line $i; "
                                             "sleep 0.4; done")});
        waitForLog(QStringLiteral("survivor"), QStringLiteral("line 1"));
        ::kill(static_cast<pid_t>(runner.processId()), SIGKILL);
        runner.waitForFinished();
        const auto orphan = show(QStringLiteral("survivor"));
        QCOMPARE(orphan["status"].get<std::string>(), std::string("InProgress"));
        QCOMPARE(orphan["orphaned"].get<bool>(), true); // readers say nobody follows it
        const CliResult text = run({QStringLiteral("show"), QStringLiteral("survivor")});
        QVERIFY2(text.out.contains(QStringLiteral("mlstudio attach survivor")),
                 qPrintable(text.out));
        QVERIFY(run({QStringLiteral("list"), QStringLiteral("jobs")})
                    .out.contains(QStringLiteral("* no studio process follows the job")));
        const CliResult follow =
            run({QStringLiteral("logs"), QStringLiteral("--follow"), QStringLiteral("survivor")},
                30000);
        QVERIFY2(follow.out.contains(QStringLiteral("line 8")), qPrintable(follow.out));
        QCOMPARE(follow.out.count(QStringLiteral("line 1\n")), 1);
        const auto done = show(QStringLiteral("survivor"));
        QCOMPARE(done["status"].get<std::string>(), std::string("Completed"));
        QCOMPARE(done["orphaned"].get<bool>(), false);
    }

    // The rank reports its device while no studio follows the job: the studio that takes the
    // job over reads the report from the journal and keeps it through the rank's exit.
    void aDeviceReportedWhileUnfollowedIsKept() {
        const QString flag = m_specs.path() + QStringLiteral("/report-device");
        const std::string script =
            "echo ready; while [ ! -e '" + flag.toStdString() +
            "' ]; do sleep 0.1; done; echo '{\"v\":1,\"kind\":\"status\",\"state\":"
            "\"device\",\"message\":\"cpu (after the crash)\"}' >&$STUDIO_EVENTS_FD; "
            "sleep 0.3; echo done";
        QProcess runner;
        start(runner, {QStringLiteral("run"), writeSpec("unfollowed", script)});
        waitForLog(QStringLiteral("unfollowed"), QStringLiteral("ready"));
        ::kill(static_cast<pid_t>(runner.processId()), SIGKILL);
        runner.waitForFinished();
        const auto orphan = show(QStringLiteral("unfollowed"));
        QCOMPARE(orphan["orphaned"].get<bool>(), true);
        for (const auto& rank : orphan["ranks"]) // the device has not been reported yet
            QCOMPARE(rank["device"].get<std::string>(), std::string());
        std::ofstream(flag.toStdString()) << "go\n";
        const CliResult follow =
            run({QStringLiteral("logs"), QStringLiteral("--follow"), QStringLiteral("unfollowed")},
                30000);
        QVERIFY2(follow.out.contains(QStringLiteral("done")), qPrintable(follow.out));
        const auto j = show(QStringLiteral("unfollowed"));
        QCOMPARE(j["status"].get<std::string>(), std::string("Completed"));
        QCOMPARE(j["ranks"][0]["device"].get<std::string>(), std::string("cpu (after the crash)"));
        QCOMPARE(j["ranks"][0]["exit_code"].get<int>(), 0);
    }

    // Before: the job stayed InProgress until stopped by hand ("Stopped by user").
    void aLauncherThatDiesFailsTheJob() {
        QProcess runner;
        start(runner, {QStringLiteral("run"), writeSpec("orphan-ranks", kSpawner)});
        const long grandchild =
            grandchildIn(waitForLog(QStringLiteral("orphan-ranks"), QStringLiteral("ready")));
        QVERIFY(grandchild > 0);
        const long launcher =
            show(QStringLiteral("orphan-ranks"))["nodes"][0]["launcher_pid"].get<long>();
        ::kill(static_cast<pid_t>(launcher), SIGKILL);
        QVERIFY(runner.waitForFinished(20000));
        QCOMPARE(runner.exitCode(), 1);
        const auto j = show(QStringLiteral("orphan-ranks"));
        QCOMPARE(j["status"].get<std::string>(), std::string("Failed"));
        const std::string reason = j["failure_reason"].get<std::string>();
        QVERIFY2(reason.find("node 0 (algo-1)") != std::string::npos, reason.c_str());
        QTRY_VERIFY_WITH_TIMEOUT(processGone(grandchild), 5000);
    }

    // Before: the first write after `head` exited killed mlstudio, and the job with it.
    void runLogsIntoHeadLeavesTheJobRunning() {
        QProcess runner, head;
        runner.setStandardOutputProcess(&head);
        head.start(QStringLiteral("head"), {QStringLiteral("-n"), QStringLiteral("1")});
        start(runner, {QStringLiteral("run"), QStringLiteral("--logs"),
                       writeSpec("piped", "for i in 1 2 3 4 5 6; do echo line $i; sleep 0.3; "
                                          "done")});
        QVERIFY(head.waitForFinished(20000));
        QVERIFY(runner.waitForFinished(20000));
        QCOMPARE(runner.exitCode(), 0);
        QVERIFY2(QString::fromUtf8(runner.readAllStandardError())
                     .contains(QStringLiteral("leaving piped-")),
                 "no word on the job");
        const CliResult attach = run({QStringLiteral("attach"), QStringLiteral("piped")}, 30000);
        QCOMPARE(attach.code, 0);
        QCOMPARE(show(QStringLiteral("piped"))["status"].get<std::string>(),
                 std::string("Completed"));
        const QString logs = run({QStringLiteral("logs"), QStringLiteral("piped")}).out;
        QVERIFY2(logs.contains(QStringLiteral("line 6")), qPrintable(logs));
        QCOMPARE(logs.count(QStringLiteral("line 1\n")), 1);
    }
};

QTEST_GUILESS_MAIN(TestLostJobs)
#include "test_lost_jobs.moc"
