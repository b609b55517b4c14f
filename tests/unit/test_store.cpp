// Store: round trips of every record, summaries kept on write, analytics and CSV, job lookup,
// migrations of older schema files, refusal of a newer one.
#include "engine/store/analytics.h"
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"
#include "tests/support/tmpfs_mount.h"

#include "tests/support/plain_test.h"
#include "tests/support/temp_dir.h"

#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <limits>
#include <mutex>
#include <numeric>
#include <sstream>
#include <thread>
#include <unistd.h>

using namespace studio::store;
using studio::testing::nearly;

namespace {

NewComponent component(const std::string& name, const std::string& experiment = {},
                       const std::string& trial = {}) {
    NewComponent c;
    c.name = name;
    c.experiment = experiment;
    c.trial = trial;
    c.created = 1000.0;
    c.parameters = {{"lr", "0.1", 0.1}, {"optimizer", "sgd", std::nullopt}};
    return c;
}

SlurmJobRow slurmJob(std::int64_t id, int attempt, const char* state, const char* reason,
                     const char* nodes, std::optional<int> exitCode, double submitted) {
    SlurmJobRow j;
    j.jobId = id;
    j.attempt = attempt;
    j.cluster = "hpc";
    j.partition = "gpu";
    j.state = state;
    j.reason = reason;
    j.nodes = nodes;
    j.exitCode = exitCode;
    j.submitted = submitted;
    j.updated = submitted + 1;
    j.script = "#!/bin/bash\necho " + std::to_string(id) + "\n";
    return j;
}

void execSql(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    char* err = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    const std::string message = err ? err : "";
    sqlite3_free(err);
    sqlite3_close(db);
    REQUIRE_MESSAGE(rc == SQLITE_OK, message.c_str());
}

// One component "job-b" in exp-1/trial-1 with a record of every kind; it ends Failed.
ComponentId writeEveryRecord(StoreWriter& w) {
    NewComponent c = component("job-b", "exp-1", "trial-1");
    c.tags = {{"owner", "ana"}};
    c.displayName = "lr 0.1";
    const ComponentId id = w.createComponent(c);
    w.setStatus(id, "InProgress", "Training", "", 1001);
    w.setStarted(id, 1001);
    w.upsertNode(id, NodeRow{0, "algo-1", 42, 8, 1, 1000.5, 0, std::nullopt});
    w.upsertRank(id, RankRow{1, 0, 1, 43, 1001, 0, std::nullopt, 0, "cuda:1 (NVIDIA H100)"});
    w.upsertRank(id, RankRow{1, 0, 1, 43, 1001, 1050, 3, 0, ""});
    w.upsertLogFile(id, LogFileRow{0, 1, "/x/rank-1.log", 10, 200});
    w.addSystemSample(id, 0, "cpu0", "util", 1002, 55.5);
    w.addSystemSample(id, 0, "cpu0", "util", 1002.5, 60.0);
    w.addSystemSample(id, 0, "gpu0", "mem", 1002, 12.0);
    w.addStepTiming(id, StepTiming{0, 1, 5, "train", 1003, 1, 2, 3, 4, 5});
    w.addTensorReduction(id, TensorReduction{10, "gradients", "fc1.weight", "l2_norm", 0.5, 0, 1});
    w.addTensorReduction(id, TensorReduction{10, "losses", "loss", "value", 0.25, 0, 0, "eval"});
    w.addFrameworkEvent(id,
                        FrameworkEventRow{0, 1, 6, "train", "conv1", "forward", 1003.5, 2.5, 4242});
    w.addCheckpoint(id, CheckpointRow{0, 0, 100, 1004, "/x/ck-100", "abc", 123});
    w.setRuleStatus(id, RuleStatusRow{"LossNotDecreasing", "model", "IssuesFound", "msg", 1005, 3,
                                      40, "num_steps=10", "StopTraining", R"({"checks":4})",
                                      "the loss fell less than 0% over 10 steps"});
    w.addFinding(
        id, FindingRow{"LossNotDecreasing", 1005, 60, 0, "", "loss flat", "lower lr", "10 steps"});
    w.addNotification(id, 1005, "LossNotDecreasing", "loss flat");
    w.addBillingSegment(id, BillingSegment{1, 1000, 1100, "running"});
    w.setArtifact(
        id, ArtifactRow{"model/model.pt", "output", "/x/model.pt", "application/octet-stream"});
    w.setTag(id, "team", "vision");
    w.removeTag(id, "owner");
    w.setNotes(id, "baseline");
    w.setFailureReason(id, "AlgorithmError: rank 1");
    w.setEnded(id, 1100);
    w.setStatus(id, "Failed", "Failed", "rank 1 exited", 1100);
    return id;
}

void checkRecordDetail(StoreReader& r) {
    auto d = r.detail("job-b");
    REQUIRE(d);
    REQUIRE(d->row.experiment == std::string("exp-1"));
    REQUIRE(d->row.trial == std::string("trial-1"));
    REQUIRE(d->row.displayName == std::string("lr 0.1"));
    REQUIRE(d->row.status == std::string("Failed"));
    REQUIRE(d->row.notes == std::string("baseline"));
    REQUIRE(d->row.failureReason == std::string("AlgorithmError: rank 1"));
    REQUIRE(d->row.started == nearly(1001.0));
    REQUIRE(d->row.ended == nearly(1100.0));
    REQUIRE(d->transitions.size() == std::size_t(3));
    REQUIRE(d->transitions[0].secondaryStatus == std::string("Starting"));
    REQUIRE(d->transitions[0].endTime == nearly(1001.0));
    REQUIRE(d->transitions[2].message == std::string("rank 1 exited"));
    REQUIRE(d->parameters.size() == std::size_t(2));
    REQUIRE(d->nodes.at(0).gpus == 1);
    REQUIRE(d->ranks.size() == std::size_t(1));
    REQUIRE(*d->ranks[0].exitCode == 3);
    REQUIRE(d->ranks[0].device == std::string("cuda:1 (NVIDIA H100)"));
    REQUIRE(d->logs.at(0).lines == std::int64_t(10));
    REQUIRE(d->checkpoints.at(0).sha256 == std::string("abc"));
    REQUIRE(d->artifacts.at(0).name == std::string("model/model.pt"));
    REQUIRE(d->tags == (std::map<std::string, std::string>{{"team", "vision"}}));
}

// The per-component series and tables beside the detail.
void checkRecordSeries(StoreReader& r, ComponentId id) {
    auto sys = r.systemSeries(id);
    REQUIRE(sys.size() == std::size_t(2));
    REQUIRE(sys[0].device == std::string("cpu0"));
    REQUIRE(sys[0].samples.size() == std::size_t(2));
    REQUIRE(r.systemSeries(id, 1002.2).at(0).samples.size() == std::size_t(1));
    REQUIRE(r.stepTimings(id).at(0).commMs == nearly(4.0));
    REQUIRE(r.tensorReductions(id, "fc1.weight").at(0).value == nearly(0.5));
    REQUIRE(r.tensorReductions(id, "fc1.weight").at(0).phase == std::string("train"));
    REQUIRE(r.tensorReductions(id, "loss").at(0).phase == std::string("eval"));
    REQUIRE(r.frameworkEvents(id).size() == std::size_t(1));
    REQUIRE(r.frameworkEvents(id).at(0).name == std::string("conv1"));
    REQUIRE(r.frameworkEvents(id).at(0).durationMs == nearly(2.5));
    REQUIRE(r.frameworkEvents(id).at(0).pid == std::int64_t(4242));
    REQUIRE(r.ruleStatuses(id).at(0).status == std::string("IssuesFound"));
    REQUIRE(r.ruleStatuses(id).at(0).fired == std::int64_t(3));
    REQUIRE(r.ruleStatuses(id).at(0).datapoints == std::int64_t(40));
    REQUIRE(r.ruleStatuses(id).at(0).actions == std::string("StopTraining"));
    REQUIRE(r.ruleStatuses(id).at(0).details == std::string(R"({"checks":4})"));
    REQUIRE(r.ruleStatuses(id).at(0).criteria ==
            std::string("the loss fell less than 0% over 10 steps"));
    REQUIRE(r.findings(id).at(0).recommendation == std::string("lower lr"));
    REQUIRE(r.notifications().at(0).component == std::string("job-b"));
    REQUIRE(r.billingSegments(id).at(0).end == nearly(1100.0));
    REQUIRE(r.experiments().size() == std::size_t(1));
    REQUIRE(r.trials("exp-1").at(0).components == 1);
}

} // namespace

