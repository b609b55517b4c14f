// NVML readings through a stand-in library (tests/support/fake_nvml.cpp) loaded through
// STUDIO_NVML_LIBRARY: a failed read is missing, never 0 %, in Nvml::read and in the samples.
#include "launcher/nvml.h"
#include "launcher/system_sampler.h"

#include "tests/support/plain_test.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>

using namespace studio::launcher;
using studio::testing::nearly;

namespace {

// Points Nvml at another library for the lifetime of the guard, then restores the variable.
class NvmlLibraryOverride {
public:
    explicit NvmlLibraryOverride(const char* path) {
        if (const char* old = std::getenv(kVariable))
            m_previous = old;
        ::setenv(kVariable, path, 1);
    }
    ~NvmlLibraryOverride() {
        if (m_previous)
            ::setenv(kVariable, m_previous->c_str(), 1);
        else
            ::unsetenv(kVariable);
    }
    NvmlLibraryOverride(const NvmlLibraryOverride&) = delete;
    NvmlLibraryOverride& operator=(const NvmlLibraryOverride&) = delete;

private:
    static constexpr const char* kVariable = "STUDIO_NVML_LIBRARY";
    std::optional<std::string> m_previous;
};

std::optional<double> findSample(const std::vector<Sample>& samples, const std::string& device,
                                 const std::string& metric) {
    auto it = std::find_if(samples.begin(), samples.end(), [&](const Sample& s) {
        return s.device == device && s.metric == metric;
    });
    if (it == samples.end())
        return std::nullopt;
    return it->value;
}

bool anyGpuSample(const std::vector<Sample>& samples) {
    return std::any_of(samples.begin(), samples.end(),
                       [](const Sample& s) { return s.device.rfind("gpu", 0) == 0; });
}

} // namespace

TEST_CASE("readsStandIn") {
    NvmlLibraryOverride lib(STUDIO_FAKE_NVML);
    Nvml nvml;
    REQUIRE(nvml.deviceCount() == 2);
    const auto readings = nvml.read();
    REQUIRE(readings.size() == std::size_t(2));
    REQUIRE(readings[0].utilization.has_value());
    REQUIRE(*readings[0].utilization == nearly(37.0));
    REQUIRE(readings[0].memoryPercent.has_value());
    REQUIRE(*readings[0].memoryPercent == nearly(25.0)); // 4 GiB of 16 GiB
    // Device 1's utilization read fails: missing, not 0 %; its memory read still counts.
    REQUIRE(!readings[1].utilization.has_value());
    REQUIRE(readings[1].memoryPercent.has_value());
    REQUIRE(*readings[1].memoryPercent == nearly(12.5)); // 2 GiB of 16 GiB
}

TEST_CASE("namesStandInDevices") {
    NvmlLibraryOverride lib(STUDIO_FAKE_NVML);
    Nvml nvml;
    const auto devices = nvml.devices();
    REQUIRE(devices.size() == std::size_t(2));
    REQUIRE(devices[0].name == std::string("Stand-in GPU 0"));
    REQUIRE(devices[1].name == std::string("Stand-in GPU 1"));
    REQUIRE(devices[0].memoryBytes == 16ull * 1024 * 1024 * 1024);
}

TEST_CASE("samplerSkipsFailedReads") {
    NvmlLibraryOverride lib(STUDIO_FAKE_NVML);
    SystemSampler sampler;
    REQUIRE(sampler.gpus() == 2);
    for (double now : {1.0, 1.1}) { // the priming call and a full one both read the GPUs
        const auto samples = sampler.sample(now);
        REQUIRE(findSample(samples, "gpu0", "util") == (std::optional<double>(37.0)));
        REQUIRE(findSample(samples, "gpu0", "mem") == (std::optional<double>(25.0)));
        REQUIRE(findSample(samples, "gpu1", "mem") == (std::optional<double>(12.5)));
        // No gpu1 utilization sample at all: a 0 here would chart a busy GPU as idle.
        REQUIRE(!findSample(samples, "gpu1", "util"));
    }
}

TEST_CASE("missingLibraryMeansNoGpus") {
    NvmlLibraryOverride lib("/nonexistent/libnvidia-ml-stand-in.so");
    Nvml nvml;
    REQUIRE(nvml.deviceCount() == 0);
    REQUIRE(nvml.read().empty());
    REQUIRE(nvml.devices().empty());
    SystemSampler sampler;
    REQUIRE(sampler.gpus() == 0);
    REQUIRE(!anyGpuSample(sampler.sample(1.0)));
    REQUIRE(!anyGpuSample(sampler.sample(1.1)));
}
