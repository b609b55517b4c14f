#include "app/notebook/js_kernel.h"

#include "app/notebook/kernel_worker.h"

#include <QPointer>
#include <QThread>

#include <deque>
#include <utility>

namespace studio::notebook {

struct JsKernel::Impl {
    QThread thread;
    KernelWorker* worker = nullptr;
    std::deque<std::pair<QString, QString>> queue; // cells waiting: id, source
    QString running;                               // the cell the worker runs, "" when idle
    bool restartPending = false;
};

JsKernel::JsKernel(control::Controller& controller, KernelOptions options, QObject* parent)
    : JsKernel(controller, nullptr, std::move(options), parent) {
}

JsKernel::JsKernel(control::Controller& controller, control::Tuner& tuner, KernelOptions options,
                   QObject* parent)
    : JsKernel(controller, &tuner, std::move(options), parent) {
}

JsKernel::JsKernel(control::Controller& controller, control::Tuner* tuner, KernelOptions options,
                   QObject* parent)
    : NotebookKernel(parent)
    , d(std::make_unique<Impl>()) {
    d->thread.setObjectName(QStringLiteral("notebook-kernel"));
    d->worker = new KernelWorker(controller, tuner, std::move(options));
    d->worker->moveToThread(&d->thread);
    connect(&d->thread, &QThread::finished, d->worker, &QObject::deleteLater);
    connect(d->worker, &KernelWorker::started, this, &NotebookKernel::started);
    connect(d->worker, &KernelWorker::output, this, &NotebookKernel::output);
    connect(d->worker, &KernelWorker::outputUpdated, this, &NotebookKernel::outputUpdated);
    connect(d->worker, &KernelWorker::openRequested, this, &NotebookKernel::openRequested);
    connect(d->worker, &KernelWorker::restarted, this, &NotebookKernel::restarted);
    connect(d->worker, &KernelWorker::finished, this, [this](const QString& cellId, bool ok) {
        d->running.clear();
        Q_EMIT finished(cellId, ok);
        if (!ok) {
            auto dropped = std::exchange(d->queue, {});
            for (const auto& [id, source] : dropped)
                Q_EMIT cancelled(id);
        }
        if (d->restartPending) {
            d->restartPending = false;
            QMetaObject::invokeMethod(d->worker, &KernelWorker::reset, Qt::QueuedConnection);
        }
        if (d->running.isEmpty() && !d->queue.empty()) {
            auto [id, source] = d->queue.front();
            d->queue.pop_front();
            d->running = id;
            QMetaObject::invokeMethod(d->worker, "runCell", Qt::QueuedConnection,
                                      Q_ARG(QString, id), Q_ARG(QString, source));
        }
    });
    d->thread.start();
}

JsKernel::~JsKernel() {
    d->worker->interrupt();
    d->thread.quit();
    d->thread.wait();
}

QString JsKernel::displayName() const {
    return QStringLiteral("JavaScript (ML Studio)");
}

void JsKernel::execute(const QString& cellId, const QString& source) {
    if (!d->running.isEmpty() || d->restartPending) {
        d->queue.emplace_back(cellId, source);
        return;
    }
    d->running = cellId;
    QMetaObject::invokeMethod(d->worker, "runCell", Qt::QueuedConnection, Q_ARG(QString, cellId),
                              Q_ARG(QString, source));
}

void JsKernel::interrupt() {
    auto dropped = std::exchange(d->queue, {});
    for (const auto& [id, source] : dropped)
        Q_EMIT cancelled(id);
    if (!d->running.isEmpty())
        d->worker->interrupt();
}

void JsKernel::restart() {
    interrupt();
    if (!d->running.isEmpty()) {
        d->restartPending = true; // after the interrupted cell has returned
        return;
    }
    QMetaObject::invokeMethod(d->worker, &KernelWorker::reset, Qt::QueuedConnection);
}

bool JsKernel::busy() const {
    return !d->running.isEmpty() || !d->queue.empty();
}

void JsKernel::setWorkingDir(const QString& dir) {
    QMetaObject::invokeMethod(
        d->worker, [w = d->worker, dir] { w->setWorkingDir(dir); }, Qt::QueuedConnection);
}

} // namespace studio::notebook