// A folder of the test's own for its database files.
struct StoreFiles {
    studio::testing::TempDir dir;
    std::string path(const char* name) const { return dir.filePath(name); }
};

// Readers opened and closed from several threads at once: each close may checkpoint the
// WAL, and an opening reader must wait for it, not fail with "database is locked" (a
// JobView's loads did, now and then).
TEST_CASE_FIXTURE(StoreFiles, "readersOpenWhileOthersClose") {
    const std::string db = path("readers.db");
    {
        StoreWriter w(db);
        NewComponent c;
        c.name = "job-1";
        c.created = 1;
        w.createComponent(c);
    }
    std::atomic<int> failures{0};
    std::string first;
    std::mutex mutex;
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 1000; ++i) {
                try {
                    StoreReader r(db);
                    if (!r.detail("job-1"))
                        ++failures;
                } catch (const std::exception& e) {
                    std::lock_guard lock(mutex);
                    if (failures++ == 0)
                        first = e.what();
                }
            }
        });
    for (auto& t : threads)
        t.join();
    REQUIRE_MESSAGE(failures == 0, first.c_str());
}

TEST_CASE_FIXTURE(StoreFiles, "summariesMatchTheSeries") {
    const std::string db = path("summaries.db");
    StoreWriter w(db);
    const ComponentId id = w.createComponent(component("job-a"));
    std::vector<double> values;
    for (int i = 0; i < 1000; ++i) {
        const double v = std::sin(i * 0.1) * 10 + i * 0.01;
        values.push_back(v);
        w.addMetric(id, "train:loss", MetricPoint{i, 100.0 + i, v, 0, 0});
        if (i % 97 == 0)
            w.flush(); // summaries merge across many batches
    }
    w.addMetric(id, "train:loss", MetricPoint{1000, 2000.0, std::nan(""), 0, 0});
    w.flush();
    REQUIRE(w.lastError() == std::string());

    StoreReader r(db);
    auto s = r.metricSummaries(id).at("train:loss");
    const double mean = std::accumulate(values.begin(), values.end(), 0.0) / values.size();
    double ss = 0;
    for (double v : values)
        ss += (v - mean) * (v - mean);
    REQUIRE(s.count == std::int64_t(1001));
    REQUIRE(s.nonFinite == std::int64_t(1));
    REQUIRE(s.min == nearly(*std::min_element(values.begin(), values.end())));
    REQUIRE(s.max == nearly(*std::max_element(values.begin(), values.end())));
    REQUIRE(std::fabs(s.average() - mean) < 1e-9);
    REQUIRE(std::fabs(s.stddev() - std::sqrt(ss / (values.size() - 1))) < 1e-9);
    REQUIRE(std::isnan(s.last)); // the last value written, even when it is NaN
    auto points = r.metricPoints(id, "train:loss");
    REQUIRE(points.size() == std::size_t(1001));
    REQUIRE(points[10].value == nearly(values[10]));
    REQUIRE(std::isnan(points.back().value));
}

