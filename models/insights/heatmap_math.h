// The arithmetic behind the utilization heatmap, kept out of paint code: the mapping of a time
// window onto pixel columns, the binning of time x device samples into those columns (mean for
// the colour, max for the tooltip), growth of a live window by merging column pairs (history is
// never binned again), and a perceptual colour map with its legend ticks. Plain types, no
// widgets; thread-compatible (one writer, or many readers).
#pragma once

#include <QList>
#include <QRgb>

#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace studio::models {

// One utilization sample of a device row.
struct HeatmapSample {
    double time = 0; // unix seconds
    double value = 0;
};

// A time window [from, to] cut into `columns` equal pixel columns: column c holds
// from + c*w <= t < from + (c+1)*w, the last one closed at `to`.
struct TimeColumns {
    double from = 0;
    double to = 1;
    int columns = 1;

    double columnWidth() const; // seconds per column; 0 for an empty window
    // The column holding t; -1 outside [from, to], for NaN, or for an invalid window.
    int columnOf(double t) const;
    // Pixel x (0 at `from`, `columns` at `to`) of a time, and back; a zero-width window maps
    // everything to 0 (and 0 to `from`).
    double xOf(double t) const;
    double timeAt(double x) const;
};

// What a cell of the grid holds: the samples that fell in it.
struct HeatmapCell {
    double sum = 0;
    float max = 0;
    std::uint32_t count = 0;
};

// Rows (devices) x columns (time) of binned samples. Adding a sample touches one cell and
// records the column as dirty, so a live view repaints only the columns that changed.
class HeatmapGrid {
public:
    HeatmapGrid() = default;
    // Throws std::invalid_argument for rows < 0, columns < 1 or a window with to < from or NaN.
    HeatmapGrid(int rows, TimeColumns axis);

    int rows() const { return m_rows; }
    const TimeColumns& axis() const { return m_axis; }

    // Bins one sample; false (and nothing changes) when the row or the time lies outside the
    // grid or the value is not finite.
    bool add(int row, double time, double value);
    // Bins the samples of a time-sorted series that fall in the window (binary search to it).
    void addSeries(int row, std::span<const HeatmapSample> samples);

    const HeatmapCell& cell(int row, int column) const;
    // Mean and max of a cell; NaN when it holds no sample.
    double mean(int row, int column) const;
    double max(int row, int column) const;
    // The column whose cell a column shows: itself when it holds samples, else the nearest one
    // to its left within maxHold columns (a sample holds until the next one, so columns
    // narrower than the sampling interval do not show as gaps); -1 when none (a real gap).
    int heldColumn(int row, int column, int maxHold) const;

    // Doubles the window (`from` stays, `to` moves to from + 2 x span) with the same number of
    // columns: each new column is the merge of two old ones, exact for sum, max and count, so
    // a live window grows without binning its samples again (a sample that lay exactly on the
    // old window's closed end stays in the column it was in). Marks every column dirty.
    void widen();

    // Columns changed since the last clearDirty(), as [first, last]; {-1, -1} when none.
    std::pair<int, int> dirtyColumns() const { return {m_dirtyFirst, m_dirtyLast}; }
    void clearDirty();

private:
    void markDirty(int first, int last);

    int m_rows = 0;
    TimeColumns m_axis;
    std::vector<HeatmapCell> m_cells; // row-major
    int m_dirtyFirst = -1;
    int m_dirtyLast = -1;
};

// How many columns a sample holds: a bit more than one sampling interval (1.5 x) in columns
// of the given width, at most 64; 0 for an unknown interval or width.
int holdColumns(double sampleInterval, double columnWidth);

// A perceptual colour map (viridis: dark purple at 0 through teal to yellow at 1, lightness
// rising monotonically, readable by colour-blind viewers) sampled into a 256-entry table.
class ColorMap {
public:
    static ColorMap viridis();

    // The colour at t in [0, 1] (clamped); `missing` for NaN.
    QRgb colorAt(double t) const;
    // The colour of a value on the scale [lo, hi] (lo maps to 0, hi to 1).
    QRgb colorFor(double value, double lo, double hi) const;
    const std::array<QRgb, 256>& table() const { return m_table; }
    QRgb missing() const { return m_missing; }
    void setMissing(QRgb color) { m_missing = color; }

private:
    std::array<QRgb, 256> m_table{};
    QRgb m_missing = 0;
};

// Perceived lightness (CIE L*, 0..100) of an sRGB colour: what makes a map perceptual is that
// it rises steadily along the map.
double lightness(QRgb color);

} // namespace studio::models
