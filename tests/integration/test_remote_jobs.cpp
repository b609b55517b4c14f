// Remote runs over SSH on two throw-away hosts (network namespaces with their own sshd, see
// tests/support/netns_hosts.h): a PyTorch DDP script on 2 hosts x 2 ranks, the built-in
// trainer against the same job on this machine, a cut link, a killed studio, a stop, and
// hostile spec values. Needs root; skipped (with the reason) elsewhere.
#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/spec/spec_parser.h"
#include "engine/store/store_reader.h"
#include "tests/support/process_check.h"
#include "tests/support/remote_cluster.h"
#include "tests/support/test_controller.h"

#include <nlohmann/json.hpp>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <pwd.h>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

using namespace studio;
using studio::testing::NetnsHosts;

namespace {

const char* kCluster = "ns";

spec::JobSpec parse(const std::string& json) {
    auto r = spec::parseSpecText(json, STUDIO_SOURCE_DIR "/tests/integration/python");
    if (!r.ok()) // an exception, not qFatal: the fixture's destructor must still run
        throw std::runtime_error("spec: " + r.errors.front().text());
    return *r.spec;
}

// The DDP script on `nodes` hosts x `ppn` ranks, `steps` steps of `stepSeconds` each.
std::string ddpSpec(int nodes, int ppn, int steps, double stepSeconds,
                    const std::string& cluster = kCluster) {
    nlohmann::json j = {
        {"name", "remote-ddp"},
        {"entry_point", {"/usr/bin/python3", "remote_ddp.py"}},
        {"hyperparameters", {{"tag", "x"}}},
        {"instance_count", nodes},
        {"cluster", cluster},
        {"distribution",
         {{"torch_distributed", {{"enabled", true}}},
          {"mpi", {{"enabled", true}, {"processes_per_host", ppn}}}}},
        {"environment",
         {{"TEST_STEPS", std::to_string(steps)},
          {"TEST_STEP_SECONDS", std::to_string(stepSeconds)}}},
        {"profiler_config", {{"system_monitor_interval_millis", 200}}},
        {"metric_definitions", {{{"Name", "train:loss"}, {"Regex", "loss=([0-9.]+)"}}}}};
    return j.dump();
}

// Every step of the metric stored exactly once: steps 0 .. n-1, no repeats, no holes.
void checkEveryStepOnce(const std::vector<store::MetricPoint>& points, int n) {
    std::set<std::int64_t> steps;
    for (const auto& p : points)
        steps.insert(p.step);
    QCOMPARE(static_cast<int>(points.size()), n);
    QCOMPARE(static_cast<int>(steps.size()), n);
    QCOMPARE(*steps.begin(), std::int64_t(0));
    QCOMPARE(*steps.rbegin(), std::int64_t(n - 1));
}

int countLines(const QString& path, const QString& needle) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    int n = 0;
    for (const QByteArray& line : f.readAll().split('\n'))
        n += line.contains(needle.toUtf8());
    return n;
}

QJsonObject readJson(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

} // namespace

class TestRemoteJobs : public QObject {
    Q_OBJECT

    std::unique_ptr<NetnsHosts> m_hosts;
    std::unique_ptr<SharedWorkRoot> m_work;
    QTemporaryDir m_home;

    std::string db() const { return control::databasePath(m_home.path().toStdString()); }

    control::ControllerOptions options() const {
        auto o = testControllerOptions(m_home.path());
        o.linkTimeoutSeconds = 3;
        return o;
    }

    // The test user's own key, with which the hosts reach each other (mpirun's SSH launch).
    void giveTheUserAKey() {
        const passwd* pw = ::getpwnam(m_hosts->user().c_str());
        QVERIFY(pw != nullptr);
        const std::string ssh = std::string(pw->pw_dir) + "/.ssh";
        std::filesystem::create_directories(ssh);
        const std::string key = ssh + "/id_ed25519";
        std::filesystem::copy_file(m_hosts->identityFile(), key,
                                   std::filesystem::copy_options::overwrite_existing);
        for (const auto& path : {ssh, key})
            QCOMPARE(::chown(path.c_str(), pw->pw_uid, pw->pw_gid), 0);
        std::filesystem::permissions(key, std::filesystem::perms(0600));
        std::filesystem::permissions(ssh, std::filesystem::perms(0700));
    }

