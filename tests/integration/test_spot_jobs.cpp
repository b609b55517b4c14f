// Managed spot training through the controller with the built-in trainer: a seeded simulated
// market with at least three interruptions (completes with the configured steps, no duplicate
// steps, the savings its segments imply), the IMDS stand-in (notice -> checkpoint -> restart ->
// completion), a manual interrupt through the control socket, and max_wait too small
// (Stopped, MaxWaitTimeExceeded), max_run (Stopped, MaxRuntimeExceeded), and a script that
// announces no checkpoints.
#include "engine/control/control_channel.h"
#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/spec/spec_parser.h"
#include "engine/spot/interruption_source.h"
#include "engine/spot/job_billing.h"
#include "engine/store/store_reader.h"
#include "tests/integration/imds_standin.h"

#include <nlohmann/json.hpp>

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

using namespace studio;

namespace {

constexpr int kSteps = 400; // below one epoch (60000 / 128 steps): max-steps is not capped
constexpr int kCheckpointInterval = 50;

// A seed whose first interruptions come 2-4 s into each attempt (long enough for the trainer to
// start and make progress, short enough to land before the run ends), with later gaps >= 3 s.
std::uint64_t seedWithShortGaps(double ratePerHour, int shortGaps) {
    for (std::uint64_t seed = 1; seed < 100000; ++seed) {
        spot::SimulatedMarket m(ratePerHour, 1, seed);
        bool ok = true;
        for (int a = 1; a <= shortGaps && ok; ++a)
            ok = m.interruptionDelay(a) >= 2.5 && m.interruptionDelay(a) <= 4.0;
        for (int a = shortGaps + 1; a <= shortGaps + 6 && ok; ++a)
            ok = m.interruptionDelay(a) >= 3.0;
        if (ok)
            return seed;
    }
    throw std::runtime_error("no seed found");
}

std::string spotSpec(const std::string& name, int maxRun, int maxWait,
                     const std::string& simulation) {
    std::string s = R"({"name": ")" + name + R"(", "entry_point": "builtin:mlp",
        "hyperparameters": {"max-steps": )" +
                    std::to_string(kSteps) + R"(, "checkpoint-interval": )" +
                    std::to_string(kCheckpointInterval) + R"(, "log-interval": 1,
            "hidden": 1024, "depth": 4, "batch-size": 128, "threads": 1, "eval-samples": 200},
        "instance_type": "ml.g5.xlarge", "use_spot_instances": true,
        "max_run": )" +
                    std::to_string(maxRun) + R"(, "max_wait": )" + std::to_string(maxWait) +
                    R"(, "disable_profiler": true, "debugger_hook_config": false)";
    if (!simulation.empty())
        s += R"(, "spot_simulation": )" + simulation;
    return s + "}";
}

spec::JobSpec parse(const std::string& text) {
    auto r = spec::parseSpecText(text, std::string(STUDIO_SOURCE_DIR) + "/resources/examples");
    if (!r.ok())
        throw std::runtime_error(r.errors.front().text());
    return *r.spec;
}

} // namespace

class TestSpotJobs : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    std::unique_ptr<control::Controller> m_controller;
    std::unique_ptr<ImdsStandIn> m_imds;

    std::string db() const { return control::databasePath(m_home.path().toStdString()); }

    // Every train:loss step once, 1..kSteps.
    void verifyNoDuplicateSteps(store::ComponentId id) {
        store::StoreReader reader(db());
        auto points = reader.metricPoints(id, "train:loss");
        std::set<std::int64_t> steps;
        for (const auto& p : points)
            QVERIFY2(steps.insert(p.step).second,
                     qPrintable(QStringLiteral("duplicate step %1").arg(p.step)));
        QCOMPARE(points.size(), std::size_t(kSteps));
        QCOMPARE(*steps.rbegin(), std::int64_t(kSteps));
    }

    int countTransitions(store::ComponentId id, const std::string& secondary) {
        store::StoreReader reader(db());
        int n = 0;
        for (const auto& t : reader.transitions(id))
            n += t.secondaryStatus == secondary;
        return n;
    }

