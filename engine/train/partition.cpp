#include "engine/train/partition.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace studio::train {

std::vector<int> balancedPartition(const std::vector<double>& cost, int parts) {
    const int n = static_cast<int>(cost.size());
    if (parts < 1 || n < parts)
        throw std::invalid_argument("cannot cut " + std::to_string(n) + " blocks into " +
                                    std::to_string(parts) + " stages");
    std::vector<double> prefix(static_cast<std::size_t>(n) + 1, 0);
    for (int i = 0; i < n; ++i)
        prefix[static_cast<std::size_t>(i) + 1] =
            prefix[static_cast<std::size_t>(i)] + cost[static_cast<std::size_t>(i)];
    auto sum = [&](int a, int b) {
        return prefix[static_cast<std::size_t>(b)] - prefix[static_cast<std::size_t>(a)];
    };
    const double inf = std::numeric_limits<double>::infinity();
    // best[k][i]: the smallest possible largest stage when blocks [0, i) form k stages.
    std::vector<std::vector<double>> best(
        static_cast<std::size_t>(parts) + 1,
        std::vector<double>(static_cast<std::size_t>(n) + 1, inf));
    std::vector<std::vector<int>> cut(best.size(),
                                      std::vector<int>(static_cast<std::size_t>(n) + 1, 0));
    best[0][0] = 0;
    for (int k = 1; k <= parts; ++k)
        for (int i = k; i <= n; ++i)
            for (int j = k - 1; j < i; ++j) {
                const double v = std::max(
                    best[static_cast<std::size_t>(k - 1)][static_cast<std::size_t>(j)], sum(j, i));
                if (v < best[static_cast<std::size_t>(k)][static_cast<std::size_t>(i)]) {
                    best[static_cast<std::size_t>(k)][static_cast<std::size_t>(i)] = v;
                    cut[static_cast<std::size_t>(k)][static_cast<std::size_t>(i)] = j;
                }
            }
    std::vector<int> bounds(static_cast<std::size_t>(parts) + 1);
    bounds[static_cast<std::size_t>(parts)] = n;
    for (int k = parts, i = n; k > 0; --k) {
        i = cut[static_cast<std::size_t>(k)][static_cast<std::size_t>(i)];
        bounds[static_cast<std::size_t>(k) - 1] = i;
    }
    return bounds;
}

std::vector<int> evenPartition(int blocks, int parts, int defaultPartition) {
    if (parts < 1 || blocks < parts)
        throw std::invalid_argument("cannot cut " + std::to_string(blocks) + " blocks into " +
                                    std::to_string(parts) + " stages");
    std::vector<int> sizes(static_cast<std::size_t>(parts), blocks / parts);
    sizes[static_cast<std::size_t>(defaultPartition)] += blocks % parts;
    std::vector<int> bounds = {0};
    for (int s : sizes)
        bounds.push_back(bounds.back() + s);
    return bounds;
}

std::vector<double> blendCosts(const std::vector<double>& memoryBytes,
                               const std::vector<double>& seconds, double memoryWeight) {
    const double mem = std::accumulate(memoryBytes.begin(), memoryBytes.end(), 0.0);
    const double time = std::accumulate(seconds.begin(), seconds.end(), 0.0);
    std::vector<double> cost;
    for (std::size_t i = 0; i < memoryBytes.size(); ++i)
        cost.push_back(memoryWeight * (mem > 0 ? memoryBytes[i] / mem : 0) +
                       (1 - memoryWeight) * (time > 0 ? seconds[i] / time : 0));
    return cost;
}

std::string Topology::describe() const {
    auto list = [](const std::vector<int>& v) {
        std::string s = "[";
        for (std::size_t i = 0; i < v.size(); ++i)
            s += (i ? ", " : "") + std::to_string(v[i]);
        return s + "]";
    };
    return "global rank " + std::to_string(rank) + " of " + std::to_string(world) +
           ": pipeline rank " + std::to_string(pipelineRank) + " of " +
           std::to_string(pipelineSize) + " (pipeline group " + list(pipelineGroup) +
           "), data-parallel rank " + std::to_string(dataRank) + " of " + std::to_string(dataSize) +
           " (data-parallel group " + list(dataGroup) + ")";
}

Topology makeTopology(int rank, int world, int partitions, const std::string& placement) {
    if (partitions < 1 || world % partitions != 0)
        throw std::invalid_argument("world size " + std::to_string(world) +
                                    " is not a multiple of " + std::to_string(partitions) +
                                    " partitions");
    std::string order = placement == "cluster" ? "DPT" : placement == "spread" ? "TPD" : placement;
    order.erase(std::remove(order.begin(), order.end(), 'T'), order.end()); // no tensor parallelism
    if (order != "DP" && order != "PD")
        throw std::invalid_argument("placement_strategy \"" + placement +
                                    "\" is not an order of D and P");
    Topology t;
    t.rank = rank;
    t.world = world;
    t.pipelineSize = partitions;
    t.dataSize = world / partitions;
    // The first letter varies slowest: "DP" puts a replica's stages on adjacent ranks.
    auto globalOf = [&](int d, int p) {
        return order == "DP" ? d * partitions + p : p * t.dataSize + d;
    };
    for (int d = 0; d < t.dataSize; ++d)
        for (int p = 0; p < partitions; ++p)
            if (globalOf(d, p) == rank) {
                t.dataRank = d;
                t.pipelineRank = p;
            }
    for (int p = 0; p < partitions; ++p)
        t.pipelineGroup.push_back(globalOf(t.dataRank, p));
    for (int d = 0; d < t.dataSize; ++d)
        t.dataGroup.push_back(globalOf(d, t.pipelineRank));
    return t;
}

} // namespace studio::train