TEST_CASE_FIXTURE(StoreFiles, "everyRecordRoundTrips") {
    const std::string db = path("records.db");
    StoreWriter w(db);
    const ComponentId id = writeEveryRecord(w);
    w.flush();
    REQUIRE(w.lastError() == std::string());
    StoreReader r(db);
    checkRecordDetail(r);
    checkRecordSeries(r, id);
}

TEST_CASE_FIXTURE(StoreFiles, "unassignedAndDuplicates") {
    const std::string db = path("unassigned.db");
    StoreWriter w(db);
    w.createComponent(component("solo-2026-01-01-00-00-00-000"));
    REQUIRE_THROWS_AS(w.createComponent(component("solo-2026-01-01-00-00-00-000")),
                      std::runtime_error);
    w.createComponent(component("solo-2026-01-01-00-00-01-000"));
    w.createComponent(component("other"));
    StoreReader r(db);
    auto rows = r.components();
    REQUIRE(rows.size() == std::size_t(3));
    REQUIRE(rows[0].experiment == std::string("Unassigned"));
    REQUIRE(rows[0].trial == rows[0].name);
    // Lookup: exact, a base name (its newest run), a unique prefix, and errors.
    REQUIRE(r.resolveJob("other").name == std::string("other"));
    REQUIRE(r.resolveJob("solo").name == std::string("solo-2026-01-01-00-00-01-000"));
    REQUIRE(r.resolveJob("oth").name == std::string("other"));
    REQUIRE_THROWS_AS(r.resolveJob("nothing"), std::runtime_error);
    w.createComponent(component("solo-extra"));
    try {
        r.resolveJob("solo");
        FAIL("an ambiguous prefix must be refused");
    } catch (const std::runtime_error& e) {
        REQUIRE(std::string(e.what()).find("solo-extra") != std::string::npos);
    }
}