private Q_SLOTS:
    void initTestCase() {
        m_imds = std::make_unique<ImdsStandIn>();
        control::ControllerOptions o;
        o.home = m_home.path().toStdString();
        o.launcherPath = std::string(STUDIO_BIN_DIR) + "/studio-launcher";
        o.trainerPath = std::string(STUDIO_BIN_DIR) + "/studio-train";
        o.imdsEndpoint = m_imds->endpoint();
        m_controller = std::make_unique<control::Controller>(o);
    }
    void cleanupTestCase() {
        m_controller.reset();
        m_imds.reset();
    }

    void simulatedMarketResumesToCompletion() {
        const double rate = 1200; // a notice every 3 s on average
        const std::uint64_t seed = seedWithShortGaps(rate, 3);
        auto job = m_controller->submit(parse(
            spotSpec("spot-sim", 600, 900,
                     R"({"interruptions_per_hour": 1200, "mean_capacity_wait_s": 1, "seed": )" +
                         std::to_string(seed) + "}")));
        QCOMPARE(m_controller->wait(job.name), std::string("Completed"));
        store::StoreReader reader(db());
        const auto d = *reader.detail(job.name);
        QVERIFY2(d.row.status == "Completed", d.row.failureReason.c_str());
        verifyNoDuplicateSteps(d.row.id);

        const auto segments = reader.billingSegments(d.row.id);
        const spot::BillingSummary b = spot::jobBilling(reader, job.name);
        QVERIFY2(b.interruptions >= 3, qPrintable(QString::number(b.interruptions)));
        QCOMPARE(b.attempts, b.interruptions + 1);
        QVERIFY(countTransitions(d.row.id, "Interrupted") >= 3);
        double running = 0, waiting = 0;
        for (const auto& s : segments)
            (s.kind == "running" ? running : waiting) += s.end - s.start;
        QVERIFY(std::abs(b.trainingTimeSeconds - running) < 1e-6);
        QVERIFY(std::abs(b.waitingTimeSeconds - waiting) < 1e-6);
        const auto prices = *spot::pricesFor("ml.g5.xlarge", "{}");
        const double ratio = prices.spotPerHour / prices.onDemandPerHour;
        QVERIFY(std::abs(b.billableTimeSeconds - running * ratio) < 1e-6);
        QVERIFY(std::abs(b.savingsPercent - (1 - ratio) * 100) < 1e-6);
        QVERIFY(std::abs(*b.spotCostUsd - running / 3600 * prices.spotPerHour) < 1e-9);
        // The trainer checkpoints on SIGTERM: lost work stays within the checkpoint interval.
        QVERIFY(b.lostSteps <= std::int64_t(kCheckpointInterval) * b.interruptions);
        QVERIFY(std::filesystem::exists(d.row.jobDir + "/checkpoints"));

        // The CLI carries the same figures: show --json's billing and `mlstudio billing`.
        QProcess cli;
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("MLSTUDIO_HOME"), m_home.path());
        cli.setProcessEnvironment(env);
        cli.start(
            QStringLiteral(STUDIO_BIN_DIR "/mlstudio"),
            {QStringLiteral("show"), QString::fromStdString(job.name), QStringLiteral("--json")});
        QVERIFY(cli.waitForFinished(30000));
        auto shown = nlohmann::json::parse(cli.readAllStandardOutput().toStdString());
        QCOMPARE(shown["billing"]["interruptions"].get<int>(), b.interruptions);
        QVERIFY(std::abs(shown["billing"]["savings_percent"].get<double>() - b.savingsPercent) <
                1e-9);
        for (const char* k : {"training_time_s", "billable_time_s", "spot_cost_usd",
                              "on_demand_cost_usd", "lost_steps", "waiting_time_s"})
            QVERIFY2(shown["billing"].contains(k), k);
        cli.start(QStringLiteral(STUDIO_BIN_DIR "/mlstudio"),
                  {QStringLiteral("billing"), QStringLiteral("--experiment"),
                   QStringLiteral("Unassigned")});
        QVERIFY(cli.waitForFinished(30000));
        QCOMPARE(cli.exitCode(), 0);
        QVERIFY(cli.readAllStandardOutput().contains(job.name.c_str()));
    }

    void imdsNoticeCheckpointsAndResumes() {
        auto job = m_controller->submit(parse(spotSpec("spot-imds", 600, 900, "")));
        // Post the notice once training is under way.
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (m_controller->progress(job.name).step < 20 &&
               std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        QVERIFY(m_controller->progress(job.name).step >= 20);
        m_imds->postNotice();
        QCOMPARE(m_controller->wait(job.name), std::string("Completed"));
        QCOMPARE(m_imds->noticesServed(), 1);
        QVERIFY(m_imds->tokenRequests() >= 1);
        store::StoreReader reader(db());
        const auto d = *reader.detail(job.name);
        verifyNoDuplicateSteps(d.row.id);
        QCOMPARE(spot::jobBilling(reader, job.name).interruptions, 1);
        bool imdsMessage = false;
        for (const auto& t : reader.transitions(d.row.id))
            imdsMessage = imdsMessage || (t.secondaryStatus == "Interrupted" &&
                                          t.message.find("(imds") != std::string::npos);
        QVERIFY(imdsMessage);
        std::ifstream log(d.row.jobDir + "/logs/rank-0.log");
        std::stringstream ss;
        ss << log.rdbuf();
        QVERIFY(ss.str().find("resumed from the checkpoint") != std::string::npos);
    }

    void manualInterruptThroughTheControlSocket() {
        auto job = m_controller->submit(parse(spotSpec("spot-manual", 600, 900, "")));
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (m_controller->progress(job.name).step < 20 &&
               std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        auto reply = control::sendControl(m_home.path().toStdString(), job.name, "interrupt");
        QVERIFY(reply && reply->ok);
        QCOMPARE(m_controller->wait(job.name), std::string("Completed"));
        store::StoreReader reader(db());
        const auto d = *reader.detail(job.name);
        verifyNoDuplicateSteps(d.row.id);
        QCOMPARE(spot::jobBilling(reader, job.name).interruptions, 1);
    }

    // A script that checkpoints every 10 steps and announces no checkpoint: its resumed
    // attempt's first step says where it resumed, and the steps recomputed replace the old ones.
    void scriptWithoutCheckpointEventsReplacesRecomputedSteps() {
        QTemporaryDir dir;
        const std::string script = dir.path().toStdString() + "/train.sh";
        // The event lines: {"v":1,"kind":"metric",...} and a progress status, on fd 3.
        const std::string q = "\\\"";
        std::ofstream(script) << "#!/bin/bash\n"
                              << "ckpt=\"$SM_CHECKPOINT_DIR/step\"\n"
                              << "step=0\n"
                              << "[ -f \"$ckpt\" ] && step=$(cat \"$ckpt\")\n"
                              << "while [ $step -lt 120 ]; do\n"
                              << "  sleep 0.05\n"
                              << "  step=$((step + 1))\n"
                              << "  echo \"{" << q << "v" << q << ":1," << q << "kind" << q << ":"
                              << q << "metric" << q << "," << q << "name" << q << ":" << q
                              << "train:loss" << q << "," << q << "step" << q << ":$step," << q
                              << "value" << q << ":0.5}\" >&3\n"
                              << "  echo \"{" << q << "v" << q << ":1," << q << "kind" << q << ":"
                              << q << "status" << q << "," << q << "state" << q << ":" << q
                              << "progress" << q << "," << q << "step" << q << ":$step," << q
                              << "total" << q << ":120}\" >&3\n"
                              << "  [ $((step % 10)) -eq 0 ] && echo $step > \"$ckpt\"\n"
                              << "done\n";
        auto spec = parse(R"({"name": "spot-script", "entry_point": ["/bin/bash", ")" + script +
                          R"("], "instance_type": "ml.m5.large", "use_spot_instances": true,
            "max_run": 600, "max_wait": 900, "disable_profiler": true,
            "debugger_hook_config": false})");
        auto job = m_controller->submit(spec);
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (m_controller->progress(job.name).step < 25 &&
               std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        QVERIFY(m_controller->interrupt(job.name, "test"));
        QCOMPARE(m_controller->wait(job.name), std::string("Completed"));
        store::StoreReader reader(db());
        const auto d = *reader.detail(job.name);
        auto points = reader.metricPoints(d.row.id, "train:loss");
        std::set<std::int64_t> steps;
        for (const auto& p : points)
            QVERIFY2(steps.insert(p.step).second,
                     qPrintable(QStringLiteral("duplicate step %1").arg(p.step)));
        QCOMPARE(points.size(), std::size_t(120));
        const auto b = spot::jobBilling(reader, job.name);
        QCOMPARE(b.interruptions, 1);
        QVERIFY2(b.lostSteps >= 1 && b.lostSteps <= 10, qPrintable(QString::number(b.lostSteps)));
    }

    void maxWaitTooSmallStops() {
        std::uint64_t seed = 1;
        for (; seed < 100000; ++seed) {
            spot::SimulatedMarket m(1200, 60, seed);
            if (m.interruptionDelay(1) >= 2.0 && m.interruptionDelay(1) <= 3.0 &&
                m.capacityWait(2) >= 60)
                break;
        }
        auto job = m_controller->submit(parse(
            spotSpec("spot-maxwait", 8, 8,
                     R"({"interruptions_per_hour": 1200, "mean_capacity_wait_s": 60, "seed": )" +
                         std::to_string(seed) + "}")));
        QCOMPARE(m_controller->wait(job.name), std::string("Stopped"));
        store::StoreReader reader(db());
        const auto d = *reader.detail(job.name);
        QCOMPARE(d.row.secondaryStatus, std::string("MaxWaitTimeExceeded"));
        QVERIFY(d.row.failureReason.find("max_wait") != std::string::npos);
        const auto b = spot::jobBilling(reader, job.name);
        QCOMPARE(b.interruptions, 1);
        QVERIFY(b.waitingTimeSeconds > 0);
        QVERIFY(d.row.ended - d.row.created < 40); // max_wait 8 s ended it, not the 60 s wait
    }

    void maxRunCountsRunningTime() {
        auto job = m_controller->submit(parse(spotSpec("spot-maxrun", 3, 100, "")));
        QCOMPARE(m_controller->wait(job.name), std::string("Stopped"));
        store::StoreReader reader(db());
        const auto d = *reader.detail(job.name);
        QCOMPARE(d.row.secondaryStatus, std::string("MaxRuntimeExceeded"));
        const auto b = spot::jobBilling(reader, job.name);
        QVERIFY(b.trainingTimeSeconds >= 3 && b.trainingTimeSeconds < 30);
        QCOMPARE(b.interruptions, 0);
    }

    void interruptNeedsASpotJob() {
        auto spec = parse(R"({"name": "on-demand", "entry_point": "builtin:mlp",
            "hyperparameters": {"max-steps": 5}, "disable_profiler": true})");
        auto job = m_controller->submit(spec);
        QVERIFY(!m_controller->interrupt(job.name));
        QCOMPARE(m_controller->wait(job.name), std::string("Completed"));
    }
};

QTEST_GUILESS_MAIN(TestSpotJobs)
#include "test_spot_jobs.moc"
