// Where a job can run, for the launch dialog's "Run on" field: "local" (this machine), a stored
// SSH cluster with its host count, or a Slurm cluster with its default partition and a way to
// list its partitions; and the check the engine makes when the job is submitted (the cluster
// exists, has a host for every node, and only a Slurm cluster's job has a "slurm" section),
// made while the spec is edited.
#pragma once

#include "engine/remote/cluster.h"
#include "engine/spec/spec_error.h"
#include "models/launch/spec_document.h"

#include <QString>

#include <functional>
#include <vector>

namespace studio::widgets {

// A partition of a Slurm cluster as the launch dialog offers it.
struct PartitionChoice {
    QString name;
    QString state; // UP, DOWN, DRAIN, INACTIVE
    bool isDefault = false;
    int nodes = 0;
    int cpus = 0;
};

// Lists a Slurm cluster's partitions. Runs off the GUI thread (a copy per call); throws
// std::exception with a message that names the cluster when its API cannot be reached.
using PartitionFetcher = std::function<std::vector<PartitionChoice>()>;

struct ClusterChoice {
    QString name;
    int hosts = 1;
    bool slurm = false; // Slurm allocates the nodes: no host count to check
    // Initialized, so that {name, hosts} stays a complete initializer of an SSH cluster's choice.
    QString partition = {};           // a Slurm cluster's default partition ("": Slurm's default)
    PartitionFetcher partitions = {}; // a Slurm cluster's partitions
};

// The choice of a stored cluster; a Slurm cluster's partitions come from its slurmrestd.
ClusterChoice clusterChoiceOf(const remote::ClusterConfig& cluster);
// A Slurm cluster's partitions through remote::SlurmClient (negotiate, then list); each
// request gives up after timeoutSeconds. Throws remote::SlurmError naming the cluster.
std::vector<PartitionChoice> slurmPartitions(const remote::ClusterConfig& cluster,
                                             double timeoutSeconds = 5);

// Problems of the spec's "cluster" against the clusters there are (path "cluster"), and of a
// "slurm" section on a cluster that is not a Slurm one (path "slurm").
std::vector<spec::SpecError> clusterProblems(const models::SpecDocument& spec,
                                             const std::vector<ClusterChoice>& clusters);

} // namespace studio::widgets
