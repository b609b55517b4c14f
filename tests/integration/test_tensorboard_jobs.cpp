// TensorBoard while jobs run, through the Controller with real launchers and the tensorboard
// package: a script's own event files become its ranks' metrics while it runs (no
// metric_definitions), and tensorboard_output_config writes the job's metrics where
// TensorBoard's own loader reads exactly the stored points and the hyperparameters.
#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/spec/spec_parser.h"
#include "engine/store/store_reader.h"
#include "tests/support/child_process.h"
#include "tests/support/test_controller.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

using namespace studio;
namespace fs = std::filesystem;

namespace {

const std::string kPython = STUDIO_TOOLS_PYTHON;
const std::string kScripts = std::string(STUDIO_SOURCE_DIR) + "/tests/integration/python";

spec::JobSpec specFrom(const nlohmann::json& doc, const std::string& baseDir) {
    auto r = spec::parseSpecText(doc.dump(), baseDir);
    if (!r.ok())
        throw std::runtime_error(r.errors.front().text());
    return *r.spec;
}

// Polls until done() or the deadline; true when done.
bool within(std::chrono::seconds limit, const std::function<bool()>& done) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
        if (done())
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return done();
}

float f32(double v) {
    return static_cast<float>(v);
}

// What TensorBoard's loader reads from a log folder (tb_read_runs.py).
nlohmann::json tensorboardRuns(const std::string& logdir) {
    const auto r = testing::runCommand({kPython, kScripts + "/tb_read_runs.py", logdir},
                                       std::chrono::seconds(120));
    if (!r.ok())
        throw std::runtime_error("tb_read_runs.py " + logdir + ": " + r.output);
    return nlohmann::json::parse(r.output);
}

} // namespace

