// studio-launcher as a process: environment, tagging, event relay, failure teardown, stops,
// and no rank outliving it.
#include "engine/process/process.h"
#include "engine/wire/codec.h"
#include "engine/wire/line_splitter.h"
#include "tests/support/process_check.h"
#include "tests/support/tmpfs_mount.h"

#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <set>
#include <unistd.h>

using namespace studio;

namespace {

struct LauncherRun {
    std::vector<wire::Event> events;
    process::ExitStatus status;
    double seconds = 0;
    std::int64_t pid = 0;
};

std::vector<std::string> launcherArgs(int nproc, std::vector<std::string> command,
                                      std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {std::string(STUDIO_BIN_DIR) + "/studio-launcher",
                                     "--nproc-per-node", std::to_string(nproc),
                                     "--monitor-interval-ms", "0"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back("--");
    argv.insert(argv.end(), command.begin(), command.end());
    return argv;
}

// Runs the launcher, collecting its events; onEvent may act (signal it) while it runs.
LauncherRun
runLauncher(const std::vector<std::string>& argv,
            const std::function<void(process::Process&, const wire::Event&)>& onEvent = {}) {
    process::SpawnOptions o;
    o.argv = argv;
    o.env = process::currentEnvironment();
    o.captureStderr = false;
    const auto start = std::chrono::steady_clock::now();
    process::Process p = process::Process::spawn(o);
    wire::LineSplitter split;
    LauncherRun run;
    run.pid = p.pid();
    char buf[65536];
    while (true) {
        ssize_t n = ::read(p.stdoutFd(), buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        for (const auto& line : split.append(std::string_view(buf, static_cast<std::size_t>(n)))) {
            auto d = wire::decode(line.text);
            if (!d.event)
                continue;
            run.events.push_back(*d.event);
            if (onEvent)
                onEvent(p, *d.event);
        }
    }
    run.status = p.wait();
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return run;
}

template <typename T>
std::vector<std::pair<wire::Event, T>> eventsOf(const LauncherRun& r) {
    std::vector<std::pair<wire::Event, T>> out;
    for (const auto& e : r.events)
        if (const T* t = e.as<T>())
            out.emplace_back(e, *t);
    return out;
}

// Runs a command to its end and returns its stdout.
std::string runLauncherText(const std::vector<std::string>& argv) {
    process::SpawnOptions o;
    o.argv = argv;
    o.env = process::currentEnvironment();
    o.captureStderr = false;
    process::Process p = process::Process::spawn(o);
    std::string out = readToEnd(p.stdoutFd());
    p.wait();
    return out;
}

// A follower's whole output; it ends by itself at the journal's end (bounded by a timeout).
std::string followOutput(const std::vector<std::string>& argv) {
    std::vector<std::string> bounded = {"timeout", "20"};
    bounded.insert(bounded.end(), argv.begin(), argv.end());
    return runLauncherText(bounded);
}

// The ranks' exit events, without the launcher's own (rank -1, the last event).
std::vector<std::pair<wire::Event, wire::ExitEvent>> rankExits(const LauncherRun& r) {
    auto all = eventsOf<wire::ExitEvent>(r);
    std::erase_if(all, [](const auto& x) { return x.first.rank < 0; });
    return all;
}

// The launcher ends its event stream with its own exit event, carrying its exit code.
void checkLauncherExit(const LauncherRun& r, int code) {
    QVERIFY(!r.events.empty());
    const wire::Event& last = r.events.back();
    QCOMPARE(last.rank, -1);
    QVERIFY(last.as<wire::ExitEvent>());
    QCOMPARE(last.as<wire::ExitEvent>()->code, code);
}

std::vector<std::int64_t> rankPids(const LauncherRun& r) {
    for (const auto& [e, s] : eventsOf<wire::StatusEvent>(r))
        if (s.state == "ranks_started")
            return s.pids;
    return {};
}

} // namespace

class TestLauncherProcess : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp; // TMPDIR of every launcher here: their rendezvous folders land in it

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        qputenv("TMPDIR", m_tmp.path().toLocal8Bit());
    }

