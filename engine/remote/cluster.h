// A cluster: a named set of hosts the studio can reach. "local" is built in (this machine,
// without SSH); the others are SSH hosts kept in the studio database. Nothing here is a
// secret: an identity is kept as the path of its key file.
#pragma once

#include <string>
#include <vector>

namespace studio::remote {

inline constexpr const char* kLocalCluster = "local";
inline constexpr double kDefaultHostTimeoutSeconds = 300;

// [user@]host[:port]; IPv6 addresses in brackets: [fd00::1]:2222.
struct SshTarget {
    std::string user; // empty: ssh's default (the user's ssh config, else the local user)
    std::string host;
    int port = 22;

    std::string text() const; // as the user writes it, the port only when not 22
    bool operator==(const SshTarget&) const = default;
};

// Throws std::invalid_argument naming the text and what is wrong with it.
SshTarget parseSshTarget(const std::string& text);

// A Slurm cluster reached through slurmrestd. The token itself is never stored: only where to
// read it (a file or an environment variable), read again at each use.
struct SlurmSettings {
    std::string url;       // http(s)://host:port, or unix:/path/to/slurmrestd.sock (local auth)
    std::string tokenFile; // a file holding the JWT ("SLURM_JWT=" prefix allowed)
    std::string tokenEnv;  // or the environment variable holding it
    std::string user;      // X-SLURM-USER-NAME; empty: this process's user name
    std::string partition; // job defaults; a spec's "slurm" section overrides them
    std::string account;
    std::string qos;
    std::string apiVersion; // "v0.0.38"; empty: the highest both the studio and server speak

    bool operator==(const SlurmSettings&) const = default;
};

struct ClusterConfig {
    std::string name;
    std::string kind = "ssh";     // "local" | "ssh" | "slurm"
    std::vector<SshTarget> hosts; // ssh: the hosts; slurm: none (Slurm allocates the nodes)
    // slurm: where the API is; workdir is then a folder on the cluster's shared filesystem that
    // this machine mounts at the same path (the studio follows the journals there).
    SlurmSettings slurm;
    std::string identityFile;      // ssh -i; empty: the user's keys and agent
    std::string knownHostsFile;    // empty: the user's known_hosts
    std::string workdir;           // on each host (%n, %h expand); empty: kDefaultWorkdir
    std::string rendezvousAddress; // node 0's address as the other hosts see it; empty: found
    std::string socketIfname;      // Gloo/NCCL interface; empty: the one routing to node 0
    std::string installDir; // folder of studio-launcher/studio-train on the hosts; empty: PATH
    double hostTimeoutSeconds = kDefaultHostTimeoutSeconds;
    double created = 0;
    double updated = 0;

    bool isLocal() const { return kind == "local"; }
    bool isSlurm() const { return kind == "slurm"; }
    std::string effectiveWorkdir() const;
    // The workdir of host `index` (from 0): "%n" becomes index + 1 and "%h" the host's name, so
    // hosts that share a filesystem can each have their own ("/scratch/mlstudio/%h").
    std::string workdirFor(std::size_t index) const;
    // A program of the studio on the hosts: installDir/name, else name (found on the PATH).
    std::string program(const std::string& name) const;
};

inline constexpr const char* kDefaultWorkdir = ".mlstudio";

// The built-in cluster.
ClusterConfig localCluster();

// Every problem of a cluster definition, each naming its field ("" when valid).
std::vector<std::string> validateCluster(const ClusterConfig& c);

// The stored form (JSON text without created/updated, which the store keeps in columns).
std::string clusterToJson(const ClusterConfig& c);
// Throws std::runtime_error naming the cluster when the text does not parse.
ClusterConfig clusterFromJson(const std::string& name, const std::string& text);

} // namespace studio::remote
