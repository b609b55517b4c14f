#include "engine/plot/ticks.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace studio::plot {

namespace {

// Ticks from `first` on, `step` apart, up to `last` (with a little slack for rounding); values
// within rounding of zero are zero, so that labels never read "-0".
std::vector<double> ticksFrom(double first, double last, double step) {
    std::vector<double> ticks;
    for (int k = 0;; ++k) {
        double v = first + k * step;
        if (v > last + step * 1e-9)
            break;
        if (std::abs(v) < step * 1e-9)
            v = 0;
        ticks.push_back(v);
    }
    return ticks;
}

} // namespace

double niceNumber(double x, bool round) {
    if (!(x > 0) || !std::isfinite(x))
        return 1;
    const double power = std::pow(10.0, std::floor(std::log10(x)));
    const double fraction = x / power;
    if (round) {
        if (fraction < 1.5)
            return power;
        if (fraction < 3)
            return 2 * power;
        if (fraction < 7)
            return 5 * power;
        return 10 * power;
    }
    for (double m : {1.0, 2.0, 5.0})
        if (m * power >= x * (1 - 1e-9))
            return m * power;
    return 10 * power;
}

double finerNiceStep(double step) {
    const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    return step / (mantissa < 3 ? 2 : 2.5);
}

double niceTickStep(double span, int maxTicks) {
    if (!(span > 0) || !std::isfinite(span))
        return 1;
    return niceNumber(span / std::max(1, maxTicks - 1), false);
}

int tickDecimals(double step) {
    if (!(step > 0) || !std::isfinite(step))
        return 0;
    return std::clamp(static_cast<int>(-std::floor(std::log10(step) + 1e-9)), 0, 9);
}

TickSet niceTicks(double lo, double hi, int maxTicks) {
    if (!std::isfinite(lo) || !std::isfinite(hi)) {
        lo = 0;
        hi = 1;
    }
    if (lo > hi)
        std::swap(lo, hi);
    if (lo == hi) {
        const double pad = std::abs(lo) * 0.1;
        if (lo == 0)
            hi = 1; // a zero-valued series stays on a non-negative axis
        else
            lo -= pad, hi += pad;
    }
    const int intervals = std::max(1, maxTicks - 1);
    const double range = niceNumber(hi - lo, false);
    const double step = niceNumber(range / intervals, true);
    TickSet t;
    t.step = step;
    t.lo = std::floor(lo / step + 1e-9) * step;
    t.hi = std::ceil(hi / step - 1e-9) * step;
    t.ticks = ticksFrom(t.lo, t.hi, step);
    return t;
}

TickSet ticksWithin(double min, double max, int maxTicks) {
    TickSet t{0, 0, 0, {}};
    if (!std::isfinite(min) || !std::isfinite(max) || min > max)
        return t;
    if (min == max)
        return {min, max, 0, {min}};
    double step = niceTickStep(max - min, std::max(2, maxTicks));
    for (int attempt = 0; attempt < 4; ++attempt) {
        t.step = step;
        t.ticks = ticksFrom(std::ceil(min / step - 1e-9) * step, max, step);
        if (t.ticks.size() >= 2)
            break;
        step = finerNiceStep(step);
    }
    if (!t.ticks.empty()) {
        t.lo = t.ticks.front();
        t.hi = t.ticks.back();
    }
    return t;
}

} // namespace studio::plot
