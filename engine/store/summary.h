// Running summary of a metric (min, max, mean, std, last, count), merged batch by batch with
// Chan's parallel update so the writer never rescans a series.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace studio::store {

struct MetricSummary {
    std::int64_t count = 0;
    double min = std::numeric_limits<double>::infinity();
    double max = -std::numeric_limits<double>::infinity();
    double mean = 0;
    double m2 = 0; // sum of squared deviations from the mean
    double last = std::numeric_limits<double>::quiet_NaN();
    std::int64_t lastStep = -1;
    double lastTime = 0;
    std::int64_t nonFinite = 0; // NaN/Inf values: counted in count, kept out of the moments

    // False when every value was NaN or infinite: min, max and the moments mean nothing.
    bool hasFinite() const { return count > nonFinite; }

    void add(double value, std::int64_t step, double time) {
        ++count;
        last = value;
        lastStep = step;
        lastTime = time;
        if (!std::isfinite(value)) {
            ++nonFinite;
            return;
        }
        const std::int64_t n = count - nonFinite;
        if (value < min)
            min = value;
        if (value > max)
            max = value;
        const double delta = value - mean;
        mean += delta / static_cast<double>(n);
        m2 += delta * (value - mean);
    }

    // Appends a later batch (its last value wins).
    void merge(const MetricSummary& b) {
        if (b.count == 0)
            return;
        const double na = static_cast<double>(count - nonFinite);
        const double nb = static_cast<double>(b.count - b.nonFinite);
        if (nb > 0) {
            const double delta = b.mean - mean;
            const double n = na + nb;
            mean += delta * nb / n;
            m2 += b.m2 + delta * delta * na * nb / n;
            min = std::fmin(min, b.min);
            max = std::fmax(max, b.max);
        }
        count += b.count;
        nonFinite += b.nonFinite;
        last = b.last;
        lastStep = b.lastStep;
        lastTime = b.lastTime;
    }

    // Sample standard deviation (n - 1), as SageMaker's StdDev; 0 for fewer than two values.
    double stddev() const {
        const std::int64_t n = count - nonFinite;
        return n > 1 ? std::sqrt(m2 / static_cast<double>(n - 1)) : 0.0;
    }
    double average() const {
        return count - nonFinite > 0 ? mean : std::numeric_limits<double>::quiet_NaN();
    }
};

} // namespace studio::store
