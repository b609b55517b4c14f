// Secrets and file modes: a secret variable reaches the ranks and nothing else (no command
// line, no database, spec, log or journal), the home is 0700 and its database and specs 0600,
// and another uid can read none of it.
#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/spec/spec_parser.h"
#include "engine/store/store_reader.h"
#include "tests/support/test_controller.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace studio;

namespace {

constexpr const char* kSecret = "s3cr3t-token-4c1d-value";

spec::JobSpec specFrom(const nlohmann::json& doc) {
    auto r = spec::parseSpecText(doc.dump(), STUDIO_SOURCE_DIR);
    if (!r.ok())
        throw std::runtime_error(r.errors.front().text());
    return *r.spec;
}

std::string readAll(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), {});
}

// Every process's command line on this machine that holds `text`.
std::vector<std::string> commandLinesWith(const std::string& text) {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator("/proc")) {
        const std::string pid = e.path().filename().string();
        if (pid.find_first_not_of("0123456789") != std::string::npos)
            continue;
        std::string cmd = readAll(e.path() / "cmdline");
        if (cmd.find(text) != std::string::npos) {
            std::replace(cmd.begin(), cmd.end(), '\0', ' ');
            out.push_back(pid + ": " + cmd.substr(0, 200));
        }
    }
    return out;
}

unsigned modeOf(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? st.st_mode & 0777 : 0;
}

} // namespace

class TestSecrets : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    std::string m_home;
    std::unique_ptr<control::Controller> m_controller;

private Q_SLOTS:
    void initTestCase() {
        m_home = m_tmp.path().toStdString() + "/home"; // created by the studio itself
        ::setenv("TEST_SECRET_SOURCE", kSecret, 1);
        m_controller = std::make_unique<control::Controller>(
            testControllerOptions(QString::fromStdString(m_home)));
    }
    void cleanupTestCase() { m_controller.reset(); }

    // Before: values went on studio-launcher's command line (ps showed them) and verbatim
    // into studio.db and spec.json, created world-readable.
    void aSecretReachesTheRanksOnly() {
        const std::string script = "test \"$HF_TOKEN\" = \"$EXPECTED_TOKEN_CHECK\" || exit 9; "
                                   "echo token-ok plain=$PLAIN; sleep 2";
        const auto spec = specFrom(
            {{"name", "secret"},
             {"entry_point", {"/bin/sh", "-c", script}},
             {"environment",
              {{"HF_TOKEN", {{"secret", true}, {"from_env", "TEST_SECRET_SOURCE"}}},
               {"EXPECTED_TOKEN_CHECK", {{"secret", true}, {"from_env", "TEST_SECRET_SOURCE"}}},
               {"PLAIN", "visible-value"}}}});
        const auto job = m_controller->submit(spec);
        QTRY_VERIFY_WITH_TIMEOUT(std::filesystem::exists(job.jobDir + "/logs/rank-0.log") &&
                                     readAll(job.jobDir + "/logs/rank-0.log").find("token-ok") !=
                                         std::string::npos,
                                 15000);
        const auto shown = commandLinesWith(kSecret);
        QVERIFY2(shown.empty(), shown.empty() ? "" : shown.front().c_str());
        QVERIFY(commandLinesWith("visible-value").empty());
        QCOMPARE(m_controller->wait(job.name), std::string("Completed"));
        QVERIFY(readAll(job.jobDir + "/logs/rank-0.log").find("plain=visible-value") !=
                std::string::npos);
        for (const auto& e : std::filesystem::recursive_directory_iterator(m_home))
            if (e.is_regular_file())
                QVERIFY2(readAll(e.path()).find(kSecret) == std::string::npos, e.path().c_str());
        QCOMPARE(modeOf(m_home), 0700u);
        QCOMPARE(modeOf(control::databasePath(m_home)), 0600u);
        QCOMPARE(modeOf(job.jobDir + "/spec.json"), 0600u);
    }

    void aMissingSecretIsNamed() {
        const auto spec = specFrom(
            {{"entry_point", {"/bin/true"}},
             {"environment", {{"API_KEY", {{"secret", true}, {"from_env", "NOT_SET_ANYWHERE"}}}}}});
        try {
            m_controller->submit(spec);
            QFAIL("submitted without its secret");
        } catch (const std::exception& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("environment.API_KEY") != std::string::npos &&
                         what.find("NOT_SET_ANYWHERE") != std::string::npos,
                     e.what());
        }
        auto inline_ = spec::parseSpecText(
            R"({"entry_point": ["/bin/true"], "environment": {"K": {"secret": true, "value": "x"}}})",
            STUDIO_SOURCE_DIR);
        QVERIFY(!inline_.ok());
        QVERIFY2(inline_.errors.front().text().find("environment.K") == 0,
                 inline_.errors.front().text().c_str());
    }

    void anotherUserReadsNothing() {
        if (::geteuid() != 0)
            QSKIP("needs root to act as another uid");
        const std::string db = control::databasePath(m_home);
        const pid_t pid = ::fork();
        if (pid == 0) {
            if (::setresgid(65534, 65534, 65534) != 0 || ::setresuid(65534, 65534, 65534) != 0)
                ::_exit(3);
            const bool read =
                ::open(db.c_str(), O_RDONLY) >= 0 || ::opendir(m_home.c_str()) != nullptr;
            ::_exit(read ? 1 : 0);
        }
        int st = 0;
        ::waitpid(pid, &st, 0);
        QVERIFY(WIFEXITED(st));
        QCOMPARE(WEXITSTATUS(st), 0);
    }
};

QTEST_GUILESS_MAIN(TestSecrets)
#include "test_secrets.moc"
