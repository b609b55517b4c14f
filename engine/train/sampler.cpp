#include "engine/train/sampler.h"

#include "engine/train/counter_rng.h"

#include <numeric>
#include <stdexcept>

namespace studio::train {

DistributedSampler::DistributedSampler(std::int64_t datasetSize, int rank, int world,
                                       std::uint64_t seed, bool shuffle)
    : m_size(datasetSize)
    , m_rank(rank)
    , m_world(world)
    , m_seed(seed)
    , m_shuffle(shuffle) {
    if (world < 1 || rank < 0 || rank >= world)
        throw std::invalid_argument("sampler: rank " + std::to_string(rank) +
                                    " outside world size " + std::to_string(world));
    if (datasetSize < 1)
        throw std::invalid_argument("sampler: empty dataset");
}

std::vector<std::int64_t> DistributedSampler::permutation(std::int64_t epoch) const {
    std::vector<std::int64_t> p(static_cast<std::size_t>(m_size));
    std::iota(p.begin(), p.end(), 0);
    if (!m_shuffle)
        return p;
    const std::uint64_t key = streamKey(m_seed + static_cast<std::uint64_t>(epoch), 0x73616d70);
    for (std::int64_t i = m_size - 1; i > 0; --i) { // Fisher-Yates
        const auto j = static_cast<std::int64_t>(
            randomBelow(key, static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(i + 1)));
        std::swap(p[static_cast<std::size_t>(i)], p[static_cast<std::size_t>(j)]);
    }
    return p;
}

std::int64_t DistributedSampler::samplesPerRank() const {
    return (m_size + m_world - 1) / m_world;
}

std::int64_t DistributedSampler::batchesPerEpoch(std::int64_t localBatch) const {
    return samplesPerRank() / localBatch;
}

std::vector<std::int64_t> DistributedSampler::indices(std::int64_t epoch) const {
    std::vector<std::int64_t> p = permutation(epoch);
    const std::int64_t total = samplesPerRank() * m_world;
    for (std::int64_t i = m_size; i < total; ++i) // pad by wrapping, as PyTorch does
        p.push_back(p[static_cast<std::size_t>(i - m_size)]);
    std::vector<std::int64_t> mine;
    mine.reserve(static_cast<std::size_t>(samplesPerRank()));
    for (std::int64_t i = m_rank; i < total; i += m_world)
        mine.push_back(p[static_cast<std::size_t>(i)]);
    return mine;
}

} // namespace studio::train
