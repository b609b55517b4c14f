#include "models/billing/cost_curve.h"

#include <algorithm>

namespace studio::models {

namespace {

void byStart(std::vector<store::BillingSegment>& s) {
    std::stable_sort(s.begin(), s.end(),
                     [](const auto& a, const auto& b) { return a.start < b.start; });
}

} // namespace

std::vector<CostPoint> cumulativeCost(std::vector<store::BillingSegment> segments,
                                      double onDemandPerHour, double spotPerHour, int instances) {
    byStart(segments);
    std::vector<CostPoint> out;
    double spot = 0, onDemand = 0;
    const double n = std::max(1, instances);
    for (const auto& s : segments) {
        const double end = std::max(s.end, s.start);
        out.push_back({s.start, spot, onDemand});
        if (s.kind == "running") {
            const double hours = (end - s.start) / 3600.0;
            spot += hours * spotPerHour * n;
            onDemand += hours * onDemandPerHour * n;
        }
        out.push_back({end, spot, onDemand});
    }
    return out;
}

std::vector<StripSegment> layoutStrip(std::vector<store::BillingSegment> segments) {
    byStart(segments);
    std::vector<StripSegment> out;
    if (segments.empty())
        return out;
    const double first = segments.front().start;
    double last = first;
    for (const auto& s : segments)
        last = std::max(last, s.end);
    const double span = last - first;
    bool ranBefore = false;
    for (const auto& s : segments) {
        StripSegment seg;
        seg.running = s.kind == "running";
        seg.attempt = s.attempt;
        seg.interruptedBefore = !seg.running && ranBefore;
        seg.x = span > 0 ? (s.start - first) / span : 0;
        seg.width = span > 0 ? (std::max(s.end, s.start) - s.start) / span
                             : 1.0 / static_cast<double>(segments.size());
        ranBefore = ranBefore || seg.running;
        out.push_back(seg);
    }
    return out;
}

} // namespace studio::models