    // Nothing of the job may run on any host once it has ended.
    void checkHostsEmpty() {
        for (int h = 0; h < 2; ++h)
            QTRY_VERIFY2_WITH_TIMEOUT(
                leftOnHost(*m_hosts, h).empty(),
                ("host " + std::to_string(h) + " still runs: " +
                 (leftOnHost(*m_hosts, h).empty() ? std::string()
                                                  : leftOnHost(*m_hosts, h).front()))
                    .c_str(),
                15000);
    }

private Q_SLOTS:
    void initTestCase() {
        if (const std::string why = NetnsHosts::unavailableReason(); !why.empty())
            QSKIP(why.c_str());
        QVERIFY_THROWS_NO_EXCEPTION(m_hosts = std::make_unique<NetnsHosts>());
        m_work = std::make_unique<SharedWorkRoot>();
        saveCluster(db(), fixtureCluster(*m_hosts, kCluster, m_work->path));
    }

    void cleanupTestCase() {
        m_hosts.reset(); // kills whatever a failed test left on the hosts
        m_work.reset();
    }

    void ddpScriptOnTwoHostsTimesTwoRanks() {
        control::Controller c(options());
        const auto job = c.submit(parse(ddpSpec(2, 2, 20, 0.05)));
        QCOMPARE(waitForJob(c, job.name, 240), std::string("Completed"));
        store::StoreReader r(db());
        const auto d = r.detail(job.name);
        QVERIFY(d);
        QCOMPARE(d->row.cluster, std::string(kCluster));
        checkEveryStepOnce(r.metricPoints(d->row.id, "train:loss"), 20);
        // Nodes carry the cluster's names for their hosts; both hosts' journals ended.
        QCOMPARE(d->nodes.size(), std::size_t(2));
        QCOMPARE(d->nodes[0].host, m_hosts->user() + "@" + m_hosts->hosts()[0].address);
        QCOMPARE(d->nodes[1].host, m_hosts->user() + "@" + m_hosts->hosts()[1].address);
        for (const auto& j : d->journals)
            QCOMPARE(j.state, std::string("ended"));
        QCOMPARE(d->ranks.size(), std::size_t(4));
        for (const auto& k : d->ranks)
            QCOMPARE(k.exitCode.value_or(-1), 0);
        // System samples of both hosts, for Insights and the heatmap.
        std::set<int> sampled;
        for (const auto& s : r.systemSeries(d->row.id))
            sampled.insert(s.node);
        QCOMPARE(sampled, (std::set<int>{0, 1}));
        // Logs in the local job folder; model/ and output/ came back from the hosts.
        const QString jobDir = QString::fromStdString(d->row.jobDir);
        QCOMPARE(countLines(jobDir + QStringLiteral("/logs/rank-0.log"), QStringLiteral("loss=")),
                 20);
        QVERIFY(QFile::exists(jobDir + QStringLiteral("/model/model.pt")));
        const QJsonObject got = readJson(jobDir + QStringLiteral("/output/received.json"));
        QCOMPARE(got.value(QStringLiteral("world")).toInt(), 4);
        QCOMPARE(got.value(QStringLiteral("rank_sum")).toDouble(), 6.0);
        const QJsonObject env = got.value(QStringLiteral("env")).toObject();
        // Rendezvous at node 0's address as the others see it; Gloo bound by interface.
        QCOMPARE(env.value(QStringLiteral("MASTER_ADDR")).toString(),
                 QString::fromStdString(m_hosts->hosts()[0].address));
        QCOMPARE(env.value(QStringLiteral("GLOO_SOCKET_IFNAME")).toString(),
                 QStringLiteral("eth1"));
        bool modelArtifact = false;
        for (const auto& a : d->artifacts)
            modelArtifact = modelArtifact || a.name == "model/model.pt";
        QVERIFY(modelArtifact);
        checkHostsEmpty();
    }

