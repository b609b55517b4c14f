// The profiler report's arithmetic and formats (engine/report/report_math.h), the figures it
// derives from store rows (report_data.h), and the SVG charts' contract (svg_chart.h). The plot
// library's ticks, scales, statistics and time units they use are tested in test_plot.
#include "engine/plot/stats.h"
#include "engine/report/report_data.h"
#include "engine/report/report_math.h"
#include "engine/report/svg_chart.h"

#include "tests/support/plain_test.h"

#include <cmath>
#include <cstdlib>
#include <ctime>
#include <numbers>

using namespace studio::report;
namespace store = studio::store;
using studio::testing::nearly;

namespace {

// Timestamps are formatted in UTC, as the expected texts are.
const bool kUtc = [] {
    ::setenv("TZ", "UTC", 1);
    ::tzset();
    return true;
}();

} // namespace

TEST_CASE("binEdges") {
    const struct {
        const char* row;
        double lo, hi;
        int target;
        std::vector<double> edges;
    } rows[] = {
        {"exact", 0.0, 10.0, 5, {0, 2, 4, 6, 8, 10}},
        {"rounded out", 0.5, 9.7, 4, {0, 2, 4, 6, 8, 10}},
        {"offset", 103.0, 118.0, 3, {100, 105, 110, 115, 120}},
        {"single value", 5.0, 5.0, 10, {4.75, 5.25}},
        {"zero", 0.0, 0.0, 10, {-0.5, 0.5}},
    };
    for (const auto& r : rows) {
        INFO("row: ", r.row);
        const auto got = studio::report::binEdges(r.lo, r.hi, r.target);
        REQUIRE(got.size() == r.edges.size());
        for (std::size_t i = 0; i < r.edges.size(); ++i)
            REQUIRE_MESSAGE(std::abs(got[i] - r.edges[i]) < 1e-9, i);
    }
}

TEST_CASE("histogramRange") {
    std::vector<double> steps;
    for (int i = 0; i < 100; ++i)
        steps.push_back(100 + i % 10);
    std::vector<double> withOutliers = steps;
    withOutliers.insert(withOutliers.end(), {1000, 2000});
    const struct {
        const char* row;
        std::vector<double> values;
        double lo, hi;
        int beyond;
    } rows[] = {
        {"no outliers", {3, 1, 2, 5, 4}, 1.0, 5.0, 0},
        {"outliers cut", withOutliers, 100.0, 109.0, 2},
        {"no spread keeps all", {5, 5, 5, 5, 100}, 5.0, 100.0, 0},
        {"empty", {}, 0.0, 1.0, 0},
    };
    for (const auto& row : rows) {
        INFO("row: ", row.row);
        const DisplayRange r = studio::report::histogramRange(row.values);
        REQUIRE(r.lo == nearly(row.lo));
        REQUIRE(r.hi == nearly(row.hi));
        REQUIRE(static_cast<int>(r.beyond) == row.beyond);
    }
}

TEST_CASE("histogram") {
    const struct {
        const char* row;
        std::vector<double> values, edges;
        std::vector<std::int64_t> counts;
        std::int64_t outside;
    } rows[] = {
        {"two bins", {0, 1, 2, 3, 10}, {0, 5, 10}, {4, 1}, 0},
        {"interior edge goes up", {5}, {0, 5, 10}, {0, 1}, 0},
        {"last edge closed", {10, 10}, {0, 5, 10}, {0, 2}, 0},
        {"outside and nan", {-1, 11, NAN, 4}, {0, 5, 10}, {1, 0}, 3},
        {"empty", {}, {0, 1}, {0}, 0},
    };
    for (const auto& r : rows) {
        INFO("row: ", r.row);
        const Histogram h = studio::report::histogram(r.values, r.edges);
        REQUIRE(std::vector<std::int64_t>(h.counts.begin(), h.counts.end()) == r.counts);
        REQUIRE(h.outside == r.outside);
    }
}

