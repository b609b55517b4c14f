// Utilization heatmap benchmark: 64 devices x 2 hours at 500 ms (921,600 samples) at about
// 1400x900 (offscreen). Measures binning the samples into pixel columns, setRows (binning and
// the colour image), a paint of the widget (best and median of 15), a live append of one sample
// per device and the paint after it; as anchor, the same heatmap painted without pre-binning
// (one fillRect per sample, as a naive widget would). Prints one JSON object; timing is
// reported, not judged (these machines are noisy); errors (samples lost, nothing painted, an
// append not shown) fail.
#include "models/insights/heatmap_math.h"
#include "widgets/insights/utilization_heatmap.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

using namespace studio::models;
using namespace studio::widgets;

namespace {

constexpr int kDevices = 64;
constexpr double kStart = 1700000000;
constexpr double kInterval = 0.5;
constexpr int kSamplesPerDevice = 2 * 3600 * 2; // 2 h at 500 ms
constexpr int kWidth = 1400;
constexpr int kHeight = 900;
constexpr double kGoalMs = 16;

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

double timeMs(const std::function<void()>& work) {
    QElapsedTimer t;
    t.start();
    work();
    return t.nsecsElapsed() / 1e6;
}

[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "bench_heatmap: %s\n", what);
    std::exit(1);
}

// Binning alone, into the plot's columns (best of three).
double timeBinning(const std::vector<HeatmapRow>& rows, qint64 total) {
    double binMs = 1e9;
    for (int k = 0; k < 3; ++k) {
        HeatmapGrid grid(kDevices, {kStart, kStart + (kSamplesPerDevice - 1) * kInterval, 1250});
        binMs = std::min(binMs, timeMs([&] {
                             for (int r = 0; r < kDevices; ++r)
                                 grid.addSeries(r, rows[r].samples);
                         }));
        qint64 binned = 0;
        for (int r = 0; r < kDevices; ++r)
            for (int c = 0; c < grid.axis().columns; ++c)
                binned += grid.cell(r, c).count;
        if (binned != total)
            fail("binning lost samples");
    }
    return binMs;
}

// Paints of the whole heatmap into the image, sorted.
std::vector<double> timePaints(UtilizationHeatmap& heatmap, QImage& target) {
    std::vector<double> paints;
    for (int k = 0; k < 15; ++k) {
        target.fill(Qt::white);
        paints.push_back(timeMs([&] { heatmap.render(&target); }));
    }
    std::sort(paints.begin(), paints.end());
    const QRgb middle = target.pixel(heatmap.plotRect().center());
    const QColor base = heatmap.palette().color(QPalette::Base);
    if (middle == base.rgb() || middle == qRgb(255, 255, 255))
        fail("nothing painted in the plot");
    return paints;
}

struct AppendTimes {
    double widenMs = 0;     // the first: the window doubles
    double medianMs = 0;    // the others
    double paintBestMs = 0; // a paint after an append
};

// Live: one new sample per device just past the end (the window doubles on the first).
AppendTimes timeLiveAppends(UtilizationHeatmap& heatmap, const std::vector<HeatmapRow>& rows,
                            QImage& target) {
    const double next = kStart + kSamplesPerDevice * kInterval;
    const int binnings = heatmap.fullBinnings();
    std::vector<double> appends;
    std::vector<double> appendPaints;
    for (int k = 0; k < 5; ++k) {
        appends.push_back(timeMs([&] {
            for (int r = 0; r < kDevices; ++r) {
                const HeatmapSample s{next + k * kInterval, 99};
                heatmap.appendSamples(rows[r].node, rows[r].device, {&s, 1});
            }
        }));
        appendPaints.push_back(timeMs([&] { heatmap.render(&target); }));
    }
    if (heatmap.dataTimeRange().second != next + 4 * kInterval)
        fail("live append not shown");
    if (heatmap.fullBinnings() != binnings)
        fail("a live append binned the history again");
    AppendTimes t;
    t.widenMs = appends.front();
    std::sort(appends.begin() + 1, appends.end());
    t.medianMs = appends[appends.size() / 2];
    t.paintBestMs = *std::min_element(appendPaints.begin(), appendPaints.end());
    return t;
}

// Anchor: a naive paint, one fillRect per sample.
double timeNaivePaint(const std::vector<HeatmapRow>& rows, const QRect& plot, QImage& target) {
    const double rowH = double(plot.height()) / kDevices;
    const double pxPerSecond = plot.width() / ((kSamplesPerDevice - 1) * kInterval);
    const ColorMap colors = ColorMap::viridis();
    return timeMs([&] {
        QPainter p(&target);
        for (int r = 0; r < kDevices; ++r)
            for (const HeatmapSample& s : rows[r].samples)
                p.fillRect(QRectF(plot.left() + (s.time - kStart) * pxPerSecond,
                                  plot.top() + r * rowH, std::max(1.0, kInterval * pxPerSecond),
                                  rowH),
                           QColor::fromRgb(colors.colorFor(s.value, 0, 100)));
    });
}

} // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);

    const std::vector<HeatmapRow> rows = makeRows();
    const qint64 total = qint64(kDevices) * kSamplesPerDevice;
    const double binMs = timeBinning(rows, total);

    UtilizationHeatmap heatmap;
    heatmap.resize(kWidth, kHeight);
    heatmap.show();
    const double setRowsMs = timeMs([&] { heatmap.setRows(rows); });
    QImage target(kWidth, kHeight, QImage::Format_ARGB32_Premultiplied);
    const std::vector<double> paints = timePaints(heatmap, target);
    const AppendTimes appends = timeLiveAppends(heatmap, rows, target);
    if (argc > 1) // a path: save what was painted, to look at
        target.save(QString::fromLocal8Bit(argv[1]));
    const QRect plot = heatmap.plotRect();
    const double naiveMs = timeNaivePaint(rows, plot, target);

    const double paintBest = paints.front();
    QJsonObject out{
        {QStringLiteral("bench"), QStringLiteral("heatmap")},
        {QStringLiteral("devices"), kDevices},
        {QStringLiteral("samples"), double(total)},
        {QStringLiteral("width"), kWidth},
        {QStringLiteral("height"), kHeight},
        {QStringLiteral("plot_columns"), plot.width()},
        {QStringLiteral("bin_ms"), binMs},
        {QStringLiteral("set_rows_ms"), setRowsMs},
        {QStringLiteral("paint_ms_best"), paintBest},
        {QStringLiteral("paint_ms_median"), paints[paints.size() / 2]},
        {QStringLiteral("append_64_samples_ms_median"), appends.medianMs},
        {QStringLiteral("append_with_window_doubling_ms"), appends.widenMs},
        {QStringLiteral("paint_after_append_ms_best"), appends.paintBestMs},
        {QStringLiteral("anchor_naive_paint_ms"), naiveMs},
        {QStringLiteral("goal_ms"), kGoalMs},
        {QStringLiteral("paint_vs_goal"), paintBest / kGoalMs},
        {QStringLiteral("naive_vs_prebinned_paint"), naiveMs / paintBest},
        {QStringLiteral("meets_goal"), paintBest <= kGoalMs},
    };
    std::printf("%s\n", QJsonDocument(out).toJson(QJsonDocument::Compact).constData());
    return 0;
}
