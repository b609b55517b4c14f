// A hostile local user (another uid, through setpriv) against a running job: it must fail to
// stop or interrupt it, to read its database, spec, logs or secret, or to reach its control
// socket; the job runs on untouched. Needs root (skips otherwise).
#include "engine/control/control_channel.h"
#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/spec/spec_parser.h"
#include "engine/store/store_reader.h"
#include "tests/support/child_process.h"
#include "tests/support/test_controller.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace studio;

namespace {

constexpr const char* kSecret = "hostile-test-secret-9f2e";
constexpr const char* kNobody = "65534";

// Runs argv as uid/gid 65534 with no supplementary groups.
testing::CommandResult asNobody(const std::vector<std::string>& argv, const std::string& home) {
    std::vector<std::string> full = {"setpriv", "--reuid",        kNobody, "--regid",
                                     kNobody,   "--clear-groups", "env",   "MLSTUDIO_HOME=" + home};
    full.insert(full.end(), argv.begin(), argv.end());
    return testing::runCommand(full, std::chrono::seconds(20));
}

} // namespace

class TestHostileUser : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    std::string m_home;
    std::unique_ptr<control::Controller> m_controller;

private Q_SLOTS:
    void initTestCase() {
        if (::geteuid() != 0)
            QSKIP("needs root to run commands as another uid");
        // Everything above the home may be open to others; the home itself is the studio's.
        ::chmod(m_tmp.path().toLocal8Bit().constData(), 0755);
        m_home = m_tmp.path().toStdString() + "/home";
        ::setenv("HOSTILE_TEST_SECRET", kSecret, 1);
        m_controller = std::make_unique<control::Controller>(
            testControllerOptions(QString::fromStdString(m_home)));
    }
    void cleanupTestCase() { m_controller.reset(); }

    void anotherUserCannotTouchTheJob() {
        auto parsed = spec::parseSpecText(
            nlohmann::json{{"name", "guarded"},
                           {"entry_point", {"/bin/sleep", "60"}},
                           {"use_spot_instances", true},
                           {"max_run", 600},
                           {"max_wait", 1200},
                           {"environment",
                            {{"TOKEN", {{"secret", true}, {"from_env", "HOSTILE_TEST_SECRET"}}}}}}
                .dump(),
            STUDIO_SOURCE_DIR);
        QVERIFY2(parsed.ok(), parsed.ok() ? "" : parsed.errors.front().text().c_str());
        const auto job = m_controller->submit(*parsed.spec);
        const std::string socket = control::controlSocketPath(m_home, job.name);
        QTRY_VERIFY_WITH_TIMEOUT(::access(socket.c_str(), F_OK) == 0, 10000);
        const std::string mlstudio = STUDIO_BIN_DIR "/mlstudio";
        // The other uid can run things at all, and can reach the folder above the home.
        const auto control = asNobody({"ls", m_tmp.path().toStdString()}, m_home);
        QVERIFY2(control.ok(), control.output.c_str());

        for (const char* action : {"stop", "interrupt"}) {
            const auto r = asNobody({mlstudio, action, job.name}, m_home);
            QVERIFY2(!r.ok(), (std::string(action) + " worked: " + r.output).c_str());
        }
        for (const char* reader : {"show", "logs"}) {
            const auto r = asNobody({mlstudio, reader, job.name}, m_home);
            QVERIFY2(!r.ok() && r.output.find(kSecret) == std::string::npos,
                     (std::string(reader) + ": " + r.output).c_str());
        }
        for (const std::string& file :
             {control::databasePath(m_home), job.jobDir + "/spec.json", socket}) {
            const auto r = asNobody({"cat", file}, m_home);
            QVERIFY2(!r.ok(), ("read " + file + ": " + r.output).c_str());
        }
        // The rank's environment holds the secret; the kernel keeps it from other users.
        auto detail = store::StoreReader(control::databasePath(m_home)).detail(job.name);
        QVERIFY(detail && !detail->ranks.empty());
        const auto environ =
            asNobody({"cat", "/proc/" + std::to_string(detail->ranks[0].pid) + "/environ"}, m_home);
        QVERIFY2(!environ.ok() && environ.output.find(kSecret) == std::string::npos,
                 environ.output.c_str());

        QCOMPARE(store::StoreReader(control::databasePath(m_home)).component(job.name)->status,
                 std::string("InProgress"));
        QVERIFY(m_controller->stop(job.name));
        QCOMPARE(m_controller->wait(job.name), std::string("Stopped"));
        QCOMPARE(
            store::StoreReader(control::databasePath(m_home)).component(job.name)->failureReason,
            std::string("Stopped by user"));
    }
};

QTEST_GUILESS_MAIN(TestHostileUser)
#include "test_hostile_user.moc"
