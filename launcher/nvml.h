// GPU readings through NVML, loaded with dlopen at run time: no NVML, no GPUs, no error.
#pragma once

#include <string>
#include <vector>

namespace studio::launcher {

struct GpuInfo {
    std::string name;
    unsigned long long memoryBytes = 0;
};

struct GpuReading {
    double utilization = 0;   // percent
    double memoryPercent = 0; // used / total
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
