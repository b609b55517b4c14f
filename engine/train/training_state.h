// What the trainer saves and restores: the model, the optimizer and the step, as one payload;
// rank 0 reads it and every rank receives it over the process group, so no node needs another
// node's disk. Internal to engine/train.
#pragma once

#include "engine/train/communicator.h"
#include "engine/train/models.h"

#include <torch/torch.h>

#include <memory>
#include <string>

namespace studio::train {

std::string saveTrainingState(torch::nn::Module& model, torch::optim::Optimizer& optimizer,
                              std::int64_t step);
// Returns the step stored in the payload. Tensors land on device (a checkpoint written on a GPU
// resumes on a CPU and back); channels-last models get their 4-d weights back in that layout.
std::int64_t loadTrainingState(const std::string& payload, torch::nn::Module& model,
                               torch::optim::Optimizer& optimizer, bool channelsLast,
                               const torch::Device& device = torch::kCPU);

// Rank root's bytes to every rank of comm (others pass anything; all receive root's).
std::string broadcastBytes(Communicator& comm, const std::string& bytes, int root);
// Parameters and buffers of rank root to all.
void broadcastModel(Communicator& comm, torch::nn::Module& model, int root);

// Named tensors as torch.save writes a dict of them: torch.load reads it, also with
// weights_only=True (the default since PyTorch 2.6).
std::vector<char> pickleTensors(const c10::Dict<std::string, torch::Tensor>& dict);
// A state dict (parameters and buffers, by name, on the CPU) in that format.
std::vector<char> pickleStateDict(torch::nn::Module& model);
void saveModelForPython(torch::nn::Module& model, const std::string& path);

} // namespace studio::train
