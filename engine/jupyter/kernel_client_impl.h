// KernelClient's inside, shared by kernel_client.cpp (the caller side: start, restart, shutdown,
// requests, blocking waits) and kernel_io.cpp (the I/O thread: sockets, the kernel process, its
// output, dispatch to callbacks). Private to engine/jupyter.
// Thread-safety: members under "guarded by m_mutex" are read and written with m_mutex held;
// members under "I/O thread only" are touched only by tasks and the loop on m_thread.
#pragma once

#include "engine/jupyter/kernel_client.h"
#include "engine/process/process.h"

#include <zmq.hpp>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <unordered_set>

namespace studio::jupyter {

class KernelClient::Impl {
public:
    enum class Phase { NotStarted, Starting, Running, Restarting, Dead, Failed, Stopping, Stopped };

    // Someone blocked on a request: its reply and, for executes, its IOPub messages.
    struct Waiter {
        bool collectIopub = false;
        std::optional<Message> reply;
        std::vector<Message> iopub;
        bool idle = false;
        std::string failed; // why no reply will come
    };

    Impl(Options options, Callbacks callbacks);
    ~Impl();

    // ---- caller side (kernel_client.cpp)
    void start();
    void restart();
    void shutdown();
    // Builds and queues a message; returns its msg_id. `track`: a user request whose loss is
    // reported through requestFailed; `internal`: its reply and IOPub never reach callbacks.
    std::string send(Channel channel, const std::string& msgType, const Json& content, bool track,
                     bool internal, const std::string& msgId = {});
    std::string sendUserRequest(Channel channel, const std::string& msgType, const Json& content,
                                const std::string& msgId = {});
    ExecuteResult executeAndWait(const std::string& code, double timeoutS, bool allowStdin,
                                 bool stopOnError);
    Message requestAndWait(const std::string& msgType, const Json& content, double timeoutS);
    void interrupt();
    void inputReply(const std::string& value);
    std::string newMsgId();
    std::string describeKernel() const; // "kernel 'python3' (Python 3 (ipykernel))"
    std::string stderrSuffix() const;   // "; its stderr ends with:\n..." or ""
    void ensureNotIoThread(const char* what) const;

    // ---- I/O thread (kernel_io.cpp)
    void startIoThread();
    void stopIoThread();
    // Runs fn on the I/O thread and waits for it; its exception is rethrown here.
    void runOnIo(std::function<void()> fn);
    // Queues fn for the I/O thread without waiting.
    void post(std::function<void()> fn);
    // What one poll item of the loop stands for.
    enum class Source { Wake, Socket, Stdout, Stderr, Exit };
    void handle(Source source, Channel channel);
    void ioLoop();
    ConnectionInfo currentConnection() const;
    void openSockets();
    void closeSockets();
    void launchProcess();
    // Signals the kernel's process group (SIGKILL also reaps it at once).
    void signalKernel(int sig);
    void sendOnIo(Channel channel, const Message& msg, bool track);
    void receive(Channel channel);
    void dispatch(Channel channel, Message msg);
    void readOutput(int which); // 1 stdout, 2 stderr
    void stderrLine(const std::string& line);
    void checkProcess();
    void onExit(const process::ExitStatus& status);
    void failPending(const std::string& why);
    void heartbeatTick();
    int pollTimeoutMs() const;
    void log(const std::string& line);
    template <class Fn>
    void callback(Fn&& fn) {
        std::lock_guard lock(m_callbackMutex);
        if (m_callbacksOn)
            fn();
    }

    // ---- caller side, shared by start and restart (kernel_client.cpp)
    void launchAndWait();
    void waitForReady();
    bool waitForExit(double seconds);
    void stopKernel(bool restart);

    Options m_options;
    Callbacks m_callbacks;
    const std::string m_session;
    const std::string m_username;
    std::atomic<std::uint64_t> m_counter{0};
    std::mutex m_lifecycle; // serialises start, restart and shutdown

    // guarded by m_mutex
    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    Phase m_phase = Phase::NotStarted;
    std::optional<process::ExitStatus> m_exit; // the current kernel process has ended
    int m_pid = -1;
    Json m_kernelInfo = Json::object();
    std::string m_stderrTail;
    std::uint64_t m_iopubCount = 0;
    int m_iopubWatchers = 0; // callers waiting for m_iopubCount to move
    std::map<std::string, Waiter> m_waiters;
    std::unordered_set<std::string> m_internal; // msg_ids of the client's own requests
    ConnectionInfo m_connection;                // the I/O thread copies it when it connects
    std::filesystem::path m_connectionFile;
    std::atomic<bool> m_heartbeatOn{false};
    std::atomic<std::thread::id> m_ioThreadId{};

    std::unique_ptr<Signer> m_signer; // set in start() before the I/O thread runs; then constant

    // the I/O thread and its queue
    std::thread m_thread;
    process::Fd m_wake; // an eventfd the loop polls
    std::mutex m_taskMutex;
    std::vector<std::function<void()>> m_tasks;
    bool m_quit = false; // guarded by m_taskMutex

    std::mutex m_callbackMutex;
    bool m_callbacksOn = true; // guarded by m_callbackMutex

    // I/O thread only
    std::unique_ptr<zmq::context_t> m_context;
    std::map<Channel, zmq::socket_t> m_sockets;
    ReplayGuard m_replay;
    process::Process m_process;
    process::Fd m_stdinWrite;
    process::Fd m_stdout;
    process::Fd m_stderr;
    process::Fd m_pidfd;
    std::string m_stderrPartial;
    std::map<std::string, std::string> m_pending; // tracked msg_id -> msg_type
    Json m_lastInputHeader = Json::object();
    double m_hbSentAt = 0; // monotonic seconds of the ping awaiting its echo, 0 when none
    double m_hbNextAt = 0; // when the next ping goes
    bool m_heartFailed = false;
};

} // namespace studio::jupyter