TEST_CASE_FIXTURE(StoreFiles, "truncateAfterResume") {
    const std::string db = path("truncate.db");
    StoreWriter w(db);
    const ComponentId id = w.createComponent(component("resumed"));
    for (int i = 0; i < 10; ++i)
        w.addMetric(id, "train:loss", MetricPoint{i, 1.0 * i, 10.0 - i, 0, 0});
    w.truncateMetrics(id, 5); // the checkpoint was at step 5; steps 6..9 are recomputed
    for (int i = 6; i < 10; ++i)
        w.addMetric(id, "train:loss", MetricPoint{i, 100.0 + i, 1.0, 0, 0});
    w.flush();
    StoreReader r(db);
    auto points = r.metricPoints(id, "train:loss");
    REQUIRE(points.size() == std::size_t(10));
    auto s = r.metricSummaries(id).at("train:loss");
    REQUIRE(s.count == std::int64_t(10));
    REQUIRE(s.max == nearly(10.0));
    REQUIRE(s.min == nearly(1.0));
    REQUIRE(s.last == nearly(1.0));
}

TEST_CASE_FIXTURE(StoreFiles, "analyticsAndCsv") {
    const std::string db = path("analytics.db");
    StoreWriter w(db);
    for (int i = 0; i < 3; ++i) {
        NewComponent c = component("run-" + std::to_string(i), "sweep");
        c.parameters = {{"lr", std::to_string(0.1 * (i + 1)), 0.1 * (i + 1)},
                        {"note", i == 1 ? "has, comma \"quoted\"" : "plain", std::nullopt}};
        const ComponentId id = w.createComponent(c);
        for (int s = 0; s < 4; ++s)
            w.addMetric(id, "eval:accuracy",
                        MetricPoint{s, 1.0 * s, 0.5 + 0.1 * i + 0.01 * s, 0, 0});
    }
    w.createComponent(component("elsewhere", "other-exp"));
    w.flush();
    StoreReader r(db);
    AnalyticsOptions o;
    o.experiment = "sweep";
    o.sortBy = "eval:accuracy - Max";
    AnalyticsTable t = experimentAnalytics(r, o);
    REQUIRE(t.rows.size() == std::size_t(3));
    REQUIRE(t.columns.front() == std::string("TrialComponentName"));
    REQUIRE(t.columns.back() == std::string("Experiments"));
    REQUIRE(t.column("eval:accuracy - StdDev") > 0);
    REQUIRE((std::get<std::string>(t.rows[0][0])) == std::string("run-2")); // descending
    REQUIRE((std::get<double>(
                t.rows[0][static_cast<std::size_t>(t.column("eval:accuracy - Count"))])) ==
            nearly(4.0));
    const std::string csv = toCsv(t);
    REQUIRE(csv.find("\"has, comma \"\"quoted\"\"\"") != std::string::npos);
    REQUIRE(csv.rfind("TrialComponentName,DisplayName,lr,note,eval:accuracy - Min", 0) == 0);
    REQUIRE(csv.find("0.7") != std::string::npos);
    o.sortBy = "nope";
    REQUIRE_THROWS_AS(experimentAnalytics(r, o), std::runtime_error);
    o.sortBy.clear();
    o.experiment = "missing";
    REQUIRE_THROWS_AS(experimentAnalytics(r, o), std::runtime_error);
}

