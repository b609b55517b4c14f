// A Jupyter frontend's side of one kernel: launches the kernel from its kernelspec, speaks
// protocol 5.3 to it over ZeroMQ (shell, control, stdin, IOPub, heartbeat), and stops and reaps
// it (jupyter-protocol.md §2-§8). Qt-free.
// Thread-safety: every public method may be called from any thread; callbacks run on the client's
// own I/O thread, must not block for long, and must not call start/restart/shutdown/...AndWait
// or destroy the client (those wait for the I/O thread; they throw std::logic_error there).
#pragma once

#include "engine/jupyter/connection.h"
#include "engine/jupyter/kernelspec.h"
#include "engine/jupyter/message.h"

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace studio::jupyter {

// A kernel that cannot be started or used: the message names the kernelspec and, when the
// kernel said why, ends with the last lines of its stderr.
class KernelError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// What executeAndWait collected: the execute_reply's content and every IOPub message whose
// parent is the request (busy, execute_input, outputs, idle), in arrival order.
struct ExecuteResult {
    Json reply;
    std::vector<Message> iopub;
};

class KernelClient {
public:
    struct Options {
        KernelSpec spec;
        std::filesystem::path workingDir; // the kernel's cwd ("" = ours)
        std::map<std::string, std::string>
            env; // added over the current environment (+spec.env, ${VAR} expanded)
        std::filesystem::path runtimeDir; // for the connection file ("" = defaultRuntimeDir())
        double readyTimeoutS = 60;
        double shutdownWaitS =
            5; // jupyter_client's shutdown_wait_time: half before SIGTERM, half before SIGKILL
    };
    struct Callbacks {
        std::function<void(const Message&)>
            iopub; // every IOPub message (status, stream, display_data, ...)
        std::function<void(const Message&)>
            shellReply; // execute_reply, complete_reply, ...; control replies too
        std::function<void(const Message&)> stdinRequest; // input_request
        // The kernel process ended unexpectedly: its exit code, or -N when signal N ended it
        // (as Python's returncode), and the last lines of its stderr.
        std::function<void(int exitStatus, const std::string& stderrTail)> died;
        // Protocol problems (a refused message and why), heartbeat failures, kernel stderr lines.
        std::function<void(const std::string& line)> log;
        // A request that will never get its reply (the kernel died or was restarted): its msg_id
        // and why. Fired for each such request sent through execute() or request().
        std::function<void(const std::string& msgId, const std::string& why)> requestFailed;
    };

    KernelClient(Options options, Callbacks callbacks);
    // Shuts the kernel down (the sequence of shutdown()), reaps it, deletes the connection file;
    // never throws. No callback runs once the destructor has begun; a start() or restart() in
    // progress on another thread is waited for.
    ~KernelClient();
    KernelClient(const KernelClient&) = delete;
    KernelClient& operator=(const KernelClient&) = delete;

    // Writes the connection file, launches the kernel and waits until it is ready (kernel_info
    // nudges until IOPub is live). Throws KernelError naming the kernelspec and its stderr tail;
    // the kernel is then stopped and reaped. Call once.
    void start();
    // Sends execute_request; returns its msg_id. Throws KernelError when the kernel is not running.
    std::string execute(const std::string& code, bool silent = false, bool storeHistory = true,
                        bool allowStdin = true, bool stopOnError = true);
    // Sends <msgType> on shell (complete_request, inspect_request, is_complete_request,
    // history_request, kernel_info_request, comm_info_request); returns its msg_id.
    std::string request(const std::string& msgType, const Json& content);
    // Answers the last input_request on stdin (same identity as shell).
    void inputReply(const std::string& value);
    // Signal mode: SIGINT to the kernel's process group; message mode: interrupt_request on
    // control.
    void interrupt();
    // Stops the kernel as shutdown() does but with restart: true, fails pending requests locally,
    // relaunches it on the same connection file (fresh ports if the old ones are taken) and waits
    // until it is ready again. Also brings back a kernel that died. Throws KernelError.
    void restart();
    // Interrupt, shutdown_request on control, wait half of shutdownWaitS, SIGTERM, wait the other
    // half, SIGKILL; reaps the kernel and deletes the connection file. Idempotent.
    void shutdown();

    bool alive() const;
    int pid() const; // the kernel's process id, -1 before start and after it ended
    // The last kernel_info_reply's content (from start or restart); a copy, safe across restarts.
    Json kernelInfo() const;
    std::string session() const;
    ConnectionInfo connectionInfo() const;
    std::filesystem::path connectionFile() const;
    const KernelSpec& spec() const;
    // The last lines the kernel wrote to stderr (bounded).
    std::string stderrTail() const;

    // Blocking conveniences (for nbrun, benches and tests): execute code and collect its IOPub
    // messages until its idle status AND its execute_reply have arrived (jupyter-protocol.md §6).
    // Callbacks still see the messages. Throws KernelError on timeout or when the kernel dies.
    ExecuteResult executeAndWait(const std::string& code, double timeoutS = 60,
                                 bool allowStdin = false, bool stopOnError = true);
    // Sends a shell request and returns its reply.
    Message requestAndWait(const std::string& msgType, const Json& content, double timeoutS = 10);

    class Impl;

private:
    std::unique_ptr<Impl> m_impl;
};

} // namespace studio::jupyter
