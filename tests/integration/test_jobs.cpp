// Jobs end to end through the Controller: the example PyTorch DDP script on 2 nodes x 2 ranks,
// a failing rank, stops from this process and from another, and max_run.
#include "engine/control/control_channel.h"
#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/spec/spec_parser.h"
#include "engine/store/store_reader.h"
#include "tests/support/process_check.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include <filesystem>
#include <thread>

using namespace studio;

namespace {

const std::string kExamples = std::string(STUDIO_SOURCE_DIR) + "/resources/examples";

spec::JobSpec specFrom(const std::string& text, const std::vector<std::string>& overrides = {}) {
    auto r = spec::parseSpecText(text, kExamples, overrides);
    if (!r.ok())
        throw std::runtime_error(r.errors.front().text());
    return *r.spec;
}

class Recorder : public control::JobObserver {
public:
    void jobStatus(const control::JobStatusUpdate& u) override {
        std::lock_guard lock(mutex);
        secondaries.push_back(u.secondaryStatus);
    }
    std::mutex mutex;
    std::vector<std::string> secondaries;
};

} // namespace

class TestJobs : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    std::unique_ptr<control::Controller> m_controller;

    store::StoreReader reader() {
        return store::StoreReader(control::databasePath(m_home.path().toStdString()));
    }

    void assertNothingLeft(const std::string& job) {
        auto r = reader();
        auto d = r.detail(job);
        QVERIFY(d);
        QVERIFY(!d->ranks.empty());
        // The job ends with the launchers' last words; their processes are gone moments later.
        for (const auto& rank : d->ranks)
            QTRY_VERIFY2_WITH_TIMEOUT(processGone(rank.pid),
                                      ("rank " + std::to_string(rank.rank) + " still runs").c_str(),
                                      5000);
        for (const auto& node : d->nodes)
            QTRY_VERIFY2_WITH_TIMEOUT(processGone(node.launcherPid), "a launcher still runs", 5000);
    }