TEST_CASE("pieSlices") {
    const struct {
        const char* row;
        std::vector<double> values, fractions;
    } rows[] = {
        {"quarter quarter half", {1, 1, 2}, {0.25, 0.25, 0.5}},
        {"negative is zero", {-1, 3}, {0, 1}},
        {"all zero", {0, 0}, {0, 0}},
        {"nan is zero", {NAN, 2, 2}, {0, 0.5, 0.5}},
    };
    for (const auto& r : rows) {
        INFO("row: ", r.row);
        const auto slices = studio::report::pieSlices(r.values);
        REQUIRE(slices.size() == r.fractions.size());
        double angle = 0;
        for (std::size_t i = 0; i < slices.size(); ++i) {
            REQUIRE(std::abs(slices[i].fraction - r.fractions[i]) < 1e-12);
            REQUIRE(std::abs(slices[i].startAngle - angle) < 1e-12);
            angle += r.fractions[i] * 2 * std::numbers::pi;
            REQUIRE(std::abs(slices[i].endAngle - angle) < 1e-12);
        }
    }
}

TEST_CASE("polarPoint") {
    const XY top = studio::report::polarPoint(100, 100, 50, 0);
    REQUIRE((std::abs(top.x - 100) < 1e-9 && std::abs(top.y - 50) < 1e-9));
    const XY right = studio::report::polarPoint(100, 100, 50, std::numbers::pi / 2);
    REQUIRE((std::abs(right.x - 150) < 1e-9 && std::abs(right.y - 100) < 1e-9));
    const XY bottom = studio::report::polarPoint(100, 100, 50, std::numbers::pi);
    REQUIRE((std::abs(bottom.x - 100) < 1e-9 && std::abs(bottom.y - 150) < 1e-9));
}

TEST_CASE("decimateMinMax") {
    std::vector<XY> points;
    for (int i = 0; i < 10000; ++i)
        points.push_back({static_cast<double>(i), std::sin(i * 0.01) * (i == 7777 ? 5 : 1)});
    const auto out = studio::report::decimateMinMax(points, 100);
    REQUIRE(out.size() <= 200);
    REQUIRE(out.size() >= 100);
    auto hasPeak = std::any_of(out.begin(), out.end(), [](const XY& p) { return p.x == 7777; });
    REQUIRE_MESSAGE(hasPeak, "the spike survives decimation");
    REQUIRE(
        std::is_sorted(out.begin(), out.end(), [](const XY& a, const XY& b) { return a.x < b.x; }));
    const std::vector<XY> few = {{0, 1}, {1, 2}, {2, 3}};
    REQUIRE(studio::report::decimateMinMax(few, 100).size() == few.size());
}

TEST_CASE("byteRateUnit") {
    const struct {
        const char* row;
        double max;
        std::string unit;
        double divisor;
    } rows[] = {
        {"bytes", 512.0, "B/s", 1.0}, {"kilo", 2.5e4, "KB/s", 1e3}, {"mega", 1.2e8, "MB/s", 1e6},
        {"giga", 3e9, "GB/s", 1e9},   {"zero", 0.0, "B/s", 1.0},
    };
    for (const auto& r : rows) {
        INFO("row: ", r.row);
        const ScaledUnit u = studio::report::byteRateUnit(r.max);
        REQUIRE(u.unit == r.unit);
        REQUIRE(u.divisor == nearly(r.divisor));
    }
}

TEST_CASE("formatNumber") {
    const struct {
        const char* row;
        double v;
        int decimals;
        std::string text;
    } rows[] = {
        {"pi", 3.14159, 2, "3.14"},           {"round up", 1234.56, 0, "1235"},
        {"negative zero", -0.001, 2, "0.00"}, {"negative", -2.5, 1, "-2.5"},
        {"nan", double(NAN), 2, "n/a"},       {"inf", double(INFINITY), 2, "inf"},
    };
    for (const auto& r : rows) {
        INFO("row: ", r.row);
        REQUIRE(studio::report::formatNumber(r.v, r.decimals) == r.text);
    }
}

TEST_CASE("formatPercent") {
    REQUIRE(studio::report::formatPercent(0.1234) == std::string("12.3%"));
    REQUIRE(studio::report::formatPercent(1.0, 0) == std::string("100%"));
    REQUIRE(studio::report::formatPercent(NAN) == std::string("n/a"));
}

