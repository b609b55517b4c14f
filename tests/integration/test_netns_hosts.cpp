// The network-namespace SSH hosts fixture: logins as the test user, per-host addresses, TCP from
// host to host, a cut link, process tracking, a complete teardown, and the removal of what a
// killed fixture left behind. Skips where the fixture cannot work (not root, no sshd, no netns).
#include "tests/support/child_process.h"
#include "tests/support/netns_hosts.h"
#include "tests/support/process_check.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <sys/wait.h>

using namespace studio::testing;
using namespace std::chrono_literals;

namespace {

CommandResult onHost(const NetnsHosts& f, int host, const std::string& command,
                     std::chrono::milliseconds timeout = 20s) {
    std::vector<std::string> argv = f.sshArgs(host);
    argv.push_back(command);
    return runCommand(argv, timeout);
}

std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' '))
        s.pop_back();
    return s;
}

bool contains(const std::vector<int>& v, int x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

bool namespaceListed(const std::string& ns) {
    std::istringstream in(runCommand({"ip", "netns", "list"}).output);
    for (std::string word; in >> word;)
        if (word == ns)
            return true;
    return false;
}

bool linkExists(const std::string& name) {
    return runCommand({"ip", "link", "show", name}).ok();
}
bool userExists(const std::string& name) {
    return runCommand({"getent", "passwd", name}).ok();
}

// What one fixture made, checked against the system with ip, getent and /proc.
struct Footprint {
    std::vector<std::string> namespaces;
    std::vector<std::string> links;
    std::string user;
    std::string dir;
    std::vector<int> pids; // the sshd listeners

    static Footprint of(const NetnsHosts& f) {
        Footprint p{{}, {f.bridge()}, f.user(), f.dir(), {}};
        for (const auto& h : f.hosts()) {
            p.namespaces.push_back(h.ns);
            p.links.push_back(h.rootVeth);
        }
        return p;
    }
    // Names what is still there; "" when nothing is.
    std::string remaining() const {
        std::string left;
        for (const auto& ns : namespaces)
            if (namespaceListed(ns))
                left += " namespace " + ns;
        for (const auto& l : links)
            if (linkExists(l))
                left += " link " + l;
        if (userExists(user))
            left += " user " + user;
        if (std::filesystem::exists(dir))
            left += " dir " + dir;
        for (int pid : pids)
            if (!processGone(pid))
                left += " pid " + std::to_string(pid);
        if (std::filesystem::exists(kNetnsStateFile))
            left += std::string(" state file ") + kNetnsStateFile;
        return left;
    }
};

// Brings a one-host fixture up in a forked child that then dies by SIGKILL, as a test process
// killed by ctest's timeout would: no destructor runs. Returns the names the child made.
Footprint killedFixture() {
    int fds[2];
    if (::pipe(fds) != 0)
        qFatal("pipe failed");
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[0]);
        std::string report;
        try {
            auto* f = new NetnsHosts(NetnsHosts::Options{1, "mlstudio-test"}); // never deleted
            report = f->hosts()[0].ns + " " + f->hosts()[0].rootVeth + " " + f->bridge() + " " +
                     f->dir();
            for (int pid : processesInNamespace(f->hosts()[0].ns))
                report += " " + std::to_string(pid);
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
    p.user = "mlstudio-test";
    std::istringstream in(report);
    std::string ns, veth, bridge;
    in >> ns >> veth >> bridge >> p.dir;
    for (int pid; in >> pid;)
        p.pids.push_back(pid);
    if (ns == "error:" || p.dir.empty())
        return p;
    p.namespaces = {ns};
    p.links = {veth, bridge};
    return p;
}

} // namespace

class TestNetnsHosts : public QObject {
    Q_OBJECT
    std::unique_ptr<NetnsHosts> m_fixture;
    int m_sleeper = 0;

private Q_SLOTS:
    void initTestCase() {
        const std::string why = NetnsHosts::unavailableReason();
        if (!why.empty())
            QSKIP(why.c_str());
        QElapsedTimer t;
        t.start();
        // An exception escaping a test function aborts the run before any destructor.
        QVERIFY_THROWS_NO_EXCEPTION(m_fixture = std::make_unique<NetnsHosts>());
        qInfo("bring-up of 2 hosts: %lld ms", static_cast<long long>(t.elapsed()));
        QCOMPARE(m_fixture->hosts().size(), std::size_t(2));
    }

