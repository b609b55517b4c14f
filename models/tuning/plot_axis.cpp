#include "models/tuning/plot_axis.h"

#include "engine/plot/scale.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace studio::models {

PlotAxis PlotAxis::fit(const QString& title, std::span<const double> values, bool log) {
    PlotAxis axis;
    axis.title = title;
    axis.scale = log ? Scale::Log : Scale::Linear;
    double lo = std::numeric_limits<double>::quiet_NaN(), hi = lo;
    for (double v : values) {
        if (!std::isfinite(v) || (log && v <= 0))
            continue;
        lo = std::isnan(lo) ? v : std::min(lo, v);
        hi = std::isnan(hi) ? v : std::max(hi, v);
    }
    const plot::ValueRange r = plot::paddedRange(lo, hi, log);
    axis.min = r.min;
    axis.max = r.max;
    return axis;
}

PlotAxis PlotAxis::category(const QString& title, const QStringList& categories) {
    PlotAxis axis;
    axis.title = title;
    axis.scale = Scale::Category;
    axis.categories = categories;
    axis.min = 0;
    axis.max = double(std::max<qsizetype>(categories.size(), 1));
    return axis;
}

double PlotAxis::fraction(double value) const {
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    if (!std::isfinite(value))
        return kNaN;
    switch (scale) {
    case Scale::Category:
        return (value + 0.5) / max;
    case Scale::Log:
        return plot::LogScale{min, max, 0, 1}(value);
    case Scale::Linear:
        break;
    }
    return max > min ? plot::LinearScale{min, max, 0, 1}(value) : 0.5;
}

QList<AxisTick> PlotAxis::ticks(int maxTicks) const {
    QList<AxisTick> out;
    if (scale == Scale::Linear)
        return numberTicks(min, max, std::max(maxTicks, 2));
    if (scale == Scale::Category) {
        const qsizetype n = categories.size();
        const qsizetype every = std::max<qsizetype>(1, (n + maxTicks - 1) / std::max(maxTicks, 1));
        for (qsizetype i = 0; i < n; i += every)
            out.append({double(i), categories[i]});
        return out;
    }
    for (double v : plot::logTicks(min, max, maxTicks))
        out.append({v, QString::number(v, 'g', 3)});
    return out;
}

} // namespace studio::models
