#include "engine/control/control_channel.h"

#include "engine/process/fd.h"
#include "engine/process/process.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <poll.h>
#include <stdexcept>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

namespace studio::control {

namespace fs = std::filesystem;

namespace {

bool trustedUid(uid_t uid) {
    return uid == ::geteuid() || uid == 0;
}

// The run folder as an O_PATH descriptor, checked: a directory of this user, closed to others.
process::Fd openControlDir(const std::string& home, bool create) {
    const std::string dir = controlSocketDirectory(home, create);
    if (dir.empty())
        return {};
    return process::Fd(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
}

// Binding and connecting through /proc/self/fd keeps the address short whatever the home's
// length (sun_path holds 108 bytes).
sockaddr_un socketAddress(int dirFd, const std::string& name, socklen_t& len) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const std::string p = "/proc/self/fd/" + std::to_string(dirFd) + "/" + name;
    if (p.size() >= sizeof addr.sun_path)
        throw std::runtime_error("control socket name too long: " + name);
    std::memcpy(addr.sun_path, p.data(), p.size());
    len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + p.size() + 1);
    return addr;
}

std::optional<uid_t> peerUid(int fd) {
    ucred cred{};
    socklen_t len = sizeof cred;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
        return std::nullopt;
    return cred.uid;
}

void sendAll(int fd, const std::string& bytes) {
    std::size_t off = 0;
    while (off < bytes.size()) {
        ssize_t n = ::send(fd, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        off += static_cast<std::size_t>(n);
    }
}

// Reads one line within `limit` bytes and `millis`; "" with `error` set otherwise. Only the new
// bytes are searched for the newline.
std::string readLine(int fd, int stopFd, std::size_t limit, int millis, std::string& error) {
    std::string line;
    const double deadline = process::monotonicSeconds() + millis / 1000.0;
    char buf[1024];
    while (true) {
        const int left = static_cast<int>((deadline - process::monotonicSeconds()) * 1000);
        if (left <= 0) {
            error = "request timed out";
            return {};
        }
        pollfd p[2] = {{fd, POLLIN, 0}, {stopFd, POLLIN, 0}};
        const int r = ::poll(p, stopFd >= 0 ? 2 : 1, left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 || (stopFd >= 0 && p[1].revents)) {
            error = "closing";
            return {};
        }
        if (r == 0)
            continue;
        const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0) {
            error = "connection closed before a full request";
            return {};
        }
        const std::size_t before = line.size();
        line.append(buf, static_cast<std::size_t>(n));
        const std::size_t nl = line.find('\n', before);
        if (nl != std::string::npos && nl < limit)
            return line.substr(0, nl);
        if (line.size() >= limit) {
            error = "request too large (more than " + std::to_string(limit) + " bytes)";
            return {};
        }
    }
}

} // namespace

std::string controlSocketDirectory(const std::string& home, bool create) {
    std::error_code ec;
    const fs::path dir = fs::weakly_canonical(fs::path(home), ec) / "run";
    if (create) {
        fs::create_directories(dir.parent_path(), ec);
        if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
            throw std::runtime_error("cannot create " + dir.string() + ": " +
                                     process::errnoText(errno));
    }
    if (!create && !fs::exists(fs::symlink_status(dir, ec)))
        return {};
    if (const std::string why = process::privateFolderError(dir.string()); !why.empty())
        throw std::runtime_error(why);
    return dir.string();
}

std::string controlSocketPath(const std::string& home, const std::string& job) {
    return (fs::weakly_canonical(fs::path(home)) / "run" / (job + ".sock")).string();
}

std::optional<ControlRequest> parseControlRequest(const std::string& line) {
    if (line.size() >= kMaxControlRequest)
        return std::nullopt;
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object())
        return std::nullopt;
    const auto action = j.find("action");
    const auto reason = j.find("reason");
    if (action == j.end() || !action->is_string())
        return std::nullopt;
    if (reason != j.end() && !reason->is_string())
        return std::nullopt;
    return ControlRequest{action->get<std::string>(),
                          reason == j.end() ? std::string() : reason->get<std::string>()};
}

std::string encodeControlReply(const ControlReply& r) {
    const auto replace = nlohmann::json::error_handler_t::replace;
    return nlohmann::json{{"ok", r.ok}, {"message", r.message}}.dump(-1, ' ', false, replace) +
           "\n";
}