TEST_CASE_FIXTURE(StoreFiles, "migratesAnOlderSchemaFile") {
    const std::string db = path("legacy.db");
    std::ifstream in(std::string(STUDIO_TEST_DATA) + "/studio-v1.sql");
    REQUIRE(in.good());
    std::stringstream sql;
    sql << in.rdbuf();
    execSql(db, sql.str());
    {
        StoreWriter w(db); // migrates 1 -> latest
        auto d = StoreReader(db).detail("legacy-job-2023-11-14-22-13-20-000");
        REQUIRE(d);
        REQUIRE(d->row.experiment == std::string("legacy-exp"));
        REQUIRE(d->row.notes == std::string()); // column added by the migration
        REQUIRE(d->metrics.at("train:loss").count == std::int64_t(3));
        REQUIRE(d->ranks.size() == std::size_t(2));
        // New tables take writes, and old series keep their summaries when they grow.
        const ComponentId id = d->row.id;
        w.addMetric(id, "train:loss", MetricPoint{3, 1700000040.0, 0.25, 0, 0});
        w.addSystemSample(id, 0, "cpu", "util", 1700000040.0, 50);
        w.setTag(id, "migrated", "yes");
        w.flush();
        REQUIRE(w.lastError() == std::string());
    }
    StoreReader r(db);
    auto d = r.detail("legacy-job-2023-11-14-22-13-20-000");
    REQUIRE(d->metrics.at("train:loss").count == std::int64_t(4));
    REQUIRE(d->metrics.at("train:loss").min == nearly(0.25));
    REQUIRE(d->tags.at("migrated") == std::string("yes"));
    REQUIRE(r.systemSeries(d->row.id).size() == std::size_t(1));
}

// A rank reports its device once, before or after the launcher's start row; the start and
// exit rows, which do not know it, keep it; a later report replaces it.
TEST_CASE_FIXTURE(StoreFiles, "rankDeviceOutlivesUpsertsWithoutIt") {
    const std::string db = path("devices.db");
    StoreWriter w(db);
    const ComponentId id = w.createComponent(component("devices"));
    w.upsertRank(id, RankRow{0, 0, 0, 0, 0, 0, std::nullopt, 0, "cpu"}); // before its start
    w.upsertRank(id, RankRow{0, 0, 0, 50, 1001, 0, std::nullopt, 0, ""});
    w.upsertRank(id, RankRow{1, 0, 1, 51, 1001, 0, std::nullopt, 0, ""});
    w.upsertRank(id, RankRow{1, 0, 1, 51, 1001, 0, std::nullopt, 0, "cuda:1 (GPU, 8 GiB)"});
    w.upsertRank(id, RankRow{0, 0, 0, 50, 1001, 1050, 0, 0, ""});
    w.upsertRank(id, RankRow{1, 0, 1, 51, 1001, 1050, std::nullopt, 9, ""});
    w.upsertRank(id, RankRow{1, 0, 1, 51, 1001, 1050, std::nullopt, 9, "cuda:0"});
    w.flush();
    REQUIRE(w.lastError() == std::string());
    const auto ranks = StoreReader(db).ranks(id);
    REQUIRE(ranks.size() == std::size_t(2));
    REQUIRE(ranks[0].device == std::string("cpu"));
    REQUIRE(ranks[0].pid == std::int64_t(50));
    REQUIRE(ranks[0].started == nearly(1001.0));
    REQUIRE(*ranks[0].exitCode == 0);
    REQUIRE(ranks[1].device == std::string("cuda:0"));
    REQUIRE(ranks[1].signal == 9);
}

// A job resubmitted to Slurm has several rows: slurmJobs() lists them in the order
// submitted, newestSlurmJobs() keeps the last of each job (the Jobs list's one query).
TEST_CASE_FIXTURE(StoreFiles, "slurmJobsNewestPerComponent") {
    const std::string db = path("slurm.db");
    StoreWriter w(db);
    const ComponentId twice = w.createComponent(component("slurm-twice"));
    const ComponentId once = w.createComponent(component("slurm-once"));
    const ComponentId local = w.createComponent(component("local-job"));
    const SlurmJobRow first = slurmJob(101, 1, "NODE_FAIL", "None", "h1", 1, 1000);
    const SlurmJobRow second = slurmJob(102, 2, "PENDING", "Resources", "", std::nullopt, 1060);
    w.upsertSlurmJob(twice, second); // inserted out of order on purpose
    w.upsertSlurmJob(twice, first);
    w.upsertSlurmJob(once, slurmJob(7, 1, "RUNNING", "None", "n[1-2]", std::nullopt, 900));
    w.flush();
    REQUIRE(w.lastError() == std::string());
    StoreReader r(db);
    const auto all = r.slurmJobs(twice);
    REQUIRE(all.size() == std::size_t(2));
    REQUIRE(all[0].jobId == std::int64_t(101));
    REQUIRE(*all[0].exitCode == 1);
    REQUIRE(all[1].script == std::string("#!/bin/bash\necho 102\n"));
    const auto newest = r.newestSlurmJobs();
    REQUIRE(newest.size() == std::size_t(2));
    REQUIRE(!newest.count(local));
    const SlurmJobRow& n = newest.at(twice);
    REQUIRE(n.jobId == std::int64_t(102));
    REQUIRE(n.attempt == 2);
    REQUIRE(n.reason == std::string("Resources"));
    REQUIRE(!n.exitCode);
    REQUIRE(n.submitted == nearly(1060.0));
    REQUIRE(n.script.empty()); // lists leave the script in the store
    REQUIRE(newest.at(once).nodes == std::string("n[1-2]"));
    REQUIRE(newest.at(once).partition == std::string("gpu"));
}

