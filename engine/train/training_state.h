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
// Returns the step stored in the payload. Channels-last models get their 4-d weights back in
// that layout.
std::int64_t loadTrainingState(const std::string& payload, torch::nn::Module& model,
                               torch::optim::Optimizer& optimizer, bool channelsLast);

// Rank root's bytes to every rank of comm (others pass anything; all receive root's).
std::string broadcastBytes(Communicator& comm, const std::string& bytes, int root);
// Parameters and buffers of rank root to all.
void broadcastModel(Communicator& comm, torch::nn::Module& model, int root);

// A state dict (parameters and buffers, by name) in the format Python's torch.load reads.
std::vector<char> pickleStateDict(torch::nn::Module& model);
void saveModelForPython(torch::nn::Module& model, const std::string& path);

} // namespace studio::train
