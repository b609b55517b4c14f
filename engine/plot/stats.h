// Statistics of samples, shared by the rules, the profiler report and Insights: percentiles the
// way NumPy computes them by default (linear interpolation between closest ranks), mean,
// population standard deviation and a descriptive summary. Plain functions; empty input gives NaN.
#pragma once

#include <cstddef>
#include <limits>
#include <span>
#include <vector>

namespace studio::plot {

// The percentile q in [0, 100] (clamped) of values in any order.
double percentile(std::vector<double> values, double q);
// The percentile q in [0, 100] (clamped) of values sorted ascending.
double sortedPercentile(std::span<const double> sorted, double q);

double mean(std::span<const double> values);
// Population standard deviation (NumPy's default, ddof = 0).
double stddev(std::span<const double> values);

// Descriptive statistics of samples; non-finite values are left out, NaN fields when none is left.
struct SampleStats {
    static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    std::size_t count = 0;
    double min = kNaN, max = kNaN, mean = kNaN, stddev = kNaN;
    double p5 = kNaN, p25 = kNaN, p50 = kNaN, p75 = kNaN, p95 = kNaN, p99 = kNaN;
};
SampleStats summarize(std::vector<double> values);

} // namespace studio::plot
