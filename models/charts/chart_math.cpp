#include "models/charts/chart_math.h"

#include "engine/plot/ticks.h"
#include "engine/plot/time_axis.h"

#include <QDateTime>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace studio::models {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Drops trailing zeros of a fixed-point number ("1.50" -> "1.5", "2.0" -> "2").
QString trimZeros(QString text) {
    if (!text.contains(QLatin1Char('.')))
        return text;
    while (text.endsWith(QLatin1Char('0')))
        text.chop(1);
    if (text.endsWith(QLatin1Char('.')))
        text.chop(1);
    return text;
}

} // namespace

double mapX(XAxisMode mode, const CurvePoint& point, double origin) {
    switch (mode) {
    case XAxisMode::Step:
        return static_cast<double>(point.step);
    case XAxisMode::RelativeTime:
        return point.time - origin;
    case XAxisMode::WallTime:
        return point.time;
    }
    return kNaN;
}

std::vector<double> mapX(XAxisMode mode, std::span<const CurvePoint> points) {
    std::vector<double> x(points.size());
    if (points.empty())
        return x;
    const double origin = points.front().time;
    for (std::size_t i = 0; i < points.size(); ++i)
        x[i] = mapX(mode, points[i], origin);
    return x;
}

TimeUnit relativeTimeUnit(double spanSeconds) {
    const plot::TimeUnit unit = plot::timeUnitFor(spanSeconds, 180);
    return {unit.seconds, QString::fromStdString(unit.label)};
}

namespace {

void checkDecimationInput(std::size_t xs, std::size_t ys, double xMin, double xMax, int buckets) {
    if (xs != ys)
        throw std::invalid_argument("decimation: x has " + std::to_string(xs) +
                                    " values but y has " + std::to_string(ys));
    if (buckets < 1)
        throw std::invalid_argument("decimation: buckets must be at least 1, got " +
                                    std::to_string(buckets));
    if (!(xMin <= xMax))
        throw std::invalid_argument("decimation: the x range [" + std::to_string(xMin) + ", " +
                                    std::to_string(xMax) + "] is empty");
}

// One decimation: the kept points, the skipped counts and the drawn extent.
class Decimator {
public:
    Decimator(std::span<const double> x, std::span<const double> y, bool positiveOnly)
        : m_x(x)
        , m_y(y)
        , m_positiveOnly(positiveOnly) {
        m_out.yMin = kNaN;
        m_out.yMax = kNaN;
    }

    Decimation run(double xMin, double xMax, int buckets) {
        const auto n = static_cast<qsizetype>(m_x.size());
        const qsizetype first = std::lower_bound(m_x.begin(), m_x.end(), xMin) - m_x.begin();
        const qsizetype end = std::upper_bound(m_x.begin(), m_x.end(), xMax) - m_x.begin();
        m_out.inRange = std::max<qsizetype>(0, end - first);
        // The nearest drawable points outside the range, so lines run to the edges.
        qsizetype before = first - 1;
        while (before >= 0 && !drawable(before))
            --before;
        qsizetype after = end;
        while (after < n && !drawable(after))
            ++after;

        if (before >= 0)
            m_out.points.append(QPointF(m_x[before], m_y[before]));
        if (m_out.inRange < 2 * static_cast<qsizetype>(buckets))
            passThrough(first, end);
        else
            bucketed(first, end, xMin, (xMax - xMin) / buckets, buckets);
        if (after < n)
            m_out.points.append(QPointF(m_x[after], m_y[after]));
        if (m_lo <= m_hi) {
            m_out.yMin = m_lo;
            m_out.yMax = m_hi;
        }
        return std::move(m_out);
    }

private:
    bool drawable(qsizetype i) const {
        return std::isfinite(m_x[i]) && std::isfinite(m_y[i]) && (!m_positiveOnly || m_y[i] > 0);
    }

    // Counts a value that cannot be drawn; true when it was skipped.
    bool skipped(double v) {
        if (!std::isfinite(v)) {
            ++m_out.nonFinite;
            return true;
        }
        if (m_positiveOnly && v <= 0) {
            ++m_out.nonPositive;
            return true;
        }
        return false;
    }

