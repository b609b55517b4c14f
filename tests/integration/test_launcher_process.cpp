// studio-launcher as a process: environment, tagging, event relay, failure teardown, stops,
// and no rank outliving it.
#include "engine/process/process.h"
#include "engine/wire/codec.h"
#include "engine/wire/line_splitter.h"
#include "tests/support/process_check.h"

#include <QtTest>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <poll.h>
#include <set>
#include <unistd.h>

using namespace studio;

namespace {

struct LauncherRun {
    std::vector<wire::Event> events;
    process::ExitStatus status;
    double seconds = 0;
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
    char buf[65536];
    while (true) {
        ssize_t n = ::read(p.stdoutFd(), buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        for (const auto& line : split.append(std::string_view(buf, static_cast<std::size_t>(n)))) {
            auto d = wire::decode(line);
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

std::vector<std::int64_t> rankPids(const LauncherRun& r) {
    for (const auto& [e, s] : eventsOf<wire::StatusEvent>(r))
        if (s.state == "ranks_started")
            return s.pids;
    return {};
}

} // namespace

class TestLauncherProcess : public QObject {
    Q_OBJECT

private Q_SLOTS:
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
        auto exits = eventsOf<wire::ExitEvent>(run);
        QCOMPARE(exits.size(), std::size_t(2));
        auto statuses = eventsOf<wire::StatusEvent>(run);
        QCOMPARE(statuses.front().second.state, std::string("started"));
        QCOMPARE(statuses.back().second.state, std::string("finished"));
    }

    void failingRankTearsDownTheNode() {
        const std::string script = "if [ \"$RANK\" = 1 ]; then sleep 0.3; echo 'fatal: shape "
                                   "mismatch' >&2; exit 3; fi; exec sleep 30";
        auto run = runLauncher(launcherArgs(3, {"/bin/sh", "-c", script}));
        QCOMPARE(run.status.code, 1);
        QVERIFY2(run.seconds < 2.0, std::to_string(run.seconds).c_str());
        auto exits = eventsOf<wire::ExitEvent>(run);
        QCOMPARE(exits.size(), std::size_t(3));
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
        for (const auto& [e, x] : eventsOf<wire::ExitEvent>(run))
            QCOMPARE(x.code, 0);
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
        auto exits = eventsOf<wire::ExitEvent>(run);
        QCOMPARE(exits.at(0).second.signal, SIGKILL);
        QVERIFY(run.seconds < 5);
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