TEST_CASE("formatDuration") {
    const struct {
        const char* row;
        double seconds;
        std::string text;
    } rows[] = {
        {"zero", 0.0, "0 ms"},
        {"ms", 0.85, "850 ms"},
        {"seconds", 42.5, "42.5 s"},
        {"rounds into a minute", 59.97, "1 min 00 s"},
        {"minutes", 725.0, "12 min 05 s"},
        {"hours", 11220.0, "3 h 07 min"},
        {"negative", -1.0, "n/a"},
        {"nan", double(NAN), "n/a"},
    };
    for (const auto& r : rows) {
        INFO("row: ", r.row);
        REQUIRE(studio::report::formatDuration(r.seconds) == r.text);
    }
}

TEST_CASE("formatTimestamp") {
    REQUIRE(studio::report::formatTimestamp(1700000000.6) == std::string("2023-11-14 22:13:20"));
    REQUIRE(studio::report::formatTimestamp(0) == std::string("n/a"));
}

TEST_CASE("htmlEscape") {
    const struct {
        const char* row;
        std::string in, out;
    } rows[] = {
        {"plain", "loss 0.25", "loss 0.25"},
        {"tags", "<script>x</script>", "&lt;script&gt;x&lt;/script&gt;"},
        {"amp first", "a&lt;b", "a&amp;lt;b"},
        {"quotes", "say \"hi\" it's", "say &quot;hi&quot; it&#39;s"},
        {"utf8 kept", "é … µs", "é … µs"},
    };
    for (const auto& r : rows) {
        INFO("row: ", r.row);
        REQUIRE(studio::report::htmlEscape(r.in) == r.out);
    }
}

// ---- figures derived from store rows ----

TEST_CASE("summarizeJob") {
    store::ComponentRow row;
    row.created = 1000;
    row.started = 1010;
    row.ended = 1100;
    std::vector<store::StepTiming> steps;
    for (int i = 0; i < 10; ++i) {
        store::StepTiming t;
        t.step = i;
        t.time = 1030 + 5 * i; // ends of steps: 1030 .. 1075
        t.forwardMs = 2000;    // each step lasts 2 s: the first starts at 1028
        steps.push_back(t);
    }
    const JobSummary s = studio::report::summarizeJob(row, steps, 0);
    REQUIRE(s.start == nearly(1010.0));
    REQUIRE(s.end == nearly(1100.0));
    REQUIRE(s.jobDuration == nearly(90.0));
    REQUIRE((s.hasSteps && !s.running));
    REQUIRE(s.loopStart == nearly(1028.0));
    REQUIRE(s.loopEnd == nearly(1075.0));
    REQUIRE(s.loopDuration == nearly(47.0));
    REQUIRE(s.initialization == nearly(18.0));
    REQUIRE(s.finalization == nearly(25.0));
    REQUIRE(s.initialization + s.loopDuration + s.finalization == nearly(s.jobDuration));

    row.ended = 0; // still running: the end is the last data
    const JobSummary r = studio::report::summarizeJob(row, {}, 1050);
    REQUIRE((r.running && !r.hasSteps));
    REQUIRE(r.end == nearly(1050.0));
    REQUIRE(r.initialization == nearly(40.0));
}

TEST_CASE("stepStatistics") {
    std::vector<store::StepTiming> steps;
    for (int rank = 0; rank < 2; ++rank)
        for (int i = 4; i >= 0; --i) { // out of order: sorted by step
            store::StepTiming t;
            t.rank = rank;
            t.node = rank;
            t.step = i;
            t.dataMs = 1;
            t.forwardMs = 10.0 * (i + 1);
            steps.push_back(t);
        }
    store::StepTiming eval;
    eval.phase = "eval";
    eval.forwardMs = 1000;
    steps.push_back(eval); // eval steps stay out when train steps exist
    const auto rows = studio::report::stepStatistics(steps);
    REQUIRE(rows.size() == std::size_t(2));
    REQUIRE(rows[0].rank == 0);
    REQUIRE(rows[1].node == 1);
    REQUIRE(rows[0].stats.count == std::size_t(5));
    REQUIRE(rows[0].stats.max == nearly(51.0));
    REQUIRE(rows[0].durationsMs.front() == nearly(11.0));
    REQUIRE(rows[0].byStep.back().x == nearly(4.0));

    const PhaseTotals p = studio::report::phaseTotals(steps);
    REQUIRE(p.trainSteps == std::int64_t(10));
    REQUIRE(p.evalSteps == std::int64_t(1));
    REQUIRE(p.dataMs == nearly(10.0));
    REQUIRE(p.evalMs == nearly(1000.0));
}

