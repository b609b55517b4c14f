// A tuning job's notebook card as plain values: what its kTuningMimeType payload says (a
// notebook reopened where the store does not hold the tuning job) or what the store says (live),
// and where the bars of its training jobs' objectives go. Plain values and functions; any
// thread.
#pragma once

#include <QJsonObject>
#include <QRectF>
#include <QString>
#include <QVector>

#include <limits>
#include <optional>

namespace studio::models {

struct TuningJobData;

struct TuningCardJob {
    QString job;
    double objective = std::numeric_limits<double>::quiet_NaN(); // NaN: none reported
    QString status;
    bool stoppedEarly = false;
};

struct TuningCardSummary {
    QString tuning;
    QString status; // InProgress, Completed, Failed, Stopping, Stopped
    QString statusMessage;
    QString objectiveName;
    bool maximize = true;
    int maxJobs = 0;
    int done = 0; // training jobs that ended (completed, stopped, stopped early or failed)
    int inProgress = 0;
    int stoppedEarly = 0;
    int failed = 0;
    QString bestJob;
    std::optional<double> bestObjective;
    QVector<TuningCardJob> jobs; // launch order

    // Neither InProgress nor Stopping (an empty status is a tuning job not started yet).
    bool ended() const;
    // "12/40 training jobs done (3 running), 2 stopped early, 1 failed".
    QString progressText() const;
    // The objectives in launch order, NaN where a job reported none.
    QVector<double> objectives() const;

    // From the payload the SDK displays ({"tuning", "status", "max_jobs", "done", "best_job",
    // "best_objective", "objective": {"name", "type"}, "jobs": [...]}); counts the payload
    // leaves out are counted from its jobs.
    static TuningCardSummary fromPayload(const QJsonObject& payload);
    // From the store's rows (DataService::tuningJob).
    static TuningCardSummary fromData(const TuningJobData& data);
};

// One bar per objective in area, left to right in launch order with a gap between bars. A bar's
// height is the objective's place between the lowest and the highest (the lowest keeps a sliver
// of 15% so it still shows; all equal: full height); a missing objective gets a flat rect on the
// bottom edge.
QVector<QRectF> objectiveBars(const QVector<double>& objectives, const QRectF& area);

} // namespace studio::models
