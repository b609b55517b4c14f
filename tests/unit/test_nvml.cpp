// NVML readings through a stand-in library (tests/support/fake_nvml.cpp) loaded through
// STUDIO_NVML_LIBRARY: a failed read is missing, never 0 %, in Nvml::read and in the samples.
#include "launcher/nvml.h"
#include "launcher/system_sampler.h"

#include <QtTest>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>

using namespace studio::launcher;

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

class TestNvml : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void readsStandIn() {
        NvmlLibraryOverride lib(STUDIO_FAKE_NVML);
        Nvml nvml;
        QCOMPARE(nvml.deviceCount(), 2);
        const auto readings = nvml.read();
        QCOMPARE(readings.size(), std::size_t(2));
        QVERIFY(readings[0].utilization.has_value());
        QCOMPARE(*readings[0].utilization, 37.0);
        QVERIFY(readings[0].memoryPercent.has_value());
        QCOMPARE(*readings[0].memoryPercent, 25.0); // 4 GiB of 16 GiB
        // Device 1's utilization read fails: missing, not 0 %; its memory read still counts.
        QVERIFY(!readings[1].utilization.has_value());
        QVERIFY(readings[1].memoryPercent.has_value());
        QCOMPARE(*readings[1].memoryPercent, 12.5); // 2 GiB of 16 GiB
    }

    void namesStandInDevices() {
        NvmlLibraryOverride lib(STUDIO_FAKE_NVML);
        Nvml nvml;
        const auto devices = nvml.devices();
        QCOMPARE(devices.size(), std::size_t(2));
        QCOMPARE(devices[0].name, std::string("Stand-in GPU 0"));
        QCOMPARE(devices[1].name, std::string("Stand-in GPU 1"));
        QCOMPARE(devices[0].memoryBytes, 16ull * 1024 * 1024 * 1024);
    }

    void samplerSkipsFailedReads() {
        NvmlLibraryOverride lib(STUDIO_FAKE_NVML);
        SystemSampler sampler;
        QCOMPARE(sampler.gpus(), 2);
        for (double now : {1.0, 1.1}) { // the priming call and a full one both read the GPUs
            const auto samples = sampler.sample(now);
            QCOMPARE(findSample(samples, "gpu0", "util"), std::optional<double>(37.0));
            QCOMPARE(findSample(samples, "gpu0", "mem"), std::optional<double>(25.0));
            QCOMPARE(findSample(samples, "gpu1", "mem"), std::optional<double>(12.5));
            // No gpu1 utilization sample at all: a 0 here would chart a busy GPU as idle.
            QVERIFY(!findSample(samples, "gpu1", "util"));
        }
    }

    void missingLibraryMeansNoGpus() {
        NvmlLibraryOverride lib("/nonexistent/libnvidia-ml-stand-in.so");
        Nvml nvml;
        QCOMPARE(nvml.deviceCount(), 0);
        QVERIFY(nvml.read().empty());
        QVERIFY(nvml.devices().empty());
        SystemSampler sampler;
        QCOMPARE(sampler.gpus(), 0);
        QVERIFY(!anyGpuSample(sampler.sample(1.0)));
        QVERIFY(!anyGpuSample(sampler.sample(1.1)));
    }
};

QTEST_GUILESS_MAIN(TestNvml)
#include "test_nvml.moc"
