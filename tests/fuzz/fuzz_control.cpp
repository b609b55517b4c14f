// Fuzzes the control socket's request parser, which promises never to throw, and the reply
// encoder, whose line a client must always be able to read back.
#include "engine/control/control_channel.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string line(reinterpret_cast<const char*>(data), size);
    const auto request = studio::control::parseControlRequest(line);
    if (request && line.size() >= studio::control::kMaxControlRequest)
        std::abort();
    // The server echoes request text in replies; whatever the bytes, the reply is one JSON line.
    const std::string text = request ? request->action + request->reason : line;
    const std::string reply = studio::control::encodeControlReply({request.has_value(), text});
    if (reply.empty() || reply.back() != '\n' || reply.find('\n') != reply.size() - 1)
        std::abort();
    const auto parsed = nlohmann::json::parse(reply, nullptr, false);
    if (!parsed.is_object() || !parsed.contains("ok") || !parsed.at("ok").is_boolean() ||
        !parsed.contains("message") || !parsed.at("message").is_string())
        std::abort();
    return 0;
}