TEST_CASE("eventStatistics") {
    std::vector<store::FrameworkEventRow> events;
    auto add = [&](const char* name, const char* cat, double ms) {
        store::FrameworkEventRow e;
        e.name = name;
        e.category = cat;
        e.durationMs = ms;
        events.push_back(e);
    };
    add("conv1", "forward", 10);
    add("conv1", "forward", 30);
    add("allreduce", "comm", 60);
    const auto rows = studio::report::eventStatistics(events);
    REQUIRE(rows.size() == std::size_t(2));
    REQUIRE(rows[0].name == std::string("allreduce"));
    REQUIRE(rows[1].count == std::int64_t(2));
    REQUIRE(rows[1].meanMs == nearly(20.0));
    REQUIRE(rows[1].maxMs == nearly(30.0));
    REQUIRE(rows[1].share == nearly(0.4));
}

TEST_CASE("systemStatistics") {
    std::vector<store::SystemSeries> series;
    series.push_back({0, "net", "rx", {{1, 2e6}, {2, 4e6}}});
    series.push_back({0, "cpu1", "util", {{1, 10}, {2, 30}}});
    series.push_back({0, "cpu0", "util", {{1, 50}, {2, 70}}});
    series.push_back({0, "cpu", "util", {{1, 40}, {2, 50}}});
    series.push_back({0, "gpu1", "util", {{1, 0}}});
    series.push_back({0, "gpu0", "mem", {{1, 20}}});
    series.push_back({0, "gpu0", "util", {{1, 90}}});
    series.push_back({1, "cpu", "util", {{1, 5}}});
    const auto rows = studio::report::systemStatistics(series);
    std::vector<std::string> metrics;
    for (const auto& r : rows)
        metrics.push_back(std::to_string(r.node) + ":" + r.metric);
    REQUIRE(metrics == (std::vector<std::string>{"0:CPU total", "0:CPU per core",
                                                 "0:Network received", "0:GPU gpu0", "0:GPU gpu1",
                                                 "0:GPU memory gpu0", "1:CPU total"}));
    REQUIRE(rows[1].stats.count == std::size_t(4)); // every core's samples pooled
    REQUIRE(rows[1].stats.max == nearly(70.0));
    REQUIRE(rows[2].unit == std::string("MB/s"));
    REQUIRE(rows[2].stats.max == nearly(4.0));
}

TEST_CASE("parseRuleParameters") {
    const auto p = studio::report::parseRuleParameters(
        "threshold=50, gpu_threshold=10, regex=a, b|c, mode=None");
    REQUIRE(p.size() == std::size_t(4));
    REQUIRE(p.at("threshold") == std::string("50"));
    REQUIRE(p.at("regex") == std::string("a, b|c"));
    REQUIRE(p.at("mode") == std::string("None"));
    REQUIRE(studio::report::parseRuleParameters("").empty());
}

TEST_CASE("flattenDetails") {
    const auto j = nlohmann::json::parse(R"({"p95": 12.5, "node": {"0": {"gpu0": 3}},
        "ranks": [1, 2, 3], "outliers": [{"step": 7, "ms": 80}], "name": "a<b", "ok": true,
        "empty": {}})");
    const auto rows = studio::report::flattenDetails(j);
    std::map<std::string, std::string> m(rows.begin(), rows.end());
    REQUIRE(m.at("p95") == std::string("12.5"));
    REQUIRE(m.at("node.0.gpu0") == std::string("3"));
    REQUIRE(m.at("ranks") == std::string("[1, 2, 3]"));
    REQUIRE(m.at("outliers[0].step") == std::string("7"));
    REQUIRE(m.at("name") == std::string("a<b")); // escaped when rendered, not here
    REQUIRE(m.at("ok") == std::string("true"));
    REQUIRE(m.at("empty") == std::string("{}"));
    nlohmann::json many = nlohmann::json::array();
    for (int i = 0; i < 30; ++i)
        many.push_back(i);
    const auto longRow = studio::report::flattenDetails({{"v", many}});
    REQUIRE(longRow.at(0).second.find("(30 values)]") != std::string::npos);
}

