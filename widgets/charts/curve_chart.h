// A learning-curve chart on Qt Charts: named series of {step, time, value}, x by step, relative
// time or wall time, TensorBoard-style smoothing (strong smoothed line over a faint raw one),
// optional log y, legend, a hover readout of the nearest points, rubber-band zoom (double-click
// resets). It always draws min/max/last-decimated data for its plot width and visible x range,
// so a million points redraw quickly. Updates are batched: every setter and appendPoints()
// schedule one redraw ~40 ms later. GUI thread only.
#pragma once

#include "models/charts/chart_math.h"
#include "widgets/common/described_widget.h"

#include <QList>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <memory>
#include <optional>

class QAbstractAxis;
class QChart;
class QTimer;

namespace studio::widgets {

class CurveChart : public QWidget, public Describable {
    Q_OBJECT

public:
    QString describe() const override; // for screen readers (Describable)
    explicit CurveChart(QWidget* parent = nullptr);
    ~CurveChart() override;

    // Replaces every series (names unique: appendPoints() finds series by name; an invalid
    // colour becomes seriesColor(index)); resets the zoom.
    void setSeries(const QList<models::CurveSeries>& series);
    // Live data: appends points (in step order) to a series, creating it when new; the redraw
    // comes with the next batch, never once per point.
    void appendPoints(const QString& series, const QList<models::CurvePoint>& points);
    void clear();

    void setXAxisMode(models::XAxisMode mode); // resets the zoom
    models::XAxisMode xAxisMode() const { return m_xMode; }
    // EMA weight as TensorBoard's slider, clamped to [0, 0.999]; 0 draws the raw lines only.
    void setSmoothing(double weight);
    double smoothing() const { return m_smoothing; }
    void setTitle(const QString& title);
    QString title() const;
    void setYAxisTitle(const QString& title);
    // Log scale hides values <= 0 (counted in the chart's note); resets the y zoom.
    void setLogY(bool on);
    bool logY() const { return m_logY; }
    void setLegendVisible(bool visible);

    // Zoom to an x range (in the current axis' units: steps, seconds or unix seconds; for
    // relative time the axis unit is relativeTimeUnitInUse()), y fitted to what is visible.
    // Zoom changes redraw at once (they follow the user's hand).
    void zoomToX(double xMin, double xMax);
    void resetZoom();
    bool isZoomed() const { return m_zoom.has_value(); }

    int seriesCount() const;
    QStringList seriesNames() const;
    // The points a series holds (recorded and appended, drawn or not); 0 for an unknown series.
    qsizetype pointCount(const QString& series) const;
    // The points drawn now for a series (after decimation), raw or smoothed line, in axis units.
    QList<QPointF> drawnPoints(const QString& series, bool smoothed) const;
    // The visible x range in axis units.
    QPointF visibleXRange() const;
    models::TimeUnit relativeTimeUnitInUse() const { return m_relativeUnit; }
    // NaN/Inf values (and values <= 0 on log y) not drawn, over every series.
    qsizetype hiddenValueCount() const;

    // Applies pending changes and redraws now instead of at the next batch.
    void redrawNow();

Q_SIGNALS:
    void zoomChanged(bool zoomed);
    // After each redraw of the series' data (batched).
    void redrawn();

protected:
    void changeEvent(QEvent* event) override;

private:
    class View;
    struct Line;
    struct HoverRow {
        QString name;
        QColor color;
        double value = 0;
        double smoothed = 0;
        qint64 step = 0;
    };
    struct Hover {
        QPointF position;  // in the view
        double x = 0;      // axis units of the nearest point over all lines
        double crossX = 0; // that x in the view
        QString xLabel;
        QList<HoverRow> rows;
        QList<QPointF> markers; // nearest points, in view coordinates
        QList<QColor> markerColors;
    };

    void scheduleRedraw();
    void applyPending();
    void recomputeLine(Line& line);
    void extendLine(Line& line, qsizetype from);
    void rebuild();
    void ensureSeries();
    void styleAxis(QAbstractAxis* axis);
    void applyTicks(QAbstractAxis* axis, double min, double max,
                    const QList<models::AxisTick>& ticks);
    void updatePens();
    void updateLegend();
    void applyPalette();
    void replaceYAxis();
    QString formatX(double x) const;
    QString xAxisTitle() const;
    void setZoom(std::optional<QRectF> zoom);
    void zoomToViewRect(const QRectF& viewRect);
    std::optional<Hover> hoverAt(QPointF viewPos) const;
    bool hasData() const;
    // What the chart says over the plot about values it does not draw; "" when none.
    QString noteText() const;

    View* m_view = nullptr;    // child widget
    QChart* m_chart = nullptr; // owned by the view
    QAbstractAxis* m_xAxis = nullptr;
    QAbstractAxis* m_yAxis = nullptr;
    QTimer* m_timer = nullptr;
    std::vector<std::unique_ptr<Line>> m_lines;
    models::XAxisMode m_xMode = models::XAxisMode::Step;
    double m_smoothing = 0.6;
    bool m_logY = false;
    bool m_legendVisible = true;
    bool m_needsRecompute = false;
    QString m_yTitle;
    std::optional<QRectF> m_zoom; // x and y ranges in axis units (y ignored when not zoomedY)
    bool m_zoomY = false;
    QPointF m_visibleX{0, 1};
    models::TimeUnit m_relativeUnit;
    double m_lastPlotWidth = 0;
};

} // namespace studio::widgets
