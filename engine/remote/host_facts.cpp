#include "engine/remote/host_facts.h"

#include <nlohmann/json.hpp>

#include <sstream>

namespace studio::remote {

std::string launcherVersionLine() {
    return std::string("studio-launcher ") + STUDIO_VERSION + " (protocol " +
           std::to_string(kLauncherProtocol) + ")";
}

std::string findVersionLine(const std::string& output) {
    std::istringstream in(output);
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("studio-launcher ", 0) == 0)
            return line;
    return {};
}

std::string encodeHostFacts(const HostFacts& f) {
    nlohmann::json gpus = nlohmann::json::array();
    for (const auto& g : f.gpus)
        gpus.push_back({{"index", g.index}, {"name", g.name}, {"memory_bytes", g.memoryBytes}});
    nlohmann::json j{{"version", f.version},
                     {"hostname", f.hostname},
                     {"cores", f.cores},
                     {"memory_bytes", f.memoryBytes},
                     {"workdir", f.workdir},
                     {"disk_free_bytes", f.diskFreeBytes},
                     {"gpus", gpus},
                     {"time", f.time},
                     {"ssh_server_address", f.sshServerAddress},
                     {"free_port", f.freePort},
                     {"route_address", f.routeAddress},
                     {"route_ifname", f.routeIfname},
                     {"route_source", f.routeSource}};
    return std::string(kProbeMarker) + "\n" + j.dump() + "\n";
}

std::optional<HostFacts> parseHostFacts(const std::string& output) {
    const auto marker = output.find(std::string(kProbeMarker) + "\n");
    if (marker == std::string::npos)
        return std::nullopt;
    const auto start = marker + std::string(kProbeMarker).size() + 1;
    const auto end = output.find('\n', start);
    auto j = nlohmann::json::parse(
        output.substr(start, end == std::string::npos ? end : end - start), nullptr, false);
    if (!j.is_object())
        return std::nullopt;
    HostFacts f;
    try {
        f.version = j.value("version", "");
        f.hostname = j.value("hostname", "");
        f.cores = j.value("cores", 0);
        f.memoryBytes = j.value("memory_bytes", std::int64_t{0});
        f.workdir = j.value("workdir", "");
        f.diskFreeBytes = j.value("disk_free_bytes", std::int64_t{-1});
        for (const auto& g : j.value("gpus", nlohmann::json::array()))
            f.gpus.push_back({g.value("index", 0), g.value("name", ""),
                              g.value("memory_bytes", std::int64_t{0})});
        f.time = j.value("time", 0.0);
        f.sshServerAddress = j.value("ssh_server_address", "");
        f.freePort = j.value("free_port", 0);
        f.routeAddress = j.value("route_address", "");
        f.routeIfname = j.value("route_ifname", "");
        f.routeSource = j.value("route_source", "");
    } catch (const std::exception&) {
        return std::nullopt;
    }
    return f;
}

} // namespace studio::remote
