// Clusters of SSH hosts from the command line, and the ways a remote job cannot start: a host
// that does not answer, a wrong host key, a launcher of another version, too few hosts. Each
// is a clear error naming the host (or cluster), with nothing left running anywhere. Uses the
// network-namespace hosts of tests/support/netns_hosts.h; needs root, skipped elsewhere.
#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/remote/host_facts.h"
#include "engine/spec/spec_parser.h"
#include "engine/store/store_reader.h"
#include "tests/support/process_check.h"
#include "tests/support/remote_cluster.h"
#include "tests/support/test_controller.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <fstream>

using namespace studio;
using studio::testing::NetnsHosts;

namespace {

struct Cli {
    int code = -1;
    std::string out, err;
};

spec::JobSpec twoNodeJob(const std::string& cluster, int nodes = 2) {
    auto r = spec::parseSpecText(
        R"({"name": "probe", "entry_point": ["/bin/sh", "-c", "sleep 1"], "cluster": ")" + cluster +
            R"(", "instance_count": )" + std::to_string(nodes) + "}",
        STUDIO_SOURCE_DIR "/tests/integration/python");
    if (!r.ok())
        throw std::runtime_error("spec: " + r.errors.front().text());
    return *r.spec;
}

} // namespace

class TestRemoteCluster : public QObject {
    Q_OBJECT

    std::unique_ptr<NetnsHosts> m_hosts;
    std::unique_ptr<SharedWorkRoot> m_work;
    QTemporaryDir m_home;

    std::string db() const { return control::databasePath(m_home.path().toStdString()); }

    Cli mlstudio(const std::vector<std::string>& args) {
        process::SpawnOptions o;
        o.argv = {STUDIO_BIN_DIR "/mlstudio"};
        o.argv.insert(o.argv.end(), args.begin(), args.end());
        o.env = process::currentEnvironment();
        o.env["MLSTUDIO_HOME"] = m_home.path().toStdString();
        process::Process p = process::Process::spawn(o);
        Cli r;
        r.out = readToEnd(p.stdoutFd());
        r.err = readToEnd(p.stderrFd());
        r.code = p.wait().code;
        return r;
    }

    // A job on `cluster` that must fail to start, naming `needle`; nothing runs afterwards.
    void expectStartFailure(const std::string& cluster, const std::string& needle) {
        control::Controller c(testControllerOptions(m_home.path()));
        const auto job = c.submit(twoNodeJob(cluster));
        QCOMPARE(waitForJob(c, job.name, 120), std::string("Failed"));
        store::StoreReader r(db());
        const std::string reason = r.component(job.name)->failureReason;
        QVERIFY2(reason.find(needle) != std::string::npos, reason.c_str());
        for (int h = 0; h < 2; ++h) {
            const auto left = leftOnHost(*m_hosts, h);
            QVERIFY2(left.empty(), left.empty() ? "" : left.front().c_str());
        }
    }

private Q_SLOTS:
    void initTestCase() {
        if (const std::string why = NetnsHosts::unavailableReason(); !why.empty())
            QSKIP(why.c_str());
        QVERIFY_THROWS_NO_EXCEPTION(m_hosts = std::make_unique<NetnsHosts>());
        m_work = std::make_unique<SharedWorkRoot>();
    }

    void cleanupTestCase() {
        m_hosts.reset();
        m_work.reset();
    }