    void cleanupTestCase() { m_fixture.reset(); }

    void sshLogsInAsTestUser() {
        for (int i = 0; i < 2; ++i) {
            const CommandResult r = onHost(*m_fixture, i, "id -un");
            QVERIFY2(r.ok(), r.output.c_str());
            QCOMPARE(trimmed(r.output), m_fixture->user());
        }
    }

    void eachHostHasItsOwnAddress() {
        for (int i = 0; i < 2; ++i) {
            const CommandResult r = onHost(*m_fixture, i, "/usr/sbin/ip -4 -o addr show dev eth1");
            QVERIFY2(r.ok(), r.output.c_str());
            const std::string expected = " inet " + m_fixture->hosts()[i].address + "/24 ";
            QVERIFY2(r.output.find(expected) != std::string::npos, r.output.c_str());
        }
    }

    void hostsReachEachOtherOverTcp() {
        const std::string server = m_fixture->hosts()[1].address;
        const std::string python = "import socket\n"
                                   "s = socket.socket()\n"
                                   "s.bind((\"" +
                                   server +
                                   "\", 29611))\n"
                                   "s.listen(1)\n"
                                   "s.settimeout(15)\n"
                                   "print(\"listening\", flush=True)\n"
                                   "c, a = s.accept()\n"
                                   "c.settimeout(5)\n"
                                   "print(\"from\", a[0], c.recv(64).decode().strip())\n";
        std::vector<std::string> argv = m_fixture->sshArgs(1);
        argv.push_back("timeout 20 /usr/bin/python3 -c '" + python + "'");
        QProcess listener;
        QStringList args;
        for (std::size_t i = 1; i < argv.size(); ++i)
            args << QString::fromStdString(argv[i]);
        listener.start(QStringLiteral("ssh"), args);
        QVERIFY(listener.waitForStarted(5000));
        listener.closeWriteChannel();
        QTRY_VERIFY_WITH_TIMEOUT(listener.peek(64).contains("listening"), 10000);
        const CommandResult client =
            onHost(*m_fixture, 0, "echo hello-from-h0 >/dev/tcp/" + server + "/29611");
        QVERIFY2(client.ok(), client.output.c_str());
        QVERIFY(listener.waitForFinished(10000));
        const QByteArray out = listener.readAllStandardOutput();
        const std::string expected = "from " + m_fixture->hosts()[0].address + " hello-from-h0";
        QVERIFY2(out.contains(expected.c_str()), out.constData());
    }

    void cutLinkMakesHostUnreachable() {
        QVERIFY_THROWS_NO_EXCEPTION(m_fixture->setLinkUp(0, false));
        QElapsedTimer t;
        t.start();
        const CommandResult down = onHost(*m_fixture, 0, "true");
        const qint64 ms = t.elapsed();
        qInfo("ssh to a cut host failed after %lld ms: %s", static_cast<long long>(ms),
              trimmed(down.output).c_str());
        QCOMPARE(down.exitCode, 255);
        // ConnectTimeout=5 ends the attempt; without it TCP would retry for about two minutes.
        QVERIFY2(ms < 60000, "ConnectTimeout=5 should end the attempt");
        QVERIFY(onHost(*m_fixture, 1, "true").ok()); // only host 0 is cut off
        QVERIFY_THROWS_NO_EXCEPTION(m_fixture->setLinkUp(0, true));
        const CommandResult up = onHost(*m_fixture, 0, "true");
        QVERIFY2(up.ok(), up.output.c_str());
    }

    void detachedProcessIsTracked() {
        // setsid + redirected stdio: ssh returns at once and the process outlives the session.
        const CommandResult r =
            onHost(*m_fixture, 0, "setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!");
        QVERIFY2(r.ok(), r.output.c_str());
        m_sleeper = QByteArray::fromStdString(trimmed(r.output)).toInt();
        QVERIFY2(m_sleeper > 0, r.output.c_str());
        QVERIFY(contains(m_fixture->processesIn(0), m_sleeper));
        QVERIFY(!contains(m_fixture->processesIn(1), m_sleeper));
        QVERIFY(contains(m_fixture->userProcesses(), m_sleeper));
    }

