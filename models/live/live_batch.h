// What the engine bridge hands the GUI thread at most every 40 ms: everything that happened in
// running jobs since the last batch, as plain Qt values.
#pragma once

#include <QList>
#include <QMetaType>
#include <QString>

namespace studio::models {

struct LiveStatus {
    QString job;
    qint64 id = 0;
    QString status;
    QString secondaryStatus;
    QString message;
    double time = 0;
};

struct LiveLogLine {
    QString job;
    int node = 0;
    int rank = -1;  // -1: the node's launcher
    QString stream; // "stdout", "stderr", "events"
    QString text;
    double time = 0;
};

struct LiveMetricPoint {
    QString job;
    QString name;
    qint64 step = 0;
    double time = 0;
    double value = 0;
    int rank = 0;
};

struct LiveStep {
    QString job;
    qint64 step = 0;
};

struct LiveNotification {
    QString job;
    QString rule;
    QString message;
    double time = 0;
};

struct LiveBatch {
    QList<LiveStatus> statuses;
    QList<LiveLogLine> logs;
    QList<LiveMetricPoint> metrics;
    QList<LiveStep> steps; // the newest step of each job that reported one
    QList<LiveNotification> notifications;
    qint64 droppedLogs = 0; // lines left out because the GUI fell behind

    bool empty() const {
        return statuses.isEmpty() && logs.isEmpty() && metrics.isEmpty() && steps.isEmpty() &&
               notifications.isEmpty() && droppedLogs == 0;
    }
};

} // namespace studio::models

Q_DECLARE_METATYPE(studio::models::LiveBatch)
