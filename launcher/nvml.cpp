#include "launcher/nvml.h"

#include <cstdlib>
#include <dlfcn.h>

namespace studio::launcher {

namespace {
// The few NVML declarations we need, from its stable C ABI.
using nvmlReturn_t = int;
using nvmlDevice_t = void*;
struct nvmlUtilization_t {
    unsigned int gpu;
    unsigned int memory;
};
struct nvmlMemory_t {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};
// The library to load: STUDIO_NVML_LIBRARY when set and non-empty (tests point it at a
// stand-in), else the driver's NVML.
const char* libraryName() {
    const char* path = std::getenv("STUDIO_NVML_LIBRARY");
    return path && *path ? path : "libnvidia-ml.so.1";
}
} // namespace

struct Nvml::Api {
    nvmlReturn_t (*init)();
    nvmlReturn_t (*shutdown)();
    nvmlReturn_t (*count)(unsigned int*);
    nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t*);
    nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlUtilization_t*);
    nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t*);
    nvmlReturn_t (*name)(nvmlDevice_t, char*, unsigned int);
};

Nvml::Nvml() {
    m_lib = ::dlopen(libraryName(), RTLD_NOW | RTLD_LOCAL);
    if (!m_lib)
        return;
    auto* api = new Api{};
    api->init = reinterpret_cast<nvmlReturn_t (*)()>(::dlsym(m_lib, "nvmlInit_v2"));
    api->shutdown = reinterpret_cast<nvmlReturn_t (*)()>(::dlsym(m_lib, "nvmlShutdown"));
    api->count =
        reinterpret_cast<nvmlReturn_t (*)(unsigned int*)>(::dlsym(m_lib, "nvmlDeviceGetCount_v2"));
    api->handle = reinterpret_cast<nvmlReturn_t (*)(unsigned int, nvmlDevice_t*)>(
        ::dlsym(m_lib, "nvmlDeviceGetHandleByIndex_v2"));
    api->utilization = reinterpret_cast<nvmlReturn_t (*)(nvmlDevice_t, nvmlUtilization_t*)>(
        ::dlsym(m_lib, "nvmlDeviceGetUtilizationRates"));
    api->memory = reinterpret_cast<nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t*)>(
        ::dlsym(m_lib, "nvmlDeviceGetMemoryInfo"));
    api->name = reinterpret_cast<nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned int)>(
        ::dlsym(m_lib, "nvmlDeviceGetName"));
    unsigned int n = 0;
    if (!api->init || !api->shutdown || !api->count || !api->handle || !api->utilization ||
        !api->memory || api->init() != 0 || api->count(&n) != 0) {
        delete api;
        ::dlclose(m_lib);
        m_lib = nullptr;
        return;
    }
    m_api = api;
    m_count = static_cast<int>(n);
}

Nvml::~Nvml() {
    if (m_api) {
        m_api->shutdown();
        delete m_api;
    }
    if (m_lib)
        ::dlclose(m_lib);
}

std::vector<GpuReading> Nvml::read() const {
    std::vector<GpuReading> out;
    for (int i = 0; i < m_count; ++i) {
        nvmlDevice_t dev = nullptr;
        GpuReading r;
        if (m_api->handle(static_cast<unsigned int>(i), &dev) == 0) {
            nvmlUtilization_t u{};
            if (m_api->utilization(dev, &u) == 0)
                r.utilization = static_cast<double>(u.gpu);
            nvmlMemory_t m{};
            if (m_api->memory(dev, &m) == 0 && m.total > 0)
                r.memoryPercent =
                    100.0 * static_cast<double>(m.used) / static_cast<double>(m.total);
        }
        out.push_back(r);
    }
    return out;
}

std::vector<GpuInfo> Nvml::devices() const {
    std::vector<GpuInfo> out;
    for (int i = 0; i < m_count; ++i) {
        nvmlDevice_t dev = nullptr;
        GpuInfo g;
        if (m_api->handle(static_cast<unsigned int>(i), &dev) == 0) {
            char name[96] = {0};
            if (m_api->name && m_api->name(dev, name, sizeof name - 1) == 0)
                g.name = name;
            nvmlMemory_t m{};
            if (m_api->memory(dev, &m) == 0)
                g.memoryBytes = m.total;
        }
        out.push_back(g);
    }
    return out;
}

} // namespace studio::launcher
