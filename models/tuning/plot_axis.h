// The axes of the tuning tab's plots: linear, logarithmic (decade ticks) or categorical (one
// slot per category), mapping a value to a fraction of the axis and listing its ticks. Plain
// values, thread-safe.
#pragma once

#include "models/charts/chart_math.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <span>

namespace studio::models {

struct PlotAxis {
    enum class Scale { Linear, Log, Category };
    QString title;
    Scale scale = Scale::Linear;
    double min = 0;
    double max = 1;
    QStringList categories; // Category: value i sits in slot i

    // A numeric axis over the finite values (positive ones on a log axis), padded a little;
    // [0, 1] (or [1, 10]) when there are none.
    static PlotAxis fit(const QString& title, std::span<const double> values, bool log);
    static PlotAxis category(const QString& title, const QStringList& categories);

    // Where a value sits: 0 at min, 1 at max; NaN for a value the axis cannot show (NaN, <= 0
    // on a log axis). Categories: slot i's centre, (i + 0.5) / count.
    double fraction(double value) const;
    // Round-number ticks (Linear), powers of ten (Log; 1, 2, 5 per decade when the axis spans
    // fewer than three decades), or every category (thinned to at most maxTicks).
    QList<AxisTick> ticks(int maxTicks) const;
};

} // namespace studio::models
