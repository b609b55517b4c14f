// The plot and statistics library (engine/plot): NumPy's linear percentiles and the summary
// built on them, nice numbers and both tick placements, linear and log scales, padded ranges,
// and the time axis (units, relative time, wall-clock ticks). Expected values are NumPy's
// (numpy.percentile, numpy.std) or worked out by hand.
#include "engine/plot/scale.h"
#include "engine/plot/stats.h"
#include "engine/plot/ticks.h"
#include "engine/plot/time_axis.h"

#include "tests/support/plain_test.h"

#include <cmath>
#include <limits>

using namespace studio::plot;
using studio::testing::nearly;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

bool same(const std::vector<double>& got, const std::vector<double>& expected) {
    if (got.size() != expected.size())
        return false;
    for (std::size_t i = 0; i < got.size(); ++i)
        if (!(got[i] == nearly(expected[i])))
            return false;
    return true;
}

} // namespace

TEST_CASE("percentilesAreNumPysLinear") {
    const std::vector<double> ten{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    const struct {
        const char* row;
        double q;
        double expected; // numpy.percentile(range(1, 11), q)
    } rows[] = {{"p0", 0, 1},      {"p25", 25, 3.25}, {"p50", 50, 5.5}, {"p90", 90, 9.1},
                {"p99", 99, 9.91}, {"p100", 100, 10}, {"below", -5, 1}, {"above", 140, 10}};
    for (const auto& r : rows) {
        INFO("row: ", r.row);
        REQUIRE(sortedPercentile(ten, r.q) == nearly(r.expected));
        REQUIRE(percentile({10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, r.q) == nearly(r.expected));
    }
    REQUIRE(sortedPercentile(std::vector<double>{7}, 90) == nearly(7));
    REQUIRE(std::isnan(percentile({}, 50)));
    REQUIRE(std::isnan(sortedPercentile({}, 50)));
    // At a whole rank the value itself, even beside an infinity.
    REQUIRE(sortedPercentile(std::vector<double>{1, 2, kInf}, 50) == nearly(2));
}

TEST_CASE("meanAndPopulationStddev") {
    const std::vector<double> v{2, 4, 4, 4, 5, 5, 7, 9};
    REQUIRE(mean(v) == nearly(5));
    REQUIRE(stddev(v) == nearly(2)); // numpy.std, ddof = 0
    REQUIRE(std::isnan(mean({})));
    REQUIRE(std::isnan(stddev({})));
}

TEST_CASE("summarizeLeavesOutNonFiniteValues") {
    for (const std::vector<double>& values : {std::vector<double>{5, 1, 4, 2, 3, kNaN},
                                              std::vector<double>{5, 1, 4, 2, 3, kNaN, kInf}}) {
        INFO("values: ", values);
        const SampleStats s = summarize(values);
        REQUIRE(s.count == std::size_t(5));
        REQUIRE(s.min == nearly(1));
        REQUIRE(s.max == nearly(5));
        REQUIRE(s.mean == nearly(3));
        REQUIRE(s.stddev == nearly(std::sqrt(2.0)));
        REQUIRE(s.p5 == nearly(1.2)); // NumPy: 1 + 0.05 * 4 * (2 - 1)
        REQUIRE(s.p25 == nearly(2));
        REQUIRE(s.p50 == nearly(3));
        REQUIRE(s.p75 == nearly(4));
        REQUIRE(s.p95 == nearly(4.8));
        REQUIRE(s.p99 == nearly(4.96));
    }
    for (const std::vector<double>& values : {std::vector<double>{}, std::vector<double>{kNaN}}) {
        INFO("values: ", values);
        const SampleStats e = summarize(values);
        REQUIRE(e.count == std::size_t(0));
        REQUIRE((std::isnan(e.min) && std::isnan(e.max) && std::isnan(e.mean)));
        REQUIRE((std::isnan(e.p50) && std::isnan(e.stddev)));
    }
}

TEST_CASE("niceNumbers") {
    const struct {
        const char* row;
        double x;
        bool round;
        double expected;
    } rows[] = {{"1.2 nearest", 1.2, true, 1},
                {"2.5 nearest", 2.5, true, 2},
                {"4 nearest", 4, true, 5},
                {"8 nearest", 8, true, 10},
                {"1.2 up", 1.2, false, 2},
                {"19 up", 19, false, 20},
                {"97.3 up", 97.3, false, 100},
                {"300 up", 300, false, 500},
                {"5 up stays", 5, false, 5},
                {"rounding error up", 2 + 1e-12, false, 2},
                {"0.034 nearest", 0.034, true, 0.05},
                {"zero", 0, false, 1},
                {"zero nearest", 0, true, 1},
                {"nan", kNaN, true, 1}};
    for (const auto& r : rows) {
        INFO("row: ", r.row);
        REQUIRE(niceNumber(r.x, r.round) == nearly(r.expected));
    }
    REQUIRE(finerNiceStep(10) == nearly(5));
    REQUIRE(finerNiceStep(5) == nearly(2));
    REQUIRE(finerNiceStep(2) == nearly(1));
    REQUIRE(finerNiceStep(0.1) == nearly(0.05));
}

TEST_CASE("niceTickSteps") {
    const struct {
        const char* row;
        double span;
        int maxTicks;
        double expected;
    } rows[] = {{"0..1 in 6", 1, 6, 0.2},  {"0..100 in 11", 100, 11, 10},
                {"0..97 in 5", 97, 5, 50}, {"1M in 10", 1e6, 10, 2e5},
                {"tiny", 3e-5, 4, 1e-5},   {"zero span", 0, 5, 1}};
    for (const auto& r : rows) {
        INFO("row: ", r.row);
        REQUIRE(niceTickStep(r.span, r.maxTicks) == nearly(r.expected));
    }
}

TEST_CASE("tickDecimals") {
    const struct {
        const char* row;
        double step;
        int decimals;
    } rows[] = {{"20", 20, 0},     {"1", 1, 0},         {"0.5", 0.5, 1},    {"0.2", 0.2, 1},
                {"0.02", 0.02, 2}, {"0.001", 0.001, 3}, {"1e-12", 1e-12, 9}};
    for (const auto& r : rows) {
        INFO("row: ", r.row);
        REQUIRE(tickDecimals(r.step) == r.decimals);
    }
}

TEST_CASE("coveringTicksStartAndEndOnATick") {
    // The two placements differ on purpose: covering ticks may reach past the data, ticks
    // within never do (0..97.3: 0..100 by 20 against 0, 50).
    const struct {
        const char* row;
        double lo, hi;
        int maxTicks;
        double first, last, step;
        int count;
    } rows[] = {
        {"percent", 0, 100, 6, 0, 100, 20, 6},  {"97.3", 0, 97.3, 5, 0, 100, 20, 6},
        {"negative", -7, 12, 5, -10, 15, 5, 6}, {"small", 0.013, 0.087, 5, 0, 0.1, 0.02, 6},
        {"flat", 3, 3, 5, 2.6, 3.4, 0.2, 5},    {"zero", 0, 0, 5, 0, 1, 0.2, 6},
        {"reversed", 100, 0, 6, 0, 100, 20, 6}, {"nan", kNaN, 5, 5, 0, 1, 0.2, 6},
    };
    for (const auto& r : rows) {
        INFO("row: ", r.row);
        const TickSet t = niceTicks(r.lo, r.hi, r.maxTicks);
        REQUIRE(std::abs(t.lo - r.first) < 1e-9);
        REQUIRE(std::abs(t.hi - r.last) < 1e-9);
        REQUIRE(std::abs(t.step - r.step) < 1e-12);
        REQUIRE(static_cast<int>(t.ticks.size()) == r.count);
        REQUIRE(std::abs(t.ticks.front() - t.lo) < 1e-9);
        REQUIRE(std::abs(t.ticks.back() - t.hi) < 1e-9);
    }
    const TickSet negative = niceTicks(-7, 12, 5);
    REQUIRE(same(negative.ticks, {-10, -5, 0, 5, 10, 15}));
    REQUIRE(same(niceTicks(3, 3, 5).ticks, {2.6, 2.8, 3.0, 3.2, 3.4}));
    REQUIRE(same(niceTicks(0, 0, 5).ticks, {0, 0.2, 0.4, 0.6, 0.8, 1}));
    REQUIRE(same(niceTicks(kNaN, 5, 5).ticks, {0, 0.2, 0.4, 0.6, 0.8, 1}));
    // Zero is exactly zero, never a rounding residue.
    for (double v : niceTicks(-0.3, 0.3, 7).ticks)
        REQUIRE((v == 0 || std::abs(v) > 1e-6));
}

TEST_CASE("ticksWithinStayInside") {
    REQUIRE(same(ticksWithin(0, 97.3, 5).ticks, {0, 50}));
    REQUIRE(same(ticksWithin(0.13, 0.87, 5).ticks, {0.2, 0.4, 0.6, 0.8}));
    const TickSet t = ticksWithin(0.41, 0.58, 2); // finer steps until two fit
    REQUIRE(same(t.ticks, {0.45, 0.5, 0.55}));
    REQUIRE(t.step == nearly(0.05));
    REQUIRE((t.lo == nearly(0.45) && t.hi == nearly(0.55)));
    const TickSet flat = ticksWithin(3, 3, 5);
    REQUIRE(same(flat.ticks, {3}));
    REQUIRE(flat.step == 0);
    REQUIRE(ticksWithin(2, 1, 5).ticks.empty());
    REQUIRE(ticksWithin(0, kInf, 5).ticks.empty());
}

TEST_CASE("linearScales") {
    const struct {
        const char* row;
        double d0, d1, r0, r1, v, expected;
    } rows[] = {
        {"middle", 0, 100, 0, 500, 50, 250},        {"offset", 10, 20, 60, 160, 12.5, 85},
        {"inverted y", 0, 100, 200, 0, 25, 150},    {"outside", 0, 10, 0, 100, 15, 150},
        {"zero-width domain", 5, 5, 0, 100, 7, 50},
    };
    for (const auto& r : rows) {
        INFO("row: ", r.row);
        REQUIRE(LinearScale{r.d0, r.d1, r.r0, r.r1}(r.v) == nearly(r.expected));
    }
}

TEST_CASE("logScales") {
    REQUIRE(LogScale{1, 1000, 0, 1}(10) == nearly(1.0 / 3));
    REQUIRE(LogScale{1, 100, 0, 300}(100) == nearly(300));
    REQUIRE(std::isnan(LogScale{1, 100, 0, 1}(0)));
    REQUIRE(std::isnan(LogScale{0, 100, 0, 1}(10)));
}

TEST_CASE("paddedRanges") {
    const struct {
        const char* row;
        double min, max;
        bool log;
        double lo, hi;
    } rows[] = {{"linear", 0, 10, false, -0.5, 10.5},
                {"reversed", 10, 0, false, -0.5, 10.5},
                {"flat", 2, 2, false, 1.8, 2.2},
                {"flat zero", 0, 0, false, -1, 1},
                {"nothing", kNaN, kNaN, false, 0, 1},
                {"log decades", 1, 1e4, true, std::pow(10.0, -0.2), std::pow(10.0, 4.2)},
                {"log flat", 10, 10, true, std::pow(10.0, 0.5), std::pow(10.0, 1.5)},
                {"log not positive", 0, 10, true, 1, 10},
                {"log nothing", kNaN, kNaN, true, 1, 10}};
    for (const auto& r : rows) {
        INFO("row: ", r.row);
        const ValueRange v = paddedRange(r.min, r.max, r.log);
        REQUIRE(v.min == nearly(r.lo));
        REQUIRE(v.max == nearly(r.hi));
    }
}

TEST_CASE("logTicks") {
    REQUIRE(same(logTicks(1, 100, 10), {1, 2, 5, 10, 20, 50, 100}));
    REQUIRE(same(logTicks(1, 100, 4), {1, 10, 100}));              // crowded: decades only
    REQUIRE(same(logTicks(0.5, 1e4, 10), {1, 10, 100, 1e3, 1e4})); // wide: decades only
    REQUIRE(logTicks(0, 10, 5).empty());
}

TEST_CASE("timeUnits") {
    const struct {
        const char* row;
        double span, maxUnits, seconds;
        const char* label;
    } rows[] = {{"report: two minutes", 120, 600, 1, "s"},
                {"report: ten minutes", 600, 600, 1, "s"},
                {"report: an hour", 3600, 600, 60, "min"},
                {"report: ten hours", 36000, 600, 60, "min"},
                {"report: a day", 86400, 600, 3600, "h"},
                {"charts: 90 s", 90, 180, 1, "s"},
                {"charts: half an hour", 1800, 180, 60, "min"},
                {"charts: ten hours", 36000, 180, 3600, "h"},
                {"nothing", 0, 180, 1, "s"},
                {"nan", kNaN, 600, 1, "s"}};
    for (const auto& r : rows) {
        INFO("row: ", r.row);
        const TimeUnit u = timeUnitFor(r.span, r.maxUnits);
        REQUIRE(u.seconds == nearly(r.seconds));
        REQUIRE(u.label == r.label);
    }
    const RelativeTime t{1000, {60, "min"}};
    REQUIRE(t(1090) == nearly(1.5));
    REQUIRE(t(1000) == nearly(0));
}

TEST_CASE("wallClockTicks") {
    // 1700000000 is 2023-11-14 22:13:20 UTC.
    const WallTicks hour = wallClockTicks(1700000000, 1700003600, 7, 0);
    REQUIRE(hour.step == nearly(600));
    REQUIRE(hour.label == WallLabel::Minutes);
    REQUIRE(hour.ticks.size() == std::size_t(6));
    REQUIRE(hour.ticks.front() == nearly(1700000400)); // 22:20
    // Half-hour zones: ticks fall on local ten minutes.
    const WallTicks india = wallClockTicks(1700000000, 1700003600, 7, 19800);
    REQUIRE(india.ticks.front() == nearly(1700000400));
    const WallTicks minute = wallClockTicks(1700000000, 1700000060, 7, 0);
    REQUIRE(minute.step == nearly(10));
    REQUIRE(minute.label == WallLabel::Seconds);
    REQUIRE(minute.ticks.size() == std::size_t(7));
    const WallTicks days = wallClockTicks(1700000000, 1700000000 + 5 * 86400.0, 7, 0);
    REQUIRE(days.step == nearly(86400));
    REQUIRE(days.label == WallLabel::Day);
    REQUIRE(days.ticks.size() == std::size_t(5));
    const WallTicks twoDays = wallClockTicks(1700000000, 1700000000 + 2 * 86400.0, 7, 0);
    REQUIRE(twoDays.label == WallLabel::DayMinutes);
    const WallTicks year = wallClockTicks(1700000000, 1700000000 + 365 * 86400.0, 7, 0);
    REQUIRE(year.step == nearly(100 * 86400.0));
    for (double v : year.ticks)
        REQUIRE(std::fmod(v, 86400) == nearly(0));
    REQUIRE(wallClockTicks(kNaN, 1, 5, 0).ticks.empty());
}
