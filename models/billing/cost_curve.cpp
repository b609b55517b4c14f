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
    std::vector<StripSpan> spans;
    spans.reserve(segments.size());
    for (const auto& s : segments)
        spans.push_back({s.start, s.end});
    const auto places = placeOnStrip(spans);
    std::vector<StripSegment> out;
    bool ranBefore = false;
    for (std::size_t i = 0; i < segments.size(); ++i) {
        StripSegment seg;
        seg.running = segments[i].kind == "running";
        seg.attempt = segments[i].attempt;
        seg.interruptedBefore = !seg.running && ranBefore;
        seg.x = places[i].x;
        seg.width = places[i].width;
        ranBefore = ranBefore || seg.running;
        out.push_back(seg);
    }
    return out;
}

} // namespace studio::models
