// Throw-away SSH "hosts" for integration tests of remote runs: one Linux network namespace per
// host on a private bridge, each with its own sshd on port 22, a test login user, and keys.
// Needs root. Traffic only ever goes to the fixture's own subnet (route-checked before the first
// connection) and nothing in it has a default route. Everything it creates is listed in a state
// file the moment it exists, so a killed test's leftovers are removed by the next constructor.
// Qt-free. Not thread-safe; construct it on a thread that outlives it (its daemons end with that
// thread). One fixture per machine at a time (a machine-wide lock).
#pragma once

#include "tests/support/netns_state.h"

#include <memory>
#include <string>
#include <vector>

namespace studio::testing {

struct TestHost {
    std::string ns;       // network namespace name (/run/netns/<ns>)
    std::string address;  // the host's IPv4 address on eth1, e.g. 10.77.0.1
    std::string rootVeth; // the veth end on the bridge; down cuts the host off
    std::string workdir;  // <dir>/h<i>/work, owned by the test user
};

struct NetnsHostsOptions {
    int hosts = 2;
    std::string user = "mlstudio-test"; // created and deleted; must be "mlstudio-..."
    int lifetimeSeconds = 1800;         // hard lifetime of each sshd (timeout -k 5)
};

class NetnsHosts {
public:
    // Declared outside the class: GCC rejects `= {}` of a nested struct with default member
    // initializers in the enclosing class's own declarations.
    using Options = NetnsHostsOptions;

    // "" when the fixture can work on this machine, else why not (for QSKIP).
    static std::string unavailableReason();

    // Brings everything up; throws std::runtime_error naming the failed step, after removing
    // whatever it had made. Waits up to 60 s for another fixture on this machine to finish.
    explicit NetnsHosts(Options o = {});
    ~NetnsHosts();
    NetnsHosts(const NetnsHosts&) = delete;
    NetnsHosts& operator=(const NetnsHosts&) = delete;

    const std::vector<TestHost>& hosts() const { return m_hosts; }
    std::string user() const { return m_options.user; }
    std::string identityFile() const;
    std::string knownHostsFile() const;
    std::string dir() const { return m_dir; }
    std::string bridge() const { return m_bridge; }
    std::string bridgeAddress() const { return m_subnet + ".254"; }

    // argv prefix that runs a command on `host` as user(); append the remote command.
    std::vector<std::string> sshArgs(int host) const;

    // Takes the host's bridge port down or up: a down host is unreachable from everywhere.
    void setLinkUp(int host, bool up);

    // Processes inside the host's namespace, except the fixture's sshd listener.
    std::vector<int> processesIn(int host) const;
    // Processes owned by the test user, anywhere (zombies excluded).
    std::vector<int> userProcesses() const;

    // Stops and removes everything; idempotent, never throws. Prints what it could not remove
    // to stderr and then keeps the state file, so that the next fixture tries again.
    void tearDown();

    // Removes what the state file of an earlier (killed) fixture lists. Throws
    // std::runtime_error when the lock cannot be had or something could not be removed.
    static void cleanupStale();

private:
    void bringUp();
    void chooseSubnet();
    void createTopology();
    void checkRoutes() const;
    void createUser();
    void writeSshFiles();
    void startSshd(int host);
    void waitForSshd(int host);
    void record(); // rewrites the state file
    void releaseLock();
    static void cleanupStaleLocked();

    Options m_options;
    std::unique_ptr<FixtureLock> m_lock;
    FixtureState m_state;
    std::vector<TestHost> m_hosts;
    std::vector<int> m_launchers; // `timeout` pid per host, parent of its sshd
    std::vector<int> m_listeners; // sshd listener pid per host
    std::string m_tag;            // prefix of every name this fixture gives
    std::string m_subnet;         // e.g. "10.77.0"
    std::string m_bridge;
    std::string m_dir;
    std::string m_step; // what the constructor is doing, for its error message
};

} // namespace studio::testing
