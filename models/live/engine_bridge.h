// The thin adapter between the embedded controller and Qt: it observes every job (callbacks on
// the jobs' threads), gathers what they report under a mutex and hands it to the GUI thread as one
// LiveBatch at most every interval (40 ms: ≤ 25 Hz), by a queued call. The GUI thread never
// waits on a job. Observer methods are thread-safe; the signal is emitted on the bridge's thread.
#pragma once

#include "engine/control/job_observer.h"
#include "models/live/live_batch.h"

#include <QObject>
#include <QTimer>

#include <mutex>

namespace studio::control {
class Controller;
}

namespace studio::models {

class EngineBridge : public QObject, public control::JobObserver {
    Q_OBJECT
public:
    // Registers itself with the controller, which must outlive the bridge.
    explicit EngineBridge(control::Controller& controller, QObject* parent = nullptr);
    ~EngineBridge() override;

    control::Controller& controller() const { return m_controller; }
    int intervalMs() const { return m_intervalMs; }
    // Lines kept between two batches; older ones are dropped and counted.
    static constexpr int kMaxPendingLogs = 20000;

    void jobStatus(const control::JobStatusUpdate& u) override;
    void jobEvent(const std::string& job, store::ComponentId id, const wire::Event& e) override;
    void jobNotification(const control::JobNotification& n) override;

Q_SIGNALS:
    void batchReady(const studio::models::LiveBatch& batch);

private:
    void schedule(); // any thread, with m_mutex held
    void flush();    // the bridge's thread

    control::Controller& m_controller;
    const int m_intervalMs = 40;
    QTimer m_timer;
    std::mutex m_mutex;
    LiveBatch m_pending;
    bool m_scheduled = false;
};

} // namespace studio::models
