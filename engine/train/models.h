// The built-in models, each an ordered list of named blocks (Tensor -> Tensor) so a pipeline can
// cut it into stages: fmnist-cnn (PyTorch's MNIST example network), resnet18 (CIFAR layout),
// mlp, and transformer-lm (a GPT-style byte-level decoder with uniform blocks).
#pragma once

#include "engine/train/activation_capture.h"
#include "engine/train/framework_profiler.h"
#include "engine/train/fused_ops.h"
#include "engine/train/trainer_config.h"

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

namespace studio::train {

// What a forward pass needs beyond its input: dropout streams are keyed by step and by the global
// index of the batch's first sample.
struct StepContext {
    std::int64_t step = 0;
    std::uint64_t seed = 1;
    std::int64_t sampleOffset = 0;
    bool training = true;
    ActivationCapture* capture = nullptr;  // set on steps the debugger hook saves activations
    FrameworkProfiler* profiler = nullptr; // set on profiled steps

    DropoutKey dropoutKey(int layer) const;
};

class Block : public torch::nn::Module {
public:
    virtual torch::Tensor forward(const torch::Tensor& x, const StepContext& ctx) = 0;
};

// The shape of one sample and what the model predicts.
struct DataShape {
    std::vector<std::int64_t> sample; // [1, 28, 28], [3, 32, 32], or [seq-len] for tokens
    int classes = 10;                 // classes, or the vocabulary for language models
    bool tokens = false;
};

class Model : public torch::nn::Module {
public:
    std::string kind;
    std::vector<std::string> blockNames;
    std::vector<std::shared_ptr<Block>> blocks;
    bool languageModel = false;
    bool channelsLast = false;

    void addBlock(const std::string& name, std::shared_ptr<Block> block);
    // Runs blocks [first, last) (all by default).
    torch::Tensor forward(torch::Tensor x, const StepContext& ctx, int first = 0, int last = -1);
    // Mean loss of the model's output against targets, and the count of correct predictions.
    torch::Tensor loss(const torch::Tensor& out, const torch::Tensor& target) const;
    std::int64_t correct(const torch::Tensor& out, const torch::Tensor& target) const;
    std::int64_t predictions(const torch::Tensor& target) const; // how many per batch
    // Parameters of blocks [first, last), in registration order.
    std::vector<torch::Tensor> blockParameters(int first, int last) const;
};

std::shared_ptr<Model> buildModel(const TrainerConfig& c, const DataShape& shape);
// Seeds the global generator with c.seed and builds, as one step: ranks sharing a process (tests)
// get identical weights, in whatever order they get there.
std::shared_ptr<Model> buildSeededModel(const TrainerConfig& c, const DataShape& shape);

} // namespace studio::train
