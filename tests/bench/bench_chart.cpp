// CurveChart redraw benchmark: a 1,000,000-point learning curve at 1200x500 (offscreen).
// Measures the full redraw (decimation for the plot width, series update, layout and the
// widget's paint, best of 10), decimation and smoothing alone, a live append, and as anchor
// Qt Charts painting raw points without decimation (100,000 of them, scaled per point to a
// million). Prints one JSON object; timing is reported, not judged (these machines are noisy);
// errors (nothing drawn, nothing painted, too many points) fail.
#include "models/charts/chart_math.h"
#include "widgets/charts/curve_chart.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QElapsedTimer>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineSeries>
#include <QPainter>
#include <QValueAxis>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>

using namespace studio::models;
using namespace studio::widgets;

namespace {

constexpr int kPoints = 1000000;
constexpr int kWidth = 1200;
constexpr int kHeight = 500;
constexpr double kGoalMs = 30;

QList<CurvePoint> makeCurve(int n, quint32 seed) {
    QList<CurvePoint> points;
    points.reserve(n);
    for (int i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        const double noise = ((seed >> 8) / double(1 << 24) - 0.5) * 0.3;
        const double loss = 2.3 * std::exp(-i / (n / 6.0)) + 0.15 + noise;
        points.append(CurvePoint{i, 1.7e9 + i * 0.05, i % 250000 == 12345 ? 4.0 : loss});
    }
    return points;
}

double bestOf(int runs, const std::function<void()>& work) {
    double best = std::numeric_limits<double>::infinity();
    for (int r = 0; r < runs; ++r) {
        QElapsedTimer t;
        t.start();
        work();
        best = std::min(best, t.nsecsElapsed() / 1e6);
    }
    return best;
}

// Counts paint events of the widget it filters.
class PaintCounter : public QObject {
public:
    int count = 0;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::Paint)
            ++count;
        return QObject::eventFilter(watched, event);
    }
};

[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "bench_chart: %s\n", what);
    std::exit(1);
}

struct RedrawTimes {
    double redrawMs = 0;
    double redrawGrabMs = 0;
    double paintOnlyMs = 0;
    double redrawRawMs = 0;
    double redrawZoomedMs = 0;
    qsizetype rawPoints = 0;
    qsizetype smoothedPoints = 0;
};

// A redraw as the app sees it: decimate for the plot width, update the series, then the event
// loop's deferred layout and the paint of the widget.
void redraw(CurveChart& chart) {
    chart.redrawNow();
    QApplication::processEvents();
}

// Full redraws (smoothing on: raw faint + smoothed lines), with a render into an image (what a
// screenshot costs), the paint alone, without smoothing and zoomed in.
RedrawTimes timeRedraws(CurveChart& chart) {
    // Paints of the chart's view: a redraw must reach the screen (offscreen backing store).
    auto* view = chart.findChild<QChartView*>();
    if (!view)
        fail("the chart has no QChartView");
    PaintCounter paints;
    view->viewport()->installEventFilter(&paints);
    RedrawTimes t;
    t.redrawMs = bestOf(10, [&] { redraw(chart); });
    if (paints.count < 10)
        fail("redraws did not repaint the chart");
    t.rawPoints = chart.drawnPoints(QStringLiteral("job"), false).size();
    t.smoothedPoints = chart.drawnPoints(QStringLiteral("job"), true).size();
    if (t.rawPoints == 0 || t.smoothedPoints == 0)
        fail("the chart drew nothing");
    if (t.rawPoints > 3 * kWidth + 2)
        fail("the chart drew more points than 3 per pixel column");

    QImage image(chart.size(), QImage::Format_ARGB32_Premultiplied);
    t.redrawGrabMs = bestOf(10, [&] {
        redraw(chart);
        image.fill(Qt::transparent);
        QPainter p(&image);
        chart.render(&p);
    });
    if (image.isNull() || image.pixel(kWidth / 2, kHeight / 2) == 0)
        fail("the chart painted nothing");
    t.paintOnlyMs = bestOf(10, [&] { view->viewport()->repaint(); });

    chart.setSmoothing(0);
    redraw(chart);
    t.redrawRawMs = bestOf(10, [&] { redraw(chart); });

    chart.setSmoothing(0.6);
    chart.zoomToX(kPoints * 0.45, kPoints * 0.55);
    redraw(chart);
    t.redrawZoomedMs = bestOf(10, [&] { redraw(chart); });
    chart.resetZoom();
    view->viewport()->removeEventFilter(&paints);
    return t;
}

// Live: 1000 new points appended, then the batched redraw (mapping and EMA over all points).
double timeAppends(CurveChart& chart) {
    qint64 nextStep = kPoints;
    return bestOf(5, [&] {
        QList<CurvePoint> more;
        for (int i = 0; i < 1000; ++i, ++nextStep)
            more.append(CurvePoint{nextStep, 1.7e9 + nextStep * 0.05, 0.2});
        chart.appendPoints(QStringLiteral("job"), more);
        redraw(chart);
    });
}

