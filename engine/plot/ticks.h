// Axis ticks at "nice" numbers: 1, 2 or 5 times a power of ten. One rule picks a nice number
// (rounded to the nearest one, or up to the next one) and two placements use it: ticks that
// cover the data (the axis starts and ends on a tick: the report's SVG charts) and ticks within
// a fitted range (the studio's charts and plots). Plain functions, thread-safe.
#pragma once

#include <vector>

namespace studio::plot {

// The nice number near x (x > 0): rounded to the nearest when round, else the next one up (a
// relative slack of 1e-9 so that rounding errors do not skip a step); 1 for x <= 0 or non-finite.
double niceNumber(double x, bool round);
// The next finer nice step below a nice step: 10 -> 5, 5 -> 2, 2 -> 1, 1 -> 0.5.
double finerNiceStep(double step);
// The nice step that puts at most maxTicks ticks (maxTicks - 1 intervals, at least one) in span;
// 1 for a span <= 0 or non-finite.
double niceTickStep(double span, int maxTicks);
// Decimals that print every tick of a nice step exactly (0.5 -> 1, 0.02 -> 2, 5 -> 0), at most 9.
int tickDecimals(double step);

struct TickSet {
    double lo = 0;   // first tick
    double hi = 1;   // last tick
    double step = 1; // distance between ticks
    std::vector<double> ticks;
};

// Ticks covering [lo, hi] with about maxTicks ticks (Heckbert's loose labels: the step is the
// nice number nearest the nice-rounded range over maxTicks - 1): the first tick at or below lo,
// the last at or above hi. lo == hi gives a range 10% either side of the value ([0, 1] for
// zero); reversed bounds are swapped; non-finite input gives [0, 1].
TickSet niceTicks(double lo, double hi, int maxTicks = 6);

// Ticks inside [min, max] at most maxTicks of them (at least 2 asked for) at niceTickStep; when
// fewer than two would fall inside, finer steps (at most four times) so that an axis shows two.
// min == max gives one tick at min with step 0; non-finite input or min > max gives no ticks.
TickSet ticksWithin(double min, double max, int maxTicks);

} // namespace studio::plot
