#include "engine/plot/stats.h"

#include <algorithm>
#include <cmath>

namespace studio::plot {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

} // namespace

double percentile(std::vector<double> values, double q) {
    std::sort(values.begin(), values.end());
    return sortedPercentile(values, q);
}

double sortedPercentile(std::span<const double> sorted, double q) {
    if (sorted.empty())
        return kNaN;
    const double pos = std::clamp(q, 0.0, 100.0) / 100.0 * static_cast<double>(sorted.size() - 1);
    // The closest ranks; at a whole rank both are that rank, so infinities pass through exactly.
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto hi = static_cast<std::size_t>(std::ceil(pos));
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

double mean(std::span<const double> values) {
    if (values.empty())
        return kNaN;
    double sum = 0;
    for (double v : values)
        sum += v;
    return sum / static_cast<double>(values.size());
}

double stddev(std::span<const double> values) {
    if (values.empty())
        return kNaN;
    const double m = mean(values);
    double sq = 0;
    for (double v : values)
        sq += (v - m) * (v - m);
    return std::sqrt(sq / static_cast<double>(values.size()));
}

SampleStats summarize(std::vector<double> values) {
    std::erase_if(values, [](double v) { return !std::isfinite(v); });
    SampleStats s;
    s.count = values.size();
    if (values.empty())
        return s;
    std::sort(values.begin(), values.end());
    s.min = values.front();
    s.max = values.back();
    s.mean = mean(values);
    s.stddev = stddev(values);
    s.p5 = sortedPercentile(values, 5);
    s.p25 = sortedPercentile(values, 25);
    s.p50 = sortedPercentile(values, 50);
    s.p75 = sortedPercentile(values, 75);
    s.p95 = sortedPercentile(values, 95);
    s.p99 = sortedPercentile(values, 99);
    return s;
}

} // namespace studio::plot
