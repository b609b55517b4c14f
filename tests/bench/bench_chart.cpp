// Learning-curve chart: a 1,000,000-point curve redrawn at 1200x500 (offscreen). Our CurveChart
// decimates to min/max/last per pixel column and redraws; the anchor is Qt Charts drawing the same
// 1,000,000 points undecimated (one QLineSeries, antialiased like ours, the same size), and, where
// the platform gives an OpenGL context, the same series with setUseOpenGL(true). A redraw on
// every side is: hand the series its data, then the event loop's layout and the view's paint (a
// paint forced when the loop did not deliver one). Rounds interleave the sides; best of each.
// Figures: redraw with smoothing (our default look: faint raw line plus smoothed line; goal
// <= 30 ms) and without (one raw line, the same work as the anchor's), both against the anchor;
// then redraw plus a render into an image, the paint alone, a zoomed redraw, a live append, and
// the decimation and smoothing math alone.
//
// Usage: bench_chart [--quick] [--json FILE] [anchor points]
//        (quick: 2 rounds and a 100,000-point anchor, said in its figures; full: 5 rounds, 1M)
#include "models/charts/chart_math.h"
#include "tests/bench/bench_support.h"
#include "widgets/charts/curve_chart.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QImage>
#include <QLineSeries>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QOpenGLWidget>
#include <QPainter>

#include <array>
#include <cmath>
#include <memory>

using namespace studio;
using namespace studio::models;
using namespace studio::widgets;

namespace {

constexpr int kPoints = 1000000;
constexpr int kWidth = 1200;
constexpr int kHeight = 500;
constexpr double kGoalMs = 30;
constexpr double kMs = 1e3;

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

// One chart view under test: how to hand it its data again, and its painted viewport.
struct Side {
    QWidget* viewport = nullptr;
    PaintCounter paints;
    bench::Samples redraws = bench::lowerIsBetter();

    void watch(QWidget* v) {
        viewport = v;
        viewport->installEventFilter(&paints);
    }
    // Times one redraw: `update` hands over the data, then layout and paint.
    template <class Update>
    void redraw(Update&& update) {
        redraws.add(bench::timeSeconds([&] {
            const int before = paints.count;
            update();
            QApplication::processEvents();
            if (paints.count == before)
                viewport->repaint();
        }));
    }
};

// Qt Charts with every point of the curve: one antialiased line series, no decimation.
struct UndecimatedChart {
    QChartView view;
    QLineSeries* series = new QLineSeries;
    QList<QPointF> points;

    UndecimatedChart(const std::vector<double>& x, const std::vector<double>& y, int n,
                     bool openGl) {
        auto* chart = new QChart;
        chart->setAnimationOptions(QChart::NoAnimation);
        view.setChart(chart);
        view.setRenderHint(QPainter::Antialiasing);
        view.resize(kWidth, kHeight);
        series->setUseOpenGL(openGl);
        series->setPen(QPen(QColor(0x1f, 0x77, 0xb4), 1.6)); // our raw line's width
        points.reserve(n);
        for (int i = 0; i < n; ++i)
            points.append(QPointF(x[i], y[i]));
        series->replace(points);
        chart->addSeries(series);
        chart->createDefaultAxes();
        view.show();
        QApplication::processEvents();
    }
    // Frames an OpenGL series drew in its own widget (read back, so that the drawing is done).
    int glFrames = 0;