    // The example spec of resources/examples runs on a cluster named "lab".
    void clusterExampleRuns() {
        saveCluster(db(), fixtureCluster(*m_hosts, "lab", m_work->path));
        auto parsed =
            spec::parseSpecFile(STUDIO_SOURCE_DIR "/resources/examples/pytorch-ddp-cluster.json");
        QVERIFY(parsed.ok());
        control::Controller c(options());
        const auto job = c.submit(*parsed.spec);
        QCOMPARE(waitForJob(c, job.name, 300), std::string("Completed"));
        store::StoreReader r(db());
        const auto acc = r.metricSummaries(r.component(job.name)->id)["test:accuracy"];
        QCOMPARE(acc.count, std::int64_t(1));
        QVERIFY2(acc.last > 0.5, std::to_string(acc.last).c_str());
        checkHostsEmpty();
    }

    // The built-in trainer on 2 hosts x 1 rank reaches the accuracy of the same job here.
    void builtinTrainerMatchesTheLocalRun() {
        const std::string body = R"({"name": "fmnist-remote", "entry_point": "builtin:fmnist-cnn",
            "hyperparameters": {"max-steps": 40, "batch-size": 64, "train-samples": 4000,
                                "eval-samples": 1000, "log-interval": 10, "threads": 1},
            "instance_count": 2, "distribution": {"torch_distributed": {"enabled": true}},
            "inputs": {"train": "/usr/share/datasets/fashion-mnist"})";
        control::Controller c(options());
        const auto remote = c.submit(parse(body + R"(, "cluster": "ns"})"));
        QCOMPARE(waitForJob(c, remote.name, 300), std::string("Completed"));
        const auto local = c.submit(parse(body + "}"));
        QCOMPARE(waitForJob(c, local.name, 300), std::string("Completed"));
        store::StoreReader r(db());
        const auto remoteAcc = r.metricSummaries(r.component(remote.name)->id)["eval:accuracy"];
        const auto localAcc = r.metricSummaries(r.component(local.name)->id)["eval:accuracy"];
        QVERIFY(remoteAcc.count > 0);
        QCOMPARE(remoteAcc.count, localAcc.count);
        QVERIFY2(std::abs(remoteAcc.last - localAcc.last) < 1e-6,
                 (std::to_string(remoteAcc.last) + " vs " + std::to_string(localAcc.last)).c_str());
        const auto d = r.detail(remote.name);
        bool model = false;
        for (const auto& a : d->artifacts)
            model = model || a.name == "model/model.pt";
        QVERIFY(model);
        QVERIFY(!d->checkpoints.empty()); // recorded; the files stay on the hosts
        checkHostsEmpty();
    }

    // distribution.mpi: one mpirun on node 0's host starts the other host's ranks through its
    // own SSH launch, as the hosts of a cluster reach each other (here with the test user's key),
    // and every rank meets the others in one world of 4.
    void mpi4pyUnderMpirunOnTwoHosts() {
        giveTheUserAKey();
        control::Controller c(options());
        const auto job = c.submit(mpiExampleOn(kCluster, "remote-mpi"));
        const std::string status = waitForJob(c, job.name, 180);
        if (status != "Completed") // mpirun's words, for the test's log
            for (const char* log : {"/logs/launcher-0.log", "/logs/rank-1.log"})
                std::fprintf(
                    stderr, "%s:\n%s\n", log,
                    readText(store::StoreReader(db()).component(job.name)->jobDir + log).c_str());
        QCOMPARE(status, std::string("Completed"));
        store::StoreReader r(db());
        const auto d = r.detail(job.name);
        QCOMPARE(d->ranks.size(), std::size_t(4));
        for (const auto& k : d->ranks)
            QCOMPARE(k.exitCode.value_or(-1), 0);
        const std::string problems = mpiExampleProblems(d->row.jobDir, *m_hosts);
        QVERIFY2(problems.empty(), problems.c_str());
        QCOMPARE(r.metricSummaries(d->row.id)["allreduce:sum"].last, 14.0);
        checkHostsEmpty();
    }

    // Spec values with quotes, ;, $(), backticks, newlines and ../ reach the remote rank as the
    // same bytes, and no shell runs them.
    void hostileValuesArriveUnchanged() {
        const std::string canary = m_work->path + "/pwned";
        const std::vector<std::string> hostile = {"it's \"quoted\"",
                                                  "a; touch " + canary,
                                                  "$(touch " + canary + ")",
                                                  "`touch " + canary + "`",
                                                  "line1\nline2",
                                                  "../../etc/passwd",
                                                  "-n",
                                                  "*",
                                                  "~",
                                                  "tab\there",
                                                  "back\\slash",
                                                  "'",
                                                  ""};
        nlohmann::json hps = nlohmann::json::object();
        for (std::size_t i = 0; i < hostile.size(); ++i)
            hps["v" + std::to_string(i)] = hostile[i];
        nlohmann::json argv = {"/usr/bin/python3", "remote_ddp.py"};
        for (const auto& h : hostile)
            argv.push_back(h);
        nlohmann::json spec = {
            {"name", "hostile"},
            {"entry_point", argv},
            {"hyperparameters", hps},
            {"cluster", kCluster},
            {"environment",
             {{"HOSTILE", "x'; touch " + canary + "; echo $(id)"}, {"TEST_STEPS", "2"}}},
            {"experiment_config", {{"TrialComponentDisplayName", "it's $(touch " + canary + ")"}}}};
        control::Controller c(options());
        const auto job = c.submit(parse(spec.dump()));
        QCOMPARE(waitForJob(c, job.name, 120), std::string("Completed"));
        store::StoreReader r(db());
        const auto d = r.detail(job.name);
        const QJsonObject got = readJson(QString::fromStdString(d->row.jobDir) +
                                         QStringLiteral("/output/received.json"));
        std::vector<std::string> received;
        for (const auto& v : got.value(QStringLiteral("argv")).toArray())
            received.push_back(v.toString().toStdString());
        // argv: the hostile words, then "--name value" for every hyperparameter.
        QVERIFY(received.size() >= hostile.size());
        QCOMPARE(std::vector<std::string>(received.begin(), received.begin() + hostile.size()),
                 hostile);
        const QJsonObject hpsGot = got.value(QStringLiteral("hps")).toObject();
        for (std::size_t i = 0; i < hostile.size(); ++i)
            QCOMPARE(hpsGot.value(QStringLiteral("v%1").arg(i)).toString().toStdString(),
                     hostile[i]);
        QCOMPARE(got.value(QStringLiteral("env"))
                     .toObject()
                     .value(QStringLiteral("HOSTILE"))
                     .toString()
                     .toStdString(),
                 "x'; touch " + canary + "; echo $(id)");
        QVERIFY2(!std::filesystem::exists(canary), "a shell ran a spec value");
        // A hostile job name never gets that far: the spec is refused, naming the field.
        auto bad = spec::parseSpecText(R"({"name": "x; rm -rf ~", "entry_point": ["true"]})", ".");
        QVERIFY(!bad.ok());
        QCOMPARE(bad.errors.front().path, std::string("name"));
    }

    // One host's link is cut for 10 s mid-run: the job shows Reconnecting, goes on, and every
    // step's metric is stored exactly once.
    void cutLinkReconnects() {
        control::Controller c(options());
        const auto job = c.submit(parse(ddpSpec(2, 1, 80, 0.25)));
        QVERIFY(waitInStore(db(), job.name, 120, [](store::StoreReader& r, const auto& row) {
            return r.metricPoints(row.id, "train:loss").size() >= 8;
        }));
        m_hosts->setLinkUp(1, false);
        QVERIFY(waitInStore(db(), job.name, 30, [](store::StoreReader&, const auto& row) {
            return row.secondaryStatus == "Reconnecting";
        }));
        QTest::qWait(10000 - 3000);
        m_hosts->setLinkUp(1, true);
        QCOMPARE(waitForJob(c, job.name, 300), std::string("Completed"));
        store::StoreReader r(db());
        const auto d = r.detail(job.name);
        bool reconnecting = false;
        for (const auto& t : d->transitions)
            if (t.secondaryStatus == "Reconnecting") {
                reconnecting = true;
                QVERIFY2(t.message.find(m_hosts->hosts()[1].address) != std::string::npos,
                         t.message.c_str());
            }
        QVERIFY(reconnecting);
        QCOMPARE(d->transitions.back().secondaryStatus, std::string("Completed"));
        checkEveryStepOnce(r.metricPoints(d->row.id, "train:loss"), 80);
        QCOMPARE(
            countLines(QString::fromStdString(d->row.jobDir) + QStringLiteral("/logs/rank-0.log"),
                       QStringLiteral("loss=")),
            80);
        checkHostsEmpty();
    }

    // The studio process is SIGKILLed mid-run; another one takes the job over from the stored
    // offsets and follows it to the end: nothing lost, nothing stored twice.
    void killedStudioIsTakenOver() {
        // Relative paths resolve against the spec's folder: point at the script's.
        const std::string job =
            runStudioThenKill(m_home.path().toStdString(), ddpSpec(2, 1, 60, 0.2),
                              STUDIO_SOURCE_DIR "/tests/integration/python", "remote-ddp", 10, 120);
        QVERIFY(!job.empty());
        // The launchers run on.
        QVERIFY(!leftOnHost(*m_hosts, 0).empty());
        QTest::qWait(1500);
        auto opts = options();
        opts.takeOver = true;
        control::Controller c(opts);
        QCOMPARE(c.runningJobs(), std::vector<std::string>{job});
        QCOMPARE(waitForJob(c, job, 240), std::string("Completed"));
        store::StoreReader r(db());
        const auto d = r.detail(job);
        checkEveryStepOnce(r.metricPoints(d->row.id, "train:loss"), 60);
        QCOMPARE(
            countLines(QString::fromStdString(d->row.jobDir) + QStringLiteral("/logs/rank-0.log"),
                       QStringLiteral("loss=")),
            60);
        bool takenOver = false;
        for (const auto& t : d->transitions)
            takenOver = takenOver || t.message.rfind("taken over", 0) == 0;
        QVERIFY(takenOver);
        checkHostsEmpty();
    }

    // Stopping a remote job leaves nothing running on any host.
    void stopLeavesNothingRunning() {
        control::Controller c(options());
        const auto job = c.submit(parse(ddpSpec(2, 2, 400, 0.2)));
        QVERIFY(waitInStore(db(), job.name, 120, [](store::StoreReader& r, const auto& row) {
            return r.metricPoints(row.id, "train:loss").size() >= 3;
        }));
        QVERIFY(!leftOnHost(*m_hosts, 1).empty());
        QVERIFY(c.stop(job.name));
        QCOMPARE(waitForJob(c, job.name, 60), std::string("Stopped"));
        checkHostsEmpty();
        // The test user's processes anywhere: only sshd's session of the master connection.
        for (int pid : m_hosts->userProcesses())
            QCOMPARE(commandOf(pid), std::string("sshd"));
    }
};

QTEST_GUILESS_MAIN(TestRemoteJobs)
#include "test_remote_jobs.moc"
