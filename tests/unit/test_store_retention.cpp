// Store retention: compaction of ended jobs' system samples into one mean per series and window,
// running jobs and recent ones left whole, a second compaction changing nothing, VACUUM only when
// no job runs, and the file shrinking once it runs.
#include "engine/store/retention.h"
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"

#include "tests/support/plain_test.h"
#include "tests/support/temp_dir.h"

#include <map>
#include <stdexcept>
#include <string>

using namespace studio::store;
using studio::testing::nearly;

namespace {

constexpr int kTicks = 600;     // 5 minutes at 500 ms
constexpr double kStart = 1200; // a multiple of 60: the windows are [1200, 1260), ...
constexpr double kEnded = 2000; // when the ended job ended
const char* kDevices[] = {"gpu0", "gpu1", "cpu"};

// A job with three series of kTicks samples each (500 ms apart); ended when `ended` > 0.
ComponentId writeJob(StoreWriter& w, const std::string& name, double ended) {
    NewComponent c;
    c.name = name;
    c.created = 1000;
    const ComponentId id = w.createComponent(c);
    for (int k = 0; k < kTicks; ++k)
        for (int d = 0; d < 3; ++d)
            w.addSystemSample(id, 0, kDevices[d], "util", kStart + 0.5 * k + 0.001 * d,
                              (k * 7 + d * 13) % 101 + 0.25);
    if (ended > 0) {
        w.setEnded(id, ended);
        w.setStatus(id, "Completed", "Completed", "", ended);
    }
    w.flush();
    return id;
}

// The expected window means of one series, computed from the values written.
std::map<long, std::pair<double, double>> windowMeans(int d) {
    std::map<long, std::pair<double, double>> sums; // window -> (time sum, value sum)
    std::map<long, int> counts;
    for (int k = 0; k < kTicks; ++k) {
        const double t = kStart + 0.5 * k + 0.001 * d;
        const long window = static_cast<long>(t / 60);
        sums[window].first += t;
        sums[window].second += (k * 7 + d * 13) % 101 + 0.25;
        ++counts[window];
    }
    for (auto& [window, s] : sums)
        s = {s.first / counts[window], s.second / counts[window]};
    return sums;
}

std::size_t sampleCount(StoreReader& r, ComponentId id) {
    std::size_t n = 0;
    for (const auto& s : r.systemSeries(id))
        n += s.samples.size();
    return n;
}

struct RetentionFiles {
    studio::testing::TempDir dir;
    std::string db = dir.filePath("studio.db");
};

} // namespace

TEST_CASE_FIXTURE(RetentionFiles, "endedJobsBecomeWindowMeansRunningOnesStayWhole") {
    StoreWriter w(db);
    const ComponentId ended = writeJob(w, "ended", kEnded);
    const ComponentId running = writeJob(w, "running", 0);

    CompactOptions o;
    o.endedBefore = kEnded + 1;
    o.windowSeconds = 60;
    const CompactResult r = compactSystemSamples(db, o);
    REQUIRE(r.jobs == 1);
    REQUIRE(r.samplesBefore == 3 * kTicks);
    REQUIRE(r.samplesAfter == 3 * 5); // 5 minutes: 5 windows per series
    REQUIRE_FALSE(r.vacuumed);        // the running job would wait for VACUUM
    REQUIRE(r.vacuumSkipped.find("1 job(s) running") != std::string::npos);
    REQUIRE(r.bytesBefore > 0);

    StoreReader reader(db);
    REQUIRE(sampleCount(reader, running) == 3 * kTicks);
    for (const auto& series : reader.systemSeries(ended)) {
        const int d = series.device == "gpu0" ? 0 : series.device == "gpu1" ? 1 : 2;
        const auto expected = windowMeans(d);
        REQUIRE(series.samples.size() == expected.size());
        auto it = expected.begin();
        for (const auto& s : series.samples) { // in time order
            INFO(series.device << " window " << it->first);
            REQUIRE(s.time == nearly(it->second.first));
            REQUIRE(s.value == nearly(it->second.second));
            ++it;
        }
    }
}

TEST_CASE_FIXTURE(RetentionFiles, "jobsEndedAfterTheCutOffAreKept") {
    StoreWriter w(db);
    const ComponentId id = writeJob(w, "recent", kEnded);
    CompactOptions o;
    o.endedBefore = kEnded - 1;
    const CompactResult r = compactSystemSamples(db, o);
    REQUIRE(r.jobs == 0);
    REQUIRE(r.samplesBefore == 0);
    StoreReader reader(db);
    REQUIRE(sampleCount(reader, id) == 3 * kTicks);
}

TEST_CASE_FIXTURE(RetentionFiles, "vacuumShrinksTheFileAndASecondPassChangesNothing") {
    {
        StoreWriter w(db);
        for (int j = 0; j < 8; ++j)
            writeJob(w, "job-" + std::to_string(j), kEnded);
    }
    CompactOptions o;
    o.endedBefore = kEnded + 1;
    const CompactResult first = compactSystemSamples(db, o);
    REQUIRE(first.jobs == 8);
    REQUIRE(first.samplesAfter == 8 * 3 * 5);
    REQUIRE(first.vacuumed);
    REQUIRE(first.vacuumSkipped.empty());
    REQUIRE(first.bytesAfter < first.bytesBefore);
    REQUIRE(first.reusableBytes == 0);
    REQUIRE(databaseBytes(db) == first.bytesAfter);

    const CompactResult second = compactSystemSamples(db, o);
    REQUIRE(second.jobs == 0);
    REQUIRE(second.samplesBefore == first.samplesAfter);
    REQUIRE(second.samplesAfter == first.samplesAfter);
    REQUIRE(second.bytesAfter == first.bytesAfter);
}

TEST_CASE_FIXTURE(RetentionFiles, "withoutVacuumTheFreedPagesStayForNewRows") {
    {
        StoreWriter w(db);
        for (int j = 0; j < 4; ++j)
            writeJob(w, "job-" + std::to_string(j), kEnded);
    }
    CompactOptions o;
    o.endedBefore = kEnded + 1;
    o.vacuum = false;
    const CompactResult r = compactSystemSamples(db, o);
    REQUIRE(r.jobs == 4);
    REQUIRE_FALSE(r.vacuumed);
    REQUIRE(r.vacuumSkipped.empty());       // not asked for
    REQUIRE(r.bytesAfter >= r.bytesBefore); // the file keeps its pages
    REQUIRE(r.reusableBytes > 0);
}

TEST_CASE_FIXTURE(RetentionFiles, "aWindowThatIsNotPositiveIsRefused") {
    CompactOptions o;
    o.windowSeconds = 0;
    REQUIRE_THROWS_WITH_AS(compactSystemSamples(db, o),
                           doctest::Contains("positive number of seconds"), std::runtime_error);
}
