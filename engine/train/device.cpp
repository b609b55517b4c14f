#include "engine/train/device.h"

#include "engine/train/device_choice.h"

#include <stdexcept>

#ifdef STUDIO_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAFunctions.h>
#endif

#include <cstdio>

namespace studio::train {

RankDevice selectDevice(const std::string& setting, int rank, int localRank) {
    const int count =
        torch::cuda::is_available() ? static_cast<int>(torch::cuda::device_count()) : 0;
    const DeviceChoice choice = chooseDevice(setting, count, rank, localRank);
    if (!choice.error.empty())
        throw std::invalid_argument(choice.error);
    RankDevice d;
    d.device = torch::Device(choice.device);
    d.description = choice.device;
#ifdef STUDIO_WITH_CUDA
    if (d.cuda()) {
        c10::cuda::set_device(d.device.index());
        const cudaDeviceProp* p = at::cuda::getDeviceProperties(d.device.index());
        char text[320];
        std::snprintf(text, sizeof text, " (%s, %.1f GiB)", p->name,
                      static_cast<double>(p->totalGlobalMem) / (1 << 30));
        d.description += text;
    }
#endif
    return d;
}

torch::Tensor toDevice(const torch::Tensor& host, const torch::Device& device, bool pin) {
    if (!host.defined() || host.device() == device)
        return host;
    if (pin && device.is_cuda())
        return host.pin_memory().to(device, /*non_blocking*/ true);
    return host.to(device);
}

} // namespace studio::train
