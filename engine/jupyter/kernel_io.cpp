// KernelClient's I/O thread: the only thread that touches the ZeroMQ sockets and the kernel
// process. It polls the sockets, a wake-up eventfd (for queued tasks), the kernel's stdout and
// stderr pipes and a pidfd (for its exit) in one zmq_poll, and dispatches what arrives.
#include "engine/jupyter/kernel_client_impl.h"

#include <cerrno>
#include <csignal>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace studio::jupyter {

namespace {

constexpr double kHeartbeatInterval = 1.0; // seconds between pings
// jupyter_client's time_to_dead is 1 s; a loaded machine (a kernel compiling, tests in
// parallel) can miss that without anything being wrong, so a failure is declared after 3 s.
constexpr double kTimeToDead = 3.0;
constexpr std::size_t kStderrTailBytes = 8192;
constexpr Channel kSocketChannels[] = {Channel::Shell, Channel::Control, Channel::Stdin,
                                       Channel::IOPub, Channel::Heartbeat};

int exitCodeOf(const process::ExitStatus& status) {
    return status.signal ? -status.signal : status.code;
}

} // namespace

void KernelClient::Impl::startIoThread() {
    m_wake = process::Fd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    if (!m_wake.valid())
        throw KernelError(describeKernel() + ": eventfd: " + process::errnoText(errno));
    m_context = std::make_unique<zmq::context_t>(1);
    m_thread = std::thread([this] {
        m_ioThreadId = std::this_thread::get_id();
        ioLoop();
    });
}

void KernelClient::Impl::stopIoThread() {
    if (!m_thread.joinable())
        return;
    {
        std::lock_guard lock(m_taskMutex);
        m_quit = true;
    }
    const std::uint64_t one = 1;
    (void)!::write(m_wake.get(), &one, sizeof one);
    m_thread.join();
}

void KernelClient::Impl::post(std::function<void()> fn) {
    {
        std::lock_guard lock(m_taskMutex);
        m_tasks.push_back(std::move(fn));
    }
    const std::uint64_t one = 1;
    (void)!::write(m_wake.get(), &one, sizeof one);
}

void KernelClient::Impl::runOnIo(std::function<void()> fn) {
    ensureNotIoThread("a blocking call");
    auto task = std::make_shared<std::packaged_task<void()>>(std::move(fn));
    std::future<void> done = task->get_future();
    post([task] { (*task)(); });
    done.get();
}

void KernelClient::Impl::log(const std::string& line) {
    callback([&] {
        if (m_callbacks.log)
            m_callbacks.log(line);
    });
}

ConnectionInfo KernelClient::Impl::currentConnection() const {
    std::lock_guard lock(m_mutex);
    return m_connection;
}

void KernelClient::Impl::openSockets() {
    closeSockets();
    const ConnectionInfo connection = currentConnection();
    for (Channel ch : kSocketChannels) {
        zmq::socket_type type = ch == Channel::IOPub       ? zmq::socket_type::sub
                                : ch == Channel::Heartbeat ? zmq::socket_type::req
                                                           : zmq::socket_type::dealer;
        zmq::socket_t socket(*m_context, type);
        socket.set(zmq::sockopt::linger, ch == Channel::Heartbeat ? 0 : 1000);
        // Shell, control and stdin share the session's identity: the kernel routes an
        // input_request with the identity of the execute_request that asked for it.
        if (type == zmq::socket_type::dealer)
            socket.set(zmq::sockopt::routing_id, m_session);
        if (type == zmq::socket_type::sub)
            socket.set(zmq::sockopt::subscribe, "");
        socket.connect(connection.url(ch));
        m_sockets.emplace(ch, std::move(socket));
    }
    m_hbSentAt = 0;
    m_hbNextAt = process::monotonicSeconds();
}

void KernelClient::Impl::closeSockets() {
    for (auto& [ch, socket] : m_sockets)
        socket.set(zmq::sockopt::linger, 0);
    m_sockets.clear();
}

