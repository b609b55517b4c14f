// Standing fault injection: 50 rounds of a job that prints metric lines, each round hit by one
// fault at a random moment (seeded): the studio process SIGKILLed (then attached again) or
// SIGTERMed, the launcher SIGKILLed, the rank SIGKILLed or SIGTERMed, the rank's output cut
// mid-line, the database held busy, the disk filled (the studio home is a small tmpfs when the
// test runs as root). After every round: PRAGMA integrity_check is ok, no process
// of the job is left, the final status and reason are the true ones, and every metric line in
// the rank's log is in the store exactly once.
#include "tests/support/mlstudio_cli.h"
#include "tests/support/process_check.h"
#include "tests/support/tmpfs_mount.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <sqlite3.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <thread>

namespace {

enum class Fault {
    KillStudio,
    TermStudio,
    KillLauncher,
    KillRank,
    TermRank,
    CutLine,
    DbBusy,
    DiskFull
};
constexpr int kFaults = 8;
constexpr int kRounds = 50;
constexpr int kLines = 120;

const char* faultName(Fault f) {
    static const char* names[] = {"kill studio", "term studio", "kill launcher", "kill rank",
                                  "term rank",   "cut line",    "database busy", "disk full"};
    return names[static_cast<int>(f)];
}

std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), {});
}

} // namespace

