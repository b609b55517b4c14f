#include "engine/control/control_channel.h"

#include "engine/process/fd.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <poll.h>
#include <unistd.h>

namespace studio::control {

std::string controlSocketName(const std::string& home, const std::string& job) {
    // Hash the home so two studios with different homes never share a name.
    return "mlstudio/" + std::to_string(std::hash<std::string>()(home)) + "/" + job;
}

std::optional<ControlRequest> parseControlRequest(const std::string& line) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("action") || !j["action"].is_string())
        return std::nullopt;
    return ControlRequest{j["action"].get<std::string>(), j.value("reason", "")};
}

std::string encodeControlReply(const ControlReply& r) {
    return nlohmann::json{{"ok", r.ok}, {"message", r.message}}.dump() + "\n";
}

std::optional<ControlReply> sendControl(const std::string& home, const std::string& job,
                                        const std::string& action, const std::string& reason) {
    process::Fd s = process::connectAbstract(controlSocketName(home, job));
    if (!s.valid())
        return std::nullopt;
    nlohmann::json req{{"action", action}};
    if (!reason.empty())
        req["reason"] = reason;
    if (!process::writeAll(s.get(), req.dump() + "\n"))
        return std::nullopt;
    std::string reply;
    char buf[4096];
    pollfd p{s.get(), POLLIN, 0};
    while (reply.find('\n') == std::string::npos && ::poll(&p, 1, 5000) > 0) {
        ssize_t n = ::read(s.get(), buf, sizeof buf);
        if (n <= 0)
            break;
        reply.append(buf, static_cast<std::size_t>(n));
    }
    auto j = nlohmann::json::parse(reply.substr(0, reply.find('\n')), nullptr, false);
    if (!j.is_object())
        return ControlReply{false, "no reply from the studio process running " + job};
    return ControlReply{j.value("ok", false), j.value("message", "")};
}

} // namespace studio::control