    void update() {
        series->replace(points);
        if (auto* gl = view.findChild<QOpenGLWidget*>())
            glFrames += gl->grabFramebuffer().isNull() ? 0 : 1;
    }
};

// Whether this platform gives Qt Charts an OpenGL context, and if not, why.
bench::Json openGlSupport() {
    const std::string platform = QGuiApplication::platformName().toStdString();
    QOpenGLContext context;
    if (!context.create())
        return {{"available", false},
                {"why", "QOpenGLContext::create() failed on the '" + platform + "' platform"}};
    QOffscreenSurface surface;
    surface.setFormat(context.format());
    surface.create();
    if (!surface.isValid())
        return {{"available", false},
                {"why", "no valid QOffscreenSurface on the '" + platform + "' platform"}};
    if (!context.makeCurrent(&surface))
        return {{"available", false}, {"why", "the OpenGL context cannot be made current"}};
    const auto* renderer = context.functions()->glGetString(GL_RENDERER);
    bench::Json j = {{"available", true},
                     {"platform", platform},
                     {"renderer", renderer ? reinterpret_cast<const char*>(renderer) : ""}};
    context.doneCurrent();
    return j;
}

CurveChart* makeChart(const QList<CurvePoint>& curve, double smoothing) {
    auto* chart = new CurveChart;
    chart->resize(kWidth, kHeight);
    chart->setTitle(QStringLiteral("train:loss"));
    chart->setSmoothing(smoothing);
    chart->setSeries({CurveSeries{QStringLiteral("job"), QColor(), curve}});
    chart->show();
    QApplication::processEvents();
    chart->redrawNow();
    return chart;
}

QWidget* chartViewport(CurveChart& chart) {
    auto* view = chart.findChild<QChartView*>();
    return view ? view->viewport() : nullptr;
}

// Single-chart figures: redraw plus a render into an image, the paint alone, a zoomed redraw,
// a live append of 1000 points with its redraw. Changes the chart (zoom reset, points added).
void reportOtherRedraws(CurveChart& chart, QWidget* viewport, int runs, bench::Report& report) {
    auto redraw = [&] {
        chart.redrawNow();
        QApplication::processEvents();
    };
    QImage image(chart.size(), QImage::Format_ARGB32_Premultiplied);
    bench::Samples grab = bench::lowerIsBetter(), paint = bench::lowerIsBetter(),
                   zoomed = bench::lowerIsBetter(), append = bench::lowerIsBetter();
    for (int i = 0; i < runs; ++i)
        grab.add(bench::timeSeconds([&] {
            redraw();
            image.fill(Qt::transparent);
            QPainter p(&image);
            chart.render(&p);
        }));
    report.check(!image.isNull() && image.pixel(kWidth / 2, kHeight / 2) != 0,
                 "the chart renders into an image");
    for (int i = 0; i < runs; ++i)
        paint.add(bench::timeSeconds([&] { viewport->repaint(); }));
    chart.zoomToX(kPoints * 0.45, kPoints * 0.55);
    for (int i = 0; i < runs; ++i)
        zoomed.add(bench::timeSeconds(redraw));
    chart.resetZoom();
    qint64 next = kPoints;
    for (int i = 0; i < std::min(runs, 5); ++i) {
        QList<CurvePoint> more;
        for (int k = 0; k < 1000; ++k, ++next)
            more.append(CurvePoint{next, 1.7e9 + next * 0.05, 0.2});
        append.add(bench::timeSeconds([&] {
            chart.appendPoints(QStringLiteral("job"), more);
            redraw();
        }));
    }
    report.check(chart.visibleXRange().y() == double(next - 1), "appended points are drawn");
    const std::string best = "best of " + std::to_string(runs);
    report.figure({"curve redraw and render into an image, 1M points", "ms", grab.best() * kMs,
                   std::nullopt, "", std::nullopt, best});
    report.figure({"curve paint only, 1M points decimated", "ms", paint.best() * kMs, std::nullopt,
                   "", std::nullopt, best});
    report.figure({"curve redraw zoomed to 10% of 1M points", "ms", zoomed.best() * kMs,
                   std::nullopt, "", std::nullopt, best});
    report.figure({"curve live append of 1000 points and redraw, 1M points", "ms",
                   append.best() * kMs, std::nullopt, "", std::nullopt,
                   "best of " + std::to_string(std::min(runs, 5))});
}

// The math alone: decimation for the plot width and the EMA over every point.
void reportMath(const std::vector<double>& x, const std::vector<double>& y, int runs,
                bench::Report& report) {
    Decimation d;
    bench::Samples decimate = bench::lowerIsBetter(), ema = bench::lowerIsBetter();
    for (int i = 0; i < runs; ++i)
        decimate.add(
            bench::timeSeconds([&] { d = decimateMinMaxLast(x, y, 0, kPoints - 1, kWidth); }));
    report.check(d.points.size() <= 3 * kWidth + 2 && d.points.size() >= kWidth,
                 "decimation keeps 1 to 3 points per pixel column");
    std::vector<double> s;
    for (int i = 0; i < runs; ++i)
        ema.add(bench::timeSeconds([&] { s = smoothEma(y, 0.6); }));
    report.check(s.size() == y.size(), "smoothing keeps every point");
    report.figure({"decimation of 1M points to 1200 columns", "ms", decimate.best() * kMs,
                   std::nullopt, "", std::nullopt, ""});
    report.figure(
        {"EMA smoothing of 1M points", "ms", ema.best() * kMs, std::nullopt, "", std::nullopt, ""});
}

// The note on figures whose anchor drew fewer points than ours (quick mode).
std::string anchorNoteFor(int anchorPoints) {
    if (anchorPoints == kPoints)
        return {};
    return "; the anchor drew " + std::to_string(anchorPoints) +
           " points, not 1M (quick mode): the ratio understates it";
}

// The sizes and every side's samples: ours smoothed, ours raw, the undecimated anchor, and the
// OpenGL anchor when there was one.
void recordDetails(bench::Json& d, int anchorPoints, qsizetype drawn,
                   const std::array<const Side*, 3>& sides, const Side* openGl) {
    d["points"] = kPoints;
    d["anchor_points"] = anchorPoints;
    d["width"] = kWidth;
    d["height"] = kHeight;
    d["drawn_points_raw"] = drawn;
    d["redraw_smoothed_ms"] = sides[0]->redraws.json(kMs);
    d["redraw_raw_ms"] = sides[1]->redraws.json(kMs);
    d["anchor_undecimated_ms"] = sides[2]->redraws.json(kMs);
    if (openGl)
        d["anchor_opengl_ms"] = openGl->redraws.json(kMs);
}

} // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const bench::Options options = bench::Options::parse(argc, argv);
    const int rounds = options.quick ? 2 : 5;
    const int anchorPoints = std::clamp(options.pick(0, 100000, kPoints), 1000, kPoints);
    const std::string anchorNote = anchorNoteFor(anchorPoints);
    bench::Report report("bench_chart", options);
    const std::string qt = std::string("Qt ") + qVersion();
    report.anchor({"qt charts undecimated",
                   "Qt Charts QLineSeries with every point (QPainter, "
                   "antialiased, pen 1.6 px)",
                   qt, 1, "none", "",
                   "redraw a 1M-point curve at 1200x500: set the data, lay out, paint"});

    const QList<CurvePoint> curve = makeCurve(kPoints, 7);
    const std::vector<double> x = mapX(XAxisMode::Step, curve);
    std::vector<double> y(curve.size());
    for (qsizetype i = 0; i < curve.size(); ++i)
        y[i] = curve[i].value;

    std::unique_ptr<CurveChart> smooth(makeChart(curve, 0.6)), raw(makeChart(curve, 0));
    Side oursSmooth, oursRaw, anchor, openGl;
    oursSmooth.watch(chartViewport(*smooth));
    oursRaw.watch(chartViewport(*raw));
    UndecimatedChart undecimated(x, y, anchorPoints, false);
    anchor.watch(undecimated.view.viewport());
    const bench::Json gl = openGlSupport();
    std::unique_ptr<UndecimatedChart> glChart;
    if (gl["available"] == true) {
        report.anchor({"qt charts opengl", "the same QLineSeries with setUseOpenGL(true)", qt, 1,
                       "none", "", "as the undecimated anchor; its frame read back to finish"});
        glChart = std::make_unique<UndecimatedChart>(x, y, anchorPoints, true);
        openGl.watch(glChart->view.viewport());
    }
    report.details()["opengl"] = gl;

    std::vector<std::function<void(int)>> sides = {
        [&](int) { oursSmooth.redraw([&] { smooth->redrawNow(); }); },
        [&](int) { oursRaw.redraw([&] { raw->redrawNow(); }); },
        [&](int) {
            anchor.redraw([&] { undecimated.update(); });
        }};
    if (glChart)
        sides.push_back([&](int) { openGl.redraw([&] { glChart->update(); }); });
    bench::interleave(rounds, sides);

    report.check(oursSmooth.paints.count >= rounds && oursRaw.paints.count >= rounds,
                 "every redraw of ours painted its view");
    report.check(anchor.paints.count >= rounds, "every redraw of the anchor painted its view");
    const qsizetype drawn = smooth->drawnPoints(QStringLiteral("job"), false).size();
    report.check(drawn > 0 && smooth->drawnPoints(QStringLiteral("job"), true).size() > 0,
                 "the chart drew its raw and smoothed lines");
    report.check(drawn <= 3 * kWidth + 2, "the chart drew at most 3 points per pixel column");
    report.check(undecimated.series->count() == anchorPoints, "the anchor holds every point");
    if (glChart)
        report.check(glChart->glFrames >= rounds, "the OpenGL anchor drew every frame with GL");

    const std::string best = "best of " + std::to_string(rounds) + ", interleaved";
    report.figure({"curve redraw, 1M points, smoothing on (raw and smoothed lines)", "ms",
                   oursSmooth.redraws.best() * kMs, anchor.redraws.best() * kMs,
                   "qt charts undecimated", bench::Goal::valueAtMost(kGoalMs),
                   best + "; ours draws two lines, the anchor one" + anchorNote});
    report.figure({"curve redraw, 1M points, one raw line", "ms", oursRaw.redraws.best() * kMs,
                   anchor.redraws.best() * kMs, "qt charts undecimated", std::nullopt,
                   best + anchorNote});
    if (glChart)
        report.figure({"curve redraw, 1M points, one raw line, against OpenGL", "ms",
                       oursRaw.redraws.best() * kMs, openGl.redraws.best() * kMs,
                       "qt charts opengl", std::nullopt,
                       best + "; the anchor's frame is read back" + anchorNote});

    reportOtherRedraws(*smooth, oursSmooth.viewport, options.quick ? 3 : 10, report);
    reportMath(x, y, options.quick ? 3 : 10, report);

    recordDetails(report.details(), anchorPoints, drawn, {&oursSmooth, &oursRaw, &anchor},
                  glChart ? &openGl : nullptr);
    return report.finish();
}
