// Scales from data to a plot's coordinates: linear and logarithmic (base 10), the padded range an
// axis shows around its data, and the ticks of a logarithmic axis. Plain values, thread-safe.
#pragma once

#include <vector>

namespace studio::plot {

// Maps the domain [d0, d1] onto the range [r0, r1]; a zero-width domain maps to the middle.
// Swapping domain and range gives the inverse.
struct LinearScale {
    double d0 = 0, d1 = 1;
    double r0 = 0, r1 = 1;
    double operator()(double v) const;
};

// Maps [d0, d1] (both > 0) onto [r0, r1] by log10; NaN for v <= 0 or a domain not above zero;
// a zero-width domain maps to the middle.
struct LogScale {
    double d0 = 1, d1 = 10;
    double r0 = 0, r1 = 1;
    double operator()(double v) const;
};

// A range with a margin around [min, max]: 5% of the span, or 10% of |value| for a flat series
// (1 either side of zero); on a log scale 5% of the span in decades, or half a decade for a flat
// series. NaN bounds: [0, 1] (or [1, 10] on a log scale, also for min <= 0).
struct ValueRange {
    double min = 0;
    double max = 1;
};
ValueRange paddedRange(double min, double max, bool logScale);

// Ticks of a log axis over [min, max] (min > 0): the powers of ten inside, with 2 and 5 times
// them when it spans fewer than three decades, unless that gives more than maxTicks.
std::vector<double> logTicks(double min, double max, int maxTicks);

} // namespace studio::plot
