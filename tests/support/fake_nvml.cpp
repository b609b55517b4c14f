// A stand-in NVML for the launcher's tests: the few functions launcher/nvml.cpp loads, with
// NVML's names and C signatures, answering for two fixed devices. Tests load it through
// STUDIO_NVML_LIBRARY. Device 0 reads fully; device 1's utilization read fails as a driver's
// can (NVML_ERROR_UNKNOWN) while its memory read works.
#include <cstdio>

namespace {

constexpr int kSuccess = 0;          // NVML_SUCCESS
constexpr int kInvalidArgument = 2;  // NVML_ERROR_INVALID_ARGUMENT
constexpr int kInsufficientSize = 7; // NVML_ERROR_INSUFFICIENT_SIZE
constexpr int kUnknown = 999;        // NVML_ERROR_UNKNOWN
constexpr unsigned long long kGiB = 1024ull * 1024 * 1024;

struct Device {
    const char* name;
    bool utilizationWorks;
    unsigned int utilization; // percent
    unsigned long long memoryUsed, memoryTotal;
};

Device g_devices[] = {
    {"Stand-in GPU 0", true, 37, 4 * kGiB, 16 * kGiB},
    {"Stand-in GPU 1", false, 0, 2 * kGiB, 16 * kGiB},
};
constexpr unsigned int kDeviceCount = sizeof g_devices / sizeof g_devices[0];

const Device* device(void* handle) {
    for (const auto& d : g_devices)
        if (handle == &d)
            return &d;
    return nullptr;
}

} // namespace

extern "C" {

struct nvmlUtilization_t {
    unsigned int gpu;
    unsigned int memory;
};

struct nvmlMemory_t {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};

int nvmlInit_v2() {
    return kSuccess;
}

int nvmlShutdown() {
    return kSuccess;
}

int nvmlDeviceGetCount_v2(unsigned int* count) {
    if (!count)
        return kInvalidArgument;
    *count = kDeviceCount;
    return kSuccess;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void** handle) {
    if (!handle || index >= kDeviceCount)
        return kInvalidArgument;
    *handle = &g_devices[index];
    return kSuccess;
}

int nvmlDeviceGetUtilizationRates(void* handle, nvmlUtilization_t* out) {
    const Device* d = device(handle);
    if (!d || !out)
        return kInvalidArgument;
    if (!d->utilizationWorks)
        return kUnknown;
    out->gpu = d->utilization;
    out->memory = 0;
    return kSuccess;
}

int nvmlDeviceGetMemoryInfo(void* handle, nvmlMemory_t* out) {
    const Device* d = device(handle);
    if (!d || !out)
        return kInvalidArgument;
    out->total = d->memoryTotal;
    out->used = d->memoryUsed;
    out->free = d->memoryTotal - d->memoryUsed;
    return kSuccess;
}

int nvmlDeviceGetName(void* handle, char* name, unsigned int length) {
    const Device* d = device(handle);
    if (!d || !name)
        return kInvalidArgument;
    const int needed = std::snprintf(name, length, "%s", d->name);
    return needed >= 0 && static_cast<unsigned int>(needed) < length ? kSuccess : kInsufficientSize;
}

} // extern "C"
