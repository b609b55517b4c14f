#include "models/charts/strip_layout.h"

#include <algorithm>

namespace studio::models {

namespace {

double lengthOf(const StripSpan& s) {
    return std::max(0.0, s.end - s.start);
}

// The time the strip shows and where it starts: the spans' durations added up (packed), the
// range asked for, or from the earliest start to the latest end.
std::pair<double, double> stripTime(std::span<const StripSpan> spans, const StripOptions& options) {
    double first = spans.front().start;
    double total = 0;
    if (!options.packed && options.to > options.from)
        return {options.from, options.to - options.from};
    if (options.packed) {
        for (const auto& s : spans)
            total += lengthOf(s);
        return {first, total};
    }
    for (const auto& s : spans)
        first = std::min(first, s.start);
    double last = first;
    for (const auto& s : spans)
        last = std::max(last, s.end);
    return {first, last - first};
}

} // namespace

std::vector<StripPlace> placeOnStrip(std::span<const StripSpan> spans,
                                     const StripOptions& options) {
    std::vector<StripPlace> out(spans.size());
    if (spans.empty())
        return out;
    const double n = static_cast<double>(spans.size());
    const double minShare = std::min(options.minShare, 1.0 / n);
    const double rest = 1.0 - minShare * n;
    const auto [first, total] = stripTime(spans, options);
    double x = 0;
    for (std::size_t i = 0; i < spans.size(); ++i) {
        StripPlace& p = out[i];
        if (!(total > 0)) {
            p.x = x;
            p.width = minShare + rest / n;
        } else {
            p.x = options.packed ? x
                                 : minShare * static_cast<double>(i) +
                                       rest * ((spans[i].start - first) / total);
            p.width = minShare + rest * (lengthOf(spans[i]) / total);
        }
        x += p.width;
    }
    return out;
}

std::vector<TimelineSegment> layoutTimeline(const std::vector<store::StatusTransition>& t,
                                            double now, double minShare) {
    std::vector<TimelineSegment> out;
    std::vector<StripSpan> spans;
    for (const auto& s : t) {
        TimelineSegment seg;
        seg.label =
            QString::fromStdString(s.secondaryStatus.empty() ? s.status : s.secondaryStatus);
        seg.status = QString::fromStdString(s.status);
        seg.start = s.startTime;
        // A current status lasts until now; a final one (the job ended, or was imported ended)
        // has no length.
        const bool final = s.status == "Completed" || s.status == "Failed" ||
                           s.status == "Stopped" || s.status == "Imported";
        seg.end = s.endTime > 0 ? s.endTime : (final ? s.startTime : std::max(now, s.startTime));
        spans.push_back({seg.start, seg.end});
        out.push_back(seg);
    }
    const auto places = placeOnStrip(spans, {minShare, true});
    for (std::size_t i = 0; i < out.size(); ++i) {
        out[i].x = places[i].x;
        out[i].width = places[i].width;
    }
    return out;
}

} // namespace studio::models