    void environmentTaggingAndEvents() {
        const std::string script = "echo \"rank=$RANK local=$LOCAL_RANK world=$WORLD_SIZE "
                                   "host=$SM_CURRENT_HOST port=$MASTER_PORT\";"
                                   "echo oops >&2;"
                                   "echo "
                                   "'{\"v\":1,\"kind\":\"metric\",\"name\":\"loss\",\"step\":3,"
                                   "\"value\":0.5,\"rank\":99}' >&$STUDIO_EVENTS_FD;"
                                   "echo 'not json' >&$STUDIO_EVENTS_FD;"
                                   "printf 'no newline at the end'";
        auto run = runLauncher(
            launcherArgs(2, {"/bin/sh", "-c", script},
                         {"--nnodes", "2", "--node-rank", "1", "--master-port", "29999"}));
        QVERIFY(run.status.success());
        auto logs = eventsOf<wire::LogEvent>(run);
        std::set<std::string> texts;
        for (const auto& [e, l] : logs) {
            QCOMPARE(e.node, 1);
            texts.insert(std::to_string(e.rank) + "|" + wire::streamName(l.stream) + "|" + l.text);
        }
        QVERIFY(texts.count("2|stdout|rank=2 local=0 world=4 host=algo-2 port=29999"));
        QVERIFY(texts.count("3|stdout|rank=3 local=1 world=4 host=algo-2 port=29999"));
        QVERIFY(texts.count("2|stderr|oops"));
        QVERIFY(texts.count("3|events|not json"));              // malformed: kept as a log line
        QVERIFY(texts.count("2|stdout|no newline at the end")); // flushed at end of stream
        auto metrics = eventsOf<wire::MetricEvent>(run);
        QCOMPARE(metrics.size(), std::size_t(2));
        for (const auto& [e, m] : metrics) {
            QVERIFY(e.rank == 2 || e.rank == 3); // the launcher stamps the true rank
            QCOMPARE(m.value, 0.5);
        }
        auto exits = rankExits(run);
        QCOMPARE(exits.size(), std::size_t(2));
        checkLauncherExit(run, 0);
        auto statuses = eventsOf<wire::StatusEvent>(run);
        QCOMPARE(statuses.front().second.state, std::string("started"));
        QCOMPARE(statuses.back().second.state, std::string("finished"));
    }

    // A one-host job's ranks meet through a file in a private folder (nothing listens for them);
    // the folder is gone when the launcher ends. Several hosts need the TCP store.
    void oneHostRendezvousIsAPrivateFile() {
        const std::string script =
            "f=\"$STUDIO_STORE_FILE\"; [ -n \"$f\" ] || { echo none; exit 0; };"
            "echo \"$f\"; stat -c 'mode=%a owner=%u' \"$(dirname \"$f\")\"";
        auto run = runLauncher(launcherArgs(2, {"/bin/sh", "-c", script}));
        QVERIFY(run.status.success());
        std::set<std::string> files, modes;
        for (const auto& [e, l] : eventsOf<wire::LogEvent>(run))
            (l.text.rfind("mode=", 0) == 0 ? modes : files).insert(l.text);
        QCOMPARE(files.size(), std::size_t(1)); // both ranks got the same file
        const std::string file = *files.begin();
        QVERIFY2(file.find("/studio-rendezvous-") != std::string::npos, file.c_str());
        QCOMPARE(modes, std::set<std::string>{"mode=700 owner=" + std::to_string(::getuid())});
        QVERIFY(!QFileInfo::exists(QString::fromStdString(file.substr(0, file.rfind('/')))));

        auto two = runLauncher(
            launcherArgs(2, {"/bin/sh", "-c", script}, {"--nnodes", "2", "--node-rank", "1"}));
        QVERIFY(two.status.success());
        for (const auto& [e, l] : eventsOf<wire::LogEvent>(two))
            QCOMPARE(l.text, std::string("none"));
    }

