// Compare 2 to 50 jobs (trial components): their learning curves overlaid (metric, x axis,
// smoothing, log scale), a parameter diff table, a parallel-coordinates plot of parameters
// against a metric summary, and what differs in what ran (code with its lines, packages: what
// `mlstudio diff` prints). Loading runs through the data service, off the GUI thread; the
// widgets get complete values. GUI thread only.
#pragma once

#include "models/charts/compare_data.h"
#include "models/common/background_task.h"

#include <QHash>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QLayout;
class QSlider;
class QSplitter;
class QTableView;
class QTabWidget;

namespace studio::models {
class DataService;
class DifferingRowsFilter;
class ParameterDiffModel;
} // namespace studio::models

namespace studio::widgets {

class CurveChart;
class ParallelCoordinatesPlot;

class CompareView : public QWidget {
    Q_OBJECT

public:
    explicit CompareView(models::DataService* service, QWidget* parent = nullptr);
    ~CompareView() override;

    // Loads the jobs (component ids, 2 to 50) in the background; loaded() or loadFailed()
    // follows, then curvesLoaded() for the first metric.
    void setJobs(const QList<qint64>& componentIds);
    // Loads the same jobs again (after new data arrived), keeping the chosen metric.
    void reload();

    const models::CompareData& compareData() const { return m_data; }
    bool isLoading() const { return m_loading || m_loadingCurves; }

    // The metric the curves show; loads its points in the background when not cached.
    void setMetric(const QString& metric);
    QString metric() const { return m_metric; }
    void setXAxisMode(models::XAxisMode mode);
    void setSmoothing(double weight); // 0 to 0.99, as the slider
    // The metric summary the parallel-coordinates plot colours by.
    void setSummary(const QString& metric, models::SummaryStatistic statistic);

    CurveChart* curveChart() const { return m_chart; }
    models::ParameterDiffModel* parameterModel() const { return m_diffModel; }
    models::DifferingRowsFilter* parameterFilter() const { return m_diffFilter; }
    ParallelCoordinatesPlot* parallelPlot() const { return m_parallel; }
    QPlainTextEdit* whatRan() const { return m_whatRan; }

Q_SIGNALS:
    void loaded();
    void curvesLoaded(const QString& metric);
    void loadFailed(const QString& message);

private:
    void buildUi();
    QLayout* buildControls();
    QWidget* buildParametersPage();
    QWidget* buildParallelPage();
    void connectUi();
    void applyData(models::CompareData data);
    void showCurves(const QString& metric, const QList<models::CurveSeries>& series);
    void showError(const QString& message);
    void updateParallel();
    void updateDiffSummary();
    void updateStatus();

    models::DataService* m_service;
    QList<qint64> m_ids;
    models::CompareData m_data;
    QString m_metric;
    QHash<QString, QList<models::CurveSeries>> m_curves; // metric -> series, for the loaded jobs
    bool m_loading = false;
    bool m_loadingCurves = false;
    models::BackgroundTask<models::CompareData> m_loadTask{this};
    models::BackgroundTask<QList<models::CurveSeries>> m_curveTask{this};

    QLabel* m_error = nullptr;
    QLabel* m_status = nullptr;
    QComboBox* m_metricBox = nullptr;
    QComboBox* m_xAxisBox = nullptr;
    QSlider* m_smoothingSlider = nullptr;
    QLabel* m_smoothingLabel = nullptr;
    QCheckBox* m_logY = nullptr;
    CurveChart* m_chart = nullptr;
    QTabWidget* m_tabs = nullptr;
    QPlainTextEdit* m_whatRan = nullptr;
    QCheckBox* m_onlyDiffering = nullptr;
    QLabel* m_diffSummary = nullptr;
    QTableView* m_table = nullptr;
    models::ParameterDiffModel* m_diffModel = nullptr;
    models::DifferingRowsFilter* m_diffFilter = nullptr;
    QComboBox* m_summaryMetricBox = nullptr;
    QComboBox* m_summaryStatisticBox = nullptr;
    ParallelCoordinatesPlot* m_parallel = nullptr;
};

} // namespace studio::widgets