    void keep(qsizetype i) {
        m_out.points.append(QPointF(m_x[i], m_y[i]));
        m_lo = std::min(m_lo, m_y[i]);
        m_hi = std::max(m_hi, m_y[i]);
    }

    void passThrough(qsizetype first, qsizetype end) {
        m_out.passedThrough = true;
        m_out.points.reserve(m_out.inRange + 2);
        for (qsizetype i = first; i < end; ++i) {
            if (!std::isfinite(m_x[i]))
                ++m_out.nonFinite;
            else if (!skipped(m_y[i]))
                keep(i);
        }
    }

    // Bucket b holds the points with xMin + b*width <= x < xMin + (b+1)*width (the last one up
    // to xMax): x is sorted, so each bucket is an index range found by binary search and the
    // scan inside is a plain min/max loop.
    void bucketed(qsizetype first, qsizetype end, double xMin, double width, int buckets) {
        m_out.points.reserve(3 * static_cast<qsizetype>(buckets) + 2);
        qsizetype begin = first;
        for (int b = 0; b < buckets && begin < end; ++b) {
            qsizetype stop = end;
            if (b + 1 < buckets) {
                const double edge = xMin + (b + 1) * width;
                stop = std::lower_bound(m_x.begin() + begin, m_x.begin() + end, edge) - m_x.begin();
            }
            bucket(begin, stop);
            begin = stop;
        }
    }

    // Keeps one bucket's minimum and maximum (in x order) and its last point.
    void bucket(qsizetype begin, qsizetype stop) {
        qsizetype minI = -1, maxI = -1, lastI = -1;
        double bucketMin = std::numeric_limits<double>::infinity();
        double bucketMax = -bucketMin;
        for (qsizetype i = begin; i < stop; ++i) {
            const double v = m_y[i];
            if (skipped(v))
                continue;
            if (v < bucketMin) {
                bucketMin = v;
                minI = i;
            }
            if (v > bucketMax) {
                bucketMax = v;
                maxI = i;
            }
            lastI = i;
        }
        if (lastI < 0)
            return;
        const qsizetype a = std::min(minI, maxI);
        const qsizetype c = std::max(minI, maxI);
        keep(a);
        if (c != a)
            keep(c);
        if (lastI != c)
            keep(lastI);
    }

    std::span<const double> m_x;
    std::span<const double> m_y;
    bool m_positiveOnly;
    Decimation m_out;
    double m_lo = std::numeric_limits<double>::infinity();
    double m_hi = -std::numeric_limits<double>::infinity();
};

} // namespace

Decimation decimateMinMaxLast(std::span<const double> x, std::span<const double> y, double xMin,
                              double xMax, int buckets, bool positiveOnly) {
    checkDecimationInput(x.size(), y.size(), xMin, xMax, buckets);
    return Decimator(x, y, positiveOnly).run(xMin, xMax, buckets);
}

std::vector<double> smoothEma(std::span<const double> values, double weight) {
    EmaState state;
    std::vector<double> out;
    extendEma(values, weight, state, out);
    return out;
}

void extendEma(std::span<const double> values, double weight, EmaState& state,
               std::vector<double>& smoothed) {
    if (!(weight >= 0 && weight < 1))
        throw std::invalid_argument("smoothing weight must be in [0, 1), got " +
                                    std::to_string(weight));
    if (smoothed.size() != state.done || state.done > values.size()) {
        state = EmaState{}; // not where the last call left off: start over
        smoothed.clear();
    }
    const std::size_t n = values.size();
    if (state.done == n)
        return;
    // TensorBoard #786: a constant series stays exactly constant (w = 0 is the identity).
    bool constant = state.constant;
    for (std::size_t i = state.done; constant && i < n; ++i)
        constant = values[i] == values[0];
    if (weight == 0 || constant) {
        smoothed.insert(smoothed.end(), values.begin() + static_cast<std::ptrdiff_t>(state.done),
                        values.end());
        state.done = n;
        state.constant = constant;
        return;
    }
    if (state.constant && state.done > 0) {
        state = EmaState{}; // was constant: now the whole series is smoothed
        smoothed.clear();
    }
    state.constant = false;
    smoothed.resize(n);
    for (std::size_t i = state.done; i < n; ++i) {
        const double v = values[i];
        if (!std::isfinite(v)) {
            smoothed[i] = v;
            continue;
        }
        state.last = state.last * weight + (1 - weight) * v;
        ++state.finite;
        // Math.pow as TensorBoard does, until w^n is too small to change 1 - w^n (< 2^-54).
        if (state.power > 1e-18) {
            state.power *= weight;
            smoothed[i] = state.last / (1 - std::pow(weight, static_cast<double>(state.finite)));
        } else {
            smoothed[i] = state.last;
        }
    }
    state.done = n;
}