    void failingRankTearsDownTheNode() {
        const std::string script = "if [ \"$RANK\" = 1 ]; then sleep 0.3; echo 'fatal: shape "
                                   "mismatch' >&2; exit 3; fi; exec sleep 30";
        auto run = runLauncher(launcherArgs(3, {"/bin/sh", "-c", script}));
        QCOMPARE(run.status.code, 1);
        // The other ranks sleep 30 s: ending well before that means the node was torn down (the
        // bound tells the two apart on a busy machine too; it is no performance goal).
        QVERIFY2(run.seconds < 15.0, std::to_string(run.seconds).c_str());
        auto exits = rankExits(run);
        QCOMPARE(exits.size(), std::size_t(3));
        checkLauncherExit(run, 1);
        QCOMPARE(exits.front().first.rank, 1); // the failure is reported first
        QCOMPARE(exits.front().second.code, 3);
        QCOMPARE(exits.front().second.stderrTail,
                 std::vector<std::string>{"fatal: shape mismatch"});
        for (std::size_t i = 1; i < exits.size(); ++i)
            QCOMPARE(exits[i].second.signal, SIGTERM);
        QVERIFY(eventsOf<wire::StatusEvent>(run).back().second.message.find(
                    "rank 1 exited with code 3") != std::string::npos);
        for (auto pid : rankPids(run))
            QVERIFY(processGone(pid));
    }

    void sigtermIsAGracefulStop() {
        // Ranks trap SIGTERM and exit cleanly, as a checkpointing trainer does.
        const std::string script =
            "trap 'echo stopping; exit 0' TERM; echo ready; while true; do sleep 0.05; done";
        auto run = runLauncher(launcherArgs(2, {"/bin/sh", "-c", script}),
                               [](process::Process& p, const wire::Event& e) {
                                   const auto* s = e.as<wire::StatusEvent>();
                                   if (s && s->state == "ranks_started") {
                                       QTest::qWait(300);
                                       ::kill(p.pid(), SIGTERM);
                                   }
                               });
        QCOMPARE(run.status.code, 3); // stopped
        int stopping = 0;
        for (const auto& [e, l] : eventsOf<wire::LogEvent>(run))
            stopping += l.text == "stopping";
        QCOMPARE(stopping, 2);
        for (const auto& [e, x] : rankExits(run))
            QCOMPARE(x.code, 0);
        checkLauncherExit(run, 3);
    }

    void graceThenSigkill() {
        const std::string script = "trap '' TERM; echo ready; while true; do sleep 0.05; done";
        auto run =
            runLauncher(launcherArgs(1, {"/bin/sh", "-c", script}, {"--grace-period-s", "0.5"}),
                        [](process::Process& p, const wire::Event& e) {
                            const auto* s = e.as<wire::StatusEvent>();
                            if (s && s->state == "ranks_started") {
                                QTest::qWait(200);
                                ::kill(p.pid(), SIGINT);
                            }
                        });
        QCOMPARE(run.status.code, 3);
        auto exits = rankExits(run);
        // The rank ignores SIGTERM: only the escalation after the grace period can end it.
        QCOMPARE(exits.at(0).second.signal, SIGKILL);
    }

    void ranksDieWithAKilledLauncher() {
        std::vector<std::int64_t> pids;
        auto run = runLauncher(launcherArgs(2, {"/bin/sleep", "30"}),
                               [&](process::Process& p, const wire::Event& e) {
                                   const auto* s = e.as<wire::StatusEvent>();
                                   if (s && s->state == "ranks_started") {
                                       pids = s->pids;
                                       ::kill(p.pid(), SIGKILL);
                                   }
                               });
        QCOMPARE(run.status.signal, SIGKILL);
        QCOMPARE(pids.size(), std::size_t(2));
        for (auto pid : pids)
            QTRY_VERIFY_WITH_TIMEOUT(processGone(pid), 3000);
        // Its rendezvous folder stayed behind; the next launcher removes it.
        const QString left = QStringLiteral("studio-rendezvous-%1-").arg(run.pid);
        const auto leftovers = [&] {
            return QDir(m_tmp.path()).entryList({left + QLatin1Char('*')}, QDir::Dirs).size();
        };
        QCOMPARE(leftovers(), 1);
        QVERIFY(runLauncher(launcherArgs(2, {"/bin/true"})).status.success());
        QCOMPARE(leftovers(), 0);
    }

