// Where a node's commands run: this machine, or a host reached with the OpenSSH client through
// one multiplexed master connection per host. The engine builds every command as an argument
// vector; an executor turns it into the local argv that runs it on the host.
// Thread-safe: executors are immutable after construction; connect() serialises per host.
#pragma once

#include "engine/process/process.h"
#include "engine/remote/cluster.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace studio::remote {

class HostExecutor {
public:
    virtual ~HostExecutor() = default;
    // "local", or the SSH target as the user wrote it ("studio@10.77.0.1").
    virtual std::string label() const = 0;
    virtual bool isRemote() const = 0;
    // The local argv that runs `command` on the host.
    virtual std::vector<std::string> wrap(const std::vector<std::string>& command) const = 0;
    // Makes sure a connection is up (opens the SSH master); "" on success, else the error with
    // the host named.
    virtual std::string connect(double timeoutSeconds) = 0;
    // Closes the connection, a master stuck on a dead link included. Never throws.
    virtual void disconnect() = 0;
};

class LocalExecutor : public HostExecutor {
public:
    std::string label() const override { return kLocalCluster; }
    bool isRemote() const override { return false; }
    std::vector<std::string> wrap(const std::vector<std::string>& command) const override {
        return command;
    }
    std::string connect(double) override { return {}; }
    void disconnect() override {}
};

struct SshOptions {
    std::string identityFile;
    std::string knownHostsFile;
    std::string controlDir; // ControlPath folder; keep it short (sun_path holds 108 bytes)
    bool acceptNewHostKeys = false;
    int connectTimeoutSeconds = 5;
    int serverAliveSeconds = 5;
    int controlPersistSeconds = 60;
};

class SshExecutor : public HostExecutor {
public:
    SshExecutor(SshTarget target, SshOptions options);
    std::string label() const override { return m_target.text(); }
    bool isRemote() const override { return true; }
    std::vector<std::string> wrap(const std::vector<std::string>& command) const override;
    std::string connect(double timeoutSeconds) override;
    void disconnect() override;

    const SshTarget& target() const { return m_target; }
    // ssh, its options and the destination, without a command.
    std::vector<std::string> sshPrefix(bool withDestination = true) const;

private:
    SshTarget m_target;
    SshOptions m_options;
};

// The folder for ControlMaster sockets of a studio home: <home>/ssh when its path is short
// enough, else a private folder under /tmp. Created with mode 0700.
std::string controlDirectory(const std::string& home);

// An executor for host `index` of a cluster (a LocalExecutor for "local").
std::shared_ptr<HostExecutor> makeExecutor(const ClusterConfig& cluster, std::size_t index,
                                           const std::string& controlDir,
                                           bool acceptNewHostKeys = false);

struct CommandResult {
    std::optional<process::ExitStatus> status; // empty when it timed out or could not start
    std::string out;
    std::string err;
    bool timedOut = false;
    std::string startError;

    bool ok() const { return status && status->success(); }
    // The first lines of stderr, or what ended the command, for error messages.
    std::string describe() const;
};

// Runs a command on the host to its end, writing stdinData to its stdin; kills it at the
// deadline. Never throws.
CommandResult runOnHost(const HostExecutor& host, const std::vector<std::string>& command,
                        double timeoutSeconds, const std::string& stdinData = {});
// The same for a local argv.
CommandResult runLocal(const std::vector<std::string>& argv, double timeoutSeconds,
                       const std::string& stdinData = {});

} // namespace studio::remote
