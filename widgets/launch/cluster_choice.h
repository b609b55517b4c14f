// Where a job can run, for the launch dialog's "Run on" field: "local" (this machine) or a stored
// cluster with its host count, and the check the engine makes when the job is submitted (the
// cluster exists and has a host for every node), made while the spec is edited.
#pragma once

#include "engine/spec/spec_error.h"
#include "widgets/launch/spec_document.h"

#include <QString>

#include <vector>

namespace studio::widgets {

struct ClusterChoice {
    QString name;
    int hosts = 1;
};

// Problems of the spec's "cluster" against the clusters there are (path "cluster").
std::vector<spec::SpecError> clusterProblems(const SpecDocument& spec,
                                             const std::vector<ClusterChoice>& clusters);

} // namespace studio::widgets