    // Before: a descriptor opened without O_CLOEXEC (an ofstream of another thread) reached
    // every launcher and rank.
    void childrenInheritOnlyTheirStreams() {
        const int stray = ::fcntl(::open("/dev/null", O_RDONLY), F_DUPFD, 57); // no O_CLOEXEC
        QVERIFY(stray >= 57);
        process::SpawnOptions o;
        o.argv = {"/bin/ls", "-1", "/proc/self/fd"};
        o.captureStderr = false;
        auto p = process::Process::spawn(o);
        const std::string fds = readToEnd(p.stdoutFd());
        QVERIFY(p.wait().success());
        QVERIFY2(fds.find(std::to_string(stray)) == std::string::npos, fds.c_str());
        QVERIFY2(fds.find("0\n1\n2\n") == 0, fds.c_str());
        ::close(stray);
    }

    void unstartableCommand() {
        auto run = runLauncher(launcherArgs(2, {"/nonexistent/program"}));
        QCOMPARE(run.status.code, 1);
        auto exits = eventsOf<wire::ExitEvent>(run);
        QVERIFY(!exits.empty());
        QCOMPARE(exits.front().second.code, 127);
        QVERIFY(exits.front().second.stderrTail.at(0).find("/nonexistent/program") !=
                std::string::npos);
    }

