#include "engine/report/report_math.h"

#include "engine/plot/stats.h"
#include "engine/plot/ticks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <numbers>

namespace studio::report {

std::vector<double> binEdges(double lo, double hi, int targetBins) {
    if (!std::isfinite(lo) || !std::isfinite(hi))
        return {0, 1};
    if (lo > hi)
        std::swap(lo, hi);
    if (lo == hi) {
        const double width = lo == 0 ? 1 : plot::niceNumber(std::abs(lo) * 0.1, true);
        return {lo - width / 2, lo + width / 2};
    }
    const double width = plot::niceNumber((hi - lo) / std::max(1, targetBins), true);
    const double start = std::floor(lo / width + 1e-9) * width;
    auto bins = static_cast<long>(std::ceil((hi - start) / width - 1e-9));
    bins = std::max(1L, bins);
    std::vector<double> edges;
    for (long i = 0; i <= bins; ++i)
        edges.push_back(start + static_cast<double>(i) * width);
    if (edges.back() < hi) // rounding: the last edge must cover hi
        edges.back() = hi;
    return edges;
}

DisplayRange histogramRange(const std::vector<double>& values) {
    std::vector<double> v;
    for (double x : values)
        if (std::isfinite(x))
            v.push_back(x);
    if (v.empty())
        return {};
    std::sort(v.begin(), v.end());
    const double p25 = plot::sortedPercentile(v, 25);
    const double p75 = plot::sortedPercentile(v, 75);
    const double fence = p75 + 3 * (p75 - p25);
    DisplayRange r{v.front(), v.back(), 0};
    if (p75 > p25 && v.back() > fence) {
        const auto within = std::upper_bound(v.begin(), v.end(), fence);
        r.hi = *std::prev(within);
        r.beyond = static_cast<std::size_t>(v.end() - within);
    }
    return r;
}

std::int64_t Histogram::maxCount() const {
    return counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
}

Histogram histogram(const std::vector<double>& values, const std::vector<double>& edges) {
    Histogram h;
    h.edges = edges;
    if (edges.size() < 2) {
        h.outside = static_cast<std::int64_t>(values.size());
        return h;
    }
    h.counts.assign(edges.size() - 1, 0);
    for (double v : values) {
        if (!std::isfinite(v) || v < edges.front() || v > edges.back()) {
            ++h.outside;
            continue;
        }
        auto bin = static_cast<std::size_t>(std::upper_bound(edges.begin(), edges.end(), v) -
                                            edges.begin()) -
                   1;
        bin = std::min(bin, h.counts.size() - 1);
        ++h.counts[bin];
    }
    return h;
}

std::vector<PieSlice> pieSlices(const std::vector<double>& values) {
    double total = 0;
    for (double v : values)
        if (std::isfinite(v) && v > 0)
            total += v;
    std::vector<PieSlice> slices;
    double angle = 0;
    for (double v : values) {
        PieSlice s;
        s.value = std::isfinite(v) && v > 0 ? v : 0;
        s.fraction = total > 0 ? s.value / total : 0;
        s.startAngle = angle;
        angle += s.fraction * 2 * std::numbers::pi;
        s.endAngle = angle;
        slices.push_back(s);
    }
    return slices;
}

XY polarPoint(double cx, double cy, double radius, double angle) {
    return {cx + radius * std::sin(angle), cy - radius * std::cos(angle)};
}

std::vector<XY> decimateMinMax(const std::vector<XY>& points, std::size_t buckets) {
    if (buckets == 0 || points.size() <= 2 * buckets)
        return points;
    const double x0 = points.front().x;
    const double width = (points.back().x - x0) / static_cast<double>(buckets);
    if (!(width > 0))
        return {points.front(), points.back()};
    std::vector<XY> out;
    std::size_t i = 0;
    while (i < points.size()) {
        const auto bucket =
            std::min(buckets - 1, static_cast<std::size_t>((points[i].x - x0) / width));
        std::size_t lo = i, hi = i, j = i;
        for (; j < points.size(); ++j) {
            const auto b =
                std::min(buckets - 1, static_cast<std::size_t>((points[j].x - x0) / width));
            if (b != bucket)
                break;
            if (points[j].y < points[lo].y)
                lo = j;
            if (points[j].y > points[hi].y)
                hi = j;
        }
        out.push_back(points[std::min(lo, hi)]);
        if (lo != hi)
            out.push_back(points[std::max(lo, hi)]);
        i = j;
    }
    return out;
}

ScaledUnit byteRateUnit(double maxBytesPerSecond) {
    if (!(maxBytesPerSecond >= 1e3))
        return {1, "B/s"};
    if (maxBytesPerSecond < 1e6)
        return {1e3, "KB/s"};
    if (maxBytesPerSecond < 1e9)
        return {1e6, "MB/s"};
    return {1e9, "GB/s"};
}

std::string formatNumber(double v, int decimals) {
    if (std::isnan(v))
        return "n/a";
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", std::clamp(decimals, 0, 12), v);
    std::string s = buf;
    if (s.front() == '-' && s.find_first_not_of("0.", 1) == std::string::npos)
        s.erase(0, 1);
    return s;
}

std::string formatPercent(double fraction, int decimals) {
    if (std::isnan(fraction))
        return "n/a";
    return formatNumber(fraction * 100, decimals) + "%";
}

std::string formatDuration(double seconds) {
    if (!(seconds >= 0) || !std::isfinite(seconds))
        return "n/a";
    char buf[64];
    if (seconds < 1) {
        std::snprintf(buf, sizeof buf, "%.0f ms", seconds * 1000);
    } else if (seconds < 59.95) {
        std::snprintf(buf, sizeof buf, "%.1f s", seconds);
    } else {
        const long long total = std::llround(seconds);
        if (total < 3600)
            std::snprintf(buf, sizeof buf, "%lld min %02lld s", total / 60, total % 60);
        else
            std::snprintf(buf, sizeof buf, "%lld h %02lld min", total / 3600, (total % 3600) / 60);
    }
    return buf;
}

std::string formatTimestamp(double unixSeconds) {
    if (!(unixSeconds > 0) || !std::isfinite(unixSeconds))
        return "n/a";
    const auto t = static_cast<std::time_t>(unixSeconds);
    std::tm tm{};
    localtime_r(&t, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
    return buf;
}

std::string htmlEscape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&#39;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

} // namespace studio::report
