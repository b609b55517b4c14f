// A tuning job's tab: the header (status, counters, best job, Stop), then Overview (the
// objective per training job with the best so far, intermediate values of every job,
// hyperparameter importance and the slice of the most important one), Training jobs (the
// sortable table; activating a row opens the training job), Parallel coordinates (coloured by
// the objective) and Slices (objective against each hyperparameter). Reads the store
// through the data service; reloads on the service's refresh ticks while the tuning job runs and
// soon after each progress report. GUI thread only.
#pragma once

#include "models/common/background_task.h"
#include "models/tuning/tuning_data.h"

#include <QTimer>
#include <QWidget>

class QComboBox;
class QGridLayout;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;

namespace studio::models {
class DataService;
class TuningTrialsModel;
} // namespace studio::models

namespace studio::widgets {

class ImportanceChart;
struct HyperparameterImportance;
class ParallelCoordinatesPlot;
class TuningHeader;
class TuningPlot;

class TuningView : public QWidget {
    Q_OBJECT
public:
    TuningView(models::DataService* service, QString name, QWidget* parent = nullptr);

    const QString& name() const { return m_name; }
    QString status() const;
    bool loaded() const { return m_loaded; }
    const models::TuningJobData& jobData() const { return m_data; }
    // Whether this studio's tuner runs the tuning job (Stop is possible).
    void setStoppable(bool stoppable);
    // Reads the store again now; progressReported() does so soon (coalesced).
    void reload();
    void progressReported();

    TuningHeader* header() const { return m_header; }
    QTabWidget* tabs() const { return m_tabs; }
    QTableView* table() const { return m_table; }
    models::TuningTrialsModel* trials() const { return m_model; }
    TuningPlot* history() const { return m_history; }
    TuningPlot* intermediate() const { return m_intermediate; }
    ImportanceChart* importance() const { return m_importance; }
    ParallelCoordinatesPlot* parallel() const { return m_parallel; }
    QList<TuningPlot*> slices() const { return m_slices; }
    TuningPlot* topSlice() const { return m_topSlice; }

Q_SIGNALS:
    void stopRequested(const QString& name);
    void openJobRequested(const QString& job);
    void dataLoaded();
    void loadFailed(const QString& message);

private:
    QWidget* buildOverview();
    QWidget* buildJobs();
    QWidget* buildSlices();
    void present(models::TuningJobData data);
    void drawHistory();
    void drawSlices();
    void drawTopSlice(const QList<HyperparameterImportance>& ranked);
    void openOrdinal(int ordinal);

    models::DataService* m_service;
    QString m_name;
    bool m_loaded = false;
    models::TuningJobData m_data;
    models::BackgroundTask<models::TuningJobData> m_task{this};
    QTimer m_soon;

    TuningHeader* m_header = nullptr;
    QTabWidget* m_tabs = nullptr;
    QComboBox* m_historyAxis = nullptr;
    TuningPlot* m_history = nullptr;
    TuningPlot* m_intermediate = nullptr;
    ImportanceChart* m_importance = nullptr;
    TuningPlot* m_topSlice = nullptr;
    ParallelCoordinatesPlot* m_parallel = nullptr;
    models::TuningTrialsModel* m_model = nullptr;
    QSortFilterProxyModel* m_sorted = nullptr;
    QTableView* m_table = nullptr;
    QGridLayout* m_sliceGrid = nullptr;
    QList<TuningPlot*> m_slices;
};

} // namespace studio::widgets
