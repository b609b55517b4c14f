// Fused CPU kernels for the built-in models, as autograd functions. They compute exactly what the
// unfused ops compute (relu(maxpool(x)) equals maxpool(relu(x))), in one pass over memory, and
// draw dropout masks from a counter-based stream keyed by (seed, step, layer, global sample), so
// a data-parallel rank draws the same mask the single process would for the same sample.
#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace studio::train {

struct DropoutKey {
    std::uint64_t key = 0;         // from seed, step and layer
    std::int64_t sampleOffset = 0; // global index of this batch's first sample
};

// 2x2 max-pool (stride 2) + ReLU + dropout. Input NCHW or channels-last; output NCHW contiguous.
torch::Tensor poolReluDropout(const torch::Tensor& x, double p, DropoutKey key, bool training);

// ReLU + dropout over [batch, features...].
torch::Tensor reluDropout(const torch::Tensor& x, double p, DropoutKey key, bool training);

// Dropout over [batch, features...].
torch::Tensor dropout(const torch::Tensor& x, double p, DropoutKey key, bool training);

} // namespace studio::train