void KernelClient::Impl::launchProcess() {
    const KernelSpec& spec = m_options.spec;
    process::SpawnOptions o;
    {
        std::lock_guard lock(m_mutex);
        o.argv = formatKernelArgv(spec, m_connectionFile);
    }
    o.env = kernelEnvironment(spec, m_options.env, process::currentEnvironment());
    o.env["JPY_PARENT_PID"] = std::to_string(::getpid()); // ipykernel's parent poller
    o.workdir = m_options.workingDir.string();
    o.newProcessGroup = true; // interrupts and kills reach the kernel's children too
    // This thread lives as long as the client, so the signal fires only when the studio dies.
    o.parentDeathSignal = SIGTERM;
    process::Pipe stdinPipe = process::makePipe();
    o.passFds = {{stdinPipe.read.get(), 0}};
    {
        std::lock_guard lock(m_mutex);
        m_stderrTail.clear();
        m_exit.reset();
    }
    m_stderrPartial.clear();
    try {
        m_process = process::Process::spawn(o);
    } catch (const std::exception& e) {
        throw KernelError(describeKernel() + ": " + e.what());
    }
    m_stdinWrite = std::move(stdinPipe.write);
    m_stdout = m_process.takeStdout();
    m_stderr = m_process.takeStderr();
    process::setNonBlocking(m_stdout.get());
    process::setNonBlocking(m_stderr.get());
    m_pidfd = process::Fd(static_cast<int>(::syscall(SYS_pidfd_open, m_process.pid(), 0)));
    std::lock_guard lock(m_mutex);
    m_pid = m_process.pid();
}

void KernelClient::Impl::signalKernel(int sig) {
    if (!m_process.running())
        return;
    if (sig == SIGKILL) {
        m_process.signal(SIGKILL);
        onExit(m_process.wait());
        return;
    }
    m_process.signal(sig);
}

void KernelClient::Impl::sendOnIo(Channel channel, const Message& msg, bool track) {
    auto it = m_sockets.find(channel);
    if (it == m_sockets.end()) {
        log(std::string(channelName(channel)) + ": not connected; " + msg.msgType() + " not sent");
        return;
    }
    const std::vector<std::string> frames = serialize(msg, *m_signer);
    for (std::size_t i = 0; i < frames.size(); ++i) {
        const auto flags =
            zmq::send_flags::dontwait |
            (i + 1 < frames.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
        if (!it->second.send(zmq::buffer(frames[i]), flags)) {
            // Only the first frame can be refused (a multipart message is queued whole).
            log(std::string(channelName(channel)) + ": send queue full; " + msg.msgType() + " " +
                msg.msgId() + " dropped");
            if (track)
                callback([&] {
                    if (m_callbacks.requestFailed)
                        m_callbacks.requestFailed(msg.msgId(), "the kernel's queue is full");
                });
            return;
        }
    }
    if (!track)
        return;
    bool ended;
    {
        std::lock_guard lock(m_mutex);
        ended = m_pid < 0;
    }
    // The kernel ended between the caller's check and this send: the request was already
    // missed by failPending, so it fails here.
    if (ended)
        callback([&] {
            if (m_callbacks.requestFailed)
                m_callbacks.requestFailed(msg.msgId(), "the kernel is not running");
        });
    else
        m_pending[msg.msgId()] = msg.msgType();
}

void KernelClient::Impl::receive(Channel channel) {
    zmq::socket_t& socket = m_sockets.at(channel);
    if (channel == Channel::Heartbeat) {
        zmq::message_t echo; // a REQ socket holds one reply at most: no second recv
        if (socket.recv(echo, zmq::recv_flags::dontwait)) {
            m_hbSentAt = 0;
            m_hbNextAt = process::monotonicSeconds() + kHeartbeatInterval;
            if (m_heartFailed) {
                m_heartFailed = false;
                log("heartbeat: the kernel answers again");
            }
        }
        return;
    }
    // Bounded per wake-up so that one flooding channel cannot starve the others.
    for (int n = 0; n < 4096; ++n) {
        std::vector<std::string> frames;
        zmq::message_t part;
        if (!socket.recv(part, zmq::recv_flags::dontwait))
            return;
        frames.push_back(part.to_string());
        while (part.more()) {
            if (!socket.recv(part, zmq::recv_flags::none))
                break;
            frames.push_back(part.to_string());
        }
        Decoded decoded = deserialize(frames, *m_signer, &m_replay);
        if (!decoded) {
            log(std::string(channelName(channel)) + ": refused a message: " + decoded.error);
            continue;
        }
        dispatch(channel, std::move(decoded.value->message));
    }
}

void KernelClient::Impl::dispatch(Channel channel, Message msg) {
    const std::string parent = msg.parentMsgId();
    const auto& fn = channel == Channel::IOPub   ? m_callbacks.iopub
                     : channel == Channel::Stdin ? m_callbacks.stdinRequest
                                                 : m_callbacks.shellReply;
    bool forward = static_cast<bool>(fn);
    {
        std::lock_guard lock(m_mutex);
        if (!parent.empty() && m_internal.count(parent))
            forward = false;
        auto waiter = parent.empty() ? m_waiters.end() : m_waiters.find(parent);
        // A blocked caller is woken only when what it waits for is complete: each wake-up is
        // a context switch, and on a busy machine a late one.
        bool wake = channel == Channel::IOPub && m_iopubWatchers > 0;
        if (channel == Channel::IOPub)
            ++m_iopubCount;
        if (waiter != m_waiters.end()) {
            Waiter& w = waiter->second;
            if (channel == Channel::IOPub && w.collectIopub) {
                if (msg.msgType() == "status" &&
                    msg.content.value("execution_state", std::string()) == "idle")
                    w.idle = true;
                w.iopub.push_back(forward ? msg : std::move(msg));
            } else if (channel == Channel::Shell || channel == Channel::Control) {
                w.reply = forward ? msg : std::move(msg);
            }
            wake = wake || (w.reply && (!w.collectIopub || w.idle));
        }
        if (wake)
            m_cv.notify_all();
    }
    if (channel == Channel::Shell || channel == Channel::Control)
        m_pending.erase(parent);
    if (channel == Channel::Stdin && msg.msgType() == "input_request")
        m_lastInputHeader = msg.header;
    if (forward)
        callback([&] { fn(msg); });
}

void KernelClient::Impl::readOutput(int which) {
    process::Fd& fd = which == 1 ? m_stdout : m_stderr;
    char buffer[65536];
    while (fd.valid()) {
        const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n <= 0) { // end of file or an error: the kernel (and its children) closed it
            fd.reset();
            if (which == 2 && !m_stderrPartial.empty())
                stderrLine(std::exchange(m_stderrPartial, {}));
            return;
        }
        if (which == 1)
            continue; // fd-level echoes of cell output, already on IOPub
        m_stderrPartial.append(buffer, static_cast<std::size_t>(n));
        std::size_t start = 0, newline;
        while ((newline = m_stderrPartial.find('\n', start)) != std::string::npos) {
            stderrLine(m_stderrPartial.substr(start, newline - start));
            start = newline + 1;
        }
        m_stderrPartial.erase(0, start);
    }
}

