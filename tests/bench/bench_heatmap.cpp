// Utilization heatmap: 64 devices x 2 hours at 500 ms (921,600 samples) at 1400x900 (offscreen).
// Figures: setRows (binning into pixel columns and the colour image) plus a paint of the widget,
// against the anchor; the paint alone (goal <= 16 ms); binning alone; a live append of one sample
// per device and the paint after it.
//
// Anchor: a direct renderer, as a widget without our binning layer would draw: one pass over
// every row's samples accumulating the mean per pixel column, coloured by the same ColorMap and
// written straight into the scanlines of the same image, at the same plot rectangle and the
// same row bands. It does binning and drawing in one pass, so it is compared with setRows plus
// paint, in the same interleaved rounds (same count, best of each). It draws the plot only;
// ours also draws the title, row labels, time axis and legend. Its pixels must equal ours in
// the plot (a check, so both do the same work) but for the node separator lines ours draws over
// the plot (about 0.7% of its pixels here; at most 1% allowed).
//
// Usage: bench_heatmap [--quick] [--json FILE] [image.png]   (quick: 3 rounds; full: 15)
#include "models/insights/heatmap_math.h"
#include "tests/bench/bench_support.h"
#include "widgets/insights/utilization_heatmap.h"

#include <QApplication>
#include <QImage>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

using namespace studio;
using namespace studio::models;
using namespace studio::widgets;

