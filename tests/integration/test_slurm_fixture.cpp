// The real-Slurm fixture: /ping through both slurmrestd (JWT over TCP, local auth over a unix
// socket), a 2-node REST job whose ranks run on both namespace hosts, a local-auth job that runs
// as nobody and writes into the shared dir, the `one` partition (node limit, Resources), requeue,
// a complete teardown, and the removal of what a killed fixture left. Skips without root/Slurm.
#include "tests/support/child_process.h"
#include "tests/support/process_check.h"
#include "tests/support/slurm_cluster.h"

#include <nlohmann/json.hpp>

#include <QElapsedTimer>
#include <QtTest>

#include <filesystem>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>

using namespace studio::testing;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

struct Http {
    int status = 0;
    json body;       // null when the body is not JSON
    std::string raw; // curl's output, for messages
};

// One request to the fixture's slurmrestd: JWT headers over TCP, or local auth over the socket.
// --noproxy: an http_proxy in the environment must never take the request off the machine.
Http request(const SlurmCluster& c, bool viaSocket, const std::string& method,
             const std::string& path, const std::string& data = {}, bool withToken = true) {
    std::vector<std::string> argv = {"curl", "-sS", "--noproxy", "*",  "--max-time",
                                     "10",   "-X",  method,      "-w", "\n%{http_code}"};
    if (viaSocket) {
        argv.insert(argv.end(), {"--unix-socket", c.socketPath(), "http://localhost" + path});
    } else {
        if (withToken)
            argv.insert(argv.end(), {"-H", "X-SLURM-USER-NAME: " + c.tokenUser(), "-H",
                                     "X-SLURM-USER-TOKEN: " + c.token()});
        argv.push_back(c.restUrl() + path);
    }
    if (!data.empty())
        argv.insert(argv.end(), {"-H", "Content-Type: application/json", "--data-binary", data});
    const CommandResult r = runCommand(argv, 15s);
    Http h;
    h.raw = describeFailure(argv, r);
    const auto nl = r.output.rfind('\n');
    if (!r.ok() || nl == std::string::npos)
        return h;
    h.status = std::atoi(r.output.c_str() + nl + 1);
    h.body = json::parse(r.output.substr(0, nl), nullptr, false);
    if (h.body.is_discarded())
        h.body = nullptr;
    return h;
}

json jobSpec(const std::string& name, const std::string& partition, int nodes,
             const std::string& script, const std::string& cwd) {
    return {{"script", "#!/bin/bash\n" + script},
            {"job",
             {{"name", name},
              {"partition", partition},
              {"nodes", nodes}, // an integer: [n, n] was accepted but gave one node
              {"time_limit", 2},
              {"current_working_directory", cwd},
              {"environment", {{"PATH", "/usr/sbin:/usr/bin:/sbin:/bin"}}}}}};
}

// Submits and returns the reply; job_id is 0 when there is none.
Http submit(const SlurmCluster& c, bool viaSocket, const json& spec) {
    return request(c, viaSocket, "POST", "/slurm/v0.0.38/job/submit", spec.dump());
}

int jobIdOf(const Http& h) {
    return h.body.is_object() ? h.body.value("job_id", 0) : 0;
}

json job(const SlurmCluster& c, int id) {
    const Http h = request(c, false, "GET", "/slurm/v0.0.38/job/" + std::to_string(id));
    if (h.status != 200 || !h.body.is_object() || h.body.value("jobs", json::array()).empty())
        return json::object();
    return h.body["jobs"][0];
}

// Polls every 100 ms until `done` holds for the job, or `limit` passes; returns the last view.
template <typename Pred>
json waitForJob(const SlurmCluster& c, int id, Pred done, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    json j = job(c, id);
    while (!done(j) && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(100ms);
        j = job(c, id);
    }
    return j;
}

bool inState(const json& j, const char* state) {
    return j.value("job_state", "") == state;
}

bool finished(const json& j) {
    return inState(j, "COMPLETED") || inState(j, "FAILED") || inState(j, "CANCELLED");
}

bool namespaceListed(const std::string& ns) {
    std::istringstream in(runCommand({"ip", "netns", "list"}).output);
    for (std::string word; in >> word;)
        if (word == ns)
            return true;
    return false;
}

