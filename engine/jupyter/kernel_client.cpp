// KernelClient's caller side: the lifecycle (start, restart, shutdown, as jupyter_client's
// KernelManager does them), requests, and the blocking waits. Socket and process work is
// handed to the I/O thread (kernel_io.cpp).
#include "engine/jupyter/kernel_client_impl.h"

#include <chrono>
#include <csignal>
#include <unistd.h>

namespace studio::jupyter {

namespace {

using Deadline = std::chrono::steady_clock::time_point;

Deadline after(double seconds) {
    return std::chrono::steady_clock::now() +
           std::chrono::duration_cast<std::chrono::steady_clock::duration>(
               std::chrono::duration<double>(seconds));
}

std::string seconds(double s) {
    std::string text = std::to_string(s);
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.')
        text.pop_back();
    return text + " s";
}

} // namespace

KernelClient::Impl::Impl(Options options, Callbacks callbacks)
    : m_options(std::move(options))
    , m_callbacks(std::move(callbacks))
    , m_session(newSessionId())
    , m_username(currentUsername()) {
}

KernelClient::Impl::~Impl() {
    {
        std::lock_guard lock(m_callbackMutex);
        m_callbacksOn = false;
    }
    try {
        shutdown();
    } catch (...) { // a destructor never throws; the I/O thread kills what is left below
    }
    stopIoThread();
}

std::string KernelClient::Impl::newMsgId() {
    return m_session + "_" + std::to_string(::getpid()) + "_" + std::to_string(m_counter++);
}

std::string KernelClient::Impl::describeKernel() const {
    std::string text = "kernel '" + m_options.spec.name + "'";
    if (!m_options.spec.displayName.empty())
        text += " (" + m_options.spec.displayName + ")";
    return text;
}

std::string KernelClient::Impl::stderrSuffix() const {
    std::lock_guard lock(m_mutex);
    if (m_stderrTail.empty())
        return {};
    return "; its stderr ends with:\n" + m_stderrTail;
}

void KernelClient::Impl::ensureNotIoThread(const char* what) const {
    if (std::this_thread::get_id() == m_ioThreadId.load())
        throw std::logic_error(std::string("KernelClient: ") + what +
                               " called from a callback (the I/O thread) would wait for itself");
}

std::string KernelClient::Impl::send(Channel channel, const std::string& msgType,
                                     const Json& content, bool track, bool internal,
                                     const std::string& givenId) {
    Message msg;
    msg.header = makeHeader(msgType, givenId.empty() ? newMsgId() : givenId, m_session, m_username);
    msg.content = content;
    std::string id = msg.msgId();
    if (internal) {
        std::lock_guard lock(m_mutex);
        m_internal.insert(id);
    }
    post([this, channel, track, msg = std::move(msg)] { sendOnIo(channel, msg, track); });
    return id;
}

std::string KernelClient::Impl::sendUserRequest(Channel channel, const std::string& msgType,
                                                const Json& content, const std::string& msgId) {
    {
        std::lock_guard lock(m_mutex);
        if (m_phase != Phase::Running) {
            const bool dead = m_phase == Phase::Dead || m_phase == Phase::Failed;
            throw KernelError(
                describeKernel() + ": " + msgType + " not sent: " +
                (dead ? "the kernel is dead; restart it" : "the kernel is not running"));
        }
    }
    return send(channel, msgType, content, true, false, msgId);
}

void KernelClient::Impl::start() {
    ensureNotIoThread("start()");
    std::lock_guard life(m_lifecycle);
    {
        std::lock_guard lock(m_mutex);
        if (m_phase != Phase::NotStarted)
            throw std::logic_error("KernelClient::start: called twice");
        m_phase = Phase::Starting;
    }
    try {
        const ConnectionInfo connection = ConnectionInfo::loopback(m_options.spec.name);
        const std::filesystem::path dir =
            m_options.runtimeDir.empty() ? defaultRuntimeDir() : m_options.runtimeDir;
        const std::filesystem::path file = writeConnectionFile(connection, dir);
        {
            std::lock_guard lock(m_mutex);
            m_connection = connection;
            m_connectionFile = file;
        }
        m_signer = std::make_unique<Signer>(connection.key, connection.signatureScheme);
        startIoThread();
        launchAndWait();
    } catch (const std::exception& e) {
        {
            std::lock_guard lock(m_mutex);
            m_phase = Phase::Failed;
        }
        if (dynamic_cast<const KernelError*>(&e))
            throw;
        throw KernelError(describeKernel() + ": " + e.what());
    }
    std::lock_guard lock(m_mutex);
    m_phase = Phase::Running;
    m_heartbeatOn = true;
}

// Launches the kernel and waits for it; when its ports were taken between our probe and its
// bind (the race jupyter_client also has), tries again on fresh ports.
void KernelClient::Impl::launchAndWait() {
    for (int attempt = 0;; ++attempt) {
        runOnIo([this] {
            openSockets();
            launchProcess();
        });
        try {
            waitForReady();
            return;
        } catch (const KernelError&) {
            runOnIo([this] { signalKernel(SIGKILL); });
            bool portTaken;
            {
                std::lock_guard lock(m_mutex);
                portTaken = m_stderrTail.find("Address already in use") != std::string::npos;
            }
            if (!portTaken || attempt >= 2)
                throw;
            std::unique_lock lock(m_mutex);
            ConnectionInfo fresh = m_connection;
            const std::filesystem::path old = m_connectionFile;
            lock.unlock();
            const ConnectionInfo ports = ConnectionInfo::loopback(fresh.kernelName);
            fresh.shellPort = ports.shellPort;
            fresh.iopubPort = ports.iopubPort;
            fresh.stdinPort = ports.stdinPort;
            fresh.controlPort = ports.controlPort;
            fresh.hbPort = ports.hbPort;
            const std::filesystem::path file = writeConnectionFile(fresh, old.parent_path());
            lock.lock();
            m_connection = fresh;
            m_connectionFile = file;
            lock.unlock();
            std::error_code ec;
            std::filesystem::remove(old, ec);
        }
    }
}

// jupyter_client's wait_for_ready: kernel_info_request until a reply comes and IOPub has
// delivered something since (the subscription is live), jupyter-protocol.md §7.
void KernelClient::Impl::waitForReady() {
    const Deadline deadline = after(m_options.readyTimeoutS);
    while (true) {
        const std::string id = newMsgId();
        std::unique_lock lock(m_mutex);
        m_waiters[id] = Waiter{};
        const std::uint64_t iopubBefore = m_iopubCount;
        lock.unlock();
        send(Channel::Shell, "kernel_info_request", Json::object(), false, true, id);
        lock.lock();
        m_cv.wait_until(lock, std::min(after(1.0), deadline),
                        [&] { return m_waiters[id].reply || m_exit; });
        if (m_waiters[id].reply && !m_exit) {
            ++m_iopubWatchers;
            m_cv.wait_until(lock, std::min(after(0.2), deadline),
                            [&] { return m_iopubCount > iopubBefore || m_exit; });
            --m_iopubWatchers;
        }
        const std::optional<Message> reply = m_waiters[id].reply;
        m_waiters.erase(id);
        if (m_exit) {
            const std::string what = m_exit->describe();
            lock.unlock();
            throw KernelError(describeKernel() + " " + what + " before it was ready" +
                              stderrSuffix());
        }
        if (reply && m_iopubCount > iopubBefore) {
            m_kernelInfo = reply->content;
            return;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            lock.unlock();
            throw KernelError(describeKernel() + " was not ready within " +
                              seconds(m_options.readyTimeoutS) +
                              " (no kernel_info_reply with IOPub live)" + stderrSuffix());
        }
    }
}

bool KernelClient::Impl::waitForExit(double s) {
    std::unique_lock lock(m_mutex);
    return m_cv.wait_until(lock, after(s), [&] { return m_pid < 0; });
}

// jupyter_client's shutdown_kernel: interrupt, shutdown_request on control, wait half the
// shutdown time, SIGTERM, wait the other half, SIGKILL.
void KernelClient::Impl::stopKernel(bool restart) {
    {
        std::lock_guard lock(m_mutex);
        if (m_pid < 0)
            return;
    }
    m_heartbeatOn = false;
    if (m_options.spec.interruptMode == "message")
        send(Channel::Control, "interrupt_request", Json::object(), false, true);
    else
        runOnIo([this] { signalKernel(SIGINT); });
    send(Channel::Control, "shutdown_request", Json{{"restart", restart}}, false, true);
    const double half = std::max(m_options.shutdownWaitS, 0.0) / 2;
    if (waitForExit(half))
        return;
    log(describeKernel() + ": no exit " + seconds(half) + " after shutdown_request; SIGTERM");
    runOnIo([this] { signalKernel(SIGTERM); });
    if (waitForExit(half))
        return;
    log(describeKernel() + ": no exit " + seconds(half) + " after SIGTERM; SIGKILL");
    runOnIo([this] { signalKernel(SIGKILL); });
}

void KernelClient::Impl::restart() {
    ensureNotIoThread("restart()");
    std::lock_guard life(m_lifecycle);
    {
        std::lock_guard lock(m_mutex);
        if (m_phase == Phase::NotStarted || m_phase == Phase::Stopped)
            throw KernelError(
                describeKernel() + ": restart: the kernel " +
                (m_phase == Phase::NotStarted ? "was never started" : "was shut down"));
        if (!m_thread.joinable() || !m_signer)
            throw KernelError(describeKernel() +
                              ": restart: start() failed before the kernel was launched (no "
                              "connection file); make a new client");
        m_phase = Phase::Restarting;
    }
    try {
        stopKernel(true);
        runOnIo([this] {
            failPending("the kernel was restarted");
            closeSockets();
        });
        {
            std::lock_guard lock(m_mutex);
            m_kernelInfo = Json::object();
        }
        launchAndWait();
    } catch (...) {
        std::lock_guard lock(m_mutex);
        m_phase = Phase::Failed;
        throw;
    }
    std::lock_guard lock(m_mutex);
    m_phase = Phase::Running;
    m_heartbeatOn = true;
}

void KernelClient::Impl::shutdown() {
    ensureNotIoThread("shutdown()");
    std::lock_guard life(m_lifecycle);
    {
        std::lock_guard lock(m_mutex);
        if (m_phase == Phase::Stopped)
            return;
        if (m_phase == Phase::NotStarted) {
            m_phase = Phase::Stopped;
            return;
        }
        m_phase = Phase::Stopping;
    }
    if (m_thread.joinable()) {
        stopKernel(false);
        runOnIo([this] {
            failPending("the kernel was shut down");
            closeSockets();
        });
    }
    std::lock_guard lock(m_mutex);
    if (!m_connectionFile.empty()) {
        std::error_code ec;
        std::filesystem::remove(m_connectionFile, ec);
    }
    m_phase = Phase::Stopped;
}

void KernelClient::Impl::interrupt() {
    if (m_options.spec.interruptMode == "message") {
        sendUserRequest(Channel::Control, "interrupt_request", Json::object());
        return;
    }
    {
        std::lock_guard lock(m_mutex);
        if (m_pid < 0)
            throw KernelError(describeKernel() + ": interrupt: the kernel is not running");
    }
    post([this] { signalKernel(SIGINT); });
}

void KernelClient::Impl::inputReply(const std::string& value) {
    Message msg;
    msg.header = makeHeader("input_reply", newMsgId(), m_session, m_username);
    msg.content = Json{{"value", value}};
    post([this, msg = std::move(msg)]() mutable {
        msg.parentHeader = m_lastInputHeader;
        sendOnIo(Channel::Stdin, msg, false);
    });
}

ExecuteResult KernelClient::Impl::executeAndWait(const std::string& code, double timeoutS,
                                                 bool allowStdin, bool stopOnError) {
    ensureNotIoThread("executeAndWait()");
    const std::string id = newMsgId();
    {
        std::lock_guard lock(m_mutex);
        m_waiters[id].collectIopub = true;
    }
    std::unique_lock lock(m_mutex, std::defer_lock);
    try {
        sendUserRequest(Channel::Shell, "execute_request",
                        Json{{"code", code},
                             {"silent", false},
                             {"store_history", true},
                             {"user_expressions", Json::object()},
                             {"allow_stdin", allowStdin},
                             {"stop_on_error", stopOnError}},
                        id);
        lock.lock();
    } catch (...) {
        lock.lock();
        m_waiters.erase(id);
        throw;
    }
    m_cv.wait_until(lock, after(timeoutS), [&] {
        const Waiter& w = m_waiters[id];
        return (w.reply && w.idle) || !w.failed.empty();
    });
    Waiter w = std::move(m_waiters[id]);
    m_waiters.erase(id);
    lock.unlock();
    if (w.reply && w.idle)
        return ExecuteResult{w.reply->content, std::move(w.iopub)};
    throw KernelError(describeKernel() + ": execute_request " + id + ": " +
                      (!w.failed.empty() ? w.failed
                                         : std::string("no execute_reply and idle status within ") +
                                               seconds(timeoutS)));
}

Message KernelClient::Impl::requestAndWait(const std::string& msgType, const Json& content,
                                           double timeoutS) {
    ensureNotIoThread("requestAndWait()");
    const std::string id = newMsgId();
    {
        std::lock_guard lock(m_mutex);
        m_waiters[id] = Waiter{};
    }
    std::unique_lock lock(m_mutex, std::defer_lock);
    try {
        sendUserRequest(Channel::Shell, msgType, content, id);
        lock.lock();
    } catch (...) {
        lock.lock();
        m_waiters.erase(id);
        throw;
    }
    m_cv.wait_until(lock, after(timeoutS), [&] {
        const Waiter& w = m_waiters[id];
        return w.reply || !w.failed.empty();
    });
    Waiter w = std::move(m_waiters[id]);
    m_waiters.erase(id);
    lock.unlock();
    if (w.reply)
        return std::move(*w.reply);
    throw KernelError(describeKernel() + ": " + msgType + " " + id + ": " +
                      (!w.failed.empty() ? w.failed : "no reply within " + seconds(timeoutS)));
}

// ---- the public face

KernelClient::KernelClient(Options options, Callbacks callbacks)
    : m_impl(std::make_unique<Impl>(std::move(options), std::move(callbacks))) {
}

KernelClient::~KernelClient() = default;

void KernelClient::start() {
    m_impl->start();
}

std::string KernelClient::execute(const std::string& code, bool silent, bool storeHistory,
                                  bool allowStdin, bool stopOnError) {
    return m_impl->sendUserRequest(Channel::Shell, "execute_request",
                                   Json{{"code", code},
                                        {"silent", silent},
                                        {"store_history", storeHistory && !silent},
                                        {"user_expressions", Json::object()},
                                        {"allow_stdin", allowStdin},
                                        {"stop_on_error", stopOnError}});
}

std::string KernelClient::request(const std::string& msgType, const Json& content) {
    return m_impl->sendUserRequest(Channel::Shell, msgType, content);
}

void KernelClient::inputReply(const std::string& value) {
    m_impl->inputReply(value);
}

void KernelClient::interrupt() {
    m_impl->interrupt();
}

void KernelClient::restart() {
    m_impl->restart();
}

void KernelClient::shutdown() {
    m_impl->shutdown();
}

bool KernelClient::alive() const {
    std::lock_guard lock(m_impl->m_mutex);
    return m_impl->m_phase == Impl::Phase::Running && m_impl->m_pid > 0;
}

int KernelClient::pid() const {
    std::lock_guard lock(m_impl->m_mutex);
    return m_impl->m_pid;
}

Json KernelClient::kernelInfo() const {
    std::lock_guard lock(m_impl->m_mutex);
    return m_impl->m_kernelInfo;
}

std::string KernelClient::session() const {
    return m_impl->m_session;
}

ConnectionInfo KernelClient::connectionInfo() const {
    std::lock_guard lock(m_impl->m_mutex);
    return m_impl->m_connection;
}

std::filesystem::path KernelClient::connectionFile() const {
    std::lock_guard lock(m_impl->m_mutex);
    return m_impl->m_connectionFile;
}

const KernelSpec& KernelClient::spec() const {
    return m_impl->m_options.spec;
}

std::string KernelClient::stderrTail() const {
    std::lock_guard lock(m_impl->m_mutex);
    return m_impl->m_stderrTail;
}

ExecuteResult KernelClient::executeAndWait(const std::string& code, double timeoutS,
                                           bool allowStdin, bool stopOnError) {
    return m_impl->executeAndWait(code, timeoutS, allowStdin, stopOnError);
}

Message KernelClient::requestAndWait(const std::string& msgType, const Json& content,
                                     double timeoutS) {
    return m_impl->requestAndWait(msgType, content, timeoutS);
}

} // namespace studio::jupyter
