// The rank's device (cuda:LOCAL_RANK or cpu) and moving host batches onto it.
#pragma once

#include <torch/torch.h>

#include <string>

namespace studio::train {

struct RankDevice {
    torch::Device device{torch::kCPU};
    std::string description; // "cpu", or "cuda:0 (NVIDIA H100 80GB HBM3, 79.6 GiB)"
    bool cuda() const { return device.is_cuda(); }
};

// From the device hyperparameter (auto, cpu, cuda); a CUDA device becomes this thread's current
// one. Throws std::invalid_argument naming hyperparameters.device and the rank.
RankDevice selectDevice(const std::string& setting, int rank, int localRank);

// A host tensor on the device: on CUDA through pinned memory with a copy that does not block
// the host (pin false: a plain copy); on the CPU the tensor itself.
torch::Tensor toDevice(const torch::Tensor& host, const torch::Device& device, bool pin);

} // namespace studio::train