// Version 4 to 5: old ranks get an empty device and take one from then on.
TEST_CASE_FIXTURE(StoreFiles, "migratesAVersion4File") {
    const std::string db = path("v4.db");
    std::ifstream in(std::string(STUDIO_TEST_DATA) + "/studio-v4.sql");
    REQUIRE(in.good());
    std::stringstream sql;
    sql << in.rdbuf();
    execSql(db, sql.str());
    const std::string job = "legacy-job-2023-11-14-22-13-20-000";
    {
        StoreWriter w(db); // migrates 4 -> latest
        const auto d = StoreReader(db).detail(job);
        REQUIRE(d);
        REQUIRE(d->row.cluster == std::string("lab"));
        REQUIRE(d->row.notes == std::string("kept across migrations"));
        REQUIRE(d->journals.size() == std::size_t(1));
        REQUIRE(d->ranks.size() == std::size_t(2));
        for (const auto& rank : d->ranks) {
            REQUIRE(rank.device == std::string());
            REQUIRE(*rank.exitCode == 0);
        }
        RankRow rank = d->ranks[1];
        rank.device = "cpu";
        w.upsertRank(d->row.id, rank);
        w.flush();
        REQUIRE(w.lastError() == std::string());
    }
    sqlite3* raw = nullptr;
    REQUIRE(sqlite3_open(db.c_str(), &raw) == SQLITE_OK);
    sqlite3_stmt* q = nullptr;
    REQUIRE(sqlite3_prepare_v2(raw, "PRAGMA user_version", -1, &q, nullptr) == SQLITE_OK);
    REQUIRE(sqlite3_step(q) == SQLITE_ROW);
    const int version = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    sqlite3_close(raw);
    REQUIRE_MESSAGE(version >= 5, std::to_string(version).c_str());
    const auto d = StoreReader(db).detail(job);
    REQUIRE(d->ranks[0].device == std::string());
    REQUIRE(d->ranks[1].device == std::string("cpu"));
    REQUIRE(d->ranks[1].pid == std::int64_t(4244));
}

TEST_CASE_FIXTURE(StoreFiles, "refusesANewerSchema") {
    const std::string db = path("future.db");
    execSql(db, "CREATE TABLE x(a); PRAGMA user_version = 99;");
    try {
        StoreWriter w(db);
        FAIL("a newer schema must be refused");
    } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        REQUIRE_MESSAGE(
            (what.find("future.db") != std::string::npos && what.find("99") != std::string::npos),
            e.what());
    }
    REQUIRE_THROWS_AS(StoreReader{db}, std::runtime_error);
}

TEST_CASE_FIXTURE(StoreFiles, "abandonedJobsFail") {
    const std::string db = path("abandoned.db");
    StoreWriter w(db);
    NewComponent dead = component("dead");
    dead.owner = "host:1:1";
    NewComponent alive = component("alive");
    alive.owner = "host:2:2";
    w.createComponent(dead);
    w.createComponent(alive);
    auto failed = w.failAbandoned([](const std::string& owner) { return owner == "host:2:2"; });
    REQUIRE(failed == (std::vector<std::string>{"dead"}));
    StoreReader r(db);
    REQUIRE(r.component("dead")->status == std::string("Failed"));
    REQUIRE(r.component("dead")->failureReason.find("exited") != std::string::npos);
    REQUIRE(r.component("alive")->status == std::string("InProgress"));
}

