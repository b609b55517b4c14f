// The arithmetic of the parallel-coordinates plot, kept out of paint code: how an axis scales
// its values (linear, logarithmic for positive values spanning decades, evenly spaced
// categories), where axes and values land in the plot, the colour scale, and which polyline is
// under the mouse. Plain values, thread-safe.
#pragma once

#include <QColor>
#include <QList>
#include <QPointF>
#include <QPolygonF>
#include <QRectF>
#include <QString>
#include <QStringList>

#include <span>

namespace studio::models {

struct ParallelTick {
    double position = 0; // 0 at the bottom of the axis, 1 at the top
    QString label;
};

class ParallelAxis {
public:
    enum class Scale { Linear, Log, Categorical };

    // A numeric axis over the finite values (NaN: a job without the value). Log scale when every
    // value is positive and max/min >= 100 (learning rates, weight decays).
    static ParallelAxis numeric(const QString& title, std::span<const double> values);
    // Categories in sorted order (empty strings: missing), evenly spaced bottom to top.
    static ParallelAxis categorical(const QString& title, const QStringList& values);

    const QString& title() const { return m_title; }
    Scale scale() const { return m_scale; }
    double min() const { return m_min; }
    double max() const { return m_max; }
    const QStringList& categories() const { return m_categories; }

    // Where a value sits on the axis in [0, 1]; 0.5 when the axis holds one value; NaN for a
    // missing value (NaN, a category the axis lacks, or <= 0 on a log axis).
    double position(double value) const;
    double position(const QString& category) const;
    // Min and max for numeric axes (one tick when they are equal), every category otherwise.
    QList<ParallelTick> ticks() const;

private:
    QString m_title;
    Scale m_scale = Scale::Linear;
    double m_min = 0;
    double m_max = 0;
    QStringList m_categories;
};

// Where axes stand in the widget: `count` vertical axes spread evenly across plot's width, the
// first on its left edge, the last on its right; positions map bottom (0) to top (1).
struct ParallelGeometry {
    QRectF plot;
    int count = 0;

    double axisX(int axis) const;
    double y(double position) const;
    // The point of a value on an axis; NaN coordinates for a missing value.
    QPointF point(int axis, double position) const;
};

// A perceptually ordered colour scale (viridis) for t in [0, 1], clamped; grey for NaN.
QColor colorScale(double t);
// The part of the scale that reads as a thin line on the background: viridis up to 0.78 on a
// light one (its pale yellow end vanishes on white), from 0.2 on a dark one (its near-black
// purple start vanishes there). Same NaN and clamping rules.
QColor lineColorScale(double t, bool darkBackground);

// Distance from p to the segment a-b.
double distanceToSegment(QPointF p, QPointF a, QPointF b);
// The polyline nearest to p within maxDistance, -1 when none; points with NaN coordinates
// break a line (no segment to or from them).
int nearestPolyline(QPointF p, const QList<QPolygonF>& lines, double maxDistance);

} // namespace studio::models
