// Arming a bridge's flush timer from an engine thread: the timer lives on the bridge's thread, so
// it is started there, by a queued call.
#pragma once

#include <QMetaObject>
#include <QObject>
#include <QTimer>

namespace studio::models {

inline void armOnOwnThread(QObject* owner, QTimer& timer) {
    QMetaObject::invokeMethod(
        owner,
        [&timer] {
            if (!timer.isActive())
                timer.start();
        },
        Qt::QueuedConnection);
}

} // namespace studio::models
