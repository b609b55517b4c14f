#include "engine/train/device_choice.h"

namespace studio::train {

DeviceChoice chooseDevice(const std::string& setting, int cudaDevices, int rank, int localRank) {
    const std::string who =
        "rank " + std::to_string(rank) + " (local rank " + std::to_string(localRank) + ")";
    if (setting == "cpu" || (setting == "auto" && cudaDevices <= 0))
        return {"cpu", {}};
    if (setting != "auto" && setting != "cuda")
        return {{}, "hyperparameters.device: '" + setting + "' is not auto, cpu or cuda"};
    if (cudaDevices <= 0)
        return {{},
                "hyperparameters.device is cuda, but " + who +
                    " sees no CUDA device (a CPU build of LibTorch, no GPU, or "
                    "CUDA_VISIBLE_DEVICES hides them)"};
    if (localRank >= cudaDevices)
        return {{},
                "hyperparameters.device: " + who + " has no GPU of its own: this host has " +
                    std::to_string(cudaDevices) +
                    " CUDA device(s); run at most that many processes per host, or set "
                    "device to cpu"};
    return {"cuda:" + std::to_string(localRank), {}};
}

} // namespace studio::train
