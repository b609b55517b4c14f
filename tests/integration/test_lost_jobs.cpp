// A job whose studio process or launcher dies, as the command line shows it: the crashed studio's
// job is shown ended at once when its launcher died too, and followed here when its launcher
// still runs; a launcher that dies fails the job with its node named and takes the ranks'
// children with it; `mlstudio run --logs | head` ends the streaming, not the job.
#include "tests/support/process_check.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <csignal>
#include <fstream>

namespace {

struct Result {
    int code = -1;
    QString out;
    QString err;
};

} // namespace

class TestLostJobs : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    QTemporaryDir m_specs;

    QProcessEnvironment env() {
        auto e = QProcessEnvironment::systemEnvironment();
        e.insert(QStringLiteral("MLSTUDIO_HOME"), m_home.path());
        return e;
    }

    QString writeSpec(const char* name, const std::string& script) {
        const QString path = m_specs.path() + QLatin1Char('/') + QLatin1String(name) + ".json";
        std::ofstream(path.toStdString())
            << nlohmann::json{{"name", name}, {"entry_point", {"/bin/sh", "-c", script}}}.dump();
        return path;
    }

    void start(QProcess& p, const QStringList& args) {
        p.setProcessEnvironment(env());
        p.start(QStringLiteral(STUDIO_BIN_DIR "/mlstudio"), args);
        QVERIFY(p.waitForStarted());
    }

    Result run(const QStringList& args, int timeoutMs = 60000) {
        QProcess p;
        start(p, args);
        if (!p.waitForFinished(timeoutMs))
            p.kill();
        return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
                QString::fromUtf8(p.readAllStandardError())};
    }

    nlohmann::json show(const QString& job) {
        const Result r = run({QStringLiteral("show"), QStringLiteral("--json"), job});
        return nlohmann::json::parse(r.out.toStdString(), nullptr, false);
    }

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
        const Result follow = run(
            {QStringLiteral("logs"), QStringLiteral("--follow"), QStringLiteral("crashed")}, 10000);
        QVERIFY(follow.out.contains(QStringLiteral("ready")));
        const Result list = run({QStringLiteral("list"), QStringLiteral("jobs")});
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
        QCOMPARE(show(QStringLiteral("survivor"))["status"].get<std::string>(),
                 std::string("InProgress"));
        const Result follow =
            run({QStringLiteral("logs"), QStringLiteral("--follow"), QStringLiteral("survivor")},
                30000);
        QVERIFY2(follow.out.contains(QStringLiteral("line 8")), qPrintable(follow.out));
        QCOMPARE(follow.out.count(QStringLiteral("line 1\n")), 1);
        QCOMPARE(show(QStringLiteral("survivor"))["status"].get<std::string>(),
                 std::string("Completed"));
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
        const Result attach = run({QStringLiteral("attach"), QStringLiteral("piped")}, 30000);
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
