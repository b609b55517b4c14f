// A real Slurm cluster for integration tests, built on the NetnsHosts fixture (layout B of the
// remote-execution sheet): its own munged and key, slurmctld in the root namespace on the bridge
// address, one slurmd per namespace host (h1, h2, ...), and two slurmrestd as `nobody`, one with
// JWT auth on 127.0.0.1 and one with local auth on a unix socket. Needs root.
// Every daemon runs under `timeout -k 5 <lifetime>` with its stdio on log files, and is listed in
// a state file the moment it starts, so that the next constructor stops what a killed test left.
// Qt-free. Not thread-safe; construct it on a thread that outlives it (its daemons get SIGTERM
// when that thread ends). One fixture per machine at a time (NetnsHosts' machine-wide lock).
#pragma once

#include "tests/support/netns_hosts.h"
#include "tests/support/netns_state.h"

#include <memory>
#include <string>
#include <vector>

namespace studio::testing {

inline constexpr const char* kSlurmStateFile = "/tmp/mlstudio-slurm-fixture.state";

struct SlurmDaemon {
    std::string name; // "munged", "slurmctld", "slurmd h1", "slurmrestd jwt", "slurmrestd local"
    int launcher = 0; // the `timeout` process that bounds its lifetime
    int pid = 0;      // the daemon itself (setpriv, env and nsenter exec into it)
};

struct SlurmClusterOptions {
    int nodes = 2;              // h1..hN, one namespace host each, CPUs=2 per node
    int lifetimeSeconds = 1800; // hard lifetime of every daemon, and the JWT's lifespan
    // AuthInfo cred_expire: Slurm holds a requeued job back for this long (default 120 s). 5 is
    // the least Slurm accepts; a step launch must also reach slurmd within it.
    int credExpireSeconds = 5;
};

class SlurmCluster {
public:
    using Options = SlurmClusterOptions;

    // Partitions: kPartitionAll (Default=YES, every node) and kPartitionOne (h1 only), in which a
    // second job waits with reason Resources while one job holds both of h1's CPUs.
    static constexpr const char* kPartitionAll = "debug";
    static constexpr const char* kPartitionOne = "one";
    // Every node, each core shared by up to 32 jobs (OverSubscribe=FORCE:32): many small jobs
    // run at once (the benchmark's 50 followed jobs).
    static constexpr const char* kPartitionShared = "shared";

    // "" when the fixture can work here, else why not (for QSKIP): a missing program or plugin,
    // no `nobody` user, or a reason from NetnsHosts::unavailableReason().
    static std::string unavailableReason();

    // Brings everything up and waits (bounded) until every node is idle and both slurmrestd
    // answer /ping. Throws std::runtime_error naming the failed step with the daemons' log tails,
    // after removing whatever it had made.
    explicit SlurmCluster(Options o = {});
    ~SlurmCluster();
    SlurmCluster(const SlurmCluster&) = delete;
    SlurmCluster& operator=(const SlurmCluster&) = delete;

    // rest_auth/jwt: send X-SLURM-USER-NAME: tokenUser() and X-SLURM-USER-TOKEN: token().
    std::string restUrl() const { return "http://127.0.0.1:" + std::to_string(m_restPort); }
    // rest_auth/local: accepts uid 0 and nobody; jobs submitted through it run as `nobody`.
    std::string socketUrl() const { return "unix:" + socketPath(); }
    std::string socketPath() const { return m_dir + "/rest/slurmrestd.sock"; }
    std::string tokenFile() const { return m_dir + "/etc/token"; } // the JWT alone, mode 0600
    std::string token() const;
    std::string tokenUser() const { return "root"; }
    std::string slurmConf() const { return m_dir + "/etc/slurm.conf"; }
    // Plays the cluster's shared filesystem: mode 1777, so that jobs running as nobody write here.
    std::string sharedDir() const { return m_dir + "/shared"; }
    std::vector<std::string> nodeNames() const; // "h1", "h2", ...
    std::string nodeAddress(int node) const;    // address of nodeNames()[node] on its eth1
    // The hosts' interface, the same name in every host: one GLOO_SOCKET_IFNAME fits all.
    std::string socketIfname() const { return "eth1"; }
    std::string dir() const { return m_dir; }
    NetnsHosts& hosts(); // throws std::logic_error after tearDown()
    const std::vector<SlurmDaemon>& daemons() const { return m_daemons; } // in start order

    // The last `lines` lines of every daemon log, each headed by its file name; for messages.
    std::string logTail(int lines = 20) const;

    // Runs a Slurm client (scontrol, squeue, sinfo, scancel, ...) with this cluster's SLURM_CONF
    // and a 20 s timeout; returns its output (stdout and stderr). Without `exitCode` a failure
    // throws std::runtime_error; with it, the exit status (-1 when it timed out) lands there.
    std::string slurmCommand(const std::vector<std::string>& argv, int* exitCode = nullptr) const;

    // Cancels every job (bounded wait until none runs), stops the daemons (SIGTERM in reverse
    // start order, SIGKILL by pid after 5 s), then the hosts, and removes the temp dir.
    // Idempotent, never throws; what it could not remove goes to stderr and stays in the state
    // file for the next run.
    void tearDown();

    // Stops and removes what the state file of an earlier (killed) fixture lists. Throws
    // std::runtime_error when the lock cannot be had or something could not be removed.
    static void cleanupStale();

private:
    void bringUp();
    void makeDirs();
    void startMunge();
    void writeConfig();
    void startDaemon(const std::string& name, const std::vector<std::string>& argv);
    void requireRunning() const;
    void waitForIdleNodes();
    void mintToken();
    void waitForPing(bool viaSocket);
    void cancelJobs();
    void record(); // rewrites the state file
    static void cleanupStaleLocked();

    Options m_options;
    std::unique_ptr<NetnsHosts> m_hosts;
    FixtureState m_state; // processes and dir only, saved to kSlurmStateFile
    std::vector<SlurmDaemon> m_daemons;
    std::vector<std::string> m_addresses;
    std::string m_dir;
    int m_ctldPort = 0;
    int m_restPort = 0;
    bool m_ready = false; // slurmctld answered: tearDown cancels jobs through it
    std::string m_step;   // what the constructor is doing, for its error message
};

} // namespace studio::testing
