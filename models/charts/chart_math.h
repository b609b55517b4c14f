// The arithmetic behind the learning-curve chart, kept out of paint code: min/max/last bucket
// decimation, TensorBoard's debiased EMA smoothing, x-axis mapping (step, relative time, wall
// time), and axis ticks with their labels. Ticks and time units come from the plot library
// (engine/plot); this adds the labels. Pure functions, thread-safe.
#pragma once

#include <QColor>
#include <QList>
#include <QPointF>
#include <QString>
#include <QtGlobal>

#include <cstdint>
#include <span>
#include <vector>

namespace studio::models {

// One recorded value of a metric.
struct CurvePoint {
    qint64 step = 0;
    double time = 0; // unix seconds
    double value = 0;
};

// A named line of the chart; an invalid colour means seriesColor(its index).
struct CurveSeries {
    QString name;
    QColor color;
    QList<CurvePoint> points; // in step order
};

enum class XAxisMode { Step, RelativeTime, WallTime };

// What the x axis shows for a point: its step, seconds since the series' first point (origin =
// that point's time), or its unix time in seconds.
double mapX(XAxisMode mode, const CurvePoint& point, double origin);
// mapX for every point, with the first point's time as origin; empty for no points.
std::vector<double> mapX(XAxisMode mode, std::span<const CurvePoint> points);

// The unit relative time is shown in, chosen from the longest series' span so labels stay short:
// seconds up to 3 minutes, minutes up to 3 hours, else hours (plot::timeUnitFor).
struct TimeUnit {
    double seconds = 1; // one unit in seconds
    QString suffix;     // "s", "min", "h"
};
TimeUnit relativeTimeUnit(double spanSeconds);

// The points one line draws for a visible x range at a given width in pixel buckets.
struct Decimation {
    QList<QPointF> points;
    qsizetype nonFinite = 0;    // NaN/Inf values in the range, skipped
    qsizetype nonPositive = 0;  // values <= 0 in the range, skipped when positiveOnly (log y)
    qsizetype inRange = 0;      // points whose x lies in the range
    bool passedThrough = false; // fewer than 2 x buckets points: every one kept
    // The drawn values' extent inside the range (NaN when nothing was drawn there).
    double yMin = 0;
    double yMax = 0;
};

// Min/max/last decimation of an x-sorted series (x finite and non-decreasing, same length as y)
// for the visible range [xMin, xMax] cut into `buckets` equal columns (bucket b holds
// xMin + b*w <= x < xMin + (b+1)*w, the last one up to xMax): each column keeps its minimum
// and maximum (in x order) and its last point, so spikes survive; at most 3 x buckets + 2
// points. With fewer than 2 x buckets points in the range every finite one is kept. The nearest
// drawable point on each side outside the range is kept too so lines reach the plot's edges.
// Throws std::invalid_argument when the sizes differ, buckets < 1 or xMin > xMax (or NaN).
Decimation decimateMinMaxLast(std::span<const double> x, std::span<const double> y, double xMin,
                              double xMax, int buckets, bool positiveOnly = false);

// TensorBoard's scalar smoothing (vz_line_chart2 resmoothDataset): a debiased exponential moving
// average, `last = last*w + (1-w)*v; smoothed = last / (1 - w^n)` with n counting finite values
// only; non-finite values pass through and leave the state alone, and a constant series is
// returned as is (no rounding drift). w = 0 returns the values. Throws std::invalid_argument
// unless 0 <= weight < 1.
std::vector<double> smoothEma(std::span<const double> values, double weight);

// smoothEma for a growing series: where one call left off (live data), so that appending
// points costs only the new ones. Start from a default EmaState and an empty output.
struct EmaState {
    double last = 0;
    double power = 1;        // w^n
    std::int64_t finite = 0; // n: finite values seen
    std::size_t done = 0;    // values smoothed so far (the output's size)
    bool constant = true;    // every value so far equals the first
};
// Extends `smoothed` (which holds smoothEma of values[0, state.done)) to all of values, with
// the result smoothEma(values, weight) would give; a series that was constant and stops being
// so is smoothed again from its start, as TensorBoard would. Same weight for every call;
// throws std::invalid_argument as smoothEma.
void extendEma(std::span<const double> values, double weight, EmaState& state,
               std::vector<double>& smoothed);

// Index of the x nearest to target in an x-sorted series (the earlier on a tie); -1 when empty.
qsizetype nearestIndex(std::span<const double> x, double target);

struct AxisTick {
    double value = 0;
    QString label;
};

// Round-number ticks (1, 2, 5 x 10^k apart) inside [min, max], at most maxTicks of them (at
// least 2 asked for; a finer step when fewer than two would fall inside: plot::ticksWithin),
// labelled with formatTickNumber.
QList<AxisTick> numberTicks(double min, double max, int maxTicks);
// A tick label as short as the step allows: "0.25", "1.5k", "200k", "3M", "2.5e-05".
QString formatTickNumber(double value, double step);

// Ticks on round local times (1 s ... 1 day apart: plot::wallClockTicks) for unix seconds in
// [min, max]; labels "HH:mm:ss", "HH:mm" or "MMM d HH:mm" (or "MMM d") by step and span.
// utcOffsetSeconds is the local zone's offset, so that hours and days fall on local boundaries.
QList<AxisTick> wallTimeTicks(double min, double max, int maxTicks, int utcOffsetSeconds);

// The colour a fraction t of the way from one colour to another (opaque; t clamped to
// [0, 1]): grid lines, axis text and outlines derived from the palette's base and text colours
// so that charts read in light and dark themes alike.
QColor blend(const QColor& from, const QColor& to, double t);

} // namespace studio::models
