// Which device a rank trains on, decided without LibTorch (plain and tested): the
// `device` hyperparameter (auto, cpu or cuda), the CUDA devices this rank sees and its local rank.
#pragma once

#include <string>

namespace studio::train {

struct DeviceChoice {
    std::string device; // "cpu" or "cuda:N"; empty when error says why not
    std::string error;  // names the hyperparameter and the rank
};

// auto: cuda:LOCAL_RANK when this host has a CUDA device for every local rank, cpu when it has
// none. cuda: the same, and an error without one. Two ranks never share a GPU (NCCL refuses it).
DeviceChoice chooseDevice(const std::string& setting, int cudaDevices, int rank, int localRank);

} // namespace studio::train
