// What a notebook runs its code cells on: a Jupyter kernel process (app/notebook's JupyterKernel)
// that keeps one persistent namespace, runs cells in the order given and reports their outputs
// as nbformat output objects by signals. Views and `mlstudio nbrun` only see this interface.
// Methods are called on the thread the kernel belongs to (the GUI thread); signals arrive there.
#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QStringList>

namespace studio::models {

enum class KernelState { Starting, Idle, Busy, Restarting, Dead };

// "starting", "idle", "busy", "restarting", "dead".
QString kernelStateName(KernelState state);

class NotebookKernel : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    ~NotebookKernel() override = default;

    // The kernelspec's display name: "Python 3 (ipykernel)".
    virtual QString displayName() const = 0;
    // nbformat's metadata.kernelspec ({name, display_name, language}) of the running kernel.
    virtual QJsonObject kernelspec() const = 0;
    // metadata.language_info from the kernel's kernel_info_reply ({} until it is known).
    virtual QJsonObject languageInfo() const = 0;
    virtual KernelState state() const = 0;
    // A cell runs or waits to run.
    virtual bool busy() const = 0;

    // Queues a cell; started() comes when it begins, finished() or cancelled() when it ends.
    virtual void execute(const QString& cellId, const QString& source) = 0;
    // Interrupts the running cell (KeyboardInterrupt); the kernel cancels the queued ones.
    virtual void interrupt() = 0;
    // A fresh kernel process: variables are gone and execution counts start again at 1; the
    // notebook's cells and outputs stay. Running and queued cells are cancelled.
    virtual void restart() = 0;
    // The kernel's working folder (the notebook's, after a Save as).
    virtual void setWorkingDir(const QString& dir) = 0;

    // Requests the kernel answers by a signal with the returned id (0: not sent, the kernel is
    // not running). Positions are Qt's (UTF-16) indices into code.
    virtual int complete(const QString& code, int cursorPos) = 0;
    virtual int inspect(const QString& code, int cursorPos) = 0;
    virtual int isComplete(const QString& code) = 0;
    // The last n inputs of this kernel's history.
    virtual int history(int n) = 0;
    // Answers the kernel's inputRequested (Python's input()).
    virtual void sendInput(const QString& value) = 0;

Q_SIGNALS:
    void started(const QString& cellId, int executionCount);
    // An nbformat output object (stream, display_data, execute_result, error) for the cell;
    // displayId is the Jupyter display id the output may later be updated by ("" when none).
    void output(const QString& cellId, const QJsonObject& output, const QString& displayId);
    // update_display_data: every output shown with this display id, in any cell, becomes this.
    void displayUpdated(const QString& displayId, const QJsonObject& output);
    // clear_output: wait means at the cell's next output.
    void outputCleared(const QString& cellId, bool wait);
    // ok is false after an error, an interrupt or the kernel's death.
    void finished(const QString& cellId, bool ok);
    // A queued cell that will not run (an earlier cell failed, an interrupt or a restart).
    void cancelled(const QString& cellId);
    void stateChanged(studio::models::KernelState state);
    void restarted();
    // The kernel process ended on its own (or could not start): message says how, with its
    // last stderr lines; cellId is the cell that was running ("" when none).
    void died(const QString& cellId, const QString& message);
    // Python's input() in the running cell; answer with sendInput().
    void inputRequested(const QString& cellId, const QString& prompt, bool password);
    // Replies: matches replace code[start, end) (UTF-16 indices).
    void completed(int requestId, const QStringList& matches, int start, int end);
    // The object under the cursor's documentation as plain text (ANSI escapes removed).
    void inspected(int requestId, bool found, const QString& text);
    // "complete", "incomplete" (indent: what the next line starts with), "invalid", "unknown".
    void completenessChecked(int requestId, const QString& status, const QString& indent);
    // [[session, line, input], ...].
    void historyReceived(int requestId, const QJsonArray& history);
};

} // namespace studio::models
