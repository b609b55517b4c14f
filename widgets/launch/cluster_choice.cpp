#include "widgets/launch/cluster_choice.h"

#include "engine/remote/slurm_client.h"

namespace studio::widgets {

std::vector<PartitionChoice> slurmPartitions(const remote::ClusterConfig& cluster,
                                             double timeoutSeconds) {
    remote::SlurmClient client(cluster, timeoutSeconds);
    client.negotiate();
    std::vector<PartitionChoice> out;
    for (const auto& p : client.partitions())
        out.push_back({QString::fromStdString(p.name), QString::fromStdString(p.state), p.isDefault,
                       p.totalNodes, p.totalCpus});
    return out;
}

ClusterChoice clusterChoiceOf(const remote::ClusterConfig& cluster) {
    ClusterChoice c;
    c.name = QString::fromStdString(cluster.name);
    c.hosts = static_cast<int>(cluster.hosts.size());
    if (cluster.isSlurm()) {
        c.slurm = true;
        c.partition = QString::fromStdString(cluster.slurm.partition);
        c.partitions = [cluster] {
            return slurmPartitions(cluster);
        };
    }
    return c;
}

std::vector<spec::SpecError> clusterProblems(const models::SpecDocument& spec,
                                             const std::vector<ClusterChoice>& clusters) {
    const models::SpecDocument* cluster = models::findAt(spec, "/cluster");
    if (cluster && !cluster->is_string())
        return {}; // the parser names it
    const std::string name = cluster ? cluster->get<std::string>() : std::string("local");
    // The engine refuses a "slurm" section anywhere but on a Slurm cluster.
    const bool slurmSection = models::findAt(spec, "/slurm") != nullptr;
    const auto notSlurm = [](const std::string& where) {
        return std::vector<spec::SpecError>{
            {"slurm",
             "only a job on a Slurm cluster has a slurm section (" + where + " is not one)"}};
    };
    if (name == "local")
        return slurmSection ? notSlurm("this machine") : std::vector<spec::SpecError>{};
    const models::SpecDocument* count = models::findAt(spec, "/instance_count");
    // The parser names an instance_count that is not a number; this checks the hosts it needs.
    const int nodes = count && count->is_number_integer() ? count->get<int>() : 1;
    for (const auto& c : clusters) {
        if (c.name.toStdString() != name)
            continue;
        if (c.slurm)
            return {};
        if (slurmSection)
            return notSlurm("cluster " + name);
        if (c.hosts >= nodes)
            return {};
        return {{"cluster", "cluster " + name + " has " + std::to_string(c.hosts) +
                                (c.hosts == 1 ? " host" : " hosts") + "; instance_count is " +
                                std::to_string(nodes)}};
    }
    return {{"cluster", "there is no cluster \"" + name + "\" (the Clusters page adds one)"}};
}

} // namespace studio::widgets
