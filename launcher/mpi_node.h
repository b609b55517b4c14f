// A node's side of a distribution.mpi job (mpi_wire.h): the socket the ranks mpirun starts on
// this host connect to, and on node 0 mpirun itself, its tagged output turned into the ranks'
// log lines. The launcher's loop (launcher.cpp) polls the descriptors this gives it.
#pragma once

#include "engine/process/process.h"
#include "engine/wire/line_splitter.h"
#include "launcher/launch_config.h"
#include "launcher/mpi_wire.h"

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace studio::launcher {

struct NodeResources;

class MpiNode {
public:
    // One rank whose shim connected and got its set-up: the socket now carries its events.
    struct Connected {
        process::Fd events;
        pid_t pid = 0;
        int globalRank = 0;
        int localRank = 0;
    };
    // A log line for the loop to record: rank -1 is the launcher's own (mpirun's words).
    using LogSink = std::function<void(int node, int rank, wire::Stream, wire::SplitLine)>;

    MpiNode(const LaunchConfig& c, const NodeResources& node, LogSink log);
    ~MpiNode();

    // Node 0 starts mpirun (the hosts: --mpi-host, else localhost; on Slurm the allocation's);
    // "" or why it could not.
    std::string start();
    std::vector<int> fds() const;
    void onReadable(int fd);

    // What happened since the last call: ranks that connected, all of them started (their
    // pids by local rank, once), or the node's failure (once): mpirun failed, or this node's
    // ranks did not all come in --mpi-wait-s. ending: the node is stopping or a rank failed.
    struct Progress {
        std::vector<Connected> connected;
        std::optional<std::vector<std::int64_t>> allStarted;
        std::string failure;
    };
    Progress tend(double now, bool ending);
    // No more ranks will come: mpirun has ended (node 0), or all came, or the node is stopping.
    bool done(bool stopping) const;
    void signalMpirun(int sig);
    bool allStarted() const { return m_allStarted; }

private:
    struct Pending {
        process::Fd fd;
        pid_t pid = 0;
        wire::LineSplitter lines{4096};
        double since = 0;
    };
    std::string startMpirun(const std::vector<std::string>& hosts);
    // mpirun has ended and its output is read (node 0); its status.
    std::optional<process::ExitStatus> mpirunEnded();
    std::string mpirunFailure() const;
    void accept();
    void readPending(Pending& p);
    std::string admit(int rank, pid_t pid, Pending& p); // "" or why refused
    void readMpirun(process::Fd& fd, wire::LineSplitter& lines, bool isErr);
    void mpirunLine(wire::SplitLine line, bool isErr);
    void tagged(mpi::TaggedLine t, bool isErr);

    const LaunchConfig& m_config;
    const NodeResources& m_node;
    LogSink m_log;
    process::Fd m_listen;
    std::vector<std::unique_ptr<Pending>> m_pending;
    std::vector<Connected> m_connected;
    std::vector<bool> m_seen;  // local ranks already connected
    std::vector<pid_t> m_pids; // their shims, by local rank
    int m_connectedCount = 0;
    double m_waitUntil = 0; // monotonic: this node's ranks must have connected
    bool m_allStarted = false;
    bool m_failed = false;
    std::optional<process::ExitStatus> m_mpirunStatus;
    std::vector<int> m_cpus;
    std::string m_sshConfigPath;

    process::Process m_mpirun;
    process::Fd m_out, m_err;
    wire::LineSplitter m_outLines, m_errLines;
    std::deque<std::string> m_tail;
    mpi::TaggedOutput m_outTags, m_errTags;
};

} // namespace studio::launcher
