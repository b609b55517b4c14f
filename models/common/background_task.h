// The one helper widgets use to run work off the GUI thread: the work runs on Qt's global thread
// pool and returns a complete value, which reaches the receiver's thread by a queued call guarded
// by QPointer. A newer run() makes the results of older runs stale (they are dropped), and
// cancel() raises a flag the work may poll. Use from the receiver's thread only.
#pragma once

#include <QMetaObject>
#include <QObject>
#include <QPointer>
#include <QRunnable>
#include <QString>
#include <QThreadPool>

#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <optional>

namespace studio::models {

// Raised by cancel() or by a newer run(); long work checks it between pieces.
class CancelFlag {
public:
    CancelFlag(std::shared_ptr<std::atomic<quint64>> generation, quint64 mine)
        : m_generation(std::move(generation))
        , m_mine(mine) {}
    bool cancelled() const { return m_generation->load() != m_mine; }

private:
    std::shared_ptr<std::atomic<quint64>> m_generation;
    quint64 m_mine;
};

template <typename T>
class BackgroundTask {
public:
    explicit BackgroundTask(QObject* receiver)
        : m_receiver(receiver) {}
    ~BackgroundTask() { cancel(); }
    BackgroundTask(const BackgroundTask&) = delete;
    BackgroundTask& operator=(const BackgroundTask&) = delete;

    // done (or failed, with the exception's message) runs on the receiver's thread, only if the
    // receiver still exists and no newer run() or cancel() came in between.
    void run(std::function<T(const CancelFlag&)> work, std::function<void(T)> done,
             std::function<void(const QString&)> failed = {}) {
        const quint64 mine = ++*m_generation;
        ++*m_pending;
        auto generation = m_generation;
        auto pending = m_pending;
        QPointer<QObject> receiver = m_receiver;
        QThreadPool::globalInstance()->start([=, work = std::move(work), done = std::move(done),
                                              failed = std::move(failed)]() mutable {
            CancelFlag flag(generation, mine);
            std::optional<T> value;
            QString error;
            try {
                if (!flag.cancelled())
                    value.emplace(work(flag));
            } catch (const std::exception& e) {
                error = QString::fromUtf8(e.what());
            }
            --*pending;
            if (flag.cancelled() || !receiver)
                return;
            QMetaObject::invokeMethod(
                receiver.data(),
                [=, value = std::move(value), done = std::move(done),
                 failed = std::move(failed)]() mutable {
                    if (!receiver || generation->load() != mine)
                        return;
                    if (value)
                        done(std::move(*value));
                    else if (failed)
                        failed(error);
                },
                Qt::QueuedConnection);
        });
    }

    void cancel() { ++*m_generation; }
    // Whether some run's work has not returned yet (stale ones included).
    bool busy() const { return m_pending->load() > 0; }

private:
    QPointer<QObject> m_receiver;
    std::shared_ptr<std::atomic<quint64>> m_generation = std::make_shared<std::atomic<quint64>>(0);
    std::shared_ptr<std::atomic<int>> m_pending = std::make_shared<std::atomic<int>>(0);
};

} // namespace studio::models
