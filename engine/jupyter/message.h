// One Jupyter protocol message (5.3) and its wire form: the frames around the <IDS|MSG>
// delimiter, the HMAC signature over the four JSON frames, and the replay guard that refuses a
// signature already seen (jupyter-protocol.md §4). Qt-free.
// Thread-safety: Signer is immutable after construction and may be shared; ReplayGuard is not
// thread-safe (one per receiving thread).
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

struct evp_mac_ctx_st; // OpenSSL's EVP_MAC_CTX

namespace studio::jupyter {

using Json = nlohmann::json;

// The protocol version this client speaks and stamps into the headers it sends.
inline constexpr const char* kProtocolVersion = "5.3";
// The frame between routing identities (or a SUB topic) and the signature.
inline constexpr std::string_view kDelimiter = "<IDS|MSG>";

struct Message {
    Json header = Json::object();
    Json parentHeader = Json::object();
    Json metadata = Json::object();
    Json content = Json::object();
    std::vector<std::string> buffers; // raw binary frames after content (never signed)

    std::string msgType() const;     // header.msg_type, "" when absent
    std::string msgId() const;       // header.msg_id
    std::string parentMsgId() const; // parent_header.msg_id, "" for unsolicited messages
};

// A fresh header for a message this client sends: unique msg_id, ISO 8601 UTC date, version 5.3.
Json makeHeader(const std::string& msgType, const std::string& msgId, const std::string& session,
                const std::string& username);
// The current time as the protocol writes dates: "2026-11-02T10:04:05.123456Z".
std::string isoNow();
// A random id as jupyter_client's new_id(): 32 hex digits in two dash-separated groups.
std::string newSessionId();
// The user name jupyter_client puts in headers: $USER, else the login name, else "username".
std::string currentUsername();

// HMAC over the four JSON frames keyed with the connection key (jupyter-protocol.md §4).
class Signer {
public:
    // An empty key disables signing (signatures are empty and never checked). Throws
    // std::invalid_argument naming the scheme when it is not an HMAC OpenSSL knows.
    explicit Signer(std::string key = {}, const std::string& scheme = "hmac-sha256");

    bool enabled() const { return !m_key.empty(); }
    // Lowercase hex digest of header, parent_header, metadata and content as transmitted.
    std::string sign(const std::array<std::string_view, 4>& frames) const;
    // Whether signature is the digest of frames, compared in constant time.
    bool verify(const std::array<std::string_view, 4>& frames, std::string_view signature) const;

private:
    std::string m_key;
    std::string m_digest;                       // OpenSSL digest name, "SHA256" for hmac-sha256
    std::shared_ptr<evp_mac_ctx_st> m_template; // keyed once, duplicated per signature
};

// Signatures seen so far, so that a replayed message is refused (jupyter_client keeps 2^16).
class ReplayGuard {
public:
    explicit ReplayGuard(std::size_t capacity = 65536)
        : m_capacity(capacity) {}
    bool seen(const std::string& signature) const { return m_seen.count(signature) > 0; }
    // Records a signature; the oldest is forgotten beyond the capacity.
    void remember(const std::string& signature);
    std::size_t size() const { return m_seen.size(); }

private:
    std::size_t m_capacity;
    std::unordered_set<std::string> m_seen;
    std::deque<std::string> m_order;
};

// A message as received: routing identities (or a SUB topic) and the message itself.
struct WireMessage {
    std::vector<std::string> identities;
    Message message;
};

// Either a decoded message or why it was refused ("bad signature", "duplicate signature",
// "no <IDS|MSG> delimiter", "header: not valid JSON (...)").
struct Decoded {
    std::optional<WireMessage> value;
    std::string error;

    explicit operator bool() const { return value.has_value(); }
};

// The frames of msg, signed, after the given routing identities (none on a DEALER).
std::vector<std::string> serialize(const Message& msg, const Signer& signer,
                                   const std::vector<std::string>& identities = {});
// Parses frames; with a guard, a signature seen before is refused and a good one remembered.
Decoded deserialize(const std::vector<std::string>& frames, const Signer& signer,
                    ReplayGuard* guard = nullptr);

// A JSON frame as jupyter_client writes it: compact, UTF-8 written raw (invalid bytes replaced).
std::string dumpFrame(const Json& value);

} // namespace studio::jupyter