struct MathTimes {
    double decimateMs = 0;
    double emaMs = 0;
};

// The math alone.
MathTimes timeMath(const std::vector<double>& x, const std::vector<double>& y) {
    MathTimes t;
    Decimation d;
    t.decimateMs = bestOf(10, [&] { d = decimateMinMaxLast(x, y, 0, kPoints - 1, kWidth); });
    if (d.points.size() > 3 * kWidth + 2 || d.points.size() < kWidth)
        fail("decimation returned an unexpected number of points");
    std::vector<double> s;
    t.emaMs = bestOf(5, [&] { s = smoothEma(y, 0.6); });
    return t;
}

// Anchor: Qt Charts painting raw points without decimation, 100,000 of them (a million takes
// seconds).
constexpr int kAnchorPoints = 100000;

double timeUndecimatedAnchor(const std::vector<double>& x, const std::vector<double>& y) {
    QChartView anchorView;
    auto* anchorChart = new QChart;
    anchorChart->setAnimationOptions(QChart::NoAnimation);
    anchorView.setChart(anchorChart);
    anchorView.setRenderHint(QPainter::Antialiasing);
    anchorView.resize(kWidth, kHeight);
    auto* series = new QLineSeries;
    QList<QPointF> all;
    all.reserve(kAnchorPoints);
    for (int i = 0; i < kAnchorPoints; ++i)
        all.append(QPointF(x[i], y[i]));
    anchorChart->addSeries(series);
    anchorChart->createDefaultAxes();
    anchorView.show();
    QApplication::processEvents();
    return bestOf(2, [&] {
        series->replace(all);
        QApplication::processEvents();
        anchorView.viewport()->repaint();
    });
}

} // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);

    const QList<CurvePoint> curve = makeCurve(kPoints, 7);
    CurveChart chart;
    chart.resize(kWidth, kHeight);
    chart.setTitle(QStringLiteral("train:loss"));
    chart.setSeries({CurveSeries{QStringLiteral("job"), QColor(), curve}});
    chart.show();
    QApplication::processEvents();
    redraw(chart);

    const RedrawTimes redraws = timeRedraws(chart);
    const double appendMs = timeAppends(chart);
    const std::vector<double> x = mapX(XAxisMode::Step, curve);
    std::vector<double> y(curve.size());
    for (qsizetype i = 0; i < curve.size(); ++i)
        y[i] = curve[i].value;
    const MathTimes math = timeMath(x, y);
    const double anchorMs = timeUndecimatedAnchor(x, y);
    const double anchorPerMillionMs = anchorMs * (double(kPoints) / kAnchorPoints); // per point

    QJsonObject out;
    out.insert(QStringLiteral("bench"), QStringLiteral("chart"));
    out.insert(QStringLiteral("points"), kPoints);
    out.insert(QStringLiteral("width"), kWidth);
    out.insert(QStringLiteral("height"), kHeight);
    out.insert(QStringLiteral("drawn_points_raw"), redraws.rawPoints);
    out.insert(QStringLiteral("drawn_points_smoothed"), redraws.smoothedPoints);
    out.insert(QStringLiteral("redraw_ms"), redraws.redrawMs);
    out.insert(QStringLiteral("redraw_and_render_image_ms"), redraws.redrawGrabMs);
    out.insert(QStringLiteral("redraw_no_smoothing_ms"), redraws.redrawRawMs);
    out.insert(QStringLiteral("redraw_zoomed_ms"), redraws.redrawZoomedMs);
    out.insert(QStringLiteral("paint_only_ms"), redraws.paintOnlyMs);
    out.insert(QStringLiteral("append_1000_and_redraw_ms"), appendMs);
    out.insert(QStringLiteral("decimate_ms"), math.decimateMs);
    out.insert(QStringLiteral("ema_ms"), math.emaMs);
    out.insert(QStringLiteral("goal_ms"), kGoalMs);
    out.insert(QStringLiteral("redraw_vs_goal"), redraws.redrawMs / kGoalMs);
    out.insert(QStringLiteral("meets_goal"), redraws.redrawMs <= kGoalMs);
    out.insert(QStringLiteral("anchor_undecimated_100k_ms"), anchorMs);
    out.insert(QStringLiteral("anchor_undecimated_per_1M_ms"), anchorPerMillionMs);
    out.insert(QStringLiteral("speedup_vs_undecimated"), anchorPerMillionMs / redraws.redrawMs);
    std::printf("%s\n", QJsonDocument(out).toJson(QJsonDocument::Compact).constData());
    return 0;
}
