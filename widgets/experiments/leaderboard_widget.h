// LeaderboardWidget: every job as a sortable, filterable table of its parameters and metric
// summaries (like a W&B runs table or SageMaker Studio's trial components list), with a filter
// bar, a column chooser, CSV export, compare and clone actions, and a side panel that edits the
// selected job's tags and notes through the studio's one StoreWriter. GUI thread only.
#pragma once

#include "models/common/background_task.h"
#include "models/experiments/leaderboard_table.h"

#include <QList>
#include <QWidget>

class QLabel;
class QLayout;
class QLineEdit;
class QPushButton;
class QTableView;
class QTimer;
class QToolButton;

namespace studio::store {
class StoreWriter;
}

namespace studio::models {
class DataService;
class LeaderboardModel;
} // namespace studio::models

namespace studio::widgets {

class ColumnChooser;
class JobDetailsPanel;
class LeaderboardColumns;

class LeaderboardWidget : public QWidget {
    Q_OBJECT
public:
    // writer may be null: tags and notes are then read-only. The widget loads at once, through
    // the data service.
    LeaderboardWidget(models::DataService* service, store::StoreWriter* writer,
                      QWidget* parent = nullptr);
    ~LeaderboardWidget() override;

    // Rows of one experiment or one of its trials; empty strings: all jobs.
    void setScope(const QString& experiment, const QString& trial);
    // Applies a filter now (the filter bar applies typing after a short pause); false and the
    // message under the bar when it does not parse (the table keeps the last valid filter).
    bool setFilterText(const QString& text);
    // CSV of what the table shows: filtered rows in their order, shown columns in header order.
    bool exportCsv(const QString& path, QString* error = nullptr) const;

    void selectComponent(qint64 componentId);
    QList<qint64> selectedComponentIds() const; // in table order
    void setColumnVisible(const QString& title, bool visible);
    bool isColumnVisible(const QString& title) const;
    bool loading() const { return m_loading; } // a load runs whose result has not arrived

    models::LeaderboardModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }

public Q_SLOTS:
    void refresh();
    void exportCsvWithDialog();

Q_SIGNALS:
    void openJobRequested(const QString& jobName);
    void compareRequested(const QList<qint64>& componentIds);
    void cloneRequested(const QString& jobName);
    // "Open Debugger for insights": the job's Insights dashboard.
    void insightsRequested(const QString& jobName);
    void scopeChanged(const QString& experiment, const QString& trial);
    void loaded(int jobs);
    void loadFailed(const QString& message);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void buildUi();
    void buildTable();
    QWidget* buildFilterBar();
    QLayout* buildQueryRow(QWidget* bar);
    QLayout* buildScopeRow(QWidget* bar);
    void connectUi();
    void showHeaderMenu(const QPoint& pos);
    void applyTable(models::LeaderboardTable table);
    void applyFilterFromBar();
    void showFilterError(const QString& message);
    void updateCounts();
    void updateSelection();
    void updateScopeLabel();
    void placeEmptyLabel();
    void showContextMenu(const QPoint& pos);
    void saveAnnotations(qint64 id, const QMap<QString, QString>& tags, const QString& notes);

    models::DataService* m_service;
    store::StoreWriter* m_writer;
    models::LeaderboardModel* m_model;
    models::BackgroundTask<models::LeaderboardTable> m_task;
    bool m_firstLoad = true;
    bool m_loading = false;
    QString m_loadError;

    LeaderboardColumns* m_layout = nullptr;
    QLineEdit* m_filter = nullptr;
    QLabel* m_filterError = nullptr;
    QTimer* m_filterTimer = nullptr;
    ColumnChooser* m_columns = nullptr;
    QPushButton* m_compare = nullptr;
    QToolButton* m_export = nullptr;
    QToolButton* m_refresh = nullptr;
    QToolButton* m_detailsToggle = nullptr;
    QLabel* m_scope = nullptr;
    QToolButton* m_clearScope = nullptr;
    QLabel* m_counts = nullptr;
    QTableView* m_view = nullptr;
    QLabel* m_empty = nullptr;
    JobDetailsPanel* m_details = nullptr;
};

} // namespace studio::widgets
