#include "engine/plot/scale.h"

#include <cmath>
#include <limits>
#include <utility>

namespace studio::plot {

double LinearScale::operator()(double v) const {
    if (d1 == d0)
        return (r0 + r1) / 2;
    return r0 + (v - d0) / (d1 - d0) * (r1 - r0);
}

double LogScale::operator()(double v) const {
    if (!(v > 0) || !(d0 > 0) || !(d1 > 0))
        return std::numeric_limits<double>::quiet_NaN();
    return LinearScale{std::log10(d0), std::log10(d1), r0, r1}(std::log10(v));
}

ValueRange paddedRange(double min, double max, bool logScale) {
    if (std::isnan(min) || std::isnan(max))
        return logScale ? ValueRange{1, 10} : ValueRange{0, 1};
    if (min > max)
        std::swap(min, max);
    if (logScale) {
        if (!(min > 0))
            return {1, 10};
        const double lo = std::log10(min);
        const double hi = std::log10(max);
        const double pad = hi > lo ? (hi - lo) * 0.05 : 0.5;
        return {std::pow(10.0, lo - pad), std::pow(10.0, hi + pad)};
    }
    if (min == max) {
        const double pad = min == 0 ? 1 : std::fabs(min) * 0.1;
        return {min - pad, max + pad};
    }
    const double pad = (max - min) * 0.05;
    return {min - pad, max + pad};
}

std::vector<double> logTicks(double min, double max, int maxTicks) {
    std::vector<double> all, decades;
    if (!(min > 0) || !(max >= min) || !std::isfinite(max))
        return all;
    const int first = static_cast<int>(std::floor(std::log10(min)));
    const int last = static_cast<int>(std::ceil(std::log10(max)));
    const bool fine = last - first < 3;
    for (int e = first; e <= last; ++e)
        for (int m : {1, 2, 5}) {
            if (m != 1 && !fine)
                continue;
            const double v = m * std::pow(10.0, e);
            if (v >= min * (1 - 1e-9) && v <= max * (1 + 1e-9)) {
                all.push_back(v);
                if (m == 1)
                    decades.push_back(v);
            }
        }
    if (fine && static_cast<int>(all.size()) > maxTicks)
        return decades; // too crowded: decades only
    return all;
}

} // namespace studio::plot