    // --detach --journal: the launcher runs in a session of its own, appends its events to the
    // journal, and `follow` streams the journal from any offset to its exit event.
    void detachedLauncherFollowedFromAnOffset() {
        QTemporaryDir dir;
        const std::string journal = dir.filePath(QStringLiteral("n0/journal.jsonl")).toStdString();
        auto argv = launcherArgs(2, {"/bin/sh", "-c", "echo one; sleep 0.3; echo two"},
                                 {"--journal", journal, "--detach"});
        const auto start = runLauncher(argv); // the detaching parent returns at once
        QCOMPARE(start.status.code, 0);
        const std::string follow = std::string(STUDIO_BIN_DIR) + "/studio-launcher";
        const auto all = followOutput({follow, "follow", journal, "--heartbeat-ms", "100"});
        QVERIFY(all.rfind("@@studio-follow 1 0\n", 0) == 0);
        QVERIFY2(all.size() > 6 && all.substr(all.size() - 5) == "#end\n", all.c_str());
        // Every line is a complete event; the launcher's exit is the journal's last line.
        std::string lines;
        std::size_t exits = 0;
        for (std::size_t pos = all.find('\n') + 1; pos < all.size();) {
            const auto nl = all.find('\n', pos);
            const std::string line = all.substr(pos, nl - pos);
            pos = nl + 1;
            if (line.empty() || line[0] != '{')
                continue;
            lines += line + "\n";
            auto d = wire::decode(line);
            QVERIFY2(d.event, line.c_str());
            exits += d.event->rank < 0 && d.event->as<wire::ExitEvent>();
        }
        QCOMPARE(exits, std::size_t(1));
        QFile file(QString::fromStdString(journal));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll().toStdString(), lines);
        // From the middle: exactly the bytes after the offset.
        const std::size_t offset = lines.find('\n', lines.size() / 2) + 1;
        const auto rest = followOutput({follow, "follow", journal, "--offset",
                                        std::to_string(offset), "--heartbeat-ms", "100"});
        std::string restLines;
        for (std::size_t pos = rest.find('\n') + 1; pos < rest.size();) {
            const auto nl = rest.find('\n', pos);
            if (rest[pos] == '{')
                restLines += rest.substr(pos, nl - pos + 1);
            pos = nl + 1;
        }
        QCOMPARE(restLines, lines.substr(offset));
        // Beyond the end: an error, not a hang.
        const auto beyond = followOutput({follow, "follow", journal, "--offset", "99999999"});
        QVERIFY2(beyond.find("#error offset 99999999 is beyond the end") != std::string::npos,
                 beyond.c_str());
    }

    // The journal's disk fills while ranks print: the launcher stops them and ends its journal,
    // in the room it kept, with a node_failure naming the disk, the ranks' exits and its own.
    void fullDiskEndsTheJournalWithTheReason() {
        QTemporaryDir dir;
        TmpfsMount disk(dir.path().toStdString(), "64m");
        if (!disk.mounted())
            QSKIP("needs root to mount a small tmpfs");
        const std::string journal = disk.dir() + "/journal.jsonl";
        const std::string script =
            "while :; do echo " + std::string(200, 'x') + "; sleep 0.001; done";
        process::SpawnOptions o;
        o.argv = launcherArgs(2, {"/bin/sh", "-c", script}, {"--journal", journal});
        o.env = process::currentEnvironment();
        o.captureStderr = false;
        process::Process p = process::Process::spawn(o);
        const auto text = [&] {
            QFile f(QString::fromStdString(journal));
            return f.open(QIODevice::ReadOnly) ? f.readAll().toStdString() : std::string();
        };
        QTRY_VERIFY_WITH_TIMEOUT(text().find("ranks_started") != std::string::npos, 10000);
        disk.fill();
        const auto status = p.waitFor(30000);
        if (!status)
            p.signal(SIGKILL);
        QVERIFY2(status, "the launcher went on with a full disk");
        QCOMPARE(status->code, 3); // stopped
        std::vector<wire::Event> events;
        const std::string all = text();
        QCOMPARE(all.back(), '\n');
        std::size_t failures = 0, rankExits = 0;
        std::vector<std::int64_t> pids;
        for (std::size_t pos = 0; pos < all.size();) {
            const auto nl = all.find('\n', pos);
            auto d = wire::decode(all.substr(pos, nl - pos));
            pos = nl + 1;
            QVERIFY(d.event);
            events.push_back(*d.event);
            if (const auto* s = d.event->as<wire::StatusEvent>()) {
                failures += s->state == "node_failure" &&
                            s->message.find(journal + " is full") != std::string::npos;
                if (s->state == "ranks_started")
                    pids = s->pids;
            }
            rankExits += d.event->rank >= 0 && d.event->as<wire::ExitEvent>();
        }
        QCOMPARE(failures, std::size_t(1));
        QCOMPARE(rankExits, std::size_t(2));
        QVERIFY(events.back().rank < 0 && events.back().as<wire::ExitEvent>());
        for (auto pid : pids)
            QVERIFY(processGone(pid));
    }

    // A launcher killed without writing its exit: the follower says #gone instead of waiting.
    void followerSeesAKilledLauncherGone() {
        QTemporaryDir dir;
        const std::string journal = dir.filePath(QStringLiteral("j.jsonl")).toStdString();
        const auto start = runLauncherText(
            launcherArgs(1, {"/bin/sleep", "30"}, {"--journal", journal, "--detach"}));
        auto j = QJsonDocument::fromJson(QByteArray::fromStdString(start)).object();
        const qint64 pid = j.value(QStringLiteral("pid")).toInteger();
        const std::string ticks = j.value(QStringLiteral("start")).toString().toStdString();
        QVERIFY(pid > 0 && !ticks.empty());
        QVERIFY(!processGone(pid));
        // The detached launcher has its own session: the test's signals never reach it.
        QCOMPARE(::getsid(static_cast<pid_t>(pid)), static_cast<pid_t>(pid));
        ::kill(static_cast<pid_t>(pid), SIGKILL);
        const std::string follow = std::string(STUDIO_BIN_DIR) + "/studio-launcher";
        const auto out = followOutput({follow, "follow", journal, "--pid", std::to_string(pid),
                                       "--start", ticks, "--heartbeat-ms", "100"});
        QVERIFY2(out.size() > 6 && out.substr(out.size() - 6) == "#gone\n", out.c_str());
        // signal refuses a process that is no longer the launcher (pid reuse guard).
        const auto sig = runLauncherText(
            {follow, "signal", "--pid", std::to_string(pid), "--start", ticks, "--signal", "TERM"});
        QCOMPARE(sig, std::string("not running\n"));
    }

    void samplesTheNode() {
        auto argv = launcherArgs(1, {"/bin/sleep", "0.7"});
        argv[4] = "100"; // --monitor-interval-ms
        auto run = runLauncher(argv);
        std::set<std::string> seen;
        for (const auto& [e, s] : eventsOf<wire::SysEvent>(run)) {
            QCOMPARE(e.rank, -1);
            seen.insert(s.device + "/" + s.metric);
        }
        for (const char* want : {"cpu/util", "cpu0/util", "cpu/iowait", "mem/used", "net/rx",
                                 "net/tx", "disk/read", "disk/write"})
            QVERIFY2(seen.count(want), want);
    }
};

QTEST_GUILESS_MAIN(TestLauncherProcess)
#include "test_launcher_process.moc"