    // add refuses an unknown host key unless told to accept it; check reports every host.
    void clusterCommands() {
        const std::string known = m_home.filePath(QStringLiteral("known_hosts")).toStdString();
        std::ofstream(known).close();
        std::vector<std::string> add = {"cluster", "add", "lab"};
        for (const auto& h : m_hosts->hosts())
            add.insert(add.end(), {"--ssh", m_hosts->user() + "@" + h.address});
        add.insert(add.end(),
                   {"--identity", m_hosts->identityFile(), "--known-hosts", known, "--install-dir",
                    STUDIO_BIN_DIR, "--workdir", m_work->path + "/%h", "--host-timeout", "60"});
        Cli first = mlstudio(add);
        QCOMPARE(first.code, 1); // saved, but its hosts' keys are not trusted
        QVERIFY2(first.out.find("Host key verification failed") != std::string::npos,
                 first.out.c_str());
        QVERIFY(first.out.find(m_hosts->hosts()[1].address) != std::string::npos);
        add.insert(add.end(), {"--replace", "--accept-new-host-keys"});
        Cli second = mlstudio(add);
        QVERIFY2(second.code == 0, (second.out + second.err).c_str());
        // Both keys recorded (ssh may hash the names: ask ssh-keygen, as ssh would).
        for (const auto& h : m_hosts->hosts()) {
            process::SpawnOptions o;
            o.argv = {"ssh-keygen", "-F", h.address, "-f", known};
            o.env = process::currentEnvironment();
            QVERIFY2(process::Process::spawn(o).wait().success(), h.address.c_str());
        }

        Cli check = mlstudio({"cluster", "check", "lab", "--json"});
        QCOMPARE(check.code, 0);
        const QJsonObject j =
            QJsonDocument::fromJson(QByteArray::fromStdString(check.out)).object();
        QVERIFY(j.value(QStringLiteral("ok")).toBool());
        const QJsonArray hosts = j.value(QStringLiteral("hosts")).toArray();
        QCOMPARE(hosts.size(), 2);
        for (const auto& v : hosts) {
            const QJsonObject h = v.toObject();
            QCOMPARE(h.value(QStringLiteral("version")).toString().toStdString(),
                     remote::launcherVersionLine());
            QVERIFY(h.value(QStringLiteral("cores")).toInt() > 0);
            QVERIFY(h.value(QStringLiteral("memory_bytes")).toDouble() > 0);
            QVERIFY(h.value(QStringLiteral("disk_free_bytes")).toDouble() > 0);
            QVERIFY(h.value(QStringLiteral("gpus")).toArray().isEmpty());
            QVERIFY(std::abs(h.value(QStringLiteral("clock_offset_s")).toDouble()) < 1.0);
            QVERIFY(h.value(QStringLiteral("workdir"))
                        .toString()
                        .startsWith(QString::fromStdString(m_work->path)));
        }
        Cli list = mlstudio({"cluster", "list", "--json"});
        const QJsonArray all = QJsonDocument::fromJson(QByteArray::fromStdString(list.out)).array();
        QCOMPARE(all.size(), 2); // local and lab
        QCOMPARE(all[0].toObject().value(QStringLiteral("name")).toString(),
                 QStringLiteral("local"));
        QVERIFY(all[1]
                    .toObject()
                    .value(QStringLiteral("last_check"))
                    .toObject()
                    .value(QStringLiteral("ok"))
                    .toBool());
        Cli show = mlstudio({"cluster", "show", "lab"});
        QVERIFY2(show.out.find("Last check") != std::string::npos, show.out.c_str());
        // The identity is kept as a path; nothing of the key itself is in the database.
        std::ifstream key(m_hosts->identityFile());
        std::string keyText((std::istreambuf_iterator<char>(key)),
                            std::istreambuf_iterator<char>());
        std::ifstream dbFile(db(), std::ios::binary);
        std::string dbText((std::istreambuf_iterator<char>(dbFile)),
                           std::istreambuf_iterator<char>());
        const std::string keyBody = keyText.substr(keyText.find('\n') + 1, 40);
        QVERIFY(dbText.find(keyBody) == std::string::npos);
        QCOMPARE(mlstudio({"cluster", "remove", "lab"}).code, 0);
        QCOMPARE(mlstudio({"cluster", "show", "lab"}).code, 1);
    }

    void hostThatDoesNotAnswer() {
        saveCluster(db(), fixtureCluster(*m_hosts, "quiet", m_work->path));
        m_hosts->setLinkUp(1, false);
        expectStartFailure("quiet", m_hosts->hosts()[1].address);
        m_hosts->setLinkUp(1, true);
    }

    void wrongHostKey() {
        auto c = fixtureCluster(*m_hosts, "forged", m_work->path);
        // known_hosts with another key for both addresses.
        const QString dir = m_home.filePath(QStringLiteral("forged"));
        QDir().mkpath(dir);
        const std::string keyFile = (dir + QStringLiteral("/k")).toStdString();
        process::SpawnOptions o;
        o.argv = {"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", keyFile};
        o.env = process::currentEnvironment();
        QVERIFY(process::Process::spawn(o).wait().success());
        std::ifstream pub(keyFile + ".pub");
        std::string line;
        std::getline(pub, line);
        const std::string known = (dir + QStringLiteral("/known_hosts")).toStdString();
        std::ofstream out(known);
        for (const auto& h : m_hosts->hosts())
            out << h.address << " " << line << "\n";
        out.close();
        c.knownHostsFile = known;
        saveCluster(db(), c);
        expectStartFailure("forged", "Host key verification failed");
        expectStartFailure("forged", m_hosts->hosts()[0].address);
    }

    void launcherOfAnotherVersion() {
        auto c = fixtureCluster(*m_hosts, "old", m_work->path);
        const std::string bin = m_work->path + "/old-bin";
        std::filesystem::create_directories(bin);
        std::filesystem::permissions(bin, std::filesystem::perms(0755));
        {
            std::ofstream fake(bin + "/studio-launcher");
            fake << "#!/bin/sh\necho 'studio-launcher 0.0.9 (protocol 1)'\n";
        }
        std::filesystem::permissions(bin + "/studio-launcher", std::filesystem::perms(0755));
        c.installDir = bin;
        saveCluster(db(), c);
        expectStartFailure("old",
                           "runs studio-launcher 0.0.9 (protocol 1), but this studio needs " +
                               remote::launcherVersionLine());
        Cli check = mlstudio({"cluster", "check", "old"});
        QCOMPARE(check.code, 1);
        QVERIFY2(check.out.find("install this studio's studio-launcher") != std::string::npos,
                 check.out.c_str());
    }

    void tooFewHosts() {
        saveCluster(db(), fixtureCluster(*m_hosts, "small", m_work->path));
        control::Controller c(testControllerOptions(m_home.path()));
        try {
            c.submit(twoNodeJob("small", 3));
            QFAIL("a 3-node job was accepted on a 2-host cluster");
        } catch (const std::exception& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("cluster small has 2") != std::string::npos, what.c_str());
        }
        try {
            c.submit(twoNodeJob("nowhere"));
            QFAIL("a job on an unknown cluster was accepted");
        } catch (const std::exception& e) {
            QVERIFY(std::string(e.what()).find("no cluster \"nowhere\"") != std::string::npos);
        }
        QVERIFY(c.runningJobs().empty());
    }
};

QTEST_GUILESS_MAIN(TestRemoteCluster)
#include "test_remote_cluster.moc"