TEST_CASE("coincidence") {
    const std::vector<store::SystemSample> cpu = {{0, 95}, {1, 95}, {2, 20}, {3, 99}, {9, 99}};
    const std::vector<store::SystemSample> gpu = {{0.05, 2}, {1, 50}, {2, 1}, {3.2, 5}};
    const Coincidence c = studio::report::coincidence(cpu, 90, gpu, 10, 0.5);
    REQUIRE(c.matched == std::size_t(4)); // t=9 has no GPU sample near it
    REQUIRE(c.both == std::size_t(2));    // t=0 and t=3
    const auto merged = studio::report::maxByTime({&cpu, &gpu});
    REQUIRE(merged.size() == std::size_t(7)); // 0, 0.05, 1, 2, 3, 3.2, 9
    REQUIRE(merged[2].value == nearly(95.0)); // t=1: max(95, 50)
}

TEST_CASE("statusOrder") {
    REQUIRE(studio::report::statusOrder("IssuesFound") < studio::report::statusOrder("Error"));
    REQUIRE(studio::report::statusOrder("NoIssuesFound") <
            studio::report::statusOrder("NotApplicable"));
    REQUIRE(studio::report::statusOrder("NotApplicable") <
            studio::report::statusOrder("SomethingNew"));
}

// ---- the SVG charts' contract ----

TEST_CASE("charts") {
    const ChartFrame f{"a <title> & more", "time (s)", "util (%)", 400, 200};
    const struct {
        const char* row;
        std::string svg;
    } rows[] = {
        {"line", lineChart(f, {{"s<1>", "#123456", {{0, 1}, {10, 50}, {20, 30}}}})},
        {"line empty", lineChart(f, {})},
        {"histogram", histogramChart(f, studio::report::histogram({1, 2, 2, 3}, {0, 1, 2, 3, 4}),
                                     "#123456", {{"p<95>", 2.5}})},
        {"box",
         boxPlotChart(f, {{"cpu", studio::plot::summarize({1, 50, 99}), "#123456"}}, 0.0, 100.0)},
        {"bar", barChart(f, {{"r0", 10, "#123456"}, {"r1", 12, "#654321"}})},
        {"pie", pieChart(f, {{"a", 1, "#123456"}, {"b", 3, "#654321"}}, "ms")},
        {"pie one slice", pieChart(f, {{"a", 1, "#123456"}, {"b", 0, "#654321"}}, "ms")},
        {"stacked", stackedBar({{"init", 1, "#123456"}, {"loop", 3, "#654321"}}, "s", 600)},
    };
    auto has = [](const std::string& svg, const char* part) {
        return svg.find(part) != std::string::npos;
    };
    for (const auto& r : rows) {
        INFO("row: ", r.row);
        const std::string& svg = r.svg;
        REQUIRE(svg.rfind("<svg ", 0) == 0);
        REQUIRE(svg.ends_with("</svg>"));
        REQUIRE(!has(svg, "http"));
        REQUIRE(!has(svg, "<script"));
        REQUIRE((!has(svg, "nan") && !has(svg, "inf")));
        REQUIRE((!has(svg, "<title>") && !has(svg, "s<1>")));
        REQUIRE(svg.find("<svg", svg.find("<svg") + 1) == std::string::npos); // one <svg
    }
}

TEST_CASE("lineChartAxes") {
    const std::string svg = lineChart({"t", "time (s)", "utilization (%)", 400, 200},
                                      {{"cpu", "#123456", {{0, 10}, {60, 90}}}}, 0.0, 100.0);
    for (const char* label : {">0<", ">20<", ">100<", ">60<", ">time (s)<", ">utilization (%)<"})
        REQUIRE_MESSAGE(svg.find(label) != std::string::npos, label);
}