    void tearDownRemovesEverything() {
        QVERIFY(m_sleeper > 0);
        const Footprint made = Footprint::of(*m_fixture);
        QCOMPARE(made.remaining(), std::string(" namespace ") + made.namespaces[0] + " namespace " +
                                       made.namespaces[1] + " link " + made.links[0] + " link " +
                                       made.links[1] + " link " + made.links[2] + " user " +
                                       made.user + " dir " + made.dir + " state file " +
                                       kNetnsStateFile);
        QElapsedTimer t;
        t.start();
        m_fixture->tearDown();
        qInfo("teardown: %lld ms", static_cast<long long>(t.elapsed()));
        QCOMPARE(made.remaining(), std::string());
        QVERIFY(processGone(m_sleeper));
        m_fixture->tearDown(); // idempotent
        m_fixture.reset();
    }

    void cleanupStaleRemovesKilledFixture() {
        m_fixture.reset(); // one fixture per machine at a time
        const Footprint left = killedFixture();
        QVERIFY2(!left.namespaces.empty(), "the killed fixture did not come up");
        QVERIFY(!left.pids.empty());
        QVERIFY(namespaceListed(left.namespaces[0]));
        QElapsedTimer t;
        t.start();
        QVERIFY_THROWS_NO_EXCEPTION(NetnsHosts::cleanupStale());
        qInfo("cleanupStale of a killed one-host fixture: %lld ms",
              static_cast<long long>(t.elapsed()));
        QCOMPARE(left.remaining(), std::string());
    }

    void cleanupStaleStopsOnlyListedProcesses() {
        // A pid whose start time differs from the recorded one has been reused: left alone.
        const int listed = startDaemon({"sleep", "60"}, "/dev/null");
        const int reused = startDaemon({"sleep", "60"}, "/dev/null");
        FixtureState state;
        state.ownerPid = 1;
        state.processes = {{listed, processStartTime(listed), "sleep"},
                           {reused, processStartTime(reused) + 1, "sleep"}};
        m_fixture.reset();
        {
            FixtureLock lock; // the state file may belong to a fixture of another process
            QVERIFY(!std::filesystem::exists(kNetnsStateFile));
            state.save();
        }
        QElapsedTimer t;
        t.start();
        QVERIFY_THROWS_NO_EXCEPTION(NetnsHosts::cleanupStale());
        qInfo("cleanupStale of one process: %lld ms", static_cast<long long>(t.elapsed()));
        QVERIFY(processGone(listed));
        QVERIFY(!processGone(reused));
        QVERIFY(!std::filesystem::exists(kNetnsStateFile));
        QVERIFY(terminateProcesses({reused}).empty());
    }

    void constructorRemovesKilledFixture() {
        m_fixture.reset();
        const Footprint left = killedFixture();
        QVERIFY2(!left.namespaces.empty(), "the killed fixture did not come up");
        QVERIFY(namespaceListed(left.namespaces[0]));
        std::unique_ptr<NetnsHosts> fixture;
        QVERIFY_THROWS_NO_EXCEPTION(
            fixture = std::make_unique<NetnsHosts>(NetnsHosts::Options{1, "mlstudio-test"}));
        NetnsHosts& next = *fixture;
        QVERIFY(!namespaceListed(left.namespaces[0]));
        QVERIFY(!linkExists(left.links[1]));
        QVERIFY(!std::filesystem::exists(left.dir));
        for (int pid : left.pids)
            QVERIFY(processGone(pid));
        const CommandResult r = onHost(next, 0, "id -un");
        QVERIFY2(r.ok(), r.output.c_str());
        const Footprint made = Footprint::of(next);
        next.tearDown();
        QCOMPARE(made.remaining(), std::string());
    }
};

QTEST_GUILESS_MAIN(TestNetnsHosts)
#include "test_netns_hosts.moc"