std::optional<ControlReply> sendControl(const std::string& home, const std::string& job,
                                        const std::string& action, const std::string& reason) {
    process::Fd dir;
    try {
        dir = openControlDir(home, false);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    if (!dir.valid())
        return std::nullopt;
    process::Fd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    socklen_t len = 0;
    const sockaddr_un addr = socketAddress(dir.get(), job + ".sock", len);
    if (!s.valid() || ::connect(s.get(), reinterpret_cast<const sockaddr*>(&addr), len) != 0)
        return std::nullopt;
    const auto uid = peerUid(s.get());
    if (!uid || !trustedUid(*uid))
        return std::nullopt;
    nlohmann::json req{{"action", action}};
    if (!reason.empty())
        req["reason"] = reason;
    sendAll(s.get(), req.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    std::string error;
    const std::string reply = readLine(s.get(), -1, 65536, 5000, error);
    const auto j = nlohmann::json::parse(reply, nullptr, false);
    if (!j.is_object())
        return ControlReply{false, "no reply from the studio process running " + job};
    const auto ok = j.find("ok");
    const auto message = j.find("message");
    return ControlReply{ok != j.end() && ok->is_boolean() && ok->get<bool>(),
                        message != j.end() && message->is_string() ? message->get<std::string>()
                                                                   : std::string()};
}

struct ControlServer::Impl {
    std::string path;
    std::string name;
    process::Fd dir;
    process::Fd listener;
    process::Fd stop; // eventfd
    Handler handler;
    std::thread thread;

    void serve();
    void answer(int client);
};

ControlServer::ControlServer(const std::string& home, const std::string& job, Handler handler)
    : d(std::make_unique<Impl>()) {
    d->name = job + ".sock";
    d->path = controlSocketPath(home, job);
    d->handler = std::move(handler);
    d->dir = openControlDir(home, true);
    if (!d->dir.valid())
        throw std::runtime_error("cannot open " + controlSocketDirectory(home, true) + ": " +
                                 process::errnoText(errno));
    d->listener.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!d->listener.valid())
        throw std::runtime_error("socket: " + process::errnoText(errno));
    // A socket file left by a process that died: this process owns the job now.
    ::unlinkat(d->dir.get(), d->name.c_str(), 0);
    socklen_t len = 0;
    const sockaddr_un addr = socketAddress(d->dir.get(), d->name, len);
    if (::bind(d->listener.get(), reinterpret_cast<const sockaddr*>(&addr), len) != 0 ||
        ::listen(d->listener.get(), 16) != 0)
        throw std::runtime_error("control socket " + d->path + ": " + process::errnoText(errno));
    d->stop.reset(::eventfd(0, EFD_CLOEXEC));
    d->thread = std::thread([impl = d.get()] { impl->serve(); });
}

ControlServer::~ControlServer() {
    std::uint64_t one = 1;
    (void)!::write(d->stop.get(), &one, sizeof one);
    d->thread.join();
    ::unlinkat(d->dir.get(), d->name.c_str(), 0);
}

const std::string& ControlServer::path() const {
    return d->path;
}

void ControlServer::Impl::serve() {
    while (true) {
        pollfd p[2] = {{listener.get(), POLLIN, 0}, {stop.get(), POLLIN, 0}};
        if (::poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        if (p[1].revents)
            return;
        process::Fd client(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
        if (client.valid())
            answer(client.get());
    }
}

void ControlServer::Impl::answer(int client) {
    const auto uid = peerUid(client);
    if (!uid || !trustedUid(*uid)) {
        sendAll(client, encodeControlReply({false, "permission denied: uid " +
                                                       (uid ? std::to_string(*uid) : "?") +
                                                       " does not own this job"}));
        return;
    }
    std::string error;
    const std::string line =
        readLine(client, stop.get(), kMaxControlRequest, kControlRequestMillis, error);
    ControlReply reply;
    if (!error.empty()) {
        reply = {false, error};
    } else if (auto req = parseControlRequest(line)) {
        try {
            reply = handler(*req);
        } catch (const std::exception& e) {
            reply = {false, std::string("request failed: ") + e.what()};
        }
    } else {
        reply = {false, "malformed request: expected {\"action\": \"stop\"|\"interrupt\", "
                        "\"reason\": text}"};
    }
    sendAll(client, encodeControlReply(reply));
}

} // namespace studio::control