void KernelClient::Impl::stderrLine(const std::string& line) {
    {
        std::lock_guard lock(m_mutex);
        m_stderrTail += line;
        m_stderrTail += '\n';
        if (m_stderrTail.size() > kStderrTailBytes) {
            std::size_t cut = m_stderrTail.find('\n', m_stderrTail.size() - kStderrTailBytes);
            m_stderrTail.erase(0, cut == std::string::npos ? 0 : cut + 1);
        }
    }
    log("kernel stderr: " + line);
}

void KernelClient::Impl::checkProcess() {
    if (auto status = m_process.poll())
        onExit(*status);
}

void KernelClient::Impl::onExit(const process::ExitStatus& status) {
    // Everything the kernel wrote before it ended is in the pipes now: read it first, so that
    // the report carries its last words.
    readOutput(1);
    readOutput(2);
    m_pidfd.reset();
    m_stdinWrite.reset();
    bool unexpected;
    std::string tail;
    {
        std::lock_guard lock(m_mutex);
        m_exit = status;
        m_pid = -1;
        unexpected = m_phase == Phase::Running;
        if (unexpected)
            m_phase = Phase::Dead;
        tail = m_stderrTail;
        m_cv.notify_all();
    }
    m_heartbeatOn = false;
    if (!unexpected)
        return;
    log(describeKernel() + " died: " + status.describe());
    failPending("the kernel died (" + status.describe() + ")");
    callback([&] {
        if (m_callbacks.died)
            m_callbacks.died(exitCodeOf(status), tail);
    });
}

void KernelClient::Impl::failPending(const std::string& why) {
    auto pending = std::exchange(m_pending, {});
    {
        std::lock_guard lock(m_mutex);
        for (auto& [id, waiter] : m_waiters)
            if (waiter.failed.empty() && !(waiter.reply && (!waiter.collectIopub || waiter.idle)))
                waiter.failed = why;
        m_cv.notify_all();
    }
    callback([&] {
        if (m_callbacks.requestFailed)
            for (const auto& [id, type] : pending)
                m_callbacks.requestFailed(id, why);
    });
}

