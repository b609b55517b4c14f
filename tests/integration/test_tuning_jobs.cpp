// Tuning jobs end to end through the Controller and the Tuner: every strategy launching real
// training jobs (a script with a known objective), the median rule and Hyperband stopping jobs
// early, completion criteria, Stop, failing jobs, warm start and its limits.
#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/control/tuner.h"
#include "engine/store/store_reader.h"
#include "tests/integration/tuning_fixture.h"
#include "tests/support/process_check.h"
#include "tests/support/test_controller.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <set>
#include <thread>

using namespace studio;
using nlohmann::json;

class TestTuningJobs : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    std::unique_ptr<control::Controller> m_controller;
    std::unique_ptr<control::Tuner> m_tuner;
    std::string m_parent; // a completed Random tuning job, for warm start

    store::StoreReader reader() {
        return store::StoreReader(control::databasePath(m_home.path().toStdString()));
    }

    // Runs a tuning document to its end; returns the tuning job's row.
    store::TuningJobRow runToEnd(const json& doc) {
        const auto submitted = m_tuner->submit(tuningSpecOf(doc));
        m_tuner->wait(submitted.name);
        auto r = reader();
        return *r.tuningJob(submitted.name);
    }

    void assertProcessesGone(const std::vector<store::TuningTrainingJobRow>& rows) {
        auto r = reader();
        const std::string left = leftoverProcess(r, rows);
        QVERIFY2(left.empty(), left.c_str());
    }