// What one fixture made, checked against the system.
struct Footprint {
    std::vector<int> pids; // launchers and daemons
    std::vector<std::string> namespaces;
    std::string bridge;
    std::string dir;

    static Footprint of(SlurmCluster& c) {
        Footprint p;
        for (const auto& d : c.daemons())
            p.pids.insert(p.pids.end(), {d.launcher, d.pid});
        for (const auto& h : c.hosts().hosts())
            p.namespaces.push_back(h.ns);
        p.bridge = c.hosts().bridge();
        p.dir = c.dir();
        return p;
    }
    std::string remaining() const {
        std::string left;
        for (int pid : pids)
            if (!processGone(pid))
                left += " pid " + std::to_string(pid);
        for (const auto& ns : namespaces)
            if (namespaceListed(ns))
                left += " namespace " + ns;
        if (!bridge.empty() && std::filesystem::exists("/sys/class/net/" + bridge))
            left += " bridge " + bridge;
        if (!dir.empty() && std::filesystem::exists(dir))
            left += " dir " + dir;
        for (const char* f : {kSlurmStateFile, kNetnsStateFile})
            if (std::filesystem::exists(f))
                left += std::string(" state file ") + f;
        return left;
    }
};

// Brings a cluster up in a forked child, then kills its `timeout` launchers and itself with
// SIGKILL: no destructor runs and the daemons are orphaned, so only the state files can find
// them. Returns what the child made (namespaces empty when it failed to come up).
Footprint killedCluster(std::string& error) {
    int fds[2];
    if (::pipe(fds) != 0)
        qFatal("pipe failed");
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[0]);
        std::string report;
        try {
            auto* c = new SlurmCluster(); // never deleted
            const Footprint p = Footprint::of(*c);
            report = p.bridge + " " + p.dir;
            for (const auto& ns : p.namespaces)
                report += " ns " + ns;
            for (const auto& d : c->daemons())
                report += " pid " + std::to_string(d.pid);
            for (const auto& d : c->daemons())
                ::kill(d.launcher, SIGKILL);
        } catch (const std::exception& e) {
            report = std::string("error: ") + e.what();
        }
        [[maybe_unused]] auto n = ::write(fds[1], report.data(), report.size());
        ::kill(::getpid(), SIGKILL);
    }
    ::close(fds[1]);
    const std::string report = readToEnd(fds[0]);
    ::close(fds[0]);
    ::waitpid(pid, nullptr, 0);
    Footprint p;
    if (report.rfind("error: ", 0) == 0) {
        error = report;
        return p;
    }
    std::istringstream in(report);
    in >> p.bridge >> p.dir;
    for (std::string kind, value; in >> kind >> value;) {
        if (kind == "ns")
            p.namespaces.push_back(value);
        else
            p.pids.push_back(std::stoi(value));
    }
    return p;
}

} // namespace

class TestSlurmFixture : public QObject {
    Q_OBJECT
    std::unique_ptr<SlurmCluster> m_cluster;

    std::string failure(const std::string& what) const {
        return what + "\n" + (m_cluster ? m_cluster->logTail(15) : std::string());
    }

private Q_SLOTS:
    void initTestCase() {
        const std::string why = SlurmCluster::unavailableReason();
        if (!why.empty())
            QSKIP(why.c_str());
        QElapsedTimer t;
        t.start();
        // An exception escaping a test function aborts the run before any destructor.
        QVERIFY_THROWS_NO_EXCEPTION(m_cluster = std::make_unique<SlurmCluster>());
        qInfo("bring-up of 2 Slurm nodes and 2 slurmrestd: %lld ms",
              static_cast<long long>(t.elapsed()));
    }

    void cleanupTestCase() { m_cluster.reset(); }

    void pingOverJwt() {
        const Http h = request(*m_cluster, false, "GET", "/slurm/v0.0.38/ping");
        QVERIFY2(h.status == 200, failure(h.raw).c_str());
        QCOMPARE(h.body["pings"][0].value("ping", ""), std::string("UP"));
        QCOMPARE(h.body["meta"]["plugin"].value("type", ""), std::string("openapi/v0.0.38"));
        const Http anonymous = request(*m_cluster, false, "GET", "/slurm/v0.0.38/ping", {}, false);
        QCOMPARE(anonymous.status, 401);
        // The fixture loads the older API versions as well.
        const Http older = request(*m_cluster, false, "GET", "/slurm/v0.0.36/ping");
        QVERIFY2(older.status == 200, older.raw.c_str());
    }