private Q_SLOTS:
    void initTestCase() {
        control::ControllerOptions o;
        o.home = m_home.path().toStdString();
        o.launcherPath = std::string(STUDIO_BIN_DIR) + "/studio-launcher";
        o.graceSeconds = 3;
        m_controller = std::make_unique<control::Controller>(o);
    }
    void cleanupTestCase() { m_controller.reset(); }

    void pytorchDdpScriptOnTwoNodes() {
        spec::ParseResult parsed = spec::parseSpecFile(kExamples + "/pytorch-ddp-script.json");
        QVERIFY(parsed.ok());
        Recorder rec;
        m_controller->addObserver(&rec);
        auto job = m_controller->submit(*parsed.spec);
        const std::string status = m_controller->wait(job.name);
        m_controller->removeObserver(&rec);
        auto r = reader();
        auto d = r.detail(job.name);
        QVERIFY2(status == "Completed", d->row.failureReason.c_str());
        QCOMPARE(rec.secondaries,
                 (std::vector<std::string>{"Downloading", "Training", "Uploading", "Completed"}));
        QCOMPARE(d->row.experiment, std::string("examples"));
        QCOMPARE(d->nodes.size(), std::size_t(2));
        QCOMPARE(d->ranks.size(), std::size_t(4));
        for (const auto& rank : d->ranks)
            QCOMPARE(*rank.exitCode, 0);
        const auto& loss = d->metrics.at("train:loss");
        QVERIFY(loss.count >= 5);
        QVERIFY(loss.last < loss.max); // it learns
        QCOMPARE(d->metrics.at("test:accuracy").count, std::int64_t(1));
        QCOMPARE(d->logs.size(), std::size_t(1)); // only rank 0 prints
        QCOMPARE(d->logs[0].rank, 0);
        QVERIFY(d->logs[0].lines >= 9);
        QVERIFY(!r.systemSeries(d->row.id).empty());
        QVERIFY(std::filesystem::exists(d->row.jobDir + "/spec.json"));
        assertNothingLeft(job.name);
    }

    void aRankThatExitsThreeFailsTheJob() {
        const std::string script = "if [ \"$RANK\" = 3 ]; then sleep 1; echo 'RuntimeError: bad "
                                   "batch shape' >&2; exit 3; fi; exec sleep 60";
        nlohmann::json doc = {{"name", "fails"},
                              {"entry_point", {"/bin/sh", "-c", script}},
                              {"instance_count", 2},
                              {"distribution",
                               {{"torch_distributed", {{"enabled", true}}},
                                {"mpi", {{"enabled", true}, {"processes_per_host", 2}}}}}};
        auto spec = specFrom(doc.dump());
        auto job = m_controller->submit(spec);
        QCOMPARE(m_controller->wait(job.name), std::string("Failed"));
        auto r = reader();
        auto d = r.detail(job.name);
        QVERIFY2(d->row.failureReason.find("rank 3 (node 1, algo-2) exited with code 3") !=
                     std::string::npos,
                 d->row.failureReason.c_str());
        QVERIFY(d->row.failureReason.find("RuntimeError: bad batch shape") != std::string::npos);
        const auto& failed = d->ranks.at(3);
        QCOMPARE(*failed.exitCode, 3);
        const double reaction = d->row.ended - failed.ended;
        QVERIFY2(reaction < 2.0,
                 ("Failed " + std::to_string(reaction) + " s after the rank exited").c_str());
        QCOMPARE(d->transitions.back().status, std::string("Failed"));
        assertNothingLeft(job.name);
    }

    // Before: a 100 KB line under ".*loss=([0-9.]+)" overflowed the controller's stack, and a
    // line over the launcher's limit became pieces that looked like lines (or bad events).
    void hostileRankOutputIsKeptNotFatal() {
        const std::string script =
            "head -c 3000000 /dev/zero | tr '\\0' x; echo; "
            "head -c 100000 /dev/zero | tr '\\0' y; echo ' loss=0.7'; "
            "head -c 2000000 /dev/zero | tr '\\0' z >&$STUDIO_EVENTS_FD; echo >&$STUDIO_EVENTS_FD; "
            "echo loss=0.5";
        nlohmann::json doc = {
            {"name", "hostile-output"},
            {"entry_point", {"/bin/sh", "-c", script}},
            {"metric_definitions", {{{"Name", "loss"}, {"Regex", ".*loss=([0-9.]+)"}}}}};
        auto job = m_controller->submit(specFrom(doc.dump()));
        QCOMPARE(m_controller->wait(job.name), std::string("Completed"));
        auto r = reader();
        const auto id = r.component(job.name)->id;
        const auto points = r.metricPoints(id, "loss");
        QCOMPARE(points.size(), std::size_t(1));
        QCOMPARE(points[0].value, 0.5);
        std::ifstream rank0(job.jobDir + "/logs/rank-0.log");
        std::vector<std::size_t> sizes;
        for (std::string l; std::getline(rank0, l);)
            sizes.push_back(l.size());
        QCOMPARE(sizes.size(), std::size_t(3));
        QVERIFY2(sizes[0] > 3000000 && sizes[0] < 3000040, std::to_string(sizes[0]).c_str());
        std::ifstream launcher(job.jobDir + "/logs/launcher-0.log");
        const std::string notes((std::istreambuf_iterator<char>(launcher)), {});
        QVERIFY2(notes.find("line of 3000000 bytes, over the 1 MiB line limit") !=
                     std::string::npos,
                 notes.c_str());
        QVERIFY(notes.find("event line of 2000000 bytes") != std::string::npos);
    }

    void stopFromThisProcess() {
        auto spec = specFrom(R"({"name": "stopped", "entry_point": ["/bin/sleep", "60"],
            "distribution": {"torch_distributed": {"enabled": true},
                             "mpi": {"enabled": true, "processes_per_host": 2}}})");
        auto job = m_controller->submit(spec);
        QTRY_VERIFY_WITH_TIMEOUT(reader().component(job.name)->secondaryStatus == "Training",
                                 10000);
        QVERIFY(m_controller->stop(job.name));
        QCOMPARE(m_controller->wait(job.name), std::string("Stopped"));
        auto d = reader().detail(job.name);
        QCOMPARE(d->row.secondaryStatus, std::string("Stopped"));
        QCOMPARE(d->row.failureReason, std::string("Stopped by user"));
        bool sawStopping = false;
        for (const auto& t : d->transitions)
            sawStopping = sawStopping || t.status == "Stopping";
        QVERIFY(sawStopping);
        QVERIFY(!m_controller->stop(job.name)); // already ended
        assertNothingLeft(job.name);
    }

    void stopThroughTheControlSocket() {
        auto spec = specFrom(R"({"name": "remote-stop", "entry_point": ["/bin/sleep", "60"]})");
        auto job = m_controller->submit(spec);
        QTRY_VERIFY_WITH_TIMEOUT(reader().component(job.name)->secondaryStatus == "Training",
                                 10000);
        std::optional<control::ControlReply> reply;
        std::thread other(
            [&] { reply = control::sendControl(m_home.path().toStdString(), job.name, "stop"); });
        other.join();
        QVERIFY(reply && reply->ok);
        QCOMPARE(m_controller->wait(job.name), std::string("Stopped"));
        auto unknown = control::sendControl(m_home.path().toStdString(), job.name, "stop");
        QVERIFY(!unknown); // the socket closes with the job
    }

    void maxRunStopsTheJob() {
        auto spec =
            specFrom(R"({"name": "too-long", "entry_point": ["/bin/sleep", "60"], "max_run": 1})");
        auto job = m_controller->submit(spec);
        QCOMPARE(m_controller->wait(job.name), std::string("Stopped"));
        auto d = reader().detail(job.name);
        QCOMPARE(d->row.secondaryStatus, std::string("MaxRuntimeExceeded"));
        QVERIFY(d->row.failureReason.find("max_run") != std::string::npos);
        assertNothingLeft(job.name);
    }

    // The studio window (take-over with an interval) adopts a job that another studio process
    // left running, without being restarted; the job's logs hold every line once.
    void orphanedJobIsAdoptedWhileRunning() {
        control::ControllerOptions o;
        o.home = m_home.path().toStdString();
        o.launcherPath = std::string(STUDIO_BIN_DIR) + "/studio-launcher";
        o.takeOver = true;
        o.takeOverIntervalSeconds = 0.3;
        control::Controller window(o);
        o.takeOver = false;
        control::Controller other(o);
        const auto job = other.submit(specFrom(
            R"({"name": "adopted", "instance_count": 2, "entry_point": ["/bin/sh", "-c",
                "for i in 1 2 3 4 5 6 7 8 9 10; do echo line $i; sleep 0.3; done"]})"));
        QTRY_VERIFY_WITH_TIMEOUT(reader().component(job.name)->secondaryStatus == "Training",
                                 10000);
        other.detachAll(); // what "Keep running" does
        QVERIFY(other.runningJobs().empty());
        QTRY_COMPARE_WITH_TIMEOUT(window.runningJobs(), std::vector<std::string>{job.name}, 5000);
        QCOMPARE(window.wait(job.name), std::string("Completed"));
        std::ifstream log(reader().component(job.name)->jobDir + "/logs/rank-0.log");
        std::string all((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
        for (int i = 1; i <= 10; ++i) {
            const std::string line = " stdout line " + std::to_string(i) + "\n";
            const auto first = all.find(line);
            QVERIFY2(first != std::string::npos, line.c_str());
            QVERIFY2(all.find(line, first + 1) == std::string::npos, ("twice: " + line).c_str());
        }
        assertNothingLeft(job.name);
    }

    void missingInputFailsCleanly() {
        QTemporaryDir data;
        auto spec = specFrom(R"({"name": "no-input", "entry_point": ["/bin/true"],
                                 "inputs": {"train": ")" +
                             data.path().toStdString() + R"("}})");
        data.remove(); // vanishes between validation and the run
        auto job = m_controller->submit(spec);
        QCOMPARE(m_controller->wait(job.name), std::string("Failed"));
        auto d = reader().detail(job.name);
        QVERIFY2(d->row.failureReason.find("input channel train") != std::string::npos,
                 d->row.failureReason.c_str());
    }
};

QTEST_GUILESS_MAIN(TestJobs)
#include "test_jobs.moc"
