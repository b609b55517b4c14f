// Gradient bucket assignment as PyTorch DDP does it: parameters in reverse registration order
// (the order backward produces their gradients), the first bucket closed once it reaches the
// first cap (1 MiB), the others at the cap (25 MiB).
#pragma once

#include <cstddef>
#include <vector>

namespace studio::train {

struct BucketPlan {
    std::vector<std::vector<std::size_t>> buckets; // parameter indices, in fill order
};

BucketPlan planBuckets(const std::vector<std::size_t>& paramBytes, std::size_t firstCapBytes,
                       std::size_t capBytes);

} // namespace studio::train
