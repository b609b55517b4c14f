// Scalings between a range's values and the unit interval, grid sizes, and the value texts
// passed to training jobs.
#include "engine/tune/search.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>

namespace studio::tune {

namespace {

// The interval an Integer range is mapped over: each whole value owns [v - 0.5, v + 0.5), so
// every integer gets an equal share of the unit interval under linear scaling.
struct Bounds {
    double low;
    double high;
};

Bounds mappedBounds(const ParameterRange& range) {
    if (range.type == ParameterType::Integer)
        return {range.minValue - 0.5, range.maxValue + 0.5};
    return {range.minValue, range.maxValue};
}

void requireScalable(const ParameterRange& range, Scaling s, Bounds b) {
    if (s == Scaling::Logarithmic && !(b.low > 0))
        throw std::invalid_argument("hyperparameter '" + range.name +
                                    "': Logarithmic scaling needs values greater than 0");
    if (s == Scaling::ReverseLogarithmic &&
        (range.type != ParameterType::Continuous || b.low < 0 || b.high >= 1))
        throw std::invalid_argument("hyperparameter '" + range.name +
                                    "': ReverseLogarithmic scaling needs a Continuous range "
                                    "with 0 <= value < 1");
}

double clampUnit(double u) {
    return std::clamp(std::isfinite(u) ? u : 0.0, 0.0, 1.0);
}

} // namespace

Scaling effectiveScaling(const ParameterRange& range) {
    if (range.type == ParameterType::Categorical)
        return Scaling::Linear;
    if (range.scaling != Scaling::Auto)
        return range.scaling;
    const bool wide = range.minValue > 0 && range.maxValue / range.minValue > 100.0;
    return wide ? Scaling::Logarithmic : Scaling::Linear;
}

double toUnit(const ParameterRange& range, double value) {
    if (range.type == ParameterType::Categorical) {
        const double k = static_cast<double>(std::max<std::size_t>(range.values.size(), 1));
        return clampUnit((std::round(value) + 0.5) / k);
    }
    const Scaling s = effectiveScaling(range);
    const Bounds b = mappedBounds(range);
    requireScalable(range, s, b);
    if (b.high <= b.low)
        return 0.5;
    switch (s) {
    case Scaling::Logarithmic:
        return clampUnit((std::log(value) - std::log(b.low)) /
                         (std::log(b.high) - std::log(b.low)));
    case Scaling::ReverseLogarithmic: {
        // SageMaker's reverse log: 1 minus the log scale of 1 - x, so values near 1 are dense.
        const double lo = std::log1p(-b.high);
        const double hi = std::log1p(-b.low);
        return clampUnit(1.0 - (std::log1p(-value) - lo) / (hi - lo));
    }
    default:
        return clampUnit((value - b.low) / (b.high - b.low));
    }
}

double fromUnit(const ParameterRange& range, double unit) {
    const double u = clampUnit(unit);
    if (range.type == ParameterType::Categorical) {
        const auto k = static_cast<std::int64_t>(range.values.size());
        return static_cast<double>(
            std::clamp<std::int64_t>(static_cast<std::int64_t>(std::floor(u * k)), 0, k - 1));
    }
    const Scaling s = effectiveScaling(range);
    const Bounds b = mappedBounds(range);
    requireScalable(range, s, b);
    double v = b.low;
    if (b.high > b.low) {
        switch (s) {
        case Scaling::Logarithmic:
            v = std::exp(std::log(b.low) + u * (std::log(b.high) - std::log(b.low)));
            break;
        case Scaling::ReverseLogarithmic: {
            const double lo = std::log1p(-b.high);
            const double hi = std::log1p(-b.low);
            v = -std::expm1(lo + (1.0 - u) * (hi - lo));
            break;
        }
        default:
            v = b.low + u * (b.high - b.low);
        }
    }
    if (range.type == ParameterType::Integer)
        v = std::round(v);
    return std::clamp(v, range.minValue, range.maxValue);
}

std::int64_t gridSize(const std::vector<ParameterRange>& ranges) {
    if (ranges.empty())
        return 0;
    constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
    std::int64_t size = 1;
    for (const auto& r : ranges) {
        std::int64_t axis = 0;
        if (r.type == ParameterType::Categorical)
            axis = static_cast<std::int64_t>(r.values.size());
        else if (r.type == ParameterType::Integer && r.maxValue >= r.minValue)
            axis = static_cast<std::int64_t>(r.maxValue - r.minValue) + 1;
        if (axis <= 0)
            return 0;
        // Saturates rather than overflows: a grid that large is refused by its size anyway.
        size = size > kMax / axis ? kMax : size * axis;
    }
    return size;
}

std::string valueText(const ParameterRange& range, double value) {
    if (range.type == ParameterType::Categorical) {
        const auto i = static_cast<std::size_t>(std::llround(value));
        if (value < 0 || i >= range.values.size())
            throw std::out_of_range("hyperparameter '" + range.name + "': no value number " +
                                    std::to_string(std::llround(value)));
        return range.values[i];
    }
    char text[64];
    if (range.type == ParameterType::Integer) {
        std::snprintf(text, sizeof text, "%lld", static_cast<long long>(std::llround(value)));
        return text;
    }
    // Whole values print without an exponent ("250000"); others as the shortest %g text that
    // reads back as the same double.
    if (value == std::round(value) && std::abs(value) < 1e15) {
        std::snprintf(text, sizeof text, "%.0f", value);
        return text;
    }
    for (int precision = 1; precision <= 17; ++precision) {
        std::snprintf(text, sizeof text, "%.*g", precision, value);
        if (std::strtod(text, nullptr) == value)
            break;
    }
    return text;
}

std::optional<double> parseValue(const ParameterRange& range, const std::string& text) {
    if (range.type == ParameterType::Categorical) {
        const auto it = std::find(range.values.begin(), range.values.end(), text);
        if (it == range.values.end())
            return std::nullopt;
        return static_cast<double>(it - range.values.begin());
    }
    if (text.empty())
        return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || !std::isfinite(v))
        return std::nullopt;
    if (range.type == ParameterType::Integer && v != std::round(v))
        return std::nullopt;
    if (v < range.minValue || v > range.maxValue)
        return std::nullopt;
    return v;
}

} // namespace studio::tune
