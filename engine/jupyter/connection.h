// How a client and a kernel find each other: the connection file (transport, address, five
// ports, HMAC key), written 0600 into a private runtime folder before the kernel starts
// (jupyter-protocol.md §1). Qt-free.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace studio::jupyter {

using Json = nlohmann::json;

enum class Channel { Shell, IOPub, Stdin, Control, Heartbeat };

// "shell", "iopub", "stdin", "control", "hb" (the names the connection file's ports carry).
const char* channelName(Channel channel);

struct ConnectionInfo {
    std::string transport = "tcp";
    std::string ip = "127.0.0.1";
    int shellPort = 0;
    int iopubPort = 0;
    int stdinPort = 0;
    int controlPort = 0;
    int hbPort = 0;
    std::string key;
    std::string signatureScheme = "hmac-sha256";
    std::string kernelName;

    int port(Channel channel) const;
    // tcp://ip:port, or ipc://ip-port for the ipc transport.
    std::string url(Channel channel) const;
    Json toJson() const;
    // Throws std::invalid_argument naming the field that is missing or of the wrong type.
    static ConnectionInfo fromJson(const Json& json);
    // Loopback TCP with five distinct ports that were free a moment ago and a fresh random key.
    static ConnectionInfo loopback(const std::string& kernelName);
};

// 2 * bytes lowercase hex digits from OpenSSL's RAND_bytes.
std::string randomHexKey(std::size_t bytes = 32);

// Where connection files go unless told: $JUPYTER_RUNTIME_DIR, else $XDG_RUNTIME_DIR/jupyter,
// else <jupyter data dir>/runtime (the data dir as kernelspec.h's jupyterDataDir()).
std::filesystem::path defaultRuntimeDir();
// Creates dir (and missing parents) and makes it 0700; throws std::runtime_error naming the
// folder when it cannot be made private (another user's folder, a link).
void ensurePrivateDir(const std::filesystem::path& dir);
// Writes dir/kernel-<random>.json, mode 0600, never over an existing file; returns its path.
std::filesystem::path writeConnectionFile(const ConnectionInfo& info,
                                          const std::filesystem::path& dir);
// Reads and checks a connection file; throws naming the file and the field.
ConnectionInfo readConnectionFile(const std::filesystem::path& file);

} // namespace studio::jupyter
