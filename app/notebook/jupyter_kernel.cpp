#include "app/notebook/jupyter_kernel.h"

#include "app/notebook/kernel_messages.h"
#include "engine/jupyter/kernel_client.h"
#include "engine/jupyter/kernelspec.h"
#include "models/notebook/ansi_text.h"

#include <QLoggingCategory>
#include <QPointer>

#include <exception>

Q_LOGGING_CATEGORY(lcKernel, "mlstudio.kernel", QtInfoMsg)

namespace studio::notebook {

namespace {

using models::KernelState;

// How many finished executions still take late outputs (a cell's background threads).
constexpr int kRecentCells = 256;

std::string u8(const QString& s) {
    return s.toStdString();
}

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

jupyter::KernelSpec chooseSpec(const QString& name) {
    if (name.isEmpty())
        return jupyter::defaultKernelSpec();
    if (auto spec = jupyter::findKernelSpec(u8(name)))
        return *spec;
    throw std::runtime_error("no Jupyter kernelspec named \"" + u8(name) +
                             "\" is installed (jupyter kernelspec list shows those there are)");
}

} // namespace

bool installedKernel(const QString& name) {
    return !name.isEmpty() && jupyter::findKernelSpec(u8(name)).has_value();
}

JupyterKernel::JupyterKernel(KernelLaunch options, QObject* parent)
    : NotebookKernel(parent)
    , m_launch(std::move(options)) {
    try {
        const jupyter::KernelSpec spec = chooseSpec(m_launch.kernelName);
        m_displayName = qs(spec.displayName);
        m_kernelspec = QJsonObject{{QStringLiteral("name"), qs(spec.name)},
                                   {QStringLiteral("display_name"), qs(spec.displayName)},
                                   {QStringLiteral("language"), qs(spec.language)}};
        jupyter::KernelClient::Options options;
        options.spec = resolveInterpreter(spec);
        options.workingDir = u8(m_launch.workingDir);
        m_startDir = m_launch.workingDir;
        for (auto it = m_launch.environment.cbegin(); it != m_launch.environment.cend(); ++it)
            options.env[u8(it.key())] = u8(it.value());
        m_client = std::make_unique<jupyter::KernelClient>(std::move(options), callbacks());
    } catch (const std::exception& e) {
        m_displayName = m_launch.kernelName.isEmpty() ? tr("Python 3") : m_launch.kernelName;
        const QString message = QString::fromUtf8(e.what());
        QMetaObject::invokeMethod(
            this, [this, message] { onStartFailed(message); }, Qt::QueuedConnection);
        return;
    }
    launch(false);
}

JupyterKernel::~JupyterKernel() {
    if (m_starter.joinable())
        m_starter.join();
    // The client's destructor shuts the kernel down and joins its I/O thread; callbacks it
    // posts meanwhile are dropped with this object.
    m_client.reset();
}

jupyter::KernelClient::Callbacks JupyterKernel::callbacks() {
    QPointer<JupyterKernel> self(this);
    jupyter::KernelClient::Callbacks c;
    // Each message is copied into the posted call: the I/O thread's reference ends with it.
    c.iopub = [self](const jupyter::Message& m) {
        if (self)
            QMetaObject::invokeMethod(
                self, [self, m] { self->onIopub(m); }, Qt::QueuedConnection);
    };
    c.shellReply = [self](const jupyter::Message& m) {
        if (self)
            QMetaObject::invokeMethod(
                self, [self, m] { self->onShellReply(m); }, Qt::QueuedConnection);
    };
    c.stdinRequest = [self](const jupyter::Message& m) {
        if (self)
            QMetaObject::invokeMethod(
                self, [self, m] { self->onStdin(m); }, Qt::QueuedConnection);
    };
    c.died = [self](int status, const std::string& tail) {
        const QString text = qs(tail);
        if (self)
            QMetaObject::invokeMethod(
                self, [self, status, text] { self->onDied(status, text); }, Qt::QueuedConnection);
    };
    // The kernel's own stderr is for debugging (ipykernel echoes there what it also sends to
    // the cell); protocol problems, such as a message refused for its signature, are warnings.
    c.log = [](const std::string& line) {
        if (line.rfind("kernel stderr:", 0) == 0)
            qCDebug(lcKernel, "%s", line.c_str());
        else
            qCWarning(lcKernel, "%s", line.c_str());
    };
    return c;
}

void JupyterKernel::launch(bool restart) {
    if (m_starter.joinable())
        m_starter.join();
    setState(restart ? KernelState::Restarting : KernelState::Starting);
    QPointer<JupyterKernel> self(this);
    jupyter::KernelClient* client = m_client.get();
    m_starter = std::thread([self, client, restart] {
        QString error;
        try {
            if (restart)
                client->restart();
            else
                client->start();
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        }
        // The object outlives this thread (its destructor joins it), so the pointer is valid
        // for the call; the posted lambda runs on the object's thread later.
        QMetaObject::invokeMethod(
            self,
            [self, error, restart] {
                if (!self)
                    return;
                if (error.isEmpty())
                    self->onReady(restart);
                else
                    self->onStartFailed(error);
            },
            Qt::QueuedConnection);
    });
}

void JupyterKernel::onReady(bool restart) {
    m_languageInfo = languageInfoOf(m_client->kernelInfo());
    setState(KernelState::Idle);
    m_kernelDir = m_startDir; // a new process starts where the first one did
    if (m_launch.workingDir != m_kernelDir)
        moveKernelTo(m_launch.workingDir);
    if (restart)
        Q_EMIT restarted();
    while (!m_queued.empty()) {
        auto [cell, source] = m_queued.front();
        m_queued.pop_front();
        send(cell, source);
    }
}

void JupyterKernel::onStartFailed(const QString& message) {
    const QString text = tr("The kernel could not start: %1").arg(message);
    setState(KernelState::Dead);
    const QString cell = m_queued.empty() ? QString() : m_queued.front().first;
    if (!cell.isEmpty()) {
        Q_EMIT output(cell, deadKernelOutput(text), QString());
        Q_EMIT finished(cell, false);
        m_queued.pop_front();
    }
    for (const auto& [queued, source] : m_queued)
        Q_EMIT cancelled(queued);
    m_queued.clear();
    Q_EMIT died(cell, text);
}

QString JupyterKernel::displayName() const {
    return m_displayName;
}

QJsonObject JupyterKernel::kernelspec() const {
    return m_kernelspec;
}

QJsonObject JupyterKernel::languageInfo() const {
    return m_languageInfo;
}

bool JupyterKernel::busy() const {
    return !m_runs.empty() || !m_queued.empty();
}

int JupyterKernel::pid() const {
    return m_client && m_client->alive() ? m_client->pid() : 0;
}

void JupyterKernel::setState(KernelState state) {
    if (m_state == state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

void JupyterKernel::execute(const QString& cellId, const QString& source) {
    if (m_state == KernelState::Dead || !m_client) {
        Q_EMIT cancelled(cellId);
        return;
    }
    if (m_state == KernelState::Starting || m_state == KernelState::Restarting) {
        m_queued.emplace_back(cellId, source);
        return;
    }
    send(cellId, source);
}

void JupyterKernel::send(const QString& cellId, const QString& source) {
    std::string id;
    try {
        id = m_client->execute(u8(source), /*silent=*/false, /*storeHistory=*/true,
                               /*allowStdin=*/true, m_stopOnError);
    } catch (const jupyter::KernelError& e) {
        // The kernel ended between its last report and this cell: the cell says so.
        Q_EMIT output(cellId, deadKernelOutput(QString::fromUtf8(e.what())), QString());
        Q_EMIT finished(cellId, false);
        return;
    }
    Run run;
    run.cellId = cellId;
    m_runs[id] = run;
    m_runOrder.push_back(id);
    m_recentCells.insert(qs(id), cellId);
    m_recentOrder.push_back(qs(id));
    while (m_recentOrder.size() > kRecentCells) {
        m_recentCells.remove(m_recentOrder.front());
        m_recentOrder.pop_front();
    }
    setState(KernelState::Busy);
}

QString JupyterKernel::cellOf(const std::string& msgId) const {
    return m_recentCells.value(qs(msgId));
}

void JupyterKernel::interrupt() {
    if (m_client && (m_state == KernelState::Busy || m_state == KernelState::Idle)) {
        try {
            m_client->interrupt();
        } catch (const jupyter::KernelError& e) {
            qCWarning(lcKernel, "interrupt: %s", e.what());
        }
    }
    // Cells queued before the kernel was ready never reach it.
    for (const auto& [cell, source] : m_queued)
        Q_EMIT cancelled(cell);
    m_queued.clear();
}

void JupyterKernel::restart() {
    if (!m_client)
        return;
    failAll(QString(), false);
    m_inputCell.clear();
    launch(true);
}

void JupyterKernel::setWorkingDir(const QString& dir) {
    m_launch.workingDir = dir;
    // A kernel still starting moves there once it is ready (onReady).
    if (m_client && (m_state == KernelState::Idle || m_state == KernelState::Busy))
        moveKernelTo(dir);
}

void JupyterKernel::moveKernelTo(const QString& dir) {
    try {
        m_client->execute(u8(chdirCode(dir)), /*silent=*/true, /*storeHistory=*/false,
                          /*allowStdin=*/false, /*stopOnError=*/false);
        m_kernelDir = dir;
    } catch (const jupyter::KernelError& e) {
        qCWarning(lcKernel, "cannot move the kernel to %s: %s", qUtf8Printable(dir), e.what());
    }
}

void JupyterKernel::onIopub(const jupyter::Message& m) {
    const std::string type = m.msgType();
    const std::string parent = m.parentMsgId();
    if (type == "status") {
        const std::string s = m.content.value("execution_state", "");
        auto it = m_runs.find(parent);
        if (s == "idle" && it != m_runs.end()) {
            it->second.idle = true;
            finishIfDone(parent);
        }
        return;
    }
    const QString cell = cellOf(parent);
    if (cell.isEmpty())
        return; // another frontend's work, or a request of ours that shows nothing
    if (type == "execute_input") {
        auto it = m_runs.find(parent);
        if (it != m_runs.end() && !it->second.started) {
            it->second.started = true;
            Q_EMIT started(cell, m.content.value("execution_count", 0));
        }
        return;
    }
    if (type == "clear_output") {
        Q_EMIT outputCleared(cell, m.content.value("wait", false));
        return;
    }
    if (type == "update_display_data") {
        const QString displayId = displayIdOf(m);
        if (!displayId.isEmpty())
            Q_EMIT displayUpdated(displayId, outputOf(m));
        return;
    }
    if (type == "stream" || type == "display_data" || type == "execute_result" || type == "error")
        Q_EMIT output(cell, outputOf(m), displayIdOf(m));
}

void JupyterKernel::onShellReply(const jupyter::Message& m) {
    const std::string parent = m.parentMsgId();
    if (auto req = m_requests.find(parent); req != m_requests.end()) {
        const Pending pending = req->second;
        m_requests.erase(req);
        onRequestReply(pending, m);
        return;
    }
    auto it = m_runs.find(parent);
    if (it == m_runs.end() || m.msgType() != "execute_reply")
        return;
    it->second.replied = true;
    it->second.replyStatus = qs(m.content.value("status", std::string("error")));
    if (!it->second.started && it->second.replyStatus != QLatin1String("aborted") &&
        m.content.contains("execution_count") && m.content["execution_count"].is_number()) {
        it->second.started = true;
        Q_EMIT started(it->second.cellId, m.content["execution_count"].get<int>());
    }
    finishIfDone(parent);
}

void JupyterKernel::finishIfDone(const std::string& msgId) {
    auto it = m_runs.find(msgId);
    if (it == m_runs.end())
        return;
    const Run run = it->second;
    // An aborted request (an earlier cell failed) gets its reply but maybe no busy/idle pair.
    const bool aborted = run.replied && run.replyStatus == QLatin1String("aborted");
    if (!aborted && !(run.idle && run.replied))
        return;
    m_runs.erase(it);
    std::erase(m_runOrder, msgId);
    if (m_inputCell == run.cellId)
        m_inputCell.clear();
    if (aborted)
        Q_EMIT cancelled(run.cellId);
    else
        Q_EMIT finished(run.cellId, run.replyStatus == QLatin1String("ok"));
    if (m_runs.empty() && m_state == KernelState::Busy)
        setState(KernelState::Idle);
}

void JupyterKernel::onStdin(const jupyter::Message& m) {
    if (m.msgType() != "input_request")
        return;
    m_inputCell = cellOf(m.parentMsgId());
    Q_EMIT inputRequested(m_inputCell, qs(m.content.value("prompt", std::string())),
                          m.content.value("password", false));
}

void JupyterKernel::sendInput(const QString& value) {
    if (m_client && m_state != KernelState::Dead) {
        try {
            m_client->inputReply(u8(value));
        } catch (const jupyter::KernelError& e) {
            qCWarning(lcKernel, "input: %s", e.what());
        }
    }
    m_inputCell.clear();
}

void JupyterKernel::onDied(int exitStatus, const QString& stderrTail) {
    if (m_state == KernelState::Dead || m_state == KernelState::Restarting)
        return;
    const QString message = deathMessage(exitStatus, stderrTail);
    const QString cell = m_runOrder.empty() ? QString() : m_runs[m_runOrder.front()].cellId;
    if (!cell.isEmpty())
        Q_EMIT output(cell, deadKernelOutput(message), QString());
    failAll(cell, true);
    setState(KernelState::Dead);
    Q_EMIT died(cell, message);
}

// Ends every run and queued cell: the running one (runningCell) fails, the others are
// cancelled; pending requests get no reply.
void JupyterKernel::failAll(const QString& runningCell, bool died) {
    for (const std::string& id : m_runOrder) {
        const QString cell = m_runs[id].cellId;
        if (died && cell == runningCell)
            Q_EMIT finished(cell, false);
        else
            Q_EMIT cancelled(cell);
    }
    m_runs.clear();
    m_runOrder.clear();
    for (const auto& [cell, source] : m_queued)
        Q_EMIT cancelled(cell);
    m_queued.clear();
    m_requests.clear();
}

int JupyterKernel::sendRequest(const QString& type, const QString& code, const std::string& msgType,
                               const QJsonObject& content) {
    if (!m_client || (m_state != KernelState::Idle && m_state != KernelState::Busy))
        return 0;
    std::string id;
    try {
        id = m_client->request(msgType, jsonOf(content));
    } catch (const jupyter::KernelError&) {
        return 0; // no kernel to answer: the caller shows nothing
    }
    const int requestId = m_nextRequest++;
    m_requests[id] = Pending{requestId, type, code};
    return requestId;
}

int JupyterKernel::complete(const QString& code, int cursorPos) {
    return sendRequest(QStringLiteral("complete"), code, "complete_request",
                       {{QStringLiteral("code"), code},
                        {QStringLiteral("cursor_pos"), codePointOffset(code, cursorPos)}});
}

int JupyterKernel::inspect(const QString& code, int cursorPos) {
    return sendRequest(QStringLiteral("inspect"), code, "inspect_request",
                       {{QStringLiteral("code"), code},
                        {QStringLiteral("cursor_pos"), codePointOffset(code, cursorPos)},
                        {QStringLiteral("detail_level"), 0}});
}

int JupyterKernel::isComplete(const QString& code) {
    return sendRequest(QStringLiteral("is_complete"), code, "is_complete_request",
                       {{QStringLiteral("code"), code}});
}

int JupyterKernel::history(int n) {
    return sendRequest(QStringLiteral("history"), QString(), "history_request",
                       {{QStringLiteral("output"), false},
                        {QStringLiteral("raw"), true},
                        {QStringLiteral("hist_access_type"), QStringLiteral("tail")},
                        {QStringLiteral("n"), n}});
}

void JupyterKernel::onRequestReply(const Pending& p, const jupyter::Message& m) {
    const QJsonObject c = objectOf(m.content);
    if (p.type == QLatin1String("complete")) {
        QStringList matches;
        for (const QJsonValue& v : c.value(QStringLiteral("matches")).toArray())
            matches.append(v.toString());
        Q_EMIT completed(p.id, matches,
                         utf16Offset(p.code, c.value(QStringLiteral("cursor_start")).toInt()),
                         utf16Offset(p.code, c.value(QStringLiteral("cursor_end")).toInt()));
    } else if (p.type == QLatin1String("inspect")) {
        const QString text = c.value(QStringLiteral("data"))
                                 .toObject()
                                 .value(QStringLiteral("text/plain"))
                                 .toString();
        Q_EMIT inspected(p.id, c.value(QStringLiteral("found")).toBool(), models::stripAnsi(text));
    } else if (p.type == QLatin1String("is_complete")) {
        Q_EMIT completenessChecked(p.id, c.value(QStringLiteral("status")).toString(),
                                   c.value(QStringLiteral("indent")).toString());
    } else if (p.type == QLatin1String("history")) {
        Q_EMIT historyReceived(p.id, c.value(QStringLiteral("history")).toArray());
    }
}

} // namespace studio::notebook
