// Requests to a running job from other processes (`mlstudio stop JOB`, the studio window's Stop
// on a job another studio runs): a Unix socket per job in <home>/run (0700, owned by this user),
// one JSON line each way: {"action":"stop"|"interrupt","reason":"..."} -> {"ok":...,"message":...}.
// The server runs on a thread of its own, answers only its own user (SO_PEERCRED, root too), and
// bounds each request's size and time.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace studio::control {

inline constexpr std::size_t kMaxControlRequest = 4096; // bytes, newline included
inline constexpr int kControlRequestMillis = 2000;      // a client's whole request

// <home>/run, created 0700 when missing; throws when it exists and is not a directory of this
// user that only this user can enter.
std::string controlSocketDirectory(const std::string& home, bool create = true); // "" when missing
                                                                                 // and !create
std::string controlSocketPath(const std::string& home, const std::string& job);

struct ControlReply {
    bool ok = false;
    std::string message;
};

// nullopt when no studio process runs the job (or the socket belongs to another user).
std::optional<ControlReply> sendControl(const std::string& home, const std::string& job,
                                        const std::string& action, const std::string& reason = {});

struct ControlRequest {
    std::string action;
    std::string reason;
};
// Never throws: nullopt for anything but an object with a string action (and a string reason
// when present), within kMaxControlRequest.
std::optional<ControlRequest> parseControlRequest(const std::string& line);
std::string encodeControlReply(const ControlReply& r);

// Serves one job's socket until destroyed (the socket file goes with it).
class ControlServer {
public:
    using Handler = std::function<ControlReply(const ControlRequest&)>;
    // Throws std::runtime_error naming the socket when it cannot listen.
    ControlServer(const std::string& home, const std::string& job, Handler handler);
    ~ControlServer();
    ControlServer(const ControlServer&) = delete;
    ControlServer& operator=(const ControlServer&) = delete;

    const std::string& path() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace studio::control
