// Copies of activations a forward pass hands to the debugger hook on a saved step: a block adds
// "<block>_relu_input", "<block>_relu_output", the model adds "<block>_output_0" and
// "<model>_input_0". Blocks reach it through StepContext::capture, null on steps nothing saves.
// Not thread-safe: one forward pass at a time.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace studio::train {

struct ActivationCapture {
    std::string block;                              // the block running now
    std::function<bool(const std::string&)> wanted; // by full tensor name
    std::vector<std::pair<std::string, torch::Tensor>> tensors;

    // Whether the running block's tensor with this suffix is saved (blocks skip extra work,
    // such as unfusing an activation, when it is not).
    bool wants(const char* suffix) const { return wanted && wanted(block + "_" + suffix); }
    void add(const char* suffix, const torch::Tensor& t) { addNamed(block + "_" + suffix, t); }
    void addNamed(const std::string& name, const torch::Tensor& t) {
        if (!wanted || !wanted(name))
            return;
        for (const auto& [n, existing] : tensors)
            if (n == name) // a later micro-batch: the first one stands for the step
                return;
        tensors.emplace_back(name, t.detach().clone());
    }
};

} // namespace studio::train