    void pingOverUnixSocket() {
        QCOMPARE(m_cluster->socketUrl(), "unix:" + m_cluster->socketPath());
        const Http h = request(*m_cluster, true, "GET", "/slurm/v0.0.38/ping");
        QVERIFY2(h.status == 200, failure(h.raw).c_str());
        QCOMPARE(h.body["pings"][0].value("ping", ""), std::string("UP"));
    }

    void twoNodeJobRunsOnBothHosts() {
        const std::string dir = m_cluster->sharedDir();
        json spec = jobSpec("two-node", SlurmCluster::kPartitionAll, 2,
                            "srun --ntasks-per-node=1 bash -c 'echo \"$SLURM_NODEID $(hostname "
                            "-I)\" > " +
                                dir + "/rest-$SLURM_JOB_ID-node$SLURM_NODEID.txt'\n",
                            dir);
        spec["job"]["tasks"] = 2;
        QElapsedTimer t;
        t.start();
        const Http h = submit(*m_cluster, false, spec);
        const int id = jobIdOf(h);
        QVERIFY2(h.status == 200 && id > 0, failure(h.raw).c_str());
        const json j = waitForJob(*m_cluster, id, finished, 30s);
        qInfo("2-node REST job, submit to %s: %lld ms", j.value("job_state", "?").c_str(),
              static_cast<long long>(t.elapsed()));
        QVERIFY2(inState(j, "COMPLETED"), failure(j.dump()).c_str());
        QCOMPARE(j.value("node_count", 0), 2);
        for (int node = 0; node < 2; ++node) {
            const std::string path =
                dir + "/rest-" + std::to_string(id) + "-node" + std::to_string(node) + ".txt";
            std::istringstream in(readWholeFile(path));
            int nodeId = -1;
            std::string address;
            in >> nodeId >> address;
            QCOMPARE(nodeId, node);
            // Ranks are placed in node order: node 0 is h1, with the first host's address.
            QCOMPARE(address, m_cluster->nodeAddress(node));
        }
    }

    void localAuthJobRunsAsNobody() {
        const std::string dir = m_cluster->sharedDir();
        const json spec = jobSpec("as-nobody", SlurmCluster::kPartitionAll, 1,
                                  "id -un > " + dir + "/local-$SLURM_JOB_ID.txt\n", dir);
        const Http h = submit(*m_cluster, true, spec);
        const int id = jobIdOf(h);
        QVERIFY2(h.status == 200 && id > 0, failure(h.raw).c_str());
        const json j = waitForJob(*m_cluster, id, finished, 30s);
        QVERIFY2(inState(j, "COMPLETED"), failure(j.dump()).c_str());
        QCOMPARE(j.value("user_name", ""), std::string("nobody"));
        const std::string path = dir + "/local-" + std::to_string(id) + ".txt";
        QCOMPARE(readWholeFile(path), std::string("nobody\n"));
        struct stat st {};
        QCOMPARE(::stat(path.c_str(), &st), 0);
        QCOMPARE(static_cast<int>(st.st_uid), 65534);
    }

