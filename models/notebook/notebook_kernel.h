// What a notebook runs its code cells on: a kernel keeps one persistent context, runs cells one
// at a time in the order given and reports their outputs (nbformat output objects) by signals.
// The studio's kernel is app/notebook's JsKernel (JavaScript in a QJSEngine on its own thread);
// views and `mlstudio nbrun` only see this interface. Methods are called on the thread the kernel
// belongs to (the GUI thread); signals arrive there.
#pragma once

#include <QJsonObject>
#include <QObject>
#include <QString>

namespace studio::models {

class NotebookKernel : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    ~NotebookKernel() override = default;

    // A display name: "JavaScript (ML Studio)".
    virtual QString displayName() const = 0;
    // Queues a cell; started() comes when it begins, finished() when it ends.
    virtual void execute(const QString& cellId, const QString& source) = 0;
    // Stops the running cell (the jobs it started go on running) and cancels the queued ones.
    virtual void interrupt() = 0;
    // A fresh context: variables are gone and execution counts start again at 1; running jobs
    // go on. Queued cells are cancelled.
    virtual void restart() = 0;
    // A cell runs or waits.
    virtual bool busy() const = 0;
    // The folder relative paths in cells resolve against (the notebook's, after a Save as).
    virtual void setWorkingDir(const QString& dir) = 0;

Q_SIGNALS:
    void started(const QString& cellId, int executionCount);
    // An nbformat output object (stream, display_data, execute_result, error) for the cell.
    void output(const QString& cellId, const QJsonObject& output);
    // Replaces the cell's output with this display id (NotebookDocument::updateDisplay).
    void outputUpdated(const QString& cellId, const QString& displayId, const QJsonObject& output);
    // ok is false after an error or an interrupt.
    void finished(const QString& cellId, bool ok);
    // A queued cell that will not run (an earlier cell failed, or interrupt/restart).
    void cancelled(const QString& cellId);
    void restarted();
    // Notebook code asks the studio to show something: what is "insights", "logs" or "job".
    void openRequested(const QString& what, const QString& job);
};

} // namespace studio::models
