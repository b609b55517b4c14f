// Jobs on a real Slurm (munge, slurmctld, one slurmd per network-namespace host, slurmrestd with
// JWT; see tests/support/slurm_cluster.h): a PyTorch DDP script on 2 nodes x 2 ranks, the
// built-in trainer against the same job on this machine, a pending job with its reason, cancel
// while pending and while running, Slurm's time limit, a requeue mid-run, a killed studio, and
// the errors a user can make. Needs root; skipped (with the reason) elsewhere.
#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/spec/spec_parser.h"
#include "engine/store/store_reader.h"
#include "tests/support/remote_cluster.h"
#include "tests/support/slurm_cluster.h"
#include "tests/support/test_controller.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <csignal>
#include <set>

using namespace studio;
using studio::testing::SlurmCluster;

namespace {

const char* kCluster = "hpc";

spec::JobSpec parse(const std::string& json) {
    auto r = spec::parseSpecText(json, STUDIO_SOURCE_DIR "/tests/integration/python");
    if (!r.ok()) // an exception, not qFatal: the fixture's destructor must still run
        throw std::runtime_error("spec: " + r.errors.front().text());
    return *r.spec;
}

std::string ddpSpec(int nodes, int ppn, int steps, double stepSeconds,
                    const nlohmann::json& slurm = nullptr) {
    nlohmann::json j = {
        {"name", "slurm-ddp"},
        {"entry_point", {"/usr/bin/python3", "remote_ddp.py"}},
        {"hyperparameters", {{"tag", "x"}}},
        {"instance_count", nodes},
        {"cluster", kCluster},
        {"distribution",
         {{"torch_distributed", {{"enabled", true}}},
          {"mpi", {{"enabled", true}, {"processes_per_host", ppn}}}}},
        {"environment",
         {{"TEST_STEPS", std::to_string(steps)},
          {"TEST_STEP_SECONDS", std::to_string(stepSeconds)}}},
        {"profiler_config", {{"system_monitor_interval_millis", 200}}},
        {"metric_definitions", {{{"Name", "train:loss"}, {"Regex", "loss=([0-9.]+)"}}}}};
    if (!slurm.is_null())
        j["slurm"] = slurm;
    return j.dump();
}

void checkEveryStepOnce(const std::vector<store::MetricPoint>& points, int first, int last) {
    std::set<std::int64_t> steps;
    for (const auto& p : points)
        QVERIFY2(steps.insert(p.step).second,
                 qPrintable(QStringLiteral("step %1 twice").arg(p.step)));
    QCOMPARE(static_cast<int>(points.size()), last - first + 1);
    QCOMPARE(*steps.begin(), std::int64_t(first));
    QCOMPARE(*steps.rbegin(), std::int64_t(last));
}

bool hasTransition(store::StoreReader& r, store::ComponentId id, const std::string& secondary,
                   const std::string& text = {}) {
    for (const auto& t : r.transitions(id))
        if (t.secondaryStatus == secondary && t.message.find(text) != std::string::npos)
            return true;
    return false;
}

} // namespace

class TestSlurmJobs : public QObject {
    Q_OBJECT

    std::unique_ptr<SlurmCluster> m_slurm;
    QTemporaryDir m_home;

    std::string db() const { return control::databasePath(m_home.path().toStdString()); }

    control::ControllerOptions options() const { return testControllerOptions(m_home.path()); }

    remote::ClusterConfig cluster(const std::string& name) const {
        remote::ClusterConfig c;
        c.name = name;
        c.kind = "slurm";
        c.slurm.url = m_slurm->restUrl();
        c.slurm.tokenFile = m_slurm->tokenFile();
        c.slurm.user = m_slurm->tokenUser();
        c.workdir = m_slurm->sharedDir() + "/work";
        c.installDir = STUDIO_BIN_DIR;
        c.socketIfname = m_slurm->socketIfname();
        return c;
    }

    // What runs on a test host besides its sshd and slurmd.
    std::vector<std::string> leftOn(int host) {
        std::vector<std::string> left;
        for (int pid : m_slurm->hosts().processesIn(host))
            if (const std::string comm = commandOf(pid);
                !comm.empty() && comm != "sshd" && comm != "slurmd")
                left.push_back(std::to_string(pid) + " " + comm);
        return left;
    }

