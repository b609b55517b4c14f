// Slurm clusters from the command line against a real Slurm (tests/support/slurm_cluster.h):
// `cluster add --slurm` and `cluster check` over JWT and over slurmrestd's unix socket, each
// with a test job that shows the workdir is shared; and the ways it cannot work, each a clear
// error naming the cluster: a rejected token, a URL nobody listens on, an API version neither
// side shares, a partition Slurm does not have. The token never reaches the studio's files.
// Needs root (the fixture's namespaces and daemons); skipped elsewhere.
#include "tests/support/mlstudio_cli.h"
#include "tests/support/slurm_cluster.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

using namespace studio::testing;
using nlohmann::json;

namespace {

int freeLoopbackPort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(fd); // nobody listens there now
    return ntohs(a.sin_port);
}

std::string readAll(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

class TestSlurmCluster : public QObject {
    Q_OBJECT

    std::unique_ptr<SlurmCluster> m_slurm;
    QTemporaryDir m_home;
    std::unique_ptr<MlstudioCli> m_cli;
    std::string m_badToken;

    std::string tail() const { return m_slurm ? m_slurm->logTail(10) : std::string(); }

    // `cluster add NAME --slurm URL ARGS... --json`: the exit code and the JSON it printed.
    std::pair<CliResult, json> add(const QString& name, const QString& url,
                                   const QStringList& args) {
        QStringList all = {QStringLiteral("cluster"),
                           QStringLiteral("add"),
                           name,
                           QStringLiteral("--slurm"),
                           url,
                           QStringLiteral("--workdir"),
                           QString::fromStdString(m_slurm->sharedDir()),
                           QStringLiteral("--json")};
        all += args;
        const CliResult r = m_cli->run(all, 120000);
        return {r, json::parse(r.out.toStdString(), nullptr, false)};
    }

    // A failed add: exit 1, the check's error of `kind` names the cluster and holds `needle`,
    // also on stderr.
    void expectFailure(const QString& name, const QString& url, const QStringList& args,
                       const std::string& kind, const std::string& needle) {
        const auto [r, j] = add(name, url, args);
        QVERIFY2(j.is_object(), qPrintable(r.out + r.err));
        QCOMPARE(r.code, 1);
        const json& check = j["check"];
        QCOMPARE(check["ok"], json(false));
        QCOMPARE(check["error_kind"].get<std::string>(), kind);
        const std::string error = check["error"].get<std::string>();
        QVERIFY2(error.rfind("cluster " + name.toStdString() + ": ", 0) == 0, error.c_str());
        QVERIFY2(error.find(needle) != std::string::npos, error.c_str());
        QVERIFY2(r.err.toStdString().find(error) != std::string::npos, qPrintable(r.err));
        // The text form says the same.
        const CliResult text =
            m_cli->run({QStringLiteral("cluster"), QStringLiteral("check"), name}, 120000);
        QCOMPARE(text.code, 1);
        QVERIFY2(text.out.toStdString().find(needle) != std::string::npos, qPrintable(text.out));
        QVERIFY2(text.out.contains(QStringLiteral("is not ready")), qPrintable(text.out));
    }

    // What a passing check reports, over either way in.
    void expectReady(const json& check, const std::string& jobUser) {
        QCOMPARE(check["ok"], json(true));
        QCOMPARE(check["error"], json(""));
        QCOMPARE(check["api_version"], json("v0.0.38"));
        const auto served = check["api_versions_served"].get<std::vector<std::string>>();
        QVERIFY(std::find(served.begin(), served.end(), "v0.0.37") != served.end());
        QVERIFY(std::find(served.begin(), served.end(), "v0.0.38") != served.end());
        QVERIFY(!check["slurm_release"].get<std::string>().empty());
        QCOMPARE(check["ping"], json("UP"));
        QCOMPARE(check["authenticated"], json(true));
        std::map<std::string, json> partitions;
        for (const auto& p : check["partitions"])
            partitions[p["name"].get<std::string>()] = p;
        QVERIFY(partitions.count(SlurmCluster::kPartitionAll));
        QVERIFY(partitions.count(SlurmCluster::kPartitionOne));
        const json& all = partitions[SlurmCluster::kPartitionAll];
        QCOMPARE(all["default"], json(true));
        QCOMPARE(all["state"], json("UP"));
        QCOMPARE(all["total_nodes"], json(2));
        QCOMPARE(all["total_cpus"], json(4));
        QCOMPARE(partitions[SlurmCluster::kPartitionOne]["total_nodes"], json(1));
        std::vector<std::string> nodes;
        for (const auto& n : check["nodes"]) {
            nodes.push_back(n["name"].get<std::string>());
            QCOMPARE(n["cpus"], json(2));
            QVERIFY(!n["partitions"].empty());
        }
        QCOMPARE(nodes, m_slurm->nodeNames());
        const json& w = check["workdir"];
        QCOMPARE(w["path"], json(m_slurm->sharedDir()));
        QCOMPARE(w["visible"], json(true));
        QVERIFY(w["job_id"].get<std::int64_t>() > 0);
        const std::string node = w["node"].get<std::string>();
        QVERIFY2(node == "h1" || node == "h2", node.c_str());
        QCOMPARE(w["job_user"].get<std::string>(), jobUser);
        // The marker is gone again.
        for (const auto& e : std::filesystem::directory_iterator(m_slurm->sharedDir()))
            QVERIFY2(e.path().filename().string().rfind(".mlstudio-check", 0) != 0,
                     e.path().c_str());
    }

private Q_SLOTS:
    void initTestCase() {
        const std::string why = SlurmCluster::unavailableReason();
        if (!why.empty())
            QSKIP(why.c_str());
        QVERIFY(m_home.isValid());
        m_cli = std::make_unique<MlstudioCli>(m_home.path());
        QVERIFY_THROWS_NO_EXCEPTION(m_slurm = std::make_unique<SlurmCluster>());
    }

    void cleanupTestCase() { m_slurm.reset(); }

    void addAndCheckOverJwt() {
        const auto [r, j] =
            add(QStringLiteral("jwt"), QString::fromStdString(m_slurm->restUrl()),
                {QStringLiteral("--token-file"), QString::fromStdString(m_slurm->tokenFile())});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err + QString::fromStdString(tail())));
        QCOMPARE(j["cluster"]["kind"], json("slurm"));
        QCOMPARE(j["cluster"]["slurm"]["token_file"], json(m_slurm->tokenFile()));
        expectReady(j["check"], m_slurm->tokenUser());

        // The text forms: check (with its partition table), show, list.
        const CliResult check = m_cli->run(
            {QStringLiteral("cluster"), QStringLiteral("check"), QStringLiteral("jwt")}, 120000);
        QVERIFY2(check.code == 0, qPrintable(check.out + check.err));
        for (const char* needle : {"serves v0.0.36, v0.0.37, v0.0.38; using v0.0.38", "Slurm 2",
                                   "controller UP", "JWT for user root", "PARTITION", "debug*",
                                   "2 (2 idle)", "Workdir ", "is shared", "Cluster jwt is ready."})
            QVERIFY2(check.out.contains(QLatin1String(needle)),
                     qPrintable(QLatin1String(needle) + QStringLiteral(" in\n") + check.out));
        const CliResult show =
            m_cli->run({QStringLiteral("cluster"), QStringLiteral("show"), QStringLiteral("jwt")});
        QCOMPARE(show.code, 0);
        QVERIFY2(
            show.out.contains(QString::fromStdString("Token        file " + m_slurm->tokenFile())),
            qPrintable(show.out));
        QVERIFY2(show.out.contains(QStringLiteral(": ready")), qPrintable(show.out));
        const CliResult list = m_cli->run(
            {QStringLiteral("cluster"), QStringLiteral("list"), QStringLiteral("--json")});
        const json clusters = json::parse(list.out.toStdString());
        bool found = false;
        for (const auto& c : clusters)
            if (c["name"] == "jwt") {
                found = true;
                QCOMPARE(c["last_check"]["ok"], json(true));
                QCOMPARE(c["slurm"]["url"], json(m_slurm->restUrl()));
            }
        QVERIFY(found);
    }

    void addAndCheckOverUnixSocket() {
        const auto [r, j] =
            add(QStringLiteral("sock"), QString::fromStdString(m_slurm->socketUrl()), {});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err + QString::fromStdString(tail())));
        QCOMPARE(j["cluster"]["slurm"]["token_file"], json(""));
        expectReady(j["check"], "nobody"); // local auth runs jobs as slurmrestd's user
    }

    void tokenFromVariable() {
        qputenv("STUDIO_TEST_SLURM_JWT",
                QByteArray::fromStdString("SLURM_JWT=" + m_slurm->token()));
        const auto [r, j] =
            add(QStringLiteral("env"), QString::fromStdString(m_slurm->restUrl()),
                {QStringLiteral("--token-env"), QStringLiteral("STUDIO_TEST_SLURM_JWT"),
                 QStringLiteral("--user"), QStringLiteral("root")});
        qunsetenv("STUDIO_TEST_SLURM_JWT");
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        QCOMPARE(j["check"]["ok"], json(true));
        QCOMPARE(j["cluster"]["slurm"]["token_env"], json("STUDIO_TEST_SLURM_JWT"));
    }

    void badTokenIsAnAuthError() {
        // The real token with its signature changed: well-formed, but not signed by Slurm's key.
        m_badToken = m_slurm->token();
        m_badToken.back() = m_badToken.back() == 'A' ? 'B' : 'A';
        m_badToken.insert(m_badToken.size() - 4, "Zz9");
        const std::string file = m_home.path().toStdString() + "/bad.token";
        std::ofstream(file) << "SLURM_JWT=" << m_badToken << "\n";
        expectFailure(QStringLiteral("badtoken"), QString::fromStdString(m_slurm->restUrl()),
                      {QStringLiteral("--token-file"), QString::fromStdString(file)}, "auth",
                      "rejected the token for user root: check --token-file/--token-env, mint "
                      "one with `scontrol token");
    }

    void unreachableUrl() {
        const std::string url = "http://127.0.0.1:" + std::to_string(freeLoopbackPort());
        expectFailure(
            QStringLiteral("nowhere"), QString::fromStdString(url),
            {QStringLiteral("--token-file"), QString::fromStdString(m_slurm->tokenFile())},
            "unreachable", "cannot reach slurmrestd at " + url);
    }

    void unsupportedApiVersion() {
        expectFailure(QStringLiteral("future"), QString::fromStdString(m_slurm->restUrl()),
                      {QStringLiteral("--token-file"), QString::fromStdString(m_slurm->tokenFile()),
                       QStringLiteral("--api-version"), QStringLiteral("v0.0.99")},
                      "version",
                      "api_version v0.0.99 cannot be used: slurmrestd serves v0.0.36, v0.0.37, "
                      "v0.0.38; this studio speaks v0.0.37, v0.0.38");
    }

    void unknownPartitionIsRejected() {
        expectFailure(QStringLiteral("nopart"), QString::fromStdString(m_slurm->socketUrl()),
                      {QStringLiteral("--partition"), QStringLiteral("nosuch")}, "rejected",
                      "Invalid partition name specified");
    }

    // Where the token is is kept; the token is not, in the database or anywhere in the home.
    void tokenNeverStored() {
        QVERIFY(m_slurm);
        const std::string token = m_slurm->token();
        QVERIFY(token.size() > 40);
        std::vector<std::string> needles = {token, token.substr(token.rfind('.') + 1)};
        if (!m_badToken.empty())
            needles.push_back(m_badToken.substr(m_badToken.rfind('.') + 1));
        int files = 0;
        for (const auto& e :
             std::filesystem::recursive_directory_iterator(m_home.path().toStdString())) {
            if (!e.is_regular_file() || e.path().filename() == "bad.token")
                continue;
            ++files;
            const std::string bytes = readAll(e.path());
            for (const auto& n : needles)
                QVERIFY2(bytes.find(n) == std::string::npos, e.path().c_str());
        }
        QVERIFY(files > 0); // studio.db at least
        QVERIFY(std::filesystem::exists(m_home.path().toStdString() + "/studio.db"));
    }
};

QTEST_GUILESS_MAIN(TestSlurmCluster)
#include "test_slurm_cluster.moc"
