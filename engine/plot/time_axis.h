// The time axis of every plot: time since an origin in a unit that keeps labels short (seconds,
// minutes, hours) or wall-clock time with ticks on round local times (1 s ... 1 day apart and
// nice numbers of days beyond). Labels are the caller's: this says what to print, not how.
// Plain values, thread-safe.
#pragma once

#include <string>
#include <vector>

namespace studio::plot {

struct TimeUnit {
    double seconds = 1;      // one unit in seconds
    std::string label = "s"; // "s", "min", "h"
};

// The unit of a relative axis spanning spanSeconds: seconds while the span is at most
// maxUnits seconds, minutes while it is at most maxUnits minutes, else hours; seconds for NaN.
// The report switches after 600 units (10 min, 10 h), the charts after 180 (3 min, 3 h).
TimeUnit timeUnitFor(double spanSeconds, double maxUnits);

// Time since an origin in a unit: what a relative time axis shows for a unix time.
struct RelativeTime {
    double origin = 0; // unix seconds shown as 0
    TimeUnit unit;
    double operator()(double unixSeconds) const;
};

// How much of a wall-clock time a tick label shows, from the ticks' step and the axis' span.
enum class WallLabel {
    Seconds,    // "22:13:20": steps under a minute
    Minutes,    // "22:20": steps under a day on an axis of at most a day
    DayMinutes, // "Nov 15 22:20": steps under a day on an axis longer than a day
    Day,        // "Nov 15": steps of a day or more
};

struct WallTicks {
    double step = 0; // seconds between ticks
    WallLabel label = WallLabel::Seconds;
    std::vector<double> ticks; // unix seconds inside [min, max]
};

// Ticks on round local times for unix seconds in [min, max], at most maxTicks of them (1, 2, 5,
// 10, 15, 30 s, 1, 2, 5, 10, 15, 30 min, 1, 2, 3, 6, 12 h, 1, 2, 7 days, then nice numbers of
// days). utcOffsetSeconds is the local zone's offset, so that hours and days fall on local
// boundaries. No ticks for non-finite input or min > max.
WallTicks wallClockTicks(double min, double max, int maxTicks, int utcOffsetSeconds);

} // namespace studio::plot
