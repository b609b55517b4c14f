// Inline SVG charts for the profiler report: line, histogram, box plot, bar, pie and a stacked
// bar. Each function returns one <svg> element (no xmlns, no scripts, no external references)
// with axes, ticks and labels; the math lives in report_math.h. Text is HTML-escaped here.
#pragma once

#include "engine/plot/stats.h"
#include "engine/report/report_math.h"

#include <optional>
#include <string>
#include <vector>

namespace studio::report {

struct ChartFrame {
    std::string title;
    std::string xLabel; // with the unit: "time since start (min)"
    std::string yLabel; // with the unit: "utilization (%)"
    int width = 560;
    int height = 240;
};

// The report's categorical colours; i wraps around.
std::string paletteColor(std::size_t i);

struct LineSeries {
    std::string name;
    std::string color;
    std::vector<XY> points; // sorted by x
};
// Series longer than the plot is wide are decimated (min/max per pixel column).
std::string lineChart(const ChartFrame& frame, const std::vector<LineSeries>& series,
                      std::optional<double> yMin = {}, std::optional<double> yMax = {});

struct Marker {
    std::string label; // "p95"
    double x = 0;
};
// Values outside the bins (Histogram::outside) are counted in a note at the top right.
std::string histogramChart(const ChartFrame& frame, const Histogram& h, const std::string& color,
                           const std::vector<Marker>& markers = {});

struct BoxItem {
    std::string label;
    plot::SampleStats stats; // p5/p95 whiskers, p25-p75 box, p50 line
    std::string color;
};
std::string boxPlotChart(const ChartFrame& frame, const std::vector<BoxItem>& boxes,
                         std::optional<double> yMin = {}, std::optional<double> yMax = {});

struct BarItem {
    std::string label;
    double value = 0;
    std::string color;
};
std::string barChart(const ChartFrame& frame, const std::vector<BarItem>& bars,
                     int valueDecimals = 1);

struct PieItem {
    std::string label;
    double value = 0;
    std::string color;
};
// A pie with a legend listing each slice's share and value (with valueUnit).
std::string pieChart(const ChartFrame& frame, const std::vector<PieItem>& slices,
                     const std::string& valueUnit, int valueDecimals = 1);
// One horizontal bar split into segments with their shares, and a legend below.
std::string stackedBar(const std::vector<PieItem>& segments, const std::string& valueUnit,
                       int width = 900);

} // namespace studio::report
