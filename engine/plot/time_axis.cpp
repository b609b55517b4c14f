#include "engine/plot/time_axis.h"

#include "engine/plot/ticks.h"

#include <algorithm>
#include <cmath>

namespace studio::plot {

TimeUnit timeUnitFor(double spanSeconds, double maxUnits) {
    if (!(spanSeconds > maxUnits))
        return {1, "s"};
    if (spanSeconds <= maxUnits * 60)
        return {60, "min"};
    return {3600, "h"};
}

double RelativeTime::operator()(double unixSeconds) const {
    return (unixSeconds - origin) / unit.seconds;
}

WallTicks wallClockTicks(double min, double max, int maxTicks, int utcOffsetSeconds) {
    WallTicks out;
    if (!std::isfinite(min) || !std::isfinite(max) || min > max)
        return out;
    const double span = max - min;
    const int intervals = std::max(1, maxTicks - 1);
    static const double steps[] = {1,     2,     5,     10,    15,     30,    60,
                                   120,   300,   600,   900,   1800,   3600,  7200,
                                   10800, 21600, 43200, 86400, 172800, 604800};
    for (double s : steps) {
        if (span / s <= intervals) {
            out.step = s;
            break;
        }
    }
    if (out.step == 0)
        out.step = 86400 * niceTickStep(span / 86400, maxTicks);
    if (out.step < 60)
        out.label = WallLabel::Seconds;
    else if (out.step < 86400)
        out.label = span > 86400 ? WallLabel::DayMinutes : WallLabel::Minutes;
    else
        out.label = WallLabel::Day;
    const double local = min + utcOffsetSeconds;
    const double first = std::ceil(local / out.step) * out.step - utcOffsetSeconds;
    for (int k = 0;; ++k) {
        const double v = first + k * out.step;
        if (v > max)
            break;
        out.ticks.push_back(v);
    }
    return out;
}

} // namespace studio::plot
