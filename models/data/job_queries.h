// What the job views read from the store, as plain values built on a worker thread: a job's tab
// (its detail, metric series and log files), a notebook's job card (status, loss curve, total
// steps) and the findings of recent jobs. Thread-compatible: each call uses the caller's reader.
#pragma once

#include "engine/store/records.h"
#include "models/jobs/findings_model.h"
#include "models/live/live_batch.h"

#include <QList>
#include <QMap>
#include <QString>

#include <map>
#include <string>
#include <vector>

namespace studio::store {
class StoreReader;
}

namespace studio::models {

class CancelFlag;

// A job's tab.
struct JobData {
    store::ComponentDetail detail;
    std::map<std::string, std::vector<store::MetricPoint>> metrics; // every series, by name
    QList<LiveLogLine> logs; // the log files' lines by time; empty unless asked for
};

// Throws std::runtime_error when the store has no such job; stops reading series when
// cancelled.
JobData loadJobData(store::StoreReader& reader, const std::string& job, bool withLogs,
                    const CancelFlag& cancel);

// What the store says about a job when its notebook card opens or after it ends.
struct JobCardSnapshot {
    bool found = false;
    QString status;
    QString secondaryStatus;
    QString message;
    QString lossMetric;
    QMap<qint64, double> loss; // step -> value
    qint64 total = -1;         // the max-steps hyperparameter (a bound); -1 when unknown
};

// found stays false for a job the store does not hold (yet).
JobCardSnapshot loadJobCard(store::StoreReader& reader, const std::string& job);

// The findings of the newest `jobs` jobs, newest finding first, each marked when its rule
// notified about its job; stops early when cancelled.
std::vector<FindingItem> loadRecentFindings(store::StoreReader& reader, std::size_t jobs,
                                            const CancelFlag& cancel);

// The built-in trainer's training loss ("train:loss"); a script's metric definitions may name it
// otherwise: then the first metric that looksLikeLoss (a loss that is not eval, valid or test).
bool isTrainLoss(const QString& metric);
bool looksLikeLoss(const QString& metric);

} // namespace studio::models