namespace {

constexpr int kDevices = 64;
constexpr double kStart = 1700000000;
constexpr double kInterval = 0.5;
constexpr int kSamplesPerDevice = 2 * 3600 * 2; // 2 h at 500 ms
constexpr int kWidth = 1400;
constexpr int kHeight = 900;
constexpr double kPaintGoalMs = 16;
constexpr double kMs = 1e3;

std::vector<HeatmapRow> makeRows() {
    std::vector<HeatmapRow> rows;
    quint32 seed = 12345;
    for (int d = 0; d < kDevices; ++d) {
        HeatmapRow row{d / 16,
                       d % 16 < 12 ? QStringLiteral("cpu%1").arg(d % 16)
                                   : QStringLiteral("gpu%1").arg(d % 16 - 12),
                       {}};
        row.samples.reserve(kSamplesPerDevice);
        for (int i = 0; i < kSamplesPerDevice; ++i) {
            seed = seed * 1664525u + 1013904223u;
            const double wave = 50 + 40 * std::sin(i / 900.0 + d);
            row.samples.push_back(
                {kStart + i * kInterval, std::clamp(wave + ((seed >> 8) % 21) - 10.0, 0.0, 100.0)});
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

// The anchor: one pass over each row's samples into per-column sums, then the row's band of
// scanlines written directly. `plot` is where the plot lies in `target` (Format_ARGB32_*).
void renderDirect(const std::vector<HeatmapRow>& rows, const QRect& plot, const ColorMap& colors,
                  QRgb empty, QImage& target) {
    const int columns = plot.width();
    const double from = rows.front().samples.front().time;
    const double to = rows.front().samples.back().time;
    const double perSecond = columns / (to - from);
    std::vector<double> sum(static_cast<std::size_t>(columns));
    std::vector<std::uint32_t> count(static_cast<std::size_t>(columns));
    std::vector<QRgb> line(static_cast<std::size_t>(columns));
    const int n = static_cast<int>(rows.size());
    for (int r = 0; r < n; ++r) {
        std::fill(sum.begin(), sum.end(), 0.0);
        std::fill(count.begin(), count.end(), 0u);
        for (const HeatmapSample& s : rows[r].samples) {
            const int c = std::clamp(static_cast<int>((s.time - from) * perSecond), 0, columns - 1);
            sum[c] += s.value;
            ++count[c];
        }
        for (int c = 0; c < columns; ++c)
            line[c] = count[c] ? colors.colorFor(sum[c] / count[c], 0, 100) : empty;
        const int y0 = plot.top() + static_cast<int>(std::lround(double(r) * plot.height() / n));
        const int y1 =
            plot.top() + static_cast<int>(std::lround(double(r + 1) * plot.height() / n));
        for (int y = y0; y < y1; ++y)
            std::memcpy(reinterpret_cast<QRgb*>(target.scanLine(y)) + plot.left(), line.data(),
                        line.size() * sizeof(QRgb));
    }
}

// The share of the plot's pixels that differ between two images (colour only).
double differingShare(const QImage& a, const QImage& b, const QRect& plot) {
    qint64 differ = 0;
    for (int y = plot.top(); y <= plot.bottom(); ++y) {
        const auto* pa = reinterpret_cast<const QRgb*>(a.constScanLine(y));
        const auto* pb = reinterpret_cast<const QRgb*>(b.constScanLine(y));
        for (int x = plot.left(); x <= plot.right(); ++x)
            differ += (pa[x] & 0xffffff) != (pb[x] & 0xffffff);
    }
    return double(differ) / (double(plot.width()) * plot.height());
}

// Binning alone, into the plot's columns; false when a sample was lost.
bool timeBinning(const std::vector<HeatmapRow>& rows, int columns, int rounds,
                 bench::Samples& out) {
    const qint64 total = qint64(kDevices) * kSamplesPerDevice;
    bool ok = true;
    for (int k = 0; k < rounds; ++k) {
        HeatmapGrid grid(kDevices, {kStart, kStart + (kSamplesPerDevice - 1) * kInterval, columns});
        out.add(bench::timeSeconds([&] {
            for (int r = 0; r < kDevices; ++r)
                grid.addSeries(r, rows[r].samples);
        }));
        qint64 binned = 0;
        for (int r = 0; r < kDevices; ++r)
            for (int c = 0; c < grid.axis().columns; ++c)
                binned += grid.cell(r, c).count;
        ok &= binned == total;
    }
    return ok;
}

// Live: one new sample per device just past the end (the window doubles on the first), each
// followed by a paint. Checks that the appends show and bin only the new samples.
void reportLiveAppends(UtilizationHeatmap& heatmap, const std::vector<HeatmapRow>& rows,
                       QImage& target, bench::Report& report) {
    const double next = kStart + kSamplesPerDevice * kInterval;
    const int binnings = heatmap.fullBinnings();
    bench::Samples appends = bench::lowerIsBetter(), paints = bench::lowerIsBetter();
    double widen = 0;
    for (int k = 0; k < 5; ++k) {
        const double s = bench::timeSeconds([&] {
            for (int r = 0; r < kDevices; ++r) {
                const HeatmapSample sample{next + k * kInterval, 99};
                heatmap.appendSamples(rows[r].node, rows[r].device, {&sample, 1});
            }
        });
        if (k == 0)
            widen = s;
        else
            appends.add(s);
        paints.add(bench::timeSeconds([&] { heatmap.render(&target); }));
    }
    report.check(heatmap.dataTimeRange().second == next + 4 * kInterval, "live appends show");
    report.check(heatmap.fullBinnings() == binnings, "a live append bins only its samples");
    report.figure({"heatmap live append, one sample per device (64)", "ms", appends.median() * kMs,
                   std::nullopt, "", std::nullopt,
                   "median of 4; the first append, which doubles the window, in details"});
    report.figure({"heatmap paint after a live append", "ms", paints.best() * kMs, std::nullopt, "",
                   std::nullopt, "best of 5"});
    report.details()["append_with_window_doubling_ms"] = widen * kMs;
    report.details()["append_64_samples_ms"] = appends.json(kMs);
}

} // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const bench::Options options = bench::Options::parse(argc, argv);
    const int rounds = options.quick ? 3 : 15;
    bench::Report report("bench_heatmap", options);
    report.anchor({"direct renderer",
                   "one pass over each row's samples into per-pixel-column means, coloured by the "
                   "same ColorMap and written straight into the image's scanlines (plot only)",
                   std::string("Qt ") + qVersion(), 1, "none", "",
                   "921,600 samples binned and drawn into a 1400x900 image"});

    const std::vector<HeatmapRow> rows = makeRows();
    UtilizationHeatmap heatmap;
    heatmap.resize(kWidth, kHeight);
    heatmap.show();
    heatmap.setRows(rows);
    const QRect plot = heatmap.plotRect();
    const QRgb empty = heatmap.palette().color(QPalette::Base).rgb();
    QImage ours(kWidth, kHeight, QImage::Format_ARGB32_Premultiplied);
    QImage direct(kWidth, kHeight, QImage::Format_ARGB32_Premultiplied);

    // Binning plus paint, and the anchor's one pass, in the same interleaved rounds.
    bench::Samples setRowsPaint = bench::lowerIsBetter(), anchor = bench::lowerIsBetter();
    bench::interleave(rounds, {[&](int) {
                                   std::vector<HeatmapRow> copy = rows; // not timed
                                   ours.fill(Qt::white);
                                   setRowsPaint.add(bench::timeSeconds([&] {
                                       heatmap.setRows(std::move(copy));
                                       heatmap.render(&ours);
                                   }));
                               },
                               [&](int) {
                                   direct.fill(Qt::white);
                                   anchor.add(bench::timeSeconds([&] {
                                       renderDirect(rows, plot, heatmap.colorMap(), empty, direct);
                                   }));
                               }});
    const double differ = differingShare(ours, direct, plot);
    report.check(differ <= 0.01, "the anchor's plot pixels equal ours (" +
                                     std::to_string(differ * 100) + "% differ)");
    report.check(ours.pixel(plot.center()) != empty &&
                     ours.pixel(plot.center()) != qRgb(255, 255, 255),
                 "the plot is painted");
    report.figure({"heatmap binning (setRows) plus paint, 921,600 samples", "ms",
                   setRowsPaint.best() * kMs, anchor.best() * kMs, "direct renderer", std::nullopt,
                   "best of " + std::to_string(rounds) +
                       " each, interleaved; ours also paints "
                       "labels, time axis and legend"});

    bench::Samples paint = bench::lowerIsBetter();
    for (int k = 0; k < rounds; ++k) {
        ours.fill(Qt::white);
        paint.add(bench::timeSeconds([&] { heatmap.render(&ours); }));
    }
    report.figure({"heatmap paint only, 921,600 samples binned", "ms", paint.best() * kMs,
                   std::nullopt, "", bench::Goal::valueAtMost(kPaintGoalMs),
                   "best of " + std::to_string(rounds)});

    bench::Samples binning = bench::lowerIsBetter();
    report.check(timeBinning(rows, plot.width(), 3, binning), "binning keeps every sample");
    report.figure({"heatmap binning alone into " + std::to_string(plot.width()) + " columns", "ms",
                   binning.best() * kMs, std::nullopt, "", std::nullopt, "best of 3"});

    reportLiveAppends(heatmap, rows, ours, report);
    if (!options.args.empty()) // a path: save what was painted, to look at
        ours.save(QString::fromStdString(options.args[0]));

    bench::Json& d = report.details();
    d["devices"] = kDevices;
    d["samples"] = qint64(kDevices) * kSamplesPerDevice;
    d["width"] = kWidth;
    d["height"] = kHeight;
    d["plot_columns"] = plot.width();
    d["set_rows_plus_paint_ms"] = setRowsPaint.json(kMs);
    d["anchor_direct_ms"] = anchor.json(kMs);
    d["paint_ms"] = paint.json(kMs);
    d["binning_ms"] = binning.json(kMs);
    d["anchor_pixels_differing_share"] = differ;
    return report.finish();
}
