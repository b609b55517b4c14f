#include "models/live/engine_bridge.h"
#include "models/live/arm_timer.h"

#include "engine/control/controller.h"

#include <QMetaObject>

#include <variant>

namespace studio::models {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

} // namespace

EngineBridge::EngineBridge(control::Controller& controller, QObject* parent)
    : QObject(parent)
    , m_controller(controller) {
    m_timer.setSingleShot(true);
    m_timer.setInterval(m_intervalMs);
    connect(&m_timer, &QTimer::timeout, this, &EngineBridge::flush);
    m_controller.addObserver(this);
}

EngineBridge::~EngineBridge() {
    m_controller.removeObserver(this);
}

void EngineBridge::schedule() {
    if (m_scheduled)
        return;
    m_scheduled = true;
    armOnOwnThread(this, m_timer); // one batch per interval at most
}

void EngineBridge::jobStatus(const control::JobStatusUpdate& u) {
    std::lock_guard lock(m_mutex);
    m_pending.statuses.append(
        {qs(u.job), u.id, qs(u.status), qs(u.secondaryStatus), qs(u.message), u.time});
    schedule();
}

void EngineBridge::jobEvent(const std::string& job, store::ComponentId, const wire::Event& e) {
    if (const auto* log = e.as<wire::LogEvent>()) {
        std::lock_guard lock(m_mutex);
        if (m_pending.logs.size() >= kMaxPendingLogs) {
            m_pending.logs.removeFirst();
            ++m_pending.droppedLogs;
        }
        m_pending.logs.append({qs(job), e.node, e.rank,
                               QString::fromLatin1(wire::streamName(log->stream)), qs(log->text),
                               e.t});
        schedule();
    } else if (const auto* m = e.as<wire::MetricEvent>()) {
        std::lock_guard lock(m_mutex);
        m_pending.metrics.append({qs(job), qs(m->name), m->step, e.t, m->value, e.rank});
        schedule();
    } else if (const auto* s = e.as<wire::StepEvent>()) {
        if (e.rank > 0)
            return;
        std::lock_guard lock(m_mutex);
        const QString name = qs(job);
        for (auto& step : m_pending.steps)
            if (step.job == name) {
                step.step = std::max(step.step, static_cast<qint64>(s->step));
                return;
            }
        m_pending.steps.append({name, s->step});
        schedule();
    }
}

void EngineBridge::jobNotification(const control::JobNotification& n) {
    std::lock_guard lock(m_mutex);
    m_pending.notifications.append({qs(n.job), qs(n.rule), qs(n.message), n.time});
    schedule();
}

void EngineBridge::flush() {
    LiveBatch batch;
    {
        std::lock_guard lock(m_mutex);
        std::swap(batch, m_pending);
        m_scheduled = false;
    }
    if (!batch.empty())
        Q_EMIT batchReady(batch);
}

} // namespace studio::models
