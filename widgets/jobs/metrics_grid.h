// A job's metrics as a grid of learning-curve charts, one per metric family ("loss" holds
// train:loss and eval:loss, as TensorBoard groups by name), with a shared x-axis choice and
// smoothing slider. Live points are appended as they arrive. GUI thread only.
#pragma once

#include "engine/store/records.h"
#include "models/live/live_batch.h"

#include <QHash>
#include <QWidget>

#include <map>
#include <string>
#include <vector>

class QComboBox;
class QGridLayout;
class QLabel;
class QSlider;

namespace studio::widgets {

class CurveChart;

class MetricsGrid : public QWidget {
    Q_OBJECT
public:
    explicit MetricsGrid(QWidget* parent = nullptr);

    // Replaces every chart's data with a job's recorded points.
    void setMetrics(const std::map<std::string, std::vector<store::MetricPoint>>& metrics);
    void appendPoints(const QList<models::LiveMetricPoint>& points);
    // "loss" for "train:loss", "eval/loss" or "loss".
    static QString familyOf(const QString& metric);
    // The smoothing new grids start with (Settings → Chart smoothing), 0 … 0.99.
    static void setDefaultSmoothing(double weight);
    static double defaultSmoothing();
    QStringList families() const;
    CurveChart* chart(const QString& family) const { return m_charts.value(family); }

private:
    CurveChart* chartFor(const QString& family);
    void relayout();

    QComboBox* m_xAxis;
    QSlider* m_smoothing;
    QLabel* m_smoothingValue;
    QLabel* m_empty;
    QGridLayout* m_grid;
    QHash<QString, CurveChart*> m_charts;
};

} // namespace studio::widgets
