#include "models/charts/parallel_coordinates_math.h"

#include "engine/plot/scale.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace studio::models {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

QString numberLabel(double value) {
    if (std::fabs(value) >= 1e-3 && std::fabs(value) < 1e6)
        return QString::number(value, 'g', 4);
    return QString::number(value, 'g', 3);
}

} // namespace

ParallelAxis ParallelAxis::numeric(const QString& title, std::span<const double> values) {
    ParallelAxis axis;
    axis.m_title = title;
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    for (double v : values) {
        if (!std::isfinite(v))
            continue;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    if (lo > hi) {
        axis.m_min = axis.m_max = kNaN;
        return axis;
    }
    axis.m_min = lo;
    axis.m_max = hi;
    if (lo > 0 && hi / lo >= 100)
        axis.m_scale = Scale::Log;
    return axis;
}

ParallelAxis ParallelAxis::categorical(const QString& title, const QStringList& values) {
    ParallelAxis axis;
    axis.m_title = title;
    axis.m_scale = Scale::Categorical;
    for (const QString& v : values)
        if (!v.isEmpty() && !axis.m_categories.contains(v))
            axis.m_categories.append(v);
    axis.m_categories.sort();
    return axis;
}

double ParallelAxis::position(double value) const {
    if (m_scale == Scale::Categorical || !std::isfinite(value) || !std::isfinite(m_min))
        return kNaN;
    if (m_min == m_max)
        return value == m_min ? 0.5 : kNaN;
    if (m_scale == Scale::Log)
        return plot::LogScale{m_min, m_max, 0, 1}(value); // NaN for value <= 0
    return plot::LinearScale{m_min, m_max, 0, 1}(value);
}

double ParallelAxis::position(const QString& category) const {
    const auto i = m_categories.indexOf(category);
    if (i < 0)
        return kNaN;
    if (m_categories.size() == 1)
        return 0.5;
    return static_cast<double>(i) / static_cast<double>(m_categories.size() - 1);
}

QList<ParallelTick> ParallelAxis::ticks() const {
    QList<ParallelTick> ticks;
    if (m_scale == Scale::Categorical) {
        for (const QString& c : m_categories)
            ticks.append({position(c), c});
        return ticks;
    }
    if (!std::isfinite(m_min))
        return ticks;
    if (m_min == m_max) {
        ticks.append({0.5, numberLabel(m_min)});
        return ticks;
    }
    ticks.append({0, numberLabel(m_min)});
    ticks.append({1, numberLabel(m_max)});
    return ticks;
}

double ParallelGeometry::axisX(int axis) const {
    if (count <= 1)
        return plot.center().x();
    return plot.left() + plot.width() * axis / (count - 1);
}

double ParallelGeometry::y(double position) const {
    return plot.bottom() - position * plot.height();
}

QPointF ParallelGeometry::point(int axis, double position) const {
    if (!std::isfinite(position))
        return QPointF(kNaN, kNaN);
    return QPointF(axisX(axis), y(position));
}

QColor colorScale(double t) {
    if (std::isnan(t))
        return QColor(0x9a, 0xa1, 0xa9);
    // Viridis at nine stops, linearly interpolated.
    static const QColor stops[] = {
        QColor(0x44, 0x01, 0x54), QColor(0x47, 0x2c, 0x7a), QColor(0x3b, 0x51, 0x8b),
        QColor(0x2c, 0x71, 0x8e), QColor(0x21, 0x90, 0x8d), QColor(0x27, 0xad, 0x81),
        QColor(0x5c, 0xc8, 0x63), QColor(0xaa, 0xdc, 0x32), QColor(0xfd, 0xe7, 0x25)};
    constexpr int last = static_cast<int>(std::size(stops)) - 1;
    const double s = std::clamp(t, 0.0, 1.0) * last;
    const int i = std::min(static_cast<int>(s), last - 1);
    const double f = s - i;
    const QColor& a = stops[i];
    const QColor& b = stops[i + 1];
    const auto mix = [f](int u, int v) {
        return static_cast<int>(std::lround(u + (v - u) * f));
    };
    return QColor(mix(a.red(), b.red()), mix(a.green(), b.green()), mix(a.blue(), b.blue()));
}

QColor lineColorScale(double t, bool darkBackground) {
    if (std::isnan(t))
        return colorScale(t);
    const double u = std::clamp(t, 0.0, 1.0);
    return colorScale(darkBackground ? 0.2 + 0.8 * u : 0.78 * u);
}

double distanceToSegment(QPointF p, QPointF a, QPointF b) {
    const QPointF ab = b - a;
    const double length2 = QPointF::dotProduct(ab, ab);
    double t = length2 > 0 ? QPointF::dotProduct(p - a, ab) / length2 : 0;
    t = std::clamp(t, 0.0, 1.0);
    const QPointF d = p - (a + t * ab);
    return std::sqrt(QPointF::dotProduct(d, d));
}

int nearestPolyline(QPointF p, const QList<QPolygonF>& lines, double maxDistance) {
    int best = -1;
    double bestDistance = maxDistance;
    const auto valid = [](QPointF q) {
        return std::isfinite(q.x()) && std::isfinite(q.y());
    };
    for (int i = 0; i < lines.size(); ++i) {
        const QPolygonF& line = lines[i];
        for (qsizetype k = 0; k < line.size(); ++k) {
            if (!valid(line[k]))
                continue;
            // A lone point (neighbours missing) still counts, as a dot.
            const bool hasNext = k + 1 < line.size() && valid(line[k + 1]);
            const double d = hasNext ? distanceToSegment(p, line[k], line[k + 1])
                                     : distanceToSegment(p, line[k], line[k]);
            if (d <= bestDistance) {
                bestDistance = d;
                best = i;
            }
        }
    }
    return best;
}

} // namespace studio::models
