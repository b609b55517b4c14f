// What `studio-launcher probe` reports about its host, as one JSON object after a marker line
// (a login shell may print before it), and the version line both sides compare.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace studio::remote {

inline constexpr int kLauncherProtocol = 1;
inline constexpr const char* kProbeMarker = "@@studio-probe";

// "studio-launcher <version> (protocol <n>)": what `studio-launcher --version` prints.
std::string launcherVersionLine();
// The version line found in a command's output (a login shell may print before it); "" if none.
std::string findVersionLine(const std::string& output);

struct GpuFacts {
    int index = 0;
    std::string name;
    std::int64_t memoryBytes = 0;
};

struct HostFacts {
    std::string version; // the launcher's version line
    std::string hostname;
    int cores = 0;
    std::int64_t memoryBytes = 0;
    std::string workdir; // absolute, created when missing
    std::int64_t diskFreeBytes = -1;
    std::vector<GpuFacts> gpus;
    double time = 0;              // the host's clock, unix seconds
    std::string sshServerAddress; // this host's address on the studio's SSH connection
    int freePort = 0;             // a TCP port that was free on the host (0: not asked)
    std::string routeAddress;     // when asked: the address asked about,
    std::string routeIfname;      // the interface that reaches it,
    std::string routeSource;      // and this host's address on that interface
};

std::string encodeHostFacts(const HostFacts& f);
// Reads the JSON object after the marker; nullopt when the output holds none.
std::optional<HostFacts> parseHostFacts(const std::string& output);

} // namespace studio::remote