void KernelClient::Impl::heartbeatTick() {
    auto hb = m_sockets.find(Channel::Heartbeat);
    if (!m_heartbeatOn || hb == m_sockets.end())
        return;
    const double now = process::monotonicSeconds();
    if (m_hbSentAt > 0 && now - m_hbSentAt > kTimeToDead) {
        if (!m_heartFailed)
            log("heartbeat: no echo within " + std::to_string(static_cast<int>(kTimeToDead)) +
                " s (the kernel is wedged, or its heartbeat thread is)");
        m_heartFailed = true;
        // A REQ socket that lost its reply can never send again: make a new one.
        m_sockets.erase(hb);
        zmq::socket_t socket(*m_context, zmq::socket_type::req);
        socket.set(zmq::sockopt::linger, 0);
        socket.connect(currentConnection().url(Channel::Heartbeat));
        hb = m_sockets.emplace(Channel::Heartbeat, std::move(socket)).first;
        m_hbSentAt = 0;
        m_hbNextAt = now;
    }
    if (m_hbSentAt == 0 && now >= m_hbNextAt) {
        if (hb->second.send(zmq::str_buffer("ping"), zmq::send_flags::dontwait))
            m_hbSentAt = now;
        else
            m_hbNextAt = now + kHeartbeatInterval;
    }
}

int KernelClient::Impl::pollTimeoutMs() const {
    double wait = -1;
    auto consider = [&](double seconds) {
        seconds = std::max(seconds, 0.0);
        wait = wait < 0 ? seconds : std::min(wait, seconds);
    };
    const double now = process::monotonicSeconds();
    if (m_heartbeatOn && m_sockets.count(Channel::Heartbeat))
        consider(m_hbSentAt > 0 ? m_hbSentAt + kTimeToDead - now : m_hbNextAt - now);
    if (m_process.running() && !m_pidfd.valid())
        consider(0.1); // no pidfd (an old kernel): look for the exit ten times a second
    return wait < 0 ? -1 : static_cast<int>(wait * 1000) + 1;
}

void KernelClient::Impl::handle(Source source, Channel channel) {
    switch (source) {
    case Source::Wake: {
        std::uint64_t count;
        (void)!::read(m_wake.get(), &count, sizeof count);
        break;
    }
    case Source::Socket:
        if (m_sockets.count(channel))
            receive(channel);
        break;
    case Source::Stdout:
        readOutput(1);
        break;
    case Source::Stderr:
        readOutput(2);
        break;
    case Source::Exit:
        checkProcess();
        break;
    }
}

void KernelClient::Impl::ioLoop() {
    std::vector<zmq_pollitem_t> items;
    std::vector<std::pair<Source, Channel>> sources;
    while (true) {
        items.clear();
        sources.clear();
        items.push_back({nullptr, m_wake.get(), ZMQ_POLLIN, 0});
        sources.emplace_back(Source::Wake, Channel::Shell);
        for (auto& [ch, socket] : m_sockets) {
            items.push_back({socket.handle(), 0, ZMQ_POLLIN, 0});
            sources.emplace_back(Source::Socket, ch);
        }
        for (auto [fd, source] :
             {std::pair{m_stdout.get(), Source::Stdout}, std::pair{m_stderr.get(), Source::Stderr},
              std::pair{m_pidfd.get(), Source::Exit}})
            if (fd >= 0) {
                items.push_back({nullptr, fd, ZMQ_POLLIN, 0});
                sources.emplace_back(source, Channel::Shell);
            }
        if (::zmq_poll(items.data(), static_cast<int>(items.size()), pollTimeoutMs()) < 0 &&
            zmq_errno() != EINTR)
            log(std::string("zmq_poll: ") + zmq_strerror(zmq_errno()));
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (!(items[i].revents & (ZMQ_POLLIN | ZMQ_POLLERR)))
                continue;
            try {
                handle(sources[i].first, sources[i].second);
            } catch (const std::exception& e) { // a socket error must not end the thread
                log(std::string("I/O thread: ") + e.what());
            }
        }
        try {
            if (m_process.running() && !m_pidfd.valid())
                checkProcess();
            heartbeatTick();
        } catch (const std::exception& e) {
            log(std::string("I/O thread: ") + e.what());
        }
        // Tasks last: one may close the sockets that the items above point at.
        std::vector<std::function<void()>> tasks;
        bool quit;
        {
            std::lock_guard lock(m_taskMutex);
            tasks.swap(m_tasks);
            quit = m_quit;
        }
        for (auto& task : tasks) {
            try {
                task();
            } catch (const std::exception& e) { // runOnIo's tasks hand theirs to the caller
                log(std::string("I/O thread: ") + e.what());
            }
        }
        if (quit)
            break;
    }
    closeSockets();
    // Reaping stays on this thread (the one that forked); the caller stopped the kernel already
    // unless it could not, and then it dies here.
    if (m_process.running())
        signalKernel(SIGKILL);
    m_context.reset();
}

} // namespace studio::jupyter
