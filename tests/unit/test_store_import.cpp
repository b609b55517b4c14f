// StoreWriter::importComponent (mlstudio import): a job written whole, its points in the order
// given (whole statements of 64 rows and the rest one by one), summaries, times and status
// message; a job that fails half way leaves nothing behind, not even its new experiment.
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"

#include "tests/support/plain_test.h"
#include "tests/support/temp_dir.h"

#include <cmath>
#include <stdexcept>
#include <string>

using namespace studio::store;
using studio::testing::nearly;

namespace {

// 64 * 2 + 3 points: two whole statements and three single rows; one value is NaN.
MetricSeries series(const std::string& name, int rank) {
    MetricSeries s;
    s.name = name;
    for (int i = 0; i < 131; ++i)
        s.points.push_back({i * 5, 1000.0 + i, i == 70 ? std::nan("") : 1.0 / (i + 1), 0, rank});
    return s;
}

NewComponent imported(const std::string& name, const std::string& experiment) {
    NewComponent c;
    c.name = name;
    c.experiment = experiment;
    c.status = "Imported";
    c.secondaryStatus = "Imported";
    c.statusMessage = "imported from /logs/" + name;
    c.created = 1000;
    c.parameters = {{"lr", "0.1", 0.1}};
    return c;
}

struct ImportFiles {
    studio::testing::TempDir dir;
    std::string db = dir.filePath("studio.db");
};

} // namespace

TEST_CASE_FIXTURE(ImportFiles, "aJobIsWrittenWholeWithItsSummariesTimesAndMessage") {
    StoreWriter w(db);
    const ComponentId id = w.importComponent(imported("tb-run", "from-tb"), 1000, 1130,
                                             {series("loss", 0), series("acc", 1)});
    StoreReader r(db);
    const auto row = r.component("tb-run");
    REQUIRE(row);
    CHECK(row->id == id);
    CHECK(row->status == "Imported");
    CHECK(row->experiment == "from-tb");
    CHECK(row->started == 1000);
    CHECK(row->ended == 1130);
    const auto t = r.transitions(id);
    REQUIRE(t.size() == 1);
    CHECK(t[0].message == "imported from /logs/tb-run");
    const MetricSeries want = series("acc", 1);
    const auto got = r.metricPoints(id, "acc");
    REQUIRE(got.size() == want.points.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        CHECK(got[i].step == want.points[i].step);
        CHECK(got[i].time == want.points[i].time);
        CHECK(got[i].rank == 1);
        if (i == 70)
            CHECK(std::isnan(got[i].value));
        else
            CHECK(got[i].value == want.points[i].value);
    }
    const auto sums = r.metricSummaries(id);
    REQUIRE(sums.count("loss") == 1);
    const MetricSummary& s = sums.at("loss");
    CHECK(s.count == 131);
    CHECK(s.nonFinite == 1);
    CHECK(s.max == 1.0);
    CHECK(s.min == nearly(1.0 / 131));
    CHECK(s.last == nearly(1.0 / 131));
    CHECK(s.lastStep == 650);
}

TEST_CASE_FIXTURE(ImportFiles, "aJobThatFailsHalfWayLeavesNothing") {
    StoreWriter w(db);
    // The second series repeats the first's name: its rows break UNIQUE(component_id, name)
    // after the component and the first series' points are in.
    CHECK_THROWS_WITH_AS(w.importComponent(imported("broken", "only-broken"), 1000, 1130,
                                           {series("loss", 0), series("loss", 0)}),
                         doctest::Contains("cannot record job broken"), std::runtime_error);
    StoreReader r(db);
    CHECK_FALSE(r.component("broken"));
    for (const auto& e : r.experiments())
        CHECK(e.name != "only-broken");
    // The writer goes on: the same name imports whole now, and native writes land beside it.
    const ComponentId id =
        w.importComponent(imported("broken", "only-broken"), 1000, 1130, {series("loss", 0)});
    NewComponent native;
    native.name = "native";
    const ComponentId nid = w.createComponent(native);
    w.addMetric(nid, "loss", {0, 1000, 0.5, 0, 0});
    w.flush();
    CHECK(r.metricPoints(id, "loss").size() == 131);
    CHECK(r.metricSummaries(id).at("loss").count == 131);
    CHECK(r.metricSummaries(nid).at("loss").count == 1);
}

TEST_CASE_FIXTURE(ImportFiles, "aNameTakenIsRefusedAndTheJobThereKept") {
    StoreWriter w(db);
    const ComponentId id = w.importComponent(imported("run", "a"), 1000, 1130, {series("loss", 0)});
    CHECK_THROWS_AS(w.importComponent(imported("run", "b"), 1000, 1130, {series("other", 0)}),
                    std::runtime_error);
    StoreReader r(db);
    CHECK(r.metricNames(id) == std::vector<std::string>{"loss"});
    CHECK(r.metricPoints(id, "loss").size() == 131);
}
