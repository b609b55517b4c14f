// DistributedSampler: every rank derives the same permutation from seed + epoch and takes every
// world-th index from its rank on, after padding to a multiple of the world size (PyTorch's
// DistributedSampler layout), so ranks see disjoint shards of one shuffled epoch.
#pragma once

#include <cstdint>
#include <vector>

namespace studio::train {

class DistributedSampler {
public:
    DistributedSampler(std::int64_t datasetSize, int rank, int world, std::uint64_t seed,
                       bool shuffle = true);

    // This rank's indices for an epoch, in order.
    std::vector<std::int64_t> indices(std::int64_t epoch) const;
    std::int64_t samplesPerRank() const;
    std::int64_t batchesPerEpoch(std::int64_t localBatch) const; // full batches only

    // The global permutation of an epoch (before sharding).
    std::vector<std::int64_t> permutation(std::int64_t epoch) const;

private:
    std::int64_t m_size;
    int m_rank;
    int m_world;
    std::uint64_t m_seed;
    bool m_shuffle;
};

} // namespace studio::train
