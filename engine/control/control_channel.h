// Requests to a running job from other processes (`mlstudio stop JOB`, `mlstudio interrupt JOB`):
// a Unix socket in the abstract namespace per job, one JSON line each way:
// {"action":"stop"|"interrupt"} -> {"ok":true,...}.
#pragma once

#include <optional>
#include <string>

namespace studio::control {

std::string controlSocketName(const std::string& home, const std::string& job);

struct ControlReply {
    bool ok = false;
    std::string message;
};

// nullopt when no studio process runs the job.
std::optional<ControlReply> sendControl(const std::string& home, const std::string& job,
                                        const std::string& action, const std::string& reason = {});

struct ControlRequest {
    std::string action;
    std::string reason;
};
std::optional<ControlRequest> parseControlRequest(const std::string& line);
std::string encodeControlReply(const ControlReply& r);

} // namespace studio::control
