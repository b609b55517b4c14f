// The Tuning explorer's list: every tuning job in the store, newest first, with its status,
// strategy, training jobs done of max_jobs and best objective. Loads through the data service
// (again when it says jobs changed: a training job's end moves the counters); progress reported
// by the tuner updates a row at once. GUI thread only.
#pragma once

#include "engine/store/tuning_records.h"
#include "models/common/background_task.h"

#include <QAbstractTableModel>
#include <QTimer>

#include <optional>
#include <vector>

namespace studio::models {

class DataService;

class TuningJobListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NameColumn, StatusColumn, StrategyColumn, JobsColumn, BestColumn, ColumnCount };
    enum Role { NameRole = Qt::UserRole + 1, StatusRole, SortRole };

    explicit TuningJobListModel(DataService* data, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

    // Reloads from the store (coalesced: at most one load every 300 ms).
    void refresh();
    // A tuning job's progress as its runner reports it; an unknown name triggers a reload.
    void applyProgress(const QString& name, const QString& status,
                       const store::TuningCounters& counters, std::optional<double> best,
                       const QString& bestJob);
    int rowOf(const QString& name) const;
    const store::TuningJobRow& row(int r) const { return m_rows[std::size_t(r)]; }
    // Whether a load is under way or waiting.
    bool loading() const { return m_task.busy() || m_coalesce.isActive(); }

Q_SIGNALS:
    void loaded();

private:
    void load();
    void setRows(std::vector<store::TuningJobRow> rows);

    DataService* m_service;
    std::vector<store::TuningJobRow> m_rows;
    BackgroundTask<std::vector<store::TuningJobRow>> m_task{this};
    QTimer m_coalesce;
};

// "12 / 40" jobs ended of max_jobs, with the running ones: "12 / 40 (+3)".
QString tuningJobsText(const store::TuningCounters& c, int maxJobs);
// The best objective as the lists show it ("0.9132"); "-" for none.
QString objectiveText(std::optional<double> value);

} // namespace studio::models
