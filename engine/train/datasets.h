// Training and evaluation data held in memory as tensors: Fashion-MNIST from IDX files, a
// deterministic synthetic set (images or byte text), or a plain text file for the language model.
#pragma once

#include "engine/train/models.h"
#include "engine/train/trainer_config.h"

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

namespace studio::train {

struct Batch {
    torch::Tensor input;
    torch::Tensor target;
};

class Dataset {
public:
    Dataset(torch::Tensor inputs, torch::Tensor targets, std::string description);
    std::int64_t size() const { return m_inputs.size(0); }
    Batch batch(const std::vector<std::int64_t>& indices, bool channelsLast) const;
    const std::string& description() const { return m_description; }

private:
    torch::Tensor m_inputs;
    torch::Tensor m_targets;
    std::string m_description;
};

struct DataSplits {
    std::unique_ptr<Dataset> train;
    std::unique_ptr<Dataset> test;
    DataShape shape;
};

// Resolves paths from the config's channels ("train", "test"): SM_CHANNEL_TRAIN, else the
// Debian dataset package. Throws std::runtime_error naming the file or folder at fault.
DataSplits loadData(const TrainerConfig& c, const std::map<std::string, std::string>& channels);

inline constexpr const char* kDefaultFashionMnist = "/usr/share/datasets/fashion-mnist";

} // namespace studio::train
