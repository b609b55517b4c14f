// The cluster dialog's fields as the user typed them, turned into a cluster definition with every
// problem filed under the field it names (validateCluster's messages, host lines that do not
// parse, a key file that does not exist, a name already taken). Qt-free.
#pragma once

#include "engine/remote/cluster.h"

#include <map>
#include <string>
#include <vector>

namespace studio::models {

struct ClusterForm {
    std::string name;
    std::string hosts; // one [user@]host[:port] a line; blank lines are skipped
    std::string identityFile;
    std::string knownHostsFile;
    std::string workdir;
    std::string rendezvousAddress;
    std::string socketIfname;
    std::string installDir;
    double hostTimeoutSeconds = remote::kDefaultHostTimeoutSeconds;
};

struct ClusterFormResult {
    remote::ClusterConfig config;
    // Field ("name", "hosts", "identity", "known_hosts", "workdir", "rendezvous_address",
    // "socket_ifname", "install_dir", "host_timeout") -> its problems, without the field name.
    std::map<std::string, std::vector<std::string>> problems;

    bool ok() const { return problems.empty(); }
};

// takenNames: the clusters that exist (a new one may not reuse their names); empty when editing.
// Key and known_hosts paths are made absolute ("~/" is the home folder), as the CLI does.
ClusterFormResult readClusterForm(const ClusterForm& form,
                                  const std::vector<std::string>& takenNames = {});

// The form showing a stored cluster.
ClusterForm clusterForm(const remote::ClusterConfig& c);

} // namespace studio::models
