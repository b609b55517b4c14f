// GPU readings through NVML, loaded with dlopen at run time: no NVML, no GPUs, no error.
// The library is "libnvidia-ml.so.1" unless the environment variable STUDIO_NVML_LIBRARY names
// another one (a path or a soname; empty means unset), which lets tests load a stand-in NVML.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace studio::launcher {

struct GpuInfo {
    std::string name;
    unsigned long long memoryBytes = 0;
};

// A value NVML failed to report is empty, never 0: an idle GPU and an unreadable one differ.
struct GpuReading {
    std::optional<double> utilization;   // percent
    std::optional<double> memoryPercent; // used / total, in percent
};

class Nvml {
public:
    Nvml();
    ~Nvml();
    Nvml(const Nvml&) = delete;
    Nvml& operator=(const Nvml&) = delete;

    int deviceCount() const { return m_count; }
    std::vector<GpuReading> read() const;
    // Name and memory of each device (what `studio-launcher probe` reports).
    std::vector<GpuInfo> devices() const;

private:
    void* m_lib = nullptr;
    int m_count = 0;
    struct Api;
    Api* m_api = nullptr;
};

} // namespace studio::launcher
