#include "engine/jupyter/connection.h"

#include "engine/jupyter/kernelspec.h"
#include "engine/jupyter/message.h"
#include "engine/process/fd.h"

#include <openssl/rand.h>

#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <set>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace studio::jupyter {

namespace fs = std::filesystem;

const char* channelName(Channel channel) {
    switch (channel) {
    case Channel::Shell:
        return "shell";
    case Channel::IOPub:
        return "iopub";
    case Channel::Stdin:
        return "stdin";
    case Channel::Control:
        return "control";
    case Channel::Heartbeat:
        return "hb";
    }
    return "?";
}

int ConnectionInfo::port(Channel channel) const {
    switch (channel) {
    case Channel::Shell:
        return shellPort;
    case Channel::IOPub:
        return iopubPort;
    case Channel::Stdin:
        return stdinPort;
    case Channel::Control:
        return controlPort;
    case Channel::Heartbeat:
        return hbPort;
    }
    return 0;
}

std::string ConnectionInfo::url(Channel channel) const {
    const std::string p = std::to_string(port(channel));
    if (transport == "ipc")
        return "ipc://" + ip + "-" + p;
    return transport + "://" + ip + ":" + p;
}

Json ConnectionInfo::toJson() const {
    return Json{{"shell_port", shellPort},
                {"iopub_port", iopubPort},
                {"stdin_port", stdinPort},
                {"control_port", controlPort},
                {"hb_port", hbPort},
                {"ip", ip},
                {"key", key},
                {"transport", transport},
                {"signature_scheme", signatureScheme},
                {"kernel_name", kernelName}};
}

namespace {

int portField(const Json& json, const char* name) {
    auto it = json.find(name);
    if (it == json.end())
        throw std::invalid_argument(std::string("missing field \"") + name + "\"");
    if (!it->is_number_integer() || it->get<long long>() < 0 || it->get<long long>() > 65535)
        throw std::invalid_argument(std::string("field \"") + name +
                                    "\" must be a port number (0-65535)");
    return it->get<int>();
}

std::string stringField(const Json& json, const char* name, const std::string& fallback,
                        bool required) {
    auto it = json.find(name);
    if (it == json.end() || it->is_null()) {
        if (required)
            throw std::invalid_argument(std::string("missing field \"") + name + "\"");
        return fallback;
    }
    if (!it->is_string())
        throw std::invalid_argument(std::string("field \"") + name + "\" must be a string");
    return it->get<std::string>();
}

} // namespace

ConnectionInfo ConnectionInfo::fromJson(const Json& json) {
    if (!json.is_object())
        throw std::invalid_argument("a connection file holds a JSON object");
    ConnectionInfo info;
    info.transport = stringField(json, "transport", "tcp", false);
    if (info.transport != "tcp" && info.transport != "ipc")
        throw std::invalid_argument("field \"transport\" must be \"tcp\" or \"ipc\", got \"" +
                                    info.transport + "\"");
    info.ip = stringField(json, "ip", "127.0.0.1", false);
    info.shellPort = portField(json, "shell_port");
    info.iopubPort = portField(json, "iopub_port");
    info.stdinPort = portField(json, "stdin_port");
    info.controlPort = portField(json, "control_port");
    info.hbPort = portField(json, "hb_port");
    info.key = stringField(json, "key", "", true);
    info.signatureScheme = stringField(json, "signature_scheme", "hmac-sha256", false);
    if (info.signatureScheme.rfind("hmac-", 0) != 0)
        throw std::invalid_argument("field \"signature_scheme\" must start with \"hmac-\", got \"" +
                                    info.signatureScheme + "\"");
    info.kernelName = stringField(json, "kernel_name", "", false);
    return info;
}

ConnectionInfo ConnectionInfo::loopback(const std::string& kernelName) {
    ConnectionInfo info;
    info.kernelName = kernelName;
    info.key = randomHexKey();
    // Five distinct ports: a port handed out twice in a row would make the kernel's second bind
    // fail, so repeats are drawn again.
    std::set<int> ports;
    while (ports.size() < 5)
        ports.insert(process::freeTcpPort());
    auto it = ports.begin();
    info.shellPort = *it++;
    info.iopubPort = *it++;
    info.stdinPort = *it++;
    info.controlPort = *it++;
    info.hbPort = *it;
    return info;
}

std::string randomHexKey(std::size_t bytes) {
    std::string raw(bytes, '\0');
    if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(bytes)) != 1)
        throw std::runtime_error("RAND_bytes: OpenSSL has no randomness for a connection key");
    static const char digits[] = "0123456789abcdef";
    std::string hex;
    hex.reserve(2 * bytes);
    for (unsigned char c : raw) {
        hex.push_back(digits[c >> 4]);
        hex.push_back(digits[c & 15]);
    }
    return hex;
}

fs::path defaultRuntimeDir() {
    if (const char* dir = std::getenv("JUPYTER_RUNTIME_DIR"); dir && *dir)
        return dir;
    if (const char* xdg = std::getenv("XDG_RUNTIME_DIR"); xdg && *xdg)
        return fs::path(xdg) / "jupyter";
    return jupyterDataDir() / "runtime";
}

void ensurePrivateDir(const fs::path& dir) {
    std::error_code ec;
    if (dir.has_parent_path())
        fs::create_directories(dir.parent_path(), ec);
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
        throw std::runtime_error("cannot create the runtime folder " + dir.string() + ": " +
                                 process::errnoText(errno));
    if (std::string why = process::privateFolderError(dir.string()); !why.empty())
        throw std::runtime_error(why);
}

fs::path writeConnectionFile(const ConnectionInfo& info, const fs::path& dir) {
    ensurePrivateDir(dir);
    const std::string text = info.toJson().dump(1) + "\n";
    for (int attempt = 0; attempt < 8; ++attempt) {
        const fs::path file = dir / ("kernel-" + newSessionId() + ".json");
        process::Fd fd(::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
        if (!fd.valid()) {
            if (errno == EEXIST)
                continue;
            throw std::runtime_error("cannot write the connection file " + file.string() + ": " +
                                     process::errnoText(errno));
        }
        if (!process::writeAll(fd.get(), text)) {
            const int err = errno;
            fs::remove(file);
            throw std::runtime_error("cannot write the connection file " + file.string() + ": " +
                                     process::errnoText(err));
        }
        return file;
    }
    throw std::runtime_error("cannot find a free connection file name in " + dir.string());
}

ConnectionInfo readConnectionFile(const fs::path& file) {
    std::ifstream in(file);
    if (!in)
        throw std::runtime_error(file.string() + ": cannot read the connection file");
    try {
        return ConnectionInfo::fromJson(Json::parse(in));
    } catch (const Json::parse_error& e) {
        throw std::runtime_error(file.string() + ": not valid JSON (" + e.what() + ")");
    } catch (const std::invalid_argument& e) {
        throw std::runtime_error(file.string() + ": " + e.what());
    }
}

} // namespace studio::jupyter
