// distribution.mpi jobs under Open MPI's mpirun on this machine (2 nodes x 2 ranks): the
// mpi4py example meets in one world of 4, every rank's lines reach its own log, events and
// environment arrive; a failing rank fails the job with that rank named and nothing left;
// Stop ends every rank; custom_mpi_options with hostile text reach mpirun as arguments only;
// a machine without mpirun gets a clear error.
#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/spec/spec_parser.h"
#include "engine/store/store_reader.h"
#include "tests/support/process_check.h"

#include <nlohmann/json.hpp>

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace studio;
using nlohmann::json;

namespace {

const std::string kExamples = std::string(STUDIO_SOURCE_DIR) + "/resources/examples";

spec::JobSpec specFrom(const json& doc) {
    auto r = spec::parseSpecText(doc.dump(), kExamples);
    if (!r.ok())
        throw std::runtime_error(r.errors.front().text());
    return *r.spec;
}

// The example with its hyperparameters and distribution changed.
json example(const std::string& name, const json& hps, const json& mpiExtra = json::object()) {
    std::ifstream in(kExamples + "/mpi4py-allreduce.json");
    json doc = json::parse(in);
    doc["name"] = name;
    doc.erase("experiment_config");
    for (auto it = hps.begin(); it != hps.end(); ++it)
        doc["hyperparameters"][it.key()] = *it;
    for (auto it = mpiExtra.begin(); it != mpiExtra.end(); ++it)
        doc["distribution"]["mpi"][it.key()] = *it;
    return doc;
}

json readJson(const std::string& path) {
    std::ifstream in(path);
    return json::parse(in, nullptr, false);
}

std::string readText(const std::string& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), {});
}

// Processes whose command line starts with `start` and holds `needle` (zombies and this test
// excluded).
std::vector<std::string> processesWith(const std::string& needle, const std::string& start = {}) {
    std::vector<std::string> found;
    for (const auto& e : std::filesystem::directory_iterator("/proc")) {
        const std::string pid = e.path().filename().string();
        if (pid.find_first_not_of("0123456789") != std::string::npos ||
            std::stol(pid) == ::getpid() || processGone(std::stol(pid)))
            continue;
        std::string cmd = readText(e.path().string() + "/cmdline");
        std::replace(cmd.begin(), cmd.end(), '\0', ' ');
        if (cmd.find(needle) != std::string::npos && cmd.rfind(start, 0) == 0)
            found.push_back(pid + " " + cmd);
    }
    return found;
}

} // namespace

