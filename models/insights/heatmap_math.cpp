#include "models/insights/heatmap_math.h"

#include "engine/plot/scale.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace studio::models {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

} // namespace

double TimeColumns::columnWidth() const {
    if (columns < 1 || !(to > from))
        return 0;
    return (to - from) / columns;
}

int TimeColumns::columnOf(double t) const {
    if (columns < 1 || std::isnan(t) || !(to >= from) || t < from || t > to)
        return -1;
    if (to == from)
        return 0;
    const int c = static_cast<int>(xOf(t));
    return std::clamp(c, 0, columns - 1);
}

double TimeColumns::xOf(double t) const {
    if (!(to > from))
        return 0;
    return plot::LinearScale{from, to, 0, double(columns)}(t);
}

double TimeColumns::timeAt(double x) const {
    if (!(to > from) || columns < 1)
        return from;
    return plot::LinearScale{0, double(columns), from, to}(x);
}

HeatmapGrid::HeatmapGrid(int rows, TimeColumns axis)
    : m_rows(rows)
    , m_axis(axis) {
    if (rows < 0)
        throw std::invalid_argument("heatmap: negative row count");
    if (axis.columns < 1)
        throw std::invalid_argument("heatmap: fewer than one column");
    if (!(axis.to >= axis.from))
        throw std::invalid_argument("heatmap: the window ends before it starts");
    m_cells.resize(static_cast<std::size_t>(rows) * static_cast<std::size_t>(axis.columns));
}

bool HeatmapGrid::add(int row, double time, double value) {
    if (row < 0 || row >= m_rows || !std::isfinite(value))
        return false;
    const int c = m_axis.columnOf(time);
    if (c < 0)
        return false;
    HeatmapCell& cell = m_cells[static_cast<std::size_t>(row) * m_axis.columns + c];
    const float v = static_cast<float>(value);
    cell.max = cell.count == 0 ? v : std::max(cell.max, v);
    cell.sum += value;
    ++cell.count;
    markDirty(c, c);
    return true;
}

void HeatmapGrid::addSeries(int row, std::span<const HeatmapSample> samples) {
    if (row < 0 || row >= m_rows)
        return;
    const auto first =
        std::lower_bound(samples.begin(), samples.end(), m_axis.from,
                         [](const HeatmapSample& s, double t) { return s.time < t; });
    HeatmapCell* cells = &m_cells[static_cast<std::size_t>(row) * m_axis.columns];
    const double scale = m_axis.to > m_axis.from ? m_axis.columns / (m_axis.to - m_axis.from) : 0;
    int lo = -1, hi = -1;
    for (auto it = first; it != samples.end() && it->time <= m_axis.to; ++it) {
        if (!std::isfinite(it->value))
            continue;
        const int c =
            std::min(static_cast<int>((it->time - m_axis.from) * scale), m_axis.columns - 1);
        HeatmapCell& cell = cells[c];
        const float v = static_cast<float>(it->value);
        cell.max = cell.count == 0 ? v : std::max(cell.max, v);
        cell.sum += it->value;
        ++cell.count;
        if (lo < 0)
            lo = c;
        hi = c;
    }
    if (lo >= 0)
        markDirty(lo, hi);
}

const HeatmapCell& HeatmapGrid::cell(int row, int column) const {
    return m_cells.at(static_cast<std::size_t>(row) * m_axis.columns + column);
}

double HeatmapGrid::mean(int row, int column) const {
    const HeatmapCell& c = cell(row, column);
    return c.count ? c.sum / c.count : kNaN;
}

double HeatmapGrid::max(int row, int column) const {
    const HeatmapCell& c = cell(row, column);
    return c.count ? static_cast<double>(c.max) : kNaN;
}

int HeatmapGrid::heldColumn(int row, int column, int maxHold) const {
    if (row < 0 || row >= m_rows || column < 0 || column >= m_axis.columns)
        return -1;
    const HeatmapCell* cells = &m_cells[static_cast<std::size_t>(row) * m_axis.columns];
    for (int c = column; c >= 0 && column - c <= maxHold; --c)
        if (cells[c].count)
            return c;
    return -1;
}

int holdColumns(double sampleInterval, double columnWidth) {
    if (!(sampleInterval > 0) || !(columnWidth > 0))
        return 0;
    return static_cast<int>(std::min(64.0, std::ceil(1.5 * sampleInterval / columnWidth)));
}

void HeatmapGrid::widen() {
    const int n = m_axis.columns;
    for (int r = 0; r < m_rows; ++r) {
        HeatmapCell* cells = &m_cells[static_cast<std::size_t>(r) * n];
        for (int c = 0; c < n; ++c) {
            HeatmapCell merged;
            for (int k = 2 * c; k < std::min(2 * c + 2, n); ++k) {
                const HeatmapCell& src = cells[k];
                if (!src.count)
                    continue;
                merged.max = merged.count ? std::max(merged.max, src.max) : src.max;
                merged.sum += src.sum;
                merged.count += src.count;
            }
            cells[c] = merged; // c <= 2c: the sources are never read again
        }
    }
    const double span = m_axis.to - m_axis.from;
    m_axis.to = m_axis.from + 2 * (span > 0 ? span : 1.0);
    markDirty(0, n - 1);
}

void HeatmapGrid::clearDirty() {
    m_dirtyFirst = m_dirtyLast = -1;
}

void HeatmapGrid::markDirty(int first, int last) {
    m_dirtyFirst = m_dirtyFirst < 0 ? first : std::min(m_dirtyFirst, first);
    m_dirtyLast = std::max(m_dirtyLast, last);
}

// Viridis (matplotlib, van der Walt and Smith) at eleven stops; linear interpolation between
// them stays within a few units of the full 256-colour table.
ColorMap ColorMap::viridis() {
    static constexpr std::array<QRgb, 11> kStops = {0x440154, 0x482475, 0x414487, 0x355f8d,
                                                    0x2a788e, 0x21918c, 0x22a884, 0x44bf70,
                                                    0x7ad151, 0xbddf26, 0xfde725};
    ColorMap map;
    for (int i = 0; i < 256; ++i) {
        const double pos = i / 255.0 * (kStops.size() - 1);
        const auto k = std::min(static_cast<std::size_t>(pos), kStops.size() - 2);
        const double f = pos - static_cast<double>(k);
        auto channel = [&](int shift) {
            const double a = (kStops[k] >> shift) & 0xff;
            const double b = (kStops[k + 1] >> shift) & 0xff;
            return static_cast<int>(std::lround(a + (b - a) * f));
        };
        map.m_table[i] = qRgb(channel(16), channel(8), channel(0));
    }
    map.m_missing = qRgb(0xe0, 0xe0, 0xe0);
    return map;
}

QRgb ColorMap::colorAt(double t) const {
    if (std::isnan(t))
        return m_missing;
    const double c = std::clamp(t, 0.0, 1.0);
    return m_table[static_cast<std::size_t>(std::lround(c * 255))];
}

QRgb ColorMap::colorFor(double value, double lo, double hi) const {
    if (std::isnan(value))
        return m_missing;
    if (!(hi > lo))
        return colorAt(0.5);
    return colorAt((value - lo) / (hi - lo));
}

double lightness(QRgb color) {
    auto linear = [](int c) {
        const double v = c / 255.0;
        return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    };
    const double y = 0.2126 * linear(qRed(color)) + 0.7152 * linear(qGreen(color)) +
                     0.0722 * linear(qBlue(color));
    const double f = y > 216.0 / 24389.0 ? std::cbrt(y) : (24389.0 / 27.0 * y + 16) / 116;
    return 116 * f - 16;
}

} // namespace studio::models
