// One strip of segments along time, as a job's status timeline and its billing strip show it:
// where each segment sits, as fractions of the strip's width, and what the strip painter
// (widgets/charts/strip_view.h) draws for it. Segments sit at their times (gaps show) or are
// packed one after another by duration; a minimum share keeps short ones visible. Plain math,
// thread-safe.
#pragma once

#include "engine/store/records.h"

#include <QColor>
#include <QString>

#include <span>
#include <vector>

namespace studio::models {

struct StripSpan {
    double start = 0; // unix seconds
    double end = 0;   // an end before the start counts as no length
};

struct StripPlace {
    double x = 0; // 0..1 of the strip
    double width = 0;
};

struct StripOptions {
    // Every segment gets at least this share of the width (at most 1 / count of them); the rest
    // is split by duration.
    double minShare = 0;
    // True: one after another in order by duration alone (gaps between them do not show);
    // false: at their times over [earliest start, latest end].
    bool packed = false;
    // At their times: when to > from, the strip shows [from, to] instead, so that strips one
    // above another share one time axis.
    double from = 0;
    double to = 0;
};

// Where each span sits, in input order (spans in time order). Segment i at its time lies at
// minShare * i + rest * (start - earliest start) / strip time; packed, right after the one
// before. A strip with no time at all gives every span an equal share, one after another.
std::vector<StripPlace> placeOnStrip(std::span<const StripSpan> spans,
                                     const StripOptions& options = {});

// One status of a job on its status timeline.
struct TimelineSegment {
    QString label;  // the secondary status, or the status when there is none
    QString status; // the primary status
    double start = 0;
    double end = 0;
    double x = 0; // layout, 0..1
    double width = 0;
};

// A job's statuses packed along the strip: every segment gets at least minShare of the width,
// the rest is split by duration. `now` ends the current segment; a final status (Completed,
// Failed, Stopped) without an end has no length.
std::vector<TimelineSegment> layoutTimeline(const std::vector<store::StatusTransition>& t,
                                            double now, double minShare = 0.06);

// What the strip painter draws for a segment.
struct StripItem {
    double x = 0; // 0..1 of the strip
    double width = 0;
    QColor color;
    QString label; // drawn inside, elided to fit
    QColor mark;   // when valid, a mark at the segment's left edge (an interruption)
};

} // namespace studio::models
