// The notebook kernel of the studio and `mlstudio nbrun`: a real Jupyter kernel process
// (ipykernel by default, any installed kernelspec on request) driven through engine/jupyter's
// KernelClient. It turns the protocol's messages into NotebookKernel's signals: a cell is done
// when its idle status and its execute_reply have both come; late outputs of a cell's
// background threads still reach it. The kernel starts and restarts on a thread of its own, so
// the GUI never waits for it; cells run before it is ready are queued. GUI-thread object;
// the client's callbacks are posted to it.
#pragma once

#include "engine/jupyter/kernel_client.h"
#include "models/notebook/notebook_kernel.h"

#include <QHash>
#include <QMap>
#include <QString>

#include <deque>
#include <memory>
#include <thread>

namespace studio::notebook {

struct KernelLaunch {
    // A kernelspec name ("python3"); empty: the default Python kernel.
    QString kernelName;
    // The kernel's working folder: the notebook's own.
    QString workingDir;
    // Added to the kernel's environment (kernel_environment.h's studioKernelEnvironment()).
    QMap<QString, QString> environment;
};

// Whether a kernelspec of this name is installed where Jupyter looks.
bool installedKernel(const QString& name);

class JupyterKernel : public models::NotebookKernel {
    Q_OBJECT
public:
    // Starts the kernel process at once (on its own thread); stateChanged(Idle) says it is
    // ready, died() that it could not start.
    explicit JupyterKernel(KernelLaunch options, QObject* parent = nullptr);
    // Shuts the kernel down as jupyter_client does (shutdown_request, then SIGTERM, SIGKILL)
    // and reaps it; its connection file is removed.
    ~JupyterKernel() override;

    QString displayName() const override;
    QJsonObject kernelspec() const override;
    QJsonObject languageInfo() const override;
    models::KernelState state() const override { return m_state; }
    bool busy() const override;
    void execute(const QString& cellId, const QString& source) override;
    void interrupt() override;
    void restart() override;
    void setWorkingDir(const QString& dir) override;
    int complete(const QString& code, int cursorPos) override;
    int inspect(const QString& code, int cursorPos) override;
    int isComplete(const QString& code) override;
    int history(int n) override;
    void sendInput(const QString& value) override;

    // The kernel process's id (0 while none runs), for tests and the status bar.
    int pid() const;
    // Whether the kernel aborts the cells queued behind one that fails (Jupyter's
    // stop_on_error; on by default, as in JupyterLab; nbrun --allow-errors turns it off).
    void setStopOnError(bool stop) { m_stopOnError = stop; }

private:
    struct Run {
        QString cellId;
        bool started = false;
        bool idle = false;
        bool replied = false;
        QString replyStatus;
    };
    struct Pending {
        int id = 0;
        QString type; // complete, inspect, is_complete, history
        QString code; // for position conversions
    };

    jupyter::KernelClient::Callbacks callbacks();
    void launch(bool restart);
    void onReady(bool restart);
    void onStartFailed(const QString& message);
    void onIopub(const jupyter::Message& message);
    void onShellReply(const jupyter::Message& message);
    void onStdin(const jupyter::Message& message);
    void onDied(int exitStatus, const QString& stderrTail);
    void onRequestReply(const Pending& pending, const jupyter::Message& message);
    void send(const QString& cellId, const QString& source);
    void moveKernelTo(const QString& dir);
    void finishIfDone(const std::string& msgId);
    void failAll(const QString& message, bool died);
    void setState(models::KernelState state);
    QString cellOf(const std::string& msgId) const;
    int sendRequest(const QString& type, const QString& code, const std::string& msgType,
                    const QJsonObject& content);

    KernelLaunch m_launch;
    QString m_startDir;  // the folder every kernel process of this notebook starts in
    QString m_kernelDir; // where the running kernel's working folder is
    std::unique_ptr<jupyter::KernelClient> m_client;
    std::thread m_starter; // start() and restart() block: they run here
    models::KernelState m_state = models::KernelState::Starting;
    QString m_displayName;
    QJsonObject m_kernelspec;
    QJsonObject m_languageInfo;
    std::deque<std::pair<QString, QString>> m_queued; // cells run before the kernel was ready
    std::map<std::string, Run> m_runs;                // by execute_request msg_id
    std::deque<std::string> m_runOrder;               // the order the kernel runs them in
    QHash<QString, QString> m_recentCells;            // msg_id → cell, for late outputs
    std::deque<QString> m_recentOrder;
    std::map<std::string, Pending> m_requests; // by msg_id
    int m_nextRequest = 1;
    QString m_inputCell;
    bool m_stopOnError = true;
};

} // namespace studio::notebook
