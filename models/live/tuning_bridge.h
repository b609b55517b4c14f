// The tuner's side of the engine bridge: TuningObserver callbacks (on tuning jobs' threads) keep
// the latest progress of each tuning job under a mutex and reach the GUI thread as a queued
// signal, one per tuning job that moved, at most every 40 ms. The GUI thread never waits on a
// tuning job. The observer method is thread-safe; the signal is emitted on the bridge's thread.
#pragma once

#include "engine/control/tuner.h"

#include <QMetaType>
#include <QObject>
#include <QString>
#include <QTimer>

#include <map>
#include <mutex>
#include <optional>

namespace studio::models {

// A tuning job's progress as the GUI sees it.
struct TuningUpdate {
    QString name;
    QString status;
    QString message;
    int maxJobs = 0;
    store::TuningCounters counters;
    std::optional<double> best;
    QString bestJob;
};

class TuningBridge : public QObject, public control::TuningObserver {
    Q_OBJECT
public:
    // Registers itself with the tuner, which must outlive the bridge.
    explicit TuningBridge(control::Tuner& tuner, QObject* parent = nullptr);
    ~TuningBridge() override;

    control::Tuner& tuner() const { return m_tuner; }
    void tuningProgress(const control::TuningProgress& p) override;

Q_SIGNALS:
    void progressed(const studio::models::TuningUpdate& update);

private:
    void flush(); // the bridge's thread

    control::Tuner& m_tuner;
    QTimer m_timer;
    std::mutex m_mutex;
    std::map<std::string, control::TuningProgress> m_pending;
    bool m_scheduled = false;
};

} // namespace studio::models

Q_DECLARE_METATYPE(studio::models::TuningUpdate)
