#include "widgets/launch/cluster_choice.h"

namespace studio::widgets {

std::vector<spec::SpecError> clusterProblems(const SpecDocument& spec,
                                             const std::vector<ClusterChoice>& clusters) {
    const SpecDocument* cluster = findAt(spec, "/cluster");
    if (!cluster || !cluster->is_string() || cluster->get<std::string>() == "local")
        return {};
    const std::string name = cluster->get<std::string>();
    const SpecDocument* count = findAt(spec, "/instance_count");
    // The parser names an instance_count that is not a number; this checks the hosts it needs.
    const int nodes = count && count->is_number_integer() ? count->get<int>() : 1;
    for (const auto& c : clusters) {
        if (c.name.toStdString() != name)
            continue;
        if (c.hosts >= nodes)
            return {};
        return {{"cluster", "cluster " + name + " has " + std::to_string(c.hosts) +
                                (c.hosts == 1 ? " host" : " hosts") + "; instance_count is " +
                                std::to_string(nodes)}};
    }
    return {{"cluster", "there is no cluster \"" + name + "\" (the Clusters page adds one)"}};
}

} // namespace studio::widgets