TEST_CASE_FIXTURE(StoreFiles, "readerSeesWritesWhileTheyHappen") {
    const std::string db = path("concurrent.db");
    StoreWriter w(db);
    const ComponentId id = w.createComponent(component("live"));
    StoreReader r(db);
    std::int64_t seen = 0;
    for (int batch = 0; batch < 5; ++batch) {
        for (int i = 0; i < 100; ++i)
            w.addMetric(id, "m", MetricPoint{batch * 100 + i, 0, 1.0, 0, 0});
        w.flush();
        const std::int64_t count = r.metricSummaries(id).at("m").count;
        REQUIRE(count > seen);
        seen = count;
    }
    REQUIRE(seen == std::int64_t(500));
}

// Before: a NaN system sample rolled the whole batch back (0 of 20 metrics) and said nothing.
TEST_CASE_FIXTURE(StoreFiles, "oneBadRecordCostsThatRecordOnly") {
    const std::string db = path("bad-record.db");
    StoreWriter w(db);
    std::vector<WriteError> errors;
    std::mutex m;
    w.setErrorHandler([&](const WriteError& e) {
        std::lock_guard lock(m);
        errors.push_back(e);
    });
    const ComponentId id = w.createComponent(component("bad-record"));
    w.beginGroup(); // one batch, one transaction
    for (int i = 0; i < 10; ++i)
        w.addMetric(id, "loss", MetricPoint{i, 1.0 + i, 0.5, 0, 0});
    w.addSystemSample(id, 0, "cpu", "util", 5.0, std::nan(""));
    for (int i = 10; i < 20; ++i)
        w.addMetric(id, "loss", MetricPoint{i, 1.0 + i, 0.5, 0, 0});
    w.addSystemSample(id, 0, "cpu", "util", 6.0, 40.0);
    w.endGroup();
    w.flush();
    StoreReader r(db);
    REQUIRE(r.metricPoints(id, "loss").size() == std::size_t(20));
    REQUIRE(r.metricSummaries(id).at("loss").count == std::int64_t(20));
    REQUIRE(r.systemSeries(id).size() == std::size_t(1));
    std::lock_guard lock(m);
    REQUIRE(errors.size() == std::size_t(1));
    REQUIRE(errors[0].component == id);
    REQUIRE(!errors[0].batchLost);
    REQUIRE_MESSAGE(errors[0].message.find("not a finite number") != std::string::npos,
                    errors[0].message.c_str());
    REQUIRE(w.lastError() == errors[0].message);
}

// A full disk loses the batch it hit, says so, and keeps what was committed before.
TEST_CASE_FIXTURE(StoreFiles, "diskFullIsReportedAndLosesNothingCommitted") {
    if (::geteuid() != 0) {
        MESSAGE("skipped: needs root to mount a small tmpfs");
        return;
    }
    studio::testing::TempDir mount;
    const TmpfsMount disk(mount.path(), "2m");
    REQUIRE(disk.mounted());
    const std::string dir = disk.dir();
    std::vector<WriteError> errors;
    std::mutex m;
    std::int64_t committed = 0;
    {
        StoreWriter w(dir + "/studio.db");
        w.setErrorHandler([&](const WriteError& e) {
            std::lock_guard lock(m);
            errors.push_back(e);
        });
        const ComponentId id = w.createComponent(component("fills-the-disk"));
        for (int i = 0; i < 10; ++i) // fits with room to spare: committed for sure
            w.setTag(id, "small" + std::to_string(i), "x");
        w.flush();
        {
            std::lock_guard lock(m);
            REQUIRE_MESSAGE(errors.empty(), (errors.empty() ? "" : errors.front().message.c_str()));
        }
        const std::string big(2000, 'x');
        for (int batch = 0; batch < 400; ++batch) {
            for (int i = 0; i < 50; ++i)
                w.setTag(id, "t" + std::to_string(batch * 50 + i), big);
            w.flush();
            {
                std::lock_guard lock(m);
                if (!errors.empty())
                    break;
            }
            committed = (batch + 1) * 50;
        }
    }
    std::lock_guard lock(m);
    REQUIRE(!errors.empty());
    const bool full = std::any_of(errors.begin(), errors.end(), [](const WriteError& e) {
        return e.message.find("full") != std::string::npos;
    });
    REQUIRE_MESSAGE(full, errors.front().message.c_str());
    StoreReader r(dir + "/studio.db");
    REQUIRE(r.detail("fills-the-disk")->tags.size() >= static_cast<std::size_t>(10 + committed));
    execSql(dir + "/studio.db", "PRAGMA integrity_check");
}