class TestFaults : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    QTemporaryDir m_specs;
    std::unique_ptr<TmpfsMount> m_disk; // root: the home is a 64 MiB tmpfs of this test's own

    MlstudioCli m_cli{m_home.path()};

    void start(QProcess& p, const QStringList& args) { m_cli.start(p, args); }
    QString run(const QStringList& args, int timeoutMs = 60000) {
        return m_cli.run(args, timeoutMs).out;
    }
    nlohmann::json show(const std::string& job) { return m_cli.show(QString::fromStdString(job)); }

    QString writeSpec(int round, Fault f) {
        // The cut-line job ends by killing itself in the middle of a metric line. A job whose
        // studio, launcher or rank the round signals outlives its lines by 10 s: under
        // AddressSanitizer on a loaded machine the signal could come after 120 lines' 1.2 s,
        // and the job had Completed (seen for a SIGTERM'd studio and a SIGTERM'd rank).
        const bool signalled = f == Fault::TermStudio || f == Fault::KillLauncher ||
                               f == Fault::KillRank || f == Fault::TermRank;
        const std::string tail = f == Fault::CutLine ? "printf 'step 999 loss=0.'; kill -9 $$"
                                 : signalled         ? "sleep 10"
                                                     : "true";
        const std::string script = "i=0; while [ $i -lt " + std::to_string(kLines) +
                                   " ]; do echo \"step $i loss=0.$i " + std::string(100, 'p') +
                                   "\"; i=$((i+1)); sleep 0.01; "
                                   "done; " +
                                   tail;
        const QString path = m_specs.filePath(QStringLiteral("round-%1.json").arg(round));
        std::ofstream(path.toStdString()) << nlohmann::json{
            {"name", "fault-" + std::to_string(round)},
            {"entry_point", {"/bin/sh", "-c", script}},
            {"metric_definitions",
             {{{"Name", "loss"},
               {"Regex", "loss=([0-9.]+)"}}}}}.dump();
        return path;
    }

    // The job's name once its rank has printed a few lines.
    std::string waitForTraining(int round) {
        const QString prefix = QStringLiteral("fault-%1").arg(round);
        for (int i = 0; i < 200; ++i) {
            const auto j = show(prefix.toStdString());
            if (j.is_object() && !j["ranks"].empty() && j["ranks"][0]["pid"].get<long>() > 0 &&
                j["metrics"].contains("loss"))
                return j["name"].get<std::string>();
            QTest::qWait(50);
        }
        qWarning("no training seen: %s", show(prefix.toStdString()).dump().substr(0, 600).c_str());
        return {};
    }

    void injectFault(Fault f, QProcess& studio, const nlohmann::json& j) {
        const long launcher = j["nodes"][0]["launcher_pid"].get<long>();
        const long rank = j["ranks"][0]["pid"].get<long>();
        switch (f) {
        case Fault::KillStudio:
            ::kill(static_cast<pid_t>(studio.processId()), SIGKILL);
            break;
        case Fault::TermStudio:
            ::kill(static_cast<pid_t>(studio.processId()), SIGTERM);
            break;
        case Fault::KillLauncher:
            ::kill(static_cast<pid_t>(launcher), SIGKILL);
            break;
        case Fault::KillRank:
            ::kill(static_cast<pid_t>(rank), SIGKILL);
            break;
        case Fault::TermRank:
            ::kill(static_cast<pid_t>(rank), SIGTERM);
            break;
        case Fault::CutLine:
            break; // the job cuts its own line
        case Fault::DbBusy:
            holdDatabase(1500);
            break;
        case Fault::DiskFull:
            m_disk->fill(m_home.filePath(QStringLiteral("studio.db.reserve")).toStdString());
            break;
        }
    }

    // Another process's exclusive transaction on studio.db for a while.
    void holdDatabase(int millis) {
        sqlite3* db = nullptr;
        const std::string path = m_home.filePath(QStringLiteral("studio.db")).toStdString();
        QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
        sqlite3_busy_timeout(db, 5000);
        QCOMPARE(sqlite3_exec(db, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
        std::this_thread::sleep_for(std::chrono::milliseconds(millis));
        sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
        sqlite3_close(db);
    }

    void checkRound(int round, Fault f, const std::string& job, const nlohmann::json& before) {
        const auto j = show(job);
        const std::string status = j["status"].get<std::string>();
        const std::string reason = j["failure_reason"].get<std::string>();
        const std::string what =
            "round " + std::to_string(round) + " (" + faultName(f) + "): " + status + ": " + reason;
        switch (f) {
        case Fault::KillStudio:
        case Fault::DbBusy:
            QVERIFY2(status == "Completed", what.c_str());
            break;
        case Fault::TermStudio:
            QVERIFY2(status == "Stopped", what.c_str());
            break;
        case Fault::KillLauncher:
            QVERIFY2(status == "Failed" && reason.find("launcher of node 0") != std::string::npos,
                     what.c_str());
            break;
        case Fault::KillRank:
        case Fault::CutLine:
        case Fault::TermRank:
            QVERIFY2(status == "Failed" && reason.find("rank 0") != std::string::npos,
                     what.c_str());
            break;
        case Fault::DiskFull: // the database, the job's log or the launcher's journal says so
            QVERIFY2(status == "Failed" &&
                         (reason.find("No space left on device") != std::string::npos ||
                          reason.find("disk is full") != std::string::npos),
                     what.c_str());
            break;
        }
        // Nothing of the job runs any more.
        QTRY_VERIFY2_WITH_TIMEOUT(processGone(before["nodes"][0]["launcher_pid"].get<long>()),
                                  what.c_str(), 5000);
        QTRY_VERIFY2_WITH_TIMEOUT(processGone(before["ranks"][0]["pid"].get<long>()), what.c_str(),
                                  5000);
        // Every metric line of the log is stored, once.
        const std::string log = readAll(j["job_dir"].get<std::string>() + "/logs/rank-0.log");
        std::size_t lines = 0;
        for (std::size_t at = log.find("loss="); at != std::string::npos;
             at = log.find("loss=", at + 1))
            ++lines;
        const std::int64_t stored =
            j["metrics"].contains("loss") ? j["metrics"]["loss"]["count"].get<std::int64_t>() : 0;
        QVERIFY2(stored == distinctLossSteps(job), (what + ": a metric stored twice").c_str());
        if (f == Fault::DiskFull) {
            // The batch in flight when the disk filled is lost (the reason counts its writes),
            // and the log stops where the disk did; nothing stored before is lost, and the log
            // ends with a whole line.
            const std::int64_t earlier = before["metrics"]["loss"]["count"].get<std::int64_t>();
            QVERIFY2(stored >= earlier, (what + ": " + std::to_string(earlier) +
                                         " stored before, " + std::to_string(stored) + " after")
                                            .c_str());
            QVERIFY2(log.empty() || log.back() == '\n', (what + ": the log ends mid-line").c_str());
            std::istringstream in(log);
            for (std::string line; std::getline(in, line);)
                QVERIFY2(line.find(" stdout step ") != std::string::npos ||
                             line.find(" stderr ") != std::string::npos,
                         (what + ": a broken log line: " + line).c_str());
            return;
        }
        QVERIFY2(static_cast<std::int64_t>(lines) == stored,
                 (what + ": " + std::to_string(lines) + " metric lines in the log, " +
                  std::to_string(stored) + " stored")
                     .c_str());
    }

    // The loss points of a job, counted by step, from the database itself.
    std::int64_t distinctLossSteps(const std::string& job) {
        sqlite3* db = nullptr;
        const std::string path = m_home.filePath(QStringLiteral("studio.db")).toStdString();
        if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
            return -1;
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(db,
                           "SELECT COUNT(DISTINCT p.step) FROM metric_points p "
                           "JOIN metric_series s ON s.id = p.series_id "
                           "JOIN trial_components c ON c.id = s.component_id "
                           "WHERE c.name = ? AND s.name = 'loss'",
                           -1, &st, nullptr);
        sqlite3_bind_text(st, 1, job.c_str(), -1, SQLITE_TRANSIENT);
        const std::int64_t n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
        sqlite3_finalize(st);
        sqlite3_close(db);
        return n;
    }

    void integrityOk() {
        sqlite3* db = nullptr;
        const std::string path = m_home.filePath(QStringLiteral("studio.db")).toStdString();
        QCOMPARE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, nullptr);
        QCOMPARE(sqlite3_step(st), SQLITE_ROW);
        const std::string result = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
        sqlite3_close(db);
        QCOMPARE(result, std::string("ok"));
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_home.isValid());
        m_disk = std::make_unique<TmpfsMount>(m_home.path().toStdString(), "64m");
        if (!m_disk->mounted())
            qInfo("not root: no disk-full rounds");
    }

    void cleanupTestCase() { m_disk.reset(); }

    void fiftyRounds() {
        const unsigned seed = qEnvironmentVariableIsSet("STUDIO_FAULT_SEED")
                                  ? qEnvironmentVariableIntValue("STUDIO_FAULT_SEED")
                                  : 20261125u;
        qInfo("fault seed %u (STUDIO_FAULT_SEED repeats a run)", seed);
        std::mt19937 rng(seed);
        std::uniform_int_distribution<int> delay(0, 600);
        // STUDIO_FAULT_ONLY=N repeats one kind of fault (its place in the list above, from 0).
        const int only = qEnvironmentVariableIsSet("STUDIO_FAULT_ONLY")
                             ? qEnvironmentVariableIntValue("STUDIO_FAULT_ONLY")
                             : -1;
        for (int round = 0; round < kRounds; ++round) {
            Fault f = static_cast<Fault>(only >= 0 && only < kFaults ? only : round % kFaults);
            if (f == Fault::DiskFull && !m_disk->mounted())
                f = Fault::DbBusy; // not root: no file system of our own to fill
            QProcess studio;
            start(studio, {QStringLiteral("run"), writeSpec(round, f)});
            const std::string job = waitForTraining(round);
            if (job.empty())
                qWarning("mlstudio run: %s", studio.readAllStandardError().constData());
            QVERIFY2(!job.empty(), ("round " + std::to_string(round) + " never trained").c_str());
            const int wait = delay(rng); // drawn every round: the seed gives the same moments
            if (f != Fault::DiskFull)    // the disk fills at once: most of the job is still to run
                QTest::qWait(wait);
            const auto before = show(job);
            injectFault(f, studio, before);
            QVERIFY(studio.waitForFinished(30000));
            if (f == Fault::KillStudio) // the launcher went on: follow it to its end
                run({QStringLiteral("attach"), QString::fromStdString(job)}, 30000);
            checkRound(round, f, job, before);
            integrityOk();
            if (f == Fault::DiskFull)
                m_disk->empty();
            if (QTest::currentTestFailed())
                return;
        }
        qInfo("%d rounds survived", kRounds);
    }
};

QTEST_GUILESS_MAIN(TestFaults)
#include "test_faults.moc"
