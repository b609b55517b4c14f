// The profiler report's arithmetic, kept out of the HTML and SVG code: histogram bins and their
// display range, pie angles, series decimation, byte-rate units and the text formats of numbers,
// durations and times. Ticks, scales, statistics and time units are the plot library's
// (engine/plot). Plain functions, unit-tested.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace studio::report {

// Equal-width bins with a nice width covering [lo, hi]: about targetBins bins, at least one.
std::vector<double> binEdges(double lo, double hi, int targetBins);

// The x range a histogram shows: from the smallest value to the largest one, or, when values
// lie beyond Tukey's far-out fence p75 + 3 * (p75 - p25), to the largest value within it, so a
// few outliers do not squeeze every other value into one bin. `beyond` counts the values left out.
struct DisplayRange {
    double lo = 0;
    double hi = 1;
    std::size_t beyond = 0;
};
DisplayRange histogramRange(const std::vector<double>& values);

struct Histogram {
    std::vector<double> edges;        // bins + 1 ascending edges
    std::vector<std::int64_t> counts; // per bin: [edge i, edge i+1); the last bin is closed
    std::int64_t outside = 0;         // values outside [edges.front(), edges.back()] or NaN
    std::int64_t maxCount() const;
};
Histogram histogram(const std::vector<double>& values, const std::vector<double>& edges);

// Pie slices of non-negative values; angles in radians clockwise from 12 o'clock. Negative or
// non-finite values count as zero; all zero gives zero-width slices.
struct PieSlice {
    double value = 0;
    double fraction = 0;
    double startAngle = 0;
    double endAngle = 0;
};
std::vector<PieSlice> pieSlices(const std::vector<double>& values);

struct XY {
    double x = 0;
    double y = 0;
};
// The point on a circle at a pie angle (SVG coordinates: y grows downwards).
XY polarPoint(double cx, double cy, double radius, double angle);

// Keeps, per bucket of equal x-width, the lowest and highest point in x order, so a long series
// draws with its peaks in about 2 * buckets points. Input sorted by x; short input unchanged.
std::vector<XY> decimateMinMax(const std::vector<XY>& points, std::size_t buckets);

// A unit for byte rates whose largest value is maxBytesPerSecond: B/s, KB/s, MB/s, GB/s
// (decimal, as network and disk tools print them).
struct ScaledUnit {
    double divisor = 1;
    std::string unit;
};
ScaledUnit byteRateUnit(double maxBytesPerSecond);

// Fixed decimals; "n/a" for NaN, "-0.00" printed as "0.00".
std::string formatNumber(double v, int decimals = 2);
// A share as "12.3%" from a fraction (0.123).
std::string formatPercent(double fraction, int decimals = 1);
// "850 ms", "42.5 s", "12 min 05 s", "3 h 07 min"; "n/a" when negative or NaN.
std::string formatDuration(double seconds);
// Local time "2026-11-21 19:54:00"; "n/a" for 0 or less.
std::string formatTimestamp(double unixSeconds);
// Escapes & < > " ' for HTML text and attribute values.
std::string htmlEscape(std::string_view text);

} // namespace studio::report
