// Comparing computed doubles in tests: equal within rounding, NaN equal to NaN.
#pragma once

#include <algorithm>
#include <cmath>

// Equal within 1e-12 relative; NaN equals NaN, an infinity only itself.
inline bool sameNumber(double a, double b) {
    if (std::isnan(a) || std::isnan(b))
        return std::isnan(a) && std::isnan(b);
    if (std::isinf(a) || std::isinf(b))
        return a == b;
    return std::fabs(a - b) <= 1e-12 * std::max(1.0, std::fabs(b));
}