class TestTensorboardJobs : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    std::unique_ptr<control::Controller> m_controller;

    store::StoreReader reader() {
        return store::StoreReader(control::databasePath(m_home.path().toStdString()));
    }

    std::vector<store::MetricPoint> points(const std::string& job, const std::string& metric) {
        auto r = reader();
        const auto row = r.component(job);
        return row ? r.metricPoints(row->id, metric) : std::vector<store::MetricPoint>{};
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(fs::exists(kPython), ("no tools Python at " + kPython).c_str());
        m_controller = std::make_unique<control::Controller>(testControllerOptions(m_home.path()));
    }
    void cleanupTestCase() { m_controller.reset(); }

    // Two ranks on one node write train/loss with TensorBoard's writer into SM_TENSORBOARD_DIR;
    // the store gets every point of each rank, the first ones while the ranks still run.
    void scriptsOwnEventFilesAreTheRanksMetricsLive() {
        QTemporaryDir work;
        const std::string go = work.filePath(QStringLiteral("go")).toStdString();
        const nlohmann::json doc = {{"name", "tb-script"},
                                    {"entry_point", {kPython, kScripts + "/tb_ranks_script.py"}},
                                    {"hyperparameters", {{"go-file", go}}},
                                    {"distribution",
                                     {{"torch_distributed", {{"enabled", true}}},
                                      {"mpi", {{"enabled", true}, {"processes_per_host", 2}}}}}};
        const auto job = m_controller->submit(specFrom(doc, work.path().toStdString()));
        const auto firstFive = [&](int rank) {
            int n = 0;
            for (const auto& p : points(job.name, "train/loss"))
                n += p.rank == rank ? 1 : 0;
            return n >= 5;
        };
        const bool seen =
            within(std::chrono::seconds(60), [&] { return firstFive(0) && firstFive(1); });
        const auto whileRunning = reader().component(job.name);
        std::ofstream(go) << "go\n";
        QVERIFY2(seen, "the ranks' first points did not reach the store within 60 s");
        QCOMPARE(whileRunning->status, std::string("InProgress")); // read live, not at the end
        QCOMPARE(m_controller->wait(job.name), std::string("Completed"));

        auto r = reader();
        const auto row = r.component(job.name);
        QCOMPARE(r.metricNames(row->id), std::vector<std::string>{"train/loss"});
        std::map<int, std::vector<store::MetricPoint>> byRank;
        for (const auto& p : r.metricPoints(row->id, "train/loss"))
            byRank[p.rank].push_back(p);
        QCOMPARE(byRank.size(), std::size_t(2));
        for (auto& [rank, series] : byRank) {
            std::sort(series.begin(), series.end(),
                      [](const auto& a, const auto& b) { return a.step < b.step; });
            QCOMPARE(series.size(), std::size_t(10));
            for (std::size_t i = 0; i < series.size(); ++i) {
                const auto step = static_cast<std::int64_t>(i);
                QCOMPARE(series[i].step, step);
                QCOMPARE(series[i].node, 0);
                QCOMPARE(series[i].value, 100.0 * rank + static_cast<double>(step) / 4);
                QCOMPARE(series[i].time, 1.7e9 + 1000.0 * rank + static_cast<double>(step));
            }
        }
    }

    // A script's printed metrics (metric_definitions) appear under local_path/<job>/ while the
    // job runs and, at its end, exactly as stored, with the hyperparameters and the outcome.
    void outputConfigWritesTheStoredPointsForTensorboard() {
        QTemporaryDir work;
        const std::string go = work.filePath(QStringLiteral("go")).toStdString();
        const std::string script = "echo loss=0.5; echo loss=0.25; echo loss=0.125; i=0; "
                                   "while [ ! -e '" +
                                   go +
                                   "' ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; "
                                   "echo loss=0.1; echo loss=0.3";
        const nlohmann::json doc = {
            {"name", "tb-live"},
            {"entry_point", {"/bin/sh", "-c", script}},
            {"hyperparameters", {{"lr", 0.25}, {"opt", "sgd"}, {"amp", true}}},
            {"metric_definitions", {{{"Name", "train:loss"}, {"Regex", "loss=([0-9.]+)"}}}},
            {"tensorboard_output_config", {{"local_path", "tb"}}}};
        const auto job = m_controller->submit(specFrom(doc, work.path().toStdString()));
        const std::string logdir = work.filePath(QStringLiteral("tb")).toStdString();

        const bool stored = within(std::chrono::seconds(60),
                                   [&] { return points(job.name, "train:loss").size() >= 3; });
        nlohmann::json live;
        const bool shown = stored && within(std::chrono::seconds(30), [&] {
                               live = tensorboardRuns(logdir);
                               return live.contains(job.name) &&
                                      live[job.name]["scalars"].contains("train:loss") &&
                                      live[job.name]["scalars"]["train:loss"].size() >= 3;
                           });
        std::ofstream(go) << "go\n";
        QVERIFY2(stored, "the first points did not reach the store within 60 s");
        QVERIFY2(shown,
                 ("TensorBoard did not show them while the job ran: " + live.dump()).c_str());
        QVERIFY(live[job.name]["status"].is_null()); // no end yet
        QCOMPARE(m_controller->wait(job.name), std::string("Completed"));

        const nlohmann::json runs = tensorboardRuns(logdir);
        QCOMPARE(runs.size(), std::size_t(1)); // one (node, rank): local_path/<job>/ only
        const nlohmann::json& run = runs.at(job.name);
        const auto storedPoints = points(job.name, "train:loss");
        const auto& shownPoints = run["scalars"]["train:loss"];
        QCOMPARE(shownPoints.size(), storedPoints.size());
        QCOMPARE(storedPoints.size(), std::size_t(5));
        for (std::size_t i = 0; i < storedPoints.size(); ++i) {
            QCOMPARE(shownPoints[i][0].get<std::int64_t>(), storedPoints[i].step);
            QCOMPARE(f32(shownPoints[i][1].get<double>()), f32(storedPoints[i].value));
            QCOMPARE(shownPoints[i][2].get<double>(), storedPoints[i].time);
        }
        QCOMPARE(run["group"].get<std::string>(), job.name);
        QCOMPARE(run["hparams"]["lr"].get<double>(), 0.25);
        QCOMPARE(run["hparams"]["opt"].get<std::string>(), std::string("sgd"));
        QCOMPARE(run["hparams"]["amp"].get<bool>(), true);
        QCOMPARE(run["status"].get<int>(), 1); // STATUS_SUCCESS
        for (const auto& f : fs::directory_iterator(logdir + "/" + job.name))
            QVERIFY(f.path().extension() == ".mlstudio");
    }
};

QTEST_GUILESS_MAIN(TestTensorboardJobs)
#include "test_tensorboard_jobs.moc"
