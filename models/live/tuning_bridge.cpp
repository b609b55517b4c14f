#include "models/live/tuning_bridge.h"
#include "models/live/arm_timer.h"

#include <QMetaObject>

namespace studio::models {

TuningBridge::TuningBridge(control::Tuner& tuner, QObject* parent)
    : QObject(parent)
    , m_tuner(tuner) {
    qRegisterMetaType<TuningUpdate>();
    m_timer.setSingleShot(true);
    m_timer.setInterval(40);
    connect(&m_timer, &QTimer::timeout, this, &TuningBridge::flush);
    m_tuner.addObserver(this);
}

TuningBridge::~TuningBridge() {
    m_tuner.removeObserver(this);
}

void TuningBridge::tuningProgress(const control::TuningProgress& p) {
    std::lock_guard lock(m_mutex);
    m_pending[p.name] = p;
    if (m_scheduled)
        return;
    m_scheduled = true;
    armOnOwnThread(this, m_timer);
}

void TuningBridge::flush() {
    std::map<std::string, control::TuningProgress> pending;
    {
        std::lock_guard lock(m_mutex);
        pending.swap(m_pending);
        m_scheduled = false;
    }
    for (const auto& [name, p] : pending)
        Q_EMIT progressed({QString::fromStdString(p.name), QString::fromStdString(p.status),
                           QString::fromStdString(p.message), p.maxJobs, p.counters, p.best,
                           QString::fromStdString(p.bestJob)});
}

} // namespace studio::models
