#include "engine/jupyter/message.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <pwd.h>
#include <stdexcept>
#include <unistd.h>

namespace studio::jupyter {

namespace {

std::string stringField(const Json& object, const char* key) {
    if (!object.is_object())
        return {};
    auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string toHex(const unsigned char* bytes, std::size_t n) {
    static const char digits[] = "0123456789abcdef";
    std::string out(2 * n, '0');
    for (std::size_t i = 0; i < n; ++i) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    return out;
}

// "hmac-sha256" -> "SHA256", the name OpenSSL's digests go by.
std::string digestOfScheme(const std::string& scheme) {
    if (scheme.rfind("hmac-", 0) != 0)
        throw std::invalid_argument("signature_scheme '" + scheme + "': must start with 'hmac-'");
    std::string name = scheme.substr(5);
    for (char& c : name)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EVP_MD* md = EVP_MD_fetch(nullptr, name.c_str(), nullptr);
    if (!md)
        throw std::invalid_argument("signature_scheme '" + scheme + "': unknown digest '" + name +
                                    "'");
    EVP_MD_free(md);
    return name;
}

} // namespace

std::string Message::msgType() const {
    return stringField(header, "msg_type");
}
std::string Message::msgId() const {
    return stringField(header, "msg_id");
}
std::string Message::parentMsgId() const {
    return stringField(parentHeader, "msg_id");
}

std::string isoNow() {
    using namespace std::chrono;
    const auto now = system_clock::now();
    const auto micros = duration_cast<microseconds>(now.time_since_epoch()).count() % 1000000;
    const std::time_t seconds = system_clock::to_time_t(now);
    std::tm utc{};
    ::gmtime_r(&seconds, &utc);
    char date[24];
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &utc);
    char fraction[12];
    std::snprintf(fraction, sizeof fraction, ".%06dZ", static_cast<int>(micros));
    return std::string(date) + fraction;
}

Json makeHeader(const std::string& msgType, const std::string& msgId, const std::string& session,
                const std::string& username) {
    return Json{{"msg_id", msgId},    {"msg_type", msgType}, {"username", username},
                {"session", session}, {"date", isoNow()},    {"version", kProtocolVersion}};
}

std::string newSessionId() {
    unsigned char bytes[16];
    if (RAND_bytes(bytes, sizeof bytes) != 1)
        throw std::runtime_error("RAND_bytes: OpenSSL has no randomness for a session id");
    return toHex(bytes, 4) + "-" + toHex(bytes + 4, 12);
}

std::string currentUsername() {
    if (const char* user = std::getenv("USER"); user && *user)
        return user;
    if (const passwd* pw = ::getpwuid(::geteuid()); pw && pw->pw_name)
        return pw->pw_name;
    return "username";
}

Signer::Signer(std::string key, const std::string& scheme)
    : m_key(std::move(key))
    , m_digest(digestOfScheme(scheme)) {
    if (m_key.empty())
        return;
    EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
    if (!mac)
        throw std::runtime_error("OpenSSL has no HMAC implementation");
    EVP_MAC_CTX* ctx = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac); // the context keeps its own reference
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, m_digest.data(), 0),
        OSSL_PARAM_construct_end()};
    if (!ctx || EVP_MAC_init(ctx, reinterpret_cast<const unsigned char*>(m_key.data()),
                             m_key.size(), params) != 1) {
        EVP_MAC_CTX_free(ctx);
        throw std::runtime_error("cannot key HMAC-" + m_digest + " with the connection key");
    }
    m_template.reset(ctx, EVP_MAC_CTX_free);
}

std::string Signer::sign(const std::array<std::string_view, 4>& frames) const {
    if (!enabled())
        return {};
    std::unique_ptr<EVP_MAC_CTX, void (*)(EVP_MAC_CTX*)> ctx(EVP_MAC_CTX_dup(m_template.get()),
                                                             EVP_MAC_CTX_free);
    if (!ctx)
        throw std::runtime_error("HMAC: cannot copy the keyed context");
    for (std::string_view frame : frames)
        EVP_MAC_update(ctx.get(), reinterpret_cast<const unsigned char*>(frame.data()),
                       frame.size());
    unsigned char digest[EVP_MAX_MD_SIZE];
    std::size_t length = 0;
    if (EVP_MAC_final(ctx.get(), digest, &length, sizeof digest) != 1)
        throw std::runtime_error("HMAC: cannot finish the digest");
    return toHex(digest, length);
}

