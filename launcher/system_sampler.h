// Samples a node from /proc: CPU utilization per core and in total, I/O wait, memory, network
// and disk throughput; GPU utilization and memory through NVML when it is present.
// Parsing is separated from reading so it is unit-tested on fixed text.
#pragma once

#include "launcher/nvml.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace studio::launcher {

struct CpuTimes {
    std::uint64_t busy = 0; // user + nice + system + irq + softirq + steal
    std::uint64_t iowait = 0;
    std::uint64_t total = 0; // every field but guest time (already in user)
};

struct ProcStat {
    CpuTimes all;
    std::vector<CpuTimes> cores;
};

struct Counters {
    std::uint64_t netRx = 0, netTx = 0;        // bytes, every interface
    std::uint64_t diskRead = 0, diskWrite = 0; // bytes, whole disks only
};

ProcStat parseProcStat(std::string_view text);
// Used memory in percent: (MemTotal - MemAvailable) / MemTotal.
std::optional<double> parseMeminfo(std::string_view text);
void parseNetDev(std::string_view text, Counters& out);
void parseDiskstats(std::string_view text, Counters& out);

struct Sample {
    std::string device; // "cpu", "cpu0", "mem", "net", "disk", "gpu0"
    std::string metric; // "util", "iowait", "used", "rx", "tx", "read", "write", "mem"
    double value;
};

class SystemSampler {
public:
    explicit SystemSampler(std::string procRoot = "/proc");
    int cores() const { return m_cores; }
    int gpus() const { return m_nvml.deviceCount(); }
    // Rates and utilizations since the previous call (the first call only primes the counters
    // and returns memory and GPU readings).
    std::vector<Sample> sample(double nowSeconds);

private:
    std::string m_root;
    int m_cores = 1;
    std::optional<ProcStat> m_lastStat;
    std::optional<Counters> m_lastCounters;
    double m_lastTime = 0;
    Nvml m_nvml;
};

} // namespace studio::launcher