private Q_SLOTS:
    void initTestCase() {
        m_controller = std::make_unique<control::Controller>(testControllerOptions(m_home.path()));
        m_tuner = std::make_unique<control::Tuner>(*m_controller);
    }
    void cleanupTestCase() {
        m_tuner.reset();
        m_controller.reset();
    }

    void randomSearchRecordsEveryJob() {
        const store::TuningJobRow t = runToEnd(objectiveTuning({{"max_jobs", 5}}));
        QCOMPARE(t.status, std::string("Completed"));
        QCOMPARE(t.statusMessage, std::string("max_jobs (5) training jobs ran"));
        QCOMPARE(t.counters.completed, 5);
        QCOMPARE(t.counters.objectiveSucceeded, 5);
        auto r = reader();
        const auto rows = r.tuningTrainingJobs(t.id);
        QCOMPARE(rows.size(), std::size_t(5));
        std::set<std::string> xs;
        double best = -1e9;
        for (const auto& row : rows) {
            QCOMPARE(row.state, std::string("Completed"));
            QVERIFY(row.objective);
            best = std::max(best, *row.objective);
            xs.insert(row.hyperparameters.at("x"));
            // The training job ran with the tuned values and sits in the tuning job's experiment.
            auto d = r.detail(row.job);
            QVERIFY(d);
            QCOMPARE(d->row.experiment, t.name);
            const json spec = json::parse(d->specJson);
            QCOMPARE(spec["hyperparameters"]["kind"].get<std::string>(),
                     row.hyperparameters.at("kind"));
            // Its final objective is the last point of its curve: 4 epochs.
            const auto points = r.metricPoints(row.component, "objective");
            QCOMPARE(points.size(), std::size_t(4));
            QCOMPARE(points.back().value, *row.objective);
        }
        QCOMPARE(xs.size(), std::size_t(5));
        QVERIFY(t.bestObjective);
        QCOMPARE(*t.bestObjective, best);
        QCOMPARE(r.tuningCurves(t.id).size(), std::size_t(5));
        assertProcessesGone(rows);
        m_parent = t.name;
    }

    void gridRunsEveryCombinationOnce() {
        json ranges = {{"kind", {{"type", "Categorical"}, {"values", {"a", "b"}}}},
                       {"x", {{"type", "Integer"}, {"min_value", 0}, {"max_value", 2}}}};
        json tuning = {
            {"strategy", "Grid"}, {"hyperparameter_ranges", ranges}, {"max_parallel_jobs", 3}};
        json doc = objectiveTuning(tuning, {{"epochs", 1}});
        doc["tuning"].erase("max_jobs");
        const store::TuningJobRow t = runToEnd(doc);
        QCOMPARE(t.status, std::string("Completed"));
        QCOMPARE(t.maxJobs, 6);
        auto r = reader();
        std::set<std::string> combos;
        for (const auto& row : r.tuningTrainingJobs(t.id))
            combos.insert(row.hyperparameters.at("kind") + "/" + row.hyperparameters.at("x"));
        QCOMPARE(combos, (std::set<std::string>{"a/0", "a/1", "a/2", "b/0", "b/1", "b/2"}));
        // x = 0 is nearest 0.3, and kind b adds 0.1: the best job is b/0.
        for (const auto& row : r.tuningTrainingJobs(t.id))
            if (row.component == t.bestComponent)
                QCOMPARE(row.hyperparameters.at("kind") + "/" + row.hyperparameters.at("x"),
                         std::string("b/0"));
    }

    void medianRuleStopsWorseJobs() {
        json tuning = {{"max_jobs", 9},
                       {"max_parallel_jobs", 1},
                       {"early_stopping_type", "Auto"},
                       {"random_seed", 5}};
        const store::TuningJobRow t = runToEnd(objectiveTuning(tuning, {{"epochs", 6}}));
        QCOMPARE(t.status, std::string("Completed"));
        QVERIFY2(t.counters.stoppedEarly >= 1, "no job was stopped by the median rule");
        QCOMPARE(t.counters.completed + t.counters.stoppedEarly, 9);
        auto r = reader();
        const auto rows = r.tuningTrainingJobs(t.id);
        for (const auto& row : rows) {
            if (!row.stoppedEarly)
                continue;
            QCOMPARE(row.state, std::string("Stopped"));
            QCOMPARE(row.status, std::string("Stopped"));
            QVERIFY2(row.stopReason.find("median rule") != std::string::npos,
                     row.stopReason.c_str());
            QVERIFY(row.ordinal >= 3); // the rule compares with at least 3 earlier jobs
            // Stopped before its last epoch: fewer than 6 points.
            QVERIFY(r.metricPoints(row.component, "objective").size() < 6);
            auto d = r.detail(row.job);
            QVERIFY(d->row.failureReason.find("median rule") != std::string::npos ||
                    !d->transitions.empty());
        }
        assertProcessesGone(rows);
    }

    void hyperbandStopsAtItsRungs() {
        json tuning = {
            {"strategy", "Hyperband"},
            {"max_jobs", 12},
            {"max_parallel_jobs", 2},
            {"strategy_config", {{"hyperband", {{"min_resource", 1}, {"max_resource", 9}}}}}};
        const store::TuningJobRow t =
            runToEnd(objectiveTuning(tuning, {{"epochs", 2}, {"seconds-per-epoch", 0.1}}));
        QCOMPARE(t.status, std::string("Completed"));
        auto r = reader();
        const auto rows = r.tuningTrainingJobs(t.id);
        int configurations = 0;
        std::set<int> brackets;
        for (const auto& row : rows) {
            QVERIFY(row.bracket >= 0);
            brackets.insert(row.bracket);
            // Hyperband sets the resource itself: every job is asked for max_resource epochs.
            const json spec = json::parse(r.detail(row.job)->specJson);
            QCOMPARE(spec["hyperparameters"]["epochs"].get<int>(), 9);
            if (row.stoppedEarly)
                QVERIFY2(row.stopReason.find("Hyperband") != std::string::npos,
                         row.stopReason.c_str());
            if (row.resumedFrom < 0) {
                ++configurations;
                continue;
            }
            // A promotion: the same configuration, going on from the stopped job's checkpoint.
            const auto& from = rows[static_cast<std::size_t>(row.resumedFrom)];
            QVERIFY(from.stoppedEarly);
            QCOMPARE(row.hyperparameters, from.hyperparameters);
            QCOMPARE(row.bracket, from.bracket);
            QCOMPARE(spec["checkpoint_local_path"],
                     json::parse(r.detail(from.job)->specJson)["checkpoint_local_path"]);
            const auto done = r.metricPoints(from.component, "objective").size();
            const auto more = r.metricPoints(row.component, "objective").size();
            if (row.state == "Completed")
                QCOMPARE(done + more, std::size_t(9)); // no epoch trained twice
        }
        QCOMPARE(configurations, 12);
        QVERIFY(brackets.size() >= 2);
        QVERIFY2(t.counters.stoppedEarly >= 1, "Hyperband stopped no job");
        QCOMPARE(t.counters.resumed, static_cast<int>(rows.size()) - 12);
        assertProcessesGone(rows);
    }

    void targetValueCompletesTheTuningJob() {
        json tuning = {{"strategy", "Bayesian"},
                       {"max_jobs", 30},
                       {"max_parallel_jobs", 1},
                       {"completion_criteria", {{"target_objective_metric_value", 0.2}}}};
        const store::TuningJobRow t = runToEnd(objectiveTuning(tuning, {{"epochs", 2}}));
        QCOMPARE(t.status, std::string("Completed"));
        QVERIFY2(t.statusMessage.find("target_objective_metric_value") != std::string::npos,
                 t.statusMessage.c_str());
        QVERIFY(t.counters.total < 30);
        QVERIFY(*t.bestObjective >= 0.2);
    }

    void stopStopsItsRunningJobs() {
        json tuning = {{"max_jobs", 6}, {"max_parallel_jobs", 2}};
        const auto submitted =
            m_tuner->submit(tuningSpecOf(objectiveTuning(tuning, {{"epochs", 100}})));
        // Wait until both first jobs report an objective.
        for (int i = 0; i < 200; ++i) {
            auto r = reader();
            auto t = r.tuningJob(submitted.name);
            if (t && r.tuningCurves(t->id).size() == 2)
                break;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        QVERIFY(m_tuner->stop(submitted.name));
        QCOMPARE(m_tuner->wait(submitted.name), std::string("Stopped"));
        auto r = reader();
        const auto t = *r.tuningJob(submitted.name);
        QCOMPARE(t.status, std::string("Stopped"));
        QCOMPARE(t.statusMessage, std::string("Stopped by the user"));
        QCOMPARE(t.counters.total, 2);
        QCOMPARE(t.counters.stopped, 2);
        QVERIFY(t.ended > 0);
        const auto rows = r.tuningTrainingJobs(t.id);
        for (const auto& row : rows) {
            QCOMPARE(row.status, std::string("Stopped"));
            QVERIFY(!row.stoppedEarly);
        }
        assertProcessesGone(rows);
        QVERIFY(!m_tuner->stop(submitted.name)); // it has ended
    }

    void failingJobsFailTheTuningJob() {
        const store::TuningJobRow t =
            runToEnd(objectiveTuning({{"max_jobs", 8}}, {{"fail", "true"}}));
        QCOMPARE(t.status, std::string("Failed"));
        QVERIFY2(t.statusMessage.find(" training jobs failed and none succeeded") !=
                     std::string::npos,
                 t.statusMessage.c_str());
        QVERIFY(t.counters.failed >= 3);
        // None was launched once 3 had failed: 3 and the one running beside the third.
        QVERIFY(t.counters.total <= 4);
        // None completed; the one running beside the third, stopped when the tuning job failed,
        // may have reported an objective before its own failure.
        QCOMPARE(t.counters.completed, 0);
        QCOMPARE(t.counters.failed + t.counters.stopped, t.counters.total);
    }

    void warmStartUsesItsParents() {
        QVERIFY(!m_parent.empty());
        json tuning = {{"strategy", "Bayesian"},
                       {"max_jobs", 2},
                       {"warm_start_config",
                        {{"parents", {m_parent}}, {"type", "IdenticalDataAndAlgorithm"}}}};
        const store::TuningJobRow t = runToEnd(objectiveTuning(tuning));
        QCOMPARE(t.status, std::string("Completed"));
        QCOMPARE(t.counters.total, 2);
        QVERIFY(t.specJson.find(m_parent) != std::string::npos);
    }

    void warmStartLimits_data() {
        QTest::addColumn<QString>("which");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown parent") << "unknown"
                                        << "there is no such tuning job";
        QTest::newRow("other objective") << "objective"
                                         << "same objective metric";
        QTest::newRow("type change") << "type"
                                     << "no type changes";
        QTest::newRow("count change") << "count"
                                      << "the same count";
        QTest::newRow("identical data") << "entry"
                                        << "IdenticalDataAndAlgorithm";
        QTest::newRow("grid") << "grid"
                              << "cannot warm start";
        QTest::newRow("too many jobs") << "jobs"
                                       << "exceed 500";
    }
    void warmStartLimits() {
        QFETCH(QString, which);
        QFETCH(QString, message);
        json tuning = {
            {"warm_start_config", {{"parents", {m_parent}}, {"type", "TransferLearning"}}}};
        json hp = json::object();
        json doc = objectiveTuning(tuning, hp);
        const std::string w = which.toStdString();
        if (w == "unknown")
            doc["tuning"]["warm_start_config"]["parents"] = {"no-such-tuning-job"};
        if (w == "objective") {
            doc["training"]["metric_definitions"].push_back(
                {{"Name", "other"}, {"Regex", "objective=(-?[0-9.]+)"}});
            doc["tuning"]["objective_metric_name"] = "other";
        }
        if (w == "type")
            doc["tuning"]["hyperparameter_ranges"]["x"] = {
                {"type", "Integer"}, {"min_value", 0}, {"max_value", 1}};
        if (w == "count")
            doc["training"]["hyperparameters"]["extra"] = 1;
        if (w == "entry")
            doc["tuning"]["warm_start_config"]["type"] = "IdenticalDataAndAlgorithm";
        if (w == "entry")
            doc["training"]["inputs"] = {{"train", kTuneScripts}};
        if (w == "grid") {
            doc["tuning"]["strategy"] = "Grid";
            doc["tuning"].erase("max_jobs");
            doc["tuning"]["hyperparameter_ranges"] = {
                {"kind", {{"type", "Categorical"}, {"values", {"a", "b"}}}}};
        }
        if (w == "jobs")
            doc["tuning"]["max_jobs"] = 500;
        try {
            m_tuner->submit(tuningSpecOf(doc));
            QFAIL("the warm start was accepted");
        } catch (const std::runtime_error& e) {
            QVERIFY2(std::string(e.what()).find(message.toStdString()) != std::string::npos,
                     e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestTuningJobs)
#include "test_tuning_jobs.moc"
