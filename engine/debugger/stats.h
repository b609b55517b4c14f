// Small statistics over samples, shared by the rules and the profiler report: percentiles the way
// NumPy computes them by default (linear interpolation between closest ranks), mean, standard
// deviation. Plain functions; empty input gives NaN.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace studio::debugger {

// q in [0, 100]; values need not be sorted.
inline double percentile(std::vector<double> values, double q) {
    if (values.empty())
        return std::numeric_limits<double>::quiet_NaN();
    std::sort(values.begin(), values.end());
    const double pos = std::clamp(q, 0.0, 100.0) / 100.0 * static_cast<double>(values.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto hi = static_cast<std::size_t>(std::ceil(pos));
    return values[lo] + (values[hi] - values[lo]) * (pos - static_cast<double>(lo));
}

// Percentiles of values already sorted ascending.
inline double sortedPercentile(const std::vector<double>& sorted, double q) {
    if (sorted.empty())
        return std::numeric_limits<double>::quiet_NaN();
    const double pos = std::clamp(q, 0.0, 100.0) / 100.0 * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto hi = static_cast<std::size_t>(std::ceil(pos));
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

inline double mean(const std::vector<double>& values) {
    if (values.empty())
        return std::numeric_limits<double>::quiet_NaN();
    double sum = 0;
    for (double v : values)
        sum += v;
    return sum / static_cast<double>(values.size());
}

// Population standard deviation (NumPy's default, ddof = 0).
inline double stddev(const std::vector<double>& values) {
    if (values.empty())
        return std::numeric_limits<double>::quiet_NaN();
    const double m = mean(values);
    double sq = 0;
    for (double v : values)
        sq += (v - m) * (v - m);
    return std::sqrt(sq / static_cast<double>(values.size()));
}

} // namespace studio::debugger