bool Signer::verify(const std::array<std::string_view, 4>& frames,
                    std::string_view signature) const {
    const std::string expected = sign(frames);
    return signature.size() == expected.size() &&
           CRYPTO_memcmp(signature.data(), expected.data(), expected.size()) == 0;
}

void ReplayGuard::remember(const std::string& signature) {
    if (m_capacity == 0 || !m_seen.insert(signature).second)
        return;
    m_order.push_back(signature);
    while (m_order.size() > m_capacity) {
        m_seen.erase(m_order.front());
        m_order.pop_front();
    }
}

std::string dumpFrame(const Json& value) {
    return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::vector<std::string> serialize(const Message& msg, const Signer& signer,
                                   const std::vector<std::string>& identities) {
    std::vector<std::string> frames = identities;
    frames.reserve(identities.size() + 6 + msg.buffers.size());
    frames.emplace_back(kDelimiter);
    std::array<std::string, 4> json = {dumpFrame(msg.header), dumpFrame(msg.parentHeader),
                                       dumpFrame(msg.metadata), dumpFrame(msg.content)};
    frames.push_back(signer.sign({json[0], json[1], json[2], json[3]}));
    for (auto& frame : json)
        frames.push_back(std::move(frame));
    frames.insert(frames.end(), msg.buffers.begin(), msg.buffers.end());
    return frames;
}

namespace {

// Parses one JSON frame that must be an object (or empty, as some kernels send for "{}").
bool parseObject(const std::string& frame, const char* name, Json& out, std::string& error) {
    if (frame.empty()) {
        out = Json::object();
        return true;
    }
    try {
        out = Json::parse(frame);
    } catch (const Json::parse_error& e) {
        error = std::string(name) + ": not valid JSON (" + e.what() + ")";
        return false;
    }
    if (!out.is_object()) {
        error = std::string(name) + ": not a JSON object";
        return false;
    }
    return true;
}

} // namespace

Decoded deserialize(const std::vector<std::string>& frames, const Signer& signer,
                    ReplayGuard* guard) {
    Decoded result;
    std::size_t delimiter = 0;
    while (delimiter < frames.size() && frames[delimiter] != kDelimiter)
        ++delimiter;
    if (delimiter == frames.size()) {
        result.error = "no <IDS|MSG> delimiter in " + std::to_string(frames.size()) + " frames";
        return result;
    }
    if (frames.size() - delimiter < 6) {
        result.error = "truncated message: " + std::to_string(frames.size() - delimiter - 1) +
                       " frames after <IDS|MSG>, need 5 (signature, header, parent_header, "
                       "metadata, content)";
        return result;
    }
    const std::string& signature = frames[delimiter + 1];
    if (signer.enabled()) {
        if (signature.empty()) {
            result.error = "unsigned message (the connection has a key)";
            return result;
        }
        if (!signer.verify({frames[delimiter + 2], frames[delimiter + 3], frames[delimiter + 4],
                            frames[delimiter + 5]},
                           signature)) {
            result.error = "bad signature";
            return result;
        }
        if (guard && guard->seen(signature)) {
            result.error = "duplicate signature (a replayed message)";
            return result;
        }
    }
    WireMessage wire;
    wire.identities.assign(frames.begin(), frames.begin() + static_cast<long>(delimiter));
    Message& m = wire.message;
    if (!parseObject(frames[delimiter + 2], "header", m.header, result.error) ||
        !parseObject(frames[delimiter + 3], "parent_header", m.parentHeader, result.error) ||
        !parseObject(frames[delimiter + 4], "metadata", m.metadata, result.error) ||
        !parseObject(frames[delimiter + 5], "content", m.content, result.error))
        return result;
    if (m.msgType().empty()) {
        result.error = "header: no msg_type";
        return result;
    }
    m.buffers.assign(frames.begin() + static_cast<long>(delimiter) + 6, frames.end());
    if (signer.enabled() && guard)
        guard->remember(signature);
    result.value = std::move(wire);
    return result;
}

} // namespace studio::jupyter