    void partitionOneHoldsJobsBack() {
        const std::string dir = m_cluster->sharedDir();
        const char* one = SlurmCluster::kPartitionOne;
        // Both of h1's CPUs: the only node of `one` is then full.
        json hold = jobSpec("hold", one, 1, "sleep 100\n", dir);
        hold["job"]["tasks"] = 2;
        const int holder = jobIdOf(submit(*m_cluster, false, hold));
        QVERIFY(holder > 0);
        json j = waitForJob(
            *m_cluster, holder, [](const json& j) { return inState(j, "RUNNING"); }, 15s);
        QVERIFY2(inState(j, "RUNNING"), failure(j.dump()).c_str());
        QCOMPARE(j.value("nodes", ""), std::string("h1"));

        const int waiter =
            jobIdOf(submit(*m_cluster, false, jobSpec("wait", one, 1, "true\n", dir)));
        QVERIFY(waiter > 0);
        j = waitForJob(
            *m_cluster, waiter,
            [](const json& j) { return j.value("state_reason", "") == "Resources"; }, 10s);
        QVERIFY2(inState(j, "PENDING") && j.value("state_reason", "") == "Resources",
                 j.dump().c_str());

        // More nodes than the partition has: Slurm 22.05 (EnforcePartLimits=NO) accepts the
        // job, names the problem in errors[] and keeps it pending with PartitionNodeLimit.
        const Http tooBig = submit(*m_cluster, false, jobSpec("too-big", one, 2, "true\n", dir));
        const int big = jobIdOf(tooBig);
        qInfo("nodes=2 in `one`: HTTP %d %s", tooBig.status, tooBig.body.dump().c_str());
        QVERIFY2(big > 0, tooBig.raw.c_str());
        QVERIFY2(!tooBig.body.value("errors", json::array()).empty(), tooBig.raw.c_str());
        QCOMPARE(tooBig.body["errors"][0].value("error_code", 0), 2015);
        j = waitForJob(
            *m_cluster, big,
            [](const json& j) { return j.value("state_reason", "") == "PartitionNodeLimit"; }, 10s);
        QVERIFY2(inState(j, "PENDING") && j.value("state_reason", "") == "PartitionNodeLimit",
                 j.dump().c_str());

        int rc = 0;
        const std::string out =
            m_cluster->slurmCommand({"scancel", std::to_string(waiter), std::to_string(big)}, &rc);
        QVERIFY2(rc == 0, out.c_str());

        // Requeue: the job goes back to PENDING (BeginTime, cred_expire) and runs again.
        QElapsedTimer t;
        t.start();
        m_cluster->slurmCommand({"scontrol", "requeue", std::to_string(holder)});
        j = waitForJob(
            *m_cluster, holder,
            [](const json& j) { return inState(j, "RUNNING") && j.value("restart_cnt", 0) == 1; },
            30s);
        qInfo("scontrol requeue to RUNNING again: %lld ms", static_cast<long long>(t.elapsed()));
        QVERIFY2(inState(j, "RUNNING") && j.value("restart_cnt", 0) == 1,
                 failure(j.dump()).c_str());
    }

    void tearDownRemovesEverything() {
        const Footprint made = Footprint::of(*m_cluster);
        QVERIFY(made.pids.size() >= 12); // launcher + daemon for munged, ctld, 2 slurmd, 2 rest
        QVERIFY(made.remaining().find("state file") != std::string::npos);
        QElapsedTimer t;
        t.start();
        m_cluster->tearDown(); // a job is still running: it is cancelled first
        qInfo("teardown: %lld ms", static_cast<long long>(t.elapsed()));
        QCOMPARE(made.remaining(), std::string());
        m_cluster->tearDown(); // idempotent
        m_cluster.reset();
    }

    void constructorRemovesKilledCluster() {
        m_cluster.reset(); // one fixture per machine at a time
        std::string error;
        const Footprint left = killedCluster(error);
        QVERIFY2(error.empty(), error.c_str());
        QCOMPARE(left.namespaces.size(), std::size_t(2));
        // The orphaned daemons (launchers killed) live on until someone removes them.
        for (int pid : left.pids)
            QVERIFY2(!processGone(pid), ("pid " + std::to_string(pid)).c_str());
        QElapsedTimer t;
        t.start();
        QVERIFY_THROWS_NO_EXCEPTION(m_cluster = std::make_unique<SlurmCluster>());
        qInfo("bring-up after a killed cluster: %lld ms", static_cast<long long>(t.elapsed()));
        for (int pid : left.pids)
            QVERIFY2(processGone(pid), ("pid " + std::to_string(pid)).c_str());
        QVERIFY(!std::filesystem::exists(left.dir));
        for (const auto& ns : left.namespaces)
            QVERIFY2(!namespaceListed(ns), ns.c_str());
        const Http h = request(*m_cluster, false, "GET", "/slurm/v0.0.38/ping");
        QVERIFY2(h.status == 200, failure(h.raw).c_str());
        const Footprint made = Footprint::of(*m_cluster);
        m_cluster->tearDown();
        QCOMPARE(made.remaining(), std::string());
        m_cluster.reset();
    }
};

QTEST_GUILESS_MAIN(TestSlurmFixture)
#include "test_slurm_fixture.moc"