    void checkHostsEmpty() {
        for (int h = 0; h < 2; ++h)
            QTRY_VERIFY2_WITH_TIMEOUT(leftOn(h).empty(),
                                      ("host " + std::to_string(h) + " still runs: " +
                                       (leftOn(h).empty() ? std::string() : leftOn(h).front()))
                                          .c_str(),
                                      20000);
    }

    std::string squeue() const { return m_slurm->slurmCommand({"squeue", "-h", "-o", "%i %T"}); }

private Q_SLOTS:
    void initTestCase() {
        if (const std::string why = SlurmCluster::unavailableReason(); !why.empty())
            QSKIP(why.c_str());
        QVERIFY_THROWS_NO_EXCEPTION(m_slurm = std::make_unique<SlurmCluster>());
        std::filesystem::create_directories(m_slurm->sharedDir() + "/work");
        saveCluster(db(), cluster(kCluster));
    }

    void cleanupTestCase() {
        if (m_slurm && QTest::currentTestFailed())
            std::fprintf(stderr, "%s\n", m_slurm->logTail().c_str());
        m_slurm.reset(); // cancels what a failed test left and stops the daemons
    }

    void ddpScriptOnTwoNodesTimesTwoRanks() {
        control::Controller c(options());
        const auto job = c.submit(parse(ddpSpec(2, 2, 20, 0.05)));
        QCOMPARE(waitForJob(c, job.name, 240), std::string("Completed"));
        store::StoreReader r(db());
        const auto d = r.detail(job.name);
        QVERIFY(d);
        checkEveryStepOnce(r.metricPoints(d->row.id, "train:loss"), 0, 19);
        QCOMPARE(d->ranks.size(), std::size_t(4));
        for (const auto& k : d->ranks)
            QCOMPARE(k.exitCode.value_or(-1), 0);
        std::set<int> sampled;
        for (const auto& s : r.systemSeries(d->row.id))
            sampled.insert(s.node);
        QCOMPARE(sampled, (std::set<int>{0, 1}));
        // The Slurm job: its id, allocation, final state and the script as submitted.
        QCOMPARE(d->slurmJobs.size(), std::size_t(1));
        const store::SlurmJobRow& sj = d->slurmJobs.front();
        QVERIFY(sj.jobId > 0);
        QCOMPARE(sj.state, std::string("COMPLETED"));
        QCOMPARE(sj.nodes, std::string("h[1-2]"));
        QCOMPARE(sj.partition, std::string(SlurmCluster::kPartitionAll));
        QVERIFY(sj.script.find("exec srun --nodes=2") != std::string::npos);
        QVERIFY(hasTransition(r, d->row.id, "Pending", "Slurm job " + std::to_string(sj.jobId)));
        // Logs here; model/ and output/ came back from the shared filesystem.
        const QString jobDir = QString::fromStdString(d->row.jobDir);
        QVERIFY(QFile::exists(jobDir + QStringLiteral("/model/model.pt")));
        QFile f(jobDir + QStringLiteral("/output/received.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const auto got = nlohmann::json::parse(f.readAll().toStdString());
        QCOMPARE(got.value("world", 0), 4);
        QCOMPARE(got.value("rank_sum", 0.0), 6.0);
        QCOMPARE(got["env"].value("MASTER_ADDR", ""), m_slurm->nodeAddress(0));
        QCOMPARE(got["env"].value("GLOO_SOCKET_IFNAME", ""), std::string("eth1"));
        // Billing-style segments: the wait in Slurm's queue, then the run.
        std::set<std::string> kinds;
        for (const auto& b : r.billingSegments(d->row.id))
            kinds.insert(b.kind);
        QVERIFY(kinds.count("waiting") && kinds.count("running"));
        checkHostsEmpty();
    }

    // distribution.mpi in an allocation: node 0's launcher runs mpirun, which starts its daemons
    // on the allocation's nodes with srun --overlap; every rank meets the others in one world of
    // 4, each on its own node's host.
    void mpi4pyUnderMpirunInTheAllocation() {
        control::Controller c(options());
        const auto job = c.submit(mpiExampleOn(kCluster, "slurm-mpi"));
        QCOMPARE(waitForJob(c, job.name, 240), std::string("Completed"));
        store::StoreReader r(db());
        const auto d = r.detail(job.name);
        QCOMPARE(d->ranks.size(), std::size_t(4));
        const std::string problems = mpiExampleProblems(d->row.jobDir, m_slurm->hosts());
        QVERIFY2(problems.empty(), problems.c_str());
        checkHostsEmpty();
    }

    // The example spec of resources/examples runs on a Slurm cluster named "hpc".
    void slurmExampleRuns() {
        auto parsed =
            spec::parseSpecFile(STUDIO_SOURCE_DIR "/resources/examples/pytorch-ddp-slurm.json");
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

    // The built-in trainer on 2 Slurm nodes x 1 rank reaches the accuracy of the same job here.
    void builtinTrainerMatchesTheLocalRun() {
        const std::string body = R"({"name": "fmnist-slurm", "entry_point": "builtin:fmnist-cnn",
            "hyperparameters": {"max-steps": 30, "batch-size": 64, "train-samples": 3000,
                                "eval-samples": 500, "log-interval": 10, "threads": 1},
            "instance_count": 2, "distribution": {"torch_distributed": {"enabled": true}},
            "inputs": {"train": "/usr/share/datasets/fashion-mnist"})";
        control::Controller c(options());
        const auto onSlurm = c.submit(parse(body + R"(, "cluster": "hpc"})"));
        QCOMPARE(waitForJob(c, onSlurm.name, 300), std::string("Completed"));
        const auto local = c.submit(parse(body + "}"));
        QCOMPARE(waitForJob(c, local.name, 300), std::string("Completed"));
        store::StoreReader r(db());
        const auto slurmAcc = r.metricSummaries(r.component(onSlurm.name)->id)["eval:accuracy"];
        const auto localAcc = r.metricSummaries(r.component(local.name)->id)["eval:accuracy"];
        QVERIFY(slurmAcc.count > 0);
        QCOMPARE(slurmAcc.count, localAcc.count);
        QVERIFY2(std::abs(slurmAcc.last - localAcc.last) < 1e-6,
                 (std::to_string(slurmAcc.last) + " vs " + std::to_string(localAcc.last)).c_str());
        checkHostsEmpty();
    }

    // Partition "one" (h1, 2 CPUs) is full: the second job waits with Slurm's reason; both
    // are cancelled, one pending and one running.
    void pendingReasonAndCancel() {
        control::Controller c(options());
        const nlohmann::json one = {{"partition", SlurmCluster::kPartitionOne}};
        const auto first = c.submit(parse(ddpSpec(1, 2, 400, 0.2, one)));
        QVERIFY(waitInStore(db(), first.name, 120, [](store::StoreReader& r, const auto& row) {
            return r.metricPoints(row.id, "train:loss").size() >= 2;
        }));
        const auto second = c.submit(parse(ddpSpec(1, 2, 400, 0.2, one)));
        QVERIFY(waitInStore(db(), second.name, 60, [](store::StoreReader& r, const auto& row) {
            const auto jobs = r.slurmJobs(row.id);
            return !jobs.empty() && jobs.back().state == "PENDING" &&
                   (jobs.back().reason == "Resources" || jobs.back().reason == "Priority");
        }));
        {
            store::StoreReader r(db());
            const auto row = r.component(second.name);
            QCOMPARE(row->secondaryStatus, std::string("Pending"));
            QVERIFY(hasTransition(r, row->id, "Pending", "is pending ("));
        }
        QVERIFY(c.stop(second.name));
        QCOMPARE(waitForJob(c, second.name, 60), std::string("Stopped"));
        QVERIFY(c.stop(first.name));
        QCOMPARE(waitForJob(c, first.name, 60), std::string("Stopped"));
        store::StoreReader r(db());
        QCOMPARE(r.slurmJobs(r.component(second.name)->id).back().state, std::string("CANCELLED"));
        QCOMPARE(r.slurmJobs(r.component(first.name)->id).back().state, std::string("CANCELLED"));
        checkHostsEmpty();
    }

    // A rank that fails: the job fails naming that rank (from its node's journal), and srun
    // ends the other node's launcher.
    void failedRankIsNamed() {
        control::Controller c(options());
        const auto job = c.submit(parse(R"({"name": "fails", "cluster": "hpc",
            "entry_point": ["/bin/sh", "-c",
                "if [ $RANK = 1 ]; then sleep 2; echo boom >&2; exit 3; fi; sleep 120"],
            "instance_count": 2, "disable_profiler": true, "debugger_hook_config": false})"));
        QCOMPARE(waitForJob(c, job.name, 120), std::string("Failed"));
        store::StoreReader r(db());
        const auto row = r.component(job.name);
        QVERIFY2(row->failureReason.find("rank 1 (node 1") != std::string::npos,
                 row->failureReason.c_str());
        QVERIFY2(row->failureReason.find("boom") != std::string::npos, row->failureReason.c_str());
        const auto sj = r.slurmJobs(row->id).back();
        QVERIFY2(sj.state == "FAILED" || sj.state == "CANCELLED", sj.state.c_str());
        checkHostsEmpty();
    }

    // `scontrol requeue` mid-run: the attempt is interrupted, Slurm runs the job again, and the
    // trainer resumes from its checkpoint; every step is stored once.
    void requeueResumesFromTheCheckpoint() {
        const int steps = 120;
        const std::string text = R"({"name": "requeue", "entry_point": "builtin:mlp",
            "cluster": "hpc", "instance_count": 2,
            "distribution": {"torch_distributed": {"enabled": true}},
            "hyperparameters": {"max-steps": )" +
                                 std::to_string(steps) + R"(, "checkpoint-interval": 10,
                "log-interval": 1, "hidden": 256, "depth": 3, "batch-size": 64, "threads": 1,
                "eval-samples": 100},
            "disable_profiler": true, "debugger_hook_config": false})";
        control::Controller c(options());
        const auto job = c.submit(parse(text));
        std::int64_t slurmId = 0;
        QVERIFY(waitInStore(db(), job.name, 120, [&](store::StoreReader& r, const auto& row) {
            const auto jobs = r.slurmJobs(row.id);
            if (!jobs.empty())
                slurmId = jobs.back().jobId;
            return r.metricPoints(row.id, "train:loss").size() >= 30;
        }));
        m_slurm->slurmCommand({"scontrol", "requeue", std::to_string(slurmId)});
        QCOMPARE(waitForJob(c, job.name, 300), std::string("Completed"));
        store::StoreReader r(db());
        const auto d = r.detail(job.name);
        checkEveryStepOnce(r.metricPoints(d->row.id, "train:loss"), 1, steps);
        QVERIFY(hasTransition(r, d->row.id, "Interrupted", "requeued"));
        QCOMPARE(d->slurmJobs.size(), std::size_t(1)); // the same Slurm job, run again
        QCOMPARE(d->slurmJobs.front().restarts, 1);
        QCOMPARE(d->slurmJobs.front().state, std::string("COMPLETED"));
        std::set<int> attempts;
        for (const auto& b : r.billingSegments(d->row.id))
            attempts.insert(b.attempt);
        QCOMPARE(attempts, (std::set<int>{1, 2}));
        checkHostsEmpty();
    }

    void killedStudioIsTakenOver() {
        // Relative paths resolve against the spec's folder: point at the script's.
        const std::string job =
            runStudioThenKill(m_home.path().toStdString(), ddpSpec(2, 1, 60, 0.2),
                              STUDIO_SOURCE_DIR "/tests/integration/python", "slurm-ddp", 10, 120);
        QVERIFY(!job.empty());
        QTest::qWait(1500);
        auto opts = options();
        opts.takeOver = true;
        control::Controller c(opts);
        {
            store::StoreReader r(db());
            const auto row = r.component(job);
            QVERIFY2(
                c.runningJobs() == std::vector<std::string>{job},
                (row->status + " " + row->secondaryStatus + ": " + row->failureReason).c_str());
        }
        QCOMPARE(waitForJob(c, job, 240), std::string("Completed"));
        store::StoreReader r(db());
        const auto d = r.detail(job);
        checkEveryStepOnce(r.metricPoints(d->row.id, "train:loss"), 0, 59);
        QVERIFY(hasTransition(r, d->row.id, "Training", "taken over") ||
                hasTransition(r, d->row.id, "Starting", "taken over"));
        checkHostsEmpty();
    }

    // Slurm's time limit (1 minute, checked by slurmctld every 30 s) ends the job as
    // MaxRuntimeExceeded.
    void timeLimitIsMaxRuntimeExceeded() {
        control::Controller c(options());
        const auto job = c.submit(parse(ddpSpec(1, 1, 100000, 0.2, {{"time_limit", 1}})));
        QCOMPARE(waitForJob(c, job.name, 200), std::string("Stopped"));
        store::StoreReader r(db());
        const auto row = r.component(job.name);
        QCOMPARE(row->secondaryStatus, std::string("MaxRuntimeExceeded"));
        QCOMPARE(r.slurmJobs(row->id).back().state, std::string("TIMEOUT"));
        checkHostsEmpty();
    }

    // Through slurmrestd's unix socket (local auth) the job runs as slurmrestd's user
    // (nobody): its folder is opened to it, and it completes like any other.
    void unixSocketJobRunsAsSlurmrestdsUser() {
        remote::ClusterConfig local = cluster("hpc-local");
        local.slurm.url = m_slurm->socketUrl();
        local.slurm.tokenFile.clear();
        local.slurm.user.clear();
        saveCluster(db(), local);
        control::Controller c(options());
        const auto job = c.submit(parse(R"({"name": "socket", "entry_point": "builtin:mlp",
            "cluster": "hpc-local", "hyperparameters": {"max-steps": 20, "log-interval": 5,
            "hidden": 64, "depth": 2, "threads": 1, "eval-samples": 100},
            "disable_profiler": true, "debugger_hook_config": false})"));
        QCOMPARE(waitForJob(c, job.name, 120), std::string("Completed"));
        store::StoreReader r(db());
        const auto d = r.detail(job.name);
        QCOMPARE(d->slurmJobs.back().state, std::string("COMPLETED"));
        QVERIFY(!r.metricPoints(d->row.id, "train:loss").empty());
        const std::string owner =
            m_slurm->slurmCommand({"squeue", "-h", "-t", "all", "-j",
                                   std::to_string(d->slurmJobs.back().jobId), "-o", "%u"});
        QCOMPARE(QString::fromStdString(owner).trimmed(), QStringLiteral("nobody"));
    }

    // Each mistake is refused before anything is recorded or submitted, naming the cluster.
    void clearErrorsAndNothingHalfSubmitted_data() {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("expected");
        QTest::newRow("bad token") << "token"
                                   << "token";
        QTest::newRow("unreachable") << "url"
                                     << "cannot reach";
        QTest::newRow("unknown partition") << "partition"
                                           << "no partition \"nosuch\"";
        QTest::newRow("unsupported version") << "version"
                                             << "v0.0.99";
    }
    void clearErrorsAndNothingHalfSubmitted() {
        QFETCH(QString, what);
        QFETCH(QString, expected);
        remote::ClusterConfig bad = cluster("broken");
        nlohmann::json slurm = nullptr;
        const std::string badToken = m_home.filePath(QStringLiteral("bad.jwt")).toStdString();
        if (what == "token") {
            std::ofstream(badToken) << "eyJhbGciOiJIUzI1NiJ9.e30.invalid\n";
            bad.slurm.tokenFile = badToken;
        } else if (what == "url") {
            bad.slurm.url = "http://127.0.0.1:" + std::to_string(process::freeTcpPort());
        } else if (what == "partition") {
            slurm = {{"partition", "nosuch"}};
        } else {
            bad.slurm.apiVersion = "v0.0.99";
        }
        saveCluster(db(), bad);
        std::string text = ddpSpec(1, 1, 5, 0.01, slurm);
        const std::string from = R"("cluster":"hpc")";
        text.replace(text.find(from), from.size(), R"("cluster":"broken")");
        control::Controller c(options());
        const std::size_t before = store::StoreReader(db()).components({}).size();
        try {
            c.submit(parse(text));
            QFAIL("the submission was accepted");
        } catch (const std::exception& e) {
            const std::string msg = e.what();
            QVERIFY2(msg.find("broken") != std::string::npos || what == "partition", e.what());
            QVERIFY2(msg.find(expected.toStdString()) != std::string::npos, e.what());
        }
        QCOMPARE(store::StoreReader(db()).components({}).size(), before);
        QCOMPARE(squeue(), std::string());
    }

    // The token is in no file the studio wrote: the database, the job folders, the logs, the
    // shared workdir.
    void tokenNeverWritten() {
        const std::string token = m_slurm->token();
        QVERIFY(token.size() > 20);
        for (const std::string& root : {m_home.path().toStdString(), m_slurm->sharedDir()})
            for (auto it = std::filesystem::recursive_directory_iterator(root);
                 it != std::filesystem::recursive_directory_iterator(); ++it) {
                if (!it->is_regular_file() || it->path() == m_slurm->tokenFile())
                    continue;
                std::ifstream in(it->path(), std::ios::binary);
                const std::string bytes((std::istreambuf_iterator<char>(in)),
                                        std::istreambuf_iterator<char>());
                QVERIFY2(bytes.find(token) == std::string::npos, it->path().c_str());
            }
    }
};

QTEST_GUILESS_MAIN(TestSlurmJobs)
#include "test_slurm_jobs.moc"