qsizetype nearestIndex(std::span<const double> x, double target) {
    if (x.empty())
        return -1;
    const qsizetype i = std::lower_bound(x.begin(), x.end(), target) - x.begin();
    if (i == 0)
        return 0;
    if (i == static_cast<qsizetype>(x.size()))
        return i - 1;
    return target - x[i - 1] <= x[i] - target ? i - 1 : i;
}

QString formatTickNumber(double value, double step) {
    if (value == 0 || !std::isfinite(value))
        return value == 0 ? QStringLiteral("0") : QString::number(value);
    step = std::fabs(step);
    const double magnitude = std::fabs(value);
    if (magnitude >= 1000 && magnitude < 1e15) {
        static const struct {
            double unit;
            char suffix;
        } units[] = {{1e12, 'T'}, {1e9, 'G'}, {1e6, 'M'}, {1e3, 'k'}};
        for (const auto& u : units) {
            if (magnitude >= u.unit) {
                const int decimals = step > 0 ? plot::tickDecimals(step / u.unit) : 2;
                return trimZeros(QString::number(value / u.unit, 'f', std::min(decimals, 6))) +
                       QLatin1Char(u.suffix);
            }
        }
    }
    if (step >= 1e-4 || (step == 0 && magnitude >= 1e-4))
        return trimZeros(QString::number(value, 'f', step > 0 ? plot::tickDecimals(step) : 4));
    const int digits =
        step > 0
            ? static_cast<int>(std::floor(std::log10(magnitude)) - std::floor(std::log10(step)))
            : 2;
    return QString::number(value, 'g', std::clamp(digits + 1, 1, 6));
}

QList<AxisTick> numberTicks(double min, double max, int maxTicks) {
    const plot::TickSet t = plot::ticksWithin(min, max, maxTicks);
    QList<AxisTick> ticks;
    ticks.reserve(static_cast<qsizetype>(t.ticks.size()));
    for (double v : t.ticks)
        ticks.append({v, formatTickNumber(v, t.step)});
    return ticks;
}

QList<AxisTick> wallTimeTicks(double min, double max, int maxTicks, int utcOffsetSeconds) {
    const plot::WallTicks t = plot::wallClockTicks(min, max, maxTicks, utcOffsetSeconds);
    QString format;
    switch (t.label) {
    case plot::WallLabel::Seconds:
        format = QStringLiteral("HH:mm:ss");
        break;
    case plot::WallLabel::Minutes:
        format = QStringLiteral("HH:mm");
        break;
    case plot::WallLabel::DayMinutes:
        format = QStringLiteral("MMM d HH:mm");
        break;
    case plot::WallLabel::Day:
        format = QStringLiteral("MMM d");
        break;
    }
    QList<AxisTick> ticks;
    ticks.reserve(static_cast<qsizetype>(t.ticks.size()));
    for (double v : t.ticks) {
        const QDateTime at = QDateTime::fromSecsSinceEpoch(static_cast<qint64>(std::llround(v)),
                                                           Qt::OffsetFromUTC, utcOffsetSeconds);
        ticks.append({v, at.toString(format)});
    }
    return ticks;
}

QColor blend(const QColor& from, const QColor& to, double t) {
    t = std::isnan(t) ? 0.0 : std::clamp(t, 0.0, 1.0);
    const auto m = [t](int a, int b) {
        return static_cast<int>(std::lround(a + (b - a) * t));
    };
    return QColor(m(from.red(), to.red()), m(from.green(), to.green()), m(from.blue(), to.blue()));
}

} // namespace studio::models
