// Cutting a model's blocks into pipeline stages, and where each rank sits in a pipeline x
// data-parallel layout. Pure functions, unit-tested without LibTorch.
#pragma once

#include <string>
#include <vector>

namespace studio::train {

// Contiguous stages minimising the costliest stage. Returns parts + 1 boundaries: stage s runs
// blocks [bounds[s], bounds[s + 1]). Throws when there are fewer blocks than parts.
std::vector<int> balancedPartition(const std::vector<double>& blockCost, int parts);

// auto_partition false: equal numbers of blocks per stage, the remainder to defaultPartition.
std::vector<int> evenPartition(int blocks, int parts, int defaultPartition);

// SageMaker's cost blend: memory_weight x memory share + (1 - memory_weight) x time share.
std::vector<double> blendCosts(const std::vector<double>& memoryBytes,
                               const std::vector<double>& seconds, double memoryWeight);

struct Topology {
    int rank = 0;
    int world = 1;
    int pipelineRank = 0; // this rank's stage
    int pipelineSize = 1; // partitions
    int dataRank = 0;     // which replica of the model
    int dataSize = 1;
    std::vector<int> pipelineGroup; // global ranks of this replica's stages, by stage
    std::vector<int> dataGroup;     // global ranks holding this stage, by replica

    std::string describe() const; // the line SageMaker's library logs at start
};

// placement "cluster" (= "DPT": a replica's stages on adjacent ranks), "spread" (= "TPD": a
// stage's replicas on adjacent ranks), or an order of D and P (outermost first).
Topology makeTopology(int rank, int world, int partitions, const std::string& placement);

} // namespace studio::train