class TestMpiJobs : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    std::unique_ptr<control::Controller> m_controller;

    store::StoreReader reader() {
        return store::StoreReader(control::databasePath(m_home.path().toStdString()));
    }

    // Nothing of the job runs: its ranks' shims, their scripts, mpirun, the launchers.
    void checkNothingLeft(const std::string& job) {
        QTRY_VERIFY_WITH_TIMEOUT(processesWith("mlstudio-mpi/" + job + "/").empty(), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(processesWith("mpi_allreduce.py").empty(), 10000);
        const auto d = reader().detail(job);
        QVERIFY(d);
        for (const auto& rank : d->ranks)
            QVERIFY2(processGone(rank.pid), ("rank " + std::to_string(rank.rank)).c_str());
        for (const auto& node : d->nodes)
            QVERIFY2(processGone(node.launcherPid), "a launcher still runs");
    }

private Q_SLOTS:
    void initTestCase() {
        control::ControllerOptions o;
        o.home = m_home.path().toStdString();
        o.launcherPath = std::string(STUDIO_BIN_DIR) + "/studio-launcher";
        o.graceSeconds = 3;
        m_controller = std::make_unique<control::Controller>(o);
    }
    void cleanupTestCase() { m_controller.reset(); }

    void exampleMeetsInOneWorld() {
        auto parsed = spec::parseSpecFile(kExamples + "/mpi4py-allreduce.json");
        QVERIFY(parsed.ok());
        const auto job = m_controller->submit(*parsed.spec);
        const std::string status = m_controller->wait(job.name);
        auto r = reader();
        const auto d = r.detail(job.name);
        QVERIFY2(status == "Completed", d->row.failureReason.c_str());
        QCOMPARE(d->nodes.size(), std::size_t(2));
        QCOMPARE(d->ranks.size(), std::size_t(4));
        for (const auto& rank : d->ranks) {
            QCOMPARE(rank.exitCode.value_or(-1), 0);
            QCOMPARE(rank.node, rank.rank / 2);
            QVERIFY(rank.pid > 0);
        }
        // Every rank's own lines, in its own log: world 4, the right sum every round.
        for (int rank = 0; rank < 4; ++rank) {
            const std::string log =
                readText(d->row.jobDir + "/logs/rank-" + std::to_string(rank) + ".log");
            for (int round = 0; round < 3; ++round) {
                const std::string want = "rank " + std::to_string(rank) +
                                         " of 4: round=" + std::to_string(round) +
                                         " sum=" + std::to_string(6 + 4 * round);
                QVERIFY2(log.find(want) != std::string::npos, (want + " in\n" + log).c_str());
            }
            QVERIFY(log.find("rank " + std::to_string(rank) + " done") != std::string::npos);
            for (int other = 0; other < 4; ++other)
                if (other != rank)
                    QVERIFY(log.find("rank " + std::to_string(other) + " of") == std::string::npos);
            const json seen =
                readJson(d->row.jobDir + "/output/rank-" + std::to_string(rank) + ".json");
            QCOMPARE(seen["world"].get<int>(), 4);
            QCOMPARE(seen["env"]["RANK"].get<std::string>(), std::to_string(rank));
            QCOMPARE(seen["env"]["OMPI_COMM_WORLD_RANK"].get<std::string>(), std::to_string(rank));
            QCOMPARE(seen["env"]["SM_CURRENT_HOST"].get<std::string>(),
                     "algo-" + std::to_string(rank / 2 + 1));
            QCOMPARE(json::parse(seen["env"]["SM_HPS"].get<std::string>())["rounds"].get<int>(), 3);
        }
        // Events on STUDIO_EVENTS_FD and metric_definitions over the tagged lines.
        QCOMPARE(d->metrics.at("allreduce:sum").last, 6.0 + 4 * 2);
        QCOMPARE(d->metrics.at("allreduce:world").max, 4.0);
        // The launcher's log names the mpirun it ran.
        const std::string launcherLog = readText(d->row.jobDir + "/logs/launcher-0.log");
        QVERIFY2(launcherLog.find("mpirun --tag-output -np 4") != std::string::npos,
                 launcherLog.c_str());
        checkNothingLeft(job.name);
    }

    void failingRankFailsTheJobNamingIt() {
        const auto job =
            m_controller->submit(specFrom(example("mpi-fails", {{"fail-rank", 3}, {"sleep", 60}})));
        QCOMPARE(m_controller->wait(job.name), std::string("Failed"));
        const auto d = reader().detail(job.name);
        const std::string& why = d->row.failureReason;
        QVERIFY2(why.find("rank 3 (node 1") != std::string::npos, why.c_str());
        QVERIFY2(why.find("exited with code 3") != std::string::npos, why.c_str());
        QVERIFY2(why.find("rank 3 fails on purpose") != std::string::npos, why.c_str());
        double failedAt = 0;
        for (const auto& rank : d->ranks)
            if (rank.rank == 3)
                failedAt = rank.ended;
        QVERIFY(failedAt > 0);
        // The other ranks sleep 60 s; the job ended with the failure, not with them. The time
        // it takes is a benchmark's figure (bench_mpi); here it is only shown.
        const double after = d->row.ended - failedAt;
        qInfo("job ended %.2f s after rank 3 failed", after);
        QVERIFY2(after < 30, std::to_string(after).c_str());
        checkNothingLeft(job.name);
    }

    void stopEndsEveryRank() {
        // Each rank takes 1.5 s to save at SIGTERM: the grace period (3 s here) is theirs, not
        // cut short by mpirun's own kill.
        const auto job = m_controller->submit(
            specFrom(example("mpi-stop", {{"sleep", 120}, {"save-seconds", 1.5}})));
        QTRY_VERIFY_WITH_TIMEOUT(reader().component(job.name)->secondaryStatus == "Training",
                                 20000);
        // Every rank has set up its SIGTERM handler and done its rounds.
        const std::string logs = reader().component(job.name)->jobDir + "/logs/rank-";
        for (int rank = 0; rank < 4; ++rank)
            QTRY_VERIFY_WITH_TIMEOUT(readText(logs + std::to_string(rank) + ".log")
                                             .find("rank " + std::to_string(rank) + " done") !=
                                         std::string::npos,
                                     20000);
        // The four ranks' scripts (the launchers' command lines name the script too).
        QCOMPARE(processesWith("mpi_allreduce.py", "/usr/bin/python3 ").size(), std::size_t(4));
        QVERIFY(m_controller->stop(job.name));
        QCOMPARE(m_controller->wait(job.name), std::string("Stopped"));
        const std::string out = reader().component(job.name)->jobDir + "/output/saved-";
        for (int rank = 0; rank < 4; ++rank)
            QVERIFY2(std::filesystem::exists(out + std::to_string(rank)),
                     ("rank " + std::to_string(rank) + " did not finish saving").c_str());
        checkNothingLeft(job.name);
    }

    // Quotes, ;, $() and backticks in custom_mpi_options are mpirun's arguments: -x passes
    // them to the ranks' environment unchanged, and no shell runs them.
    void hostileCustomOptionsAreArgumentsOnly() {
        QTemporaryDir dir;
        const std::string canary = dir.filePath(QStringLiteral("pwned")).toStdString();
        const std::string v1 = "a; touch " + canary + " `touch " + canary + "`";
        const std::string v2 = "$(touch " + canary + ") it's";
        const std::string options =
            "-x 'HOSTILE=" + v1 + "' -x \"HOSTILE2=\\$(touch " + canary + ") it's\"";
        const auto job = m_controller->submit(
            specFrom(example("mpi-hostile", {{"rounds", 1}}, {{"custom_mpi_options", options}})));
        QCOMPARE(m_controller->wait(job.name), std::string("Completed"));
        const auto d = reader().detail(job.name);
        for (int rank = 0; rank < 4; ++rank) {
            const json seen =
                readJson(d->row.jobDir + "/output/rank-" + std::to_string(rank) + ".json");
            QCOMPARE(seen["env"]["HOSTILE"].get<std::string>(), v1);
            QCOMPARE(seen["env"]["HOSTILE2"].get<std::string>(), v2);
        }
        QVERIFY(!std::filesystem::exists(canary));
        checkNothingLeft(job.name);
    }

    void withoutMpirunTheErrorNamesThePackage() {
        const QByteArray path = qgetenv("PATH");
        QTemporaryDir empty;
        qputenv("PATH", empty.path().toUtf8());
        const auto job = m_controller->submit(specFrom(example("mpi-missing", {{"rounds", 1}})));
        const std::string status = m_controller->wait(job.name);
        qputenv("PATH", path);
        QCOMPARE(status, std::string("Failed"));
        const std::string why = reader().component(job.name)->failureReason;
        QVERIFY2(why.find("mpirun is not installed") != std::string::npos, why.c_str());
        QVERIFY2(why.find("openmpi-bin") != std::string::npos, why.c_str());
        // On a host without it, node 0's launcher says so, naming the host and the package.
        QProcess launcher;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("PATH"), empty.path());
        launcher.setProcessEnvironment(env);
        launcher.start(QStringLiteral(STUDIO_BIN_DIR "/studio-launcher"),
                       {QStringLiteral("--run-id"), QStringLiteral("no-mpirun"),
                        QStringLiteral("--monitor-interval-ms"), QStringLiteral("0"),
                        QStringLiteral("--mpi"), QStringLiteral("--"),
                        QStringLiteral("/usr/bin/python3"), QStringLiteral("-c"),
                        QStringLiteral("pass")});
        QVERIFY(launcher.waitForFinished(30000));
        QCOMPARE(launcher.exitCode(), 1);
        const QString events = QString::fromUtf8(launcher.readAllStandardOutput());
        QVERIFY2(events.contains(QStringLiteral("\"node_failure\",\"message\":\"mpirun is not "
                                                "installed on ")) &&
                     events.contains(QStringLiteral("install Debian's openmpi-bin")),
                 qPrintable(events));
    }
};

QTEST_GUILESS_MAIN(TestMpiJobs)
#include "test_mpi_jobs.moc"
