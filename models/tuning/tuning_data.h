// A tuning job as its tab shows it, read from the store in one go (off the GUI thread): the
// tuning job's row, the ranges of its spec, and each training job with its hyperparameters
// (numbers parsed, categories as text), objective, outcome and intermediate values.
// loadTuningJob is thread-compatible (the caller's reader, or one of its own); the values are
// plain.
#pragma once

#include "engine/store/tuning_records.h"
#include "models/tuning/tuning_math.h"

#include <QList>
#include <QPointF>
#include <QString>
#include <QStringList>

#include <vector>

namespace studio::store {
class StoreReader;
}

namespace studio::models {

struct TuningTrial {
    int ordinal = 0;
    qint64 component = 0;
    QString job;
    QStringList values;          // per range, as passed to the job ("" when missing)
    std::vector<double> numbers; // per range: the value as a number (NaN: categorical, missing)
    double objective = 0;        // NaN when the job reported none
    QString state;               // Pending, Completed, Stopped, Failed (the search's view)
    QString status;              // the training job's own status
    bool stoppedEarly = false;
    QString stopReason;
    double created = 0;
    double ended = 0;            // 0 while it runs
    QList<QPointF> intermediate; // (epoch from 1, objective) per reported value

    bool failed() const { return state == QLatin1String("Failed"); }
    bool completed() const { return state == QLatin1String("Completed"); }
    bool running() const { return state == QLatin1String("Pending"); }
};

struct TuningJobData {
    store::TuningJobRow job;
    std::vector<TuningRange> ranges;
    std::vector<TuningTrial> trials; // launch order

    bool maximize() const { return job.objectiveType != "Minimize"; }
    // Objectives in launch order (NaN where missing), for the math.
    std::vector<double> objectives() const;
    // The same, NaN except for jobs that completed: a job stopped early reports a value from
    // before its end, not comparable with final ones (importance, slices and parallel
    // coordinates count completed jobs only, as optuna-dashboard's do).
    std::vector<double> finalObjectives() const;
    // A range's numbers (or values) over the trials.
    std::vector<double> numbers(std::size_t range) const;
    QStringList values(std::size_t range) const;
};

// Reads a tuning job by name; throws std::runtime_error when the database cannot be read or has
// no such tuning job.
TuningJobData loadTuningJob(store::StoreReader& reader, const QString& name);
TuningJobData loadTuningJob(const QString& databasePath, const QString& name);

// Assembles the data from store rows (loadTuningJob's second half; tests and benches use it).
TuningJobData
tuningJobData(store::TuningJobRow job, const std::vector<store::TuningTrainingJobRow>& rows,
              const std::map<store::ComponentId, std::vector<store::MetricPoint>>& curves);

} // namespace studio::models
