// The launcher's loop (launcher.h), shared by its two files: launcher.cpp (the loop, signals,
// stopping, the node's end) and launcher_ranks.cpp (the ranks: spawning them or serving those
// mpirun starts, relaying their output and events, their exits). Internal to the launcher.
#pragma once

#include "engine/process/process.h"
#include "engine/wire/codec.h"
#include "engine/wire/line_splitter.h"
#include "launcher/imds_poller.h"
#include "launcher/journal_space.h"
#include "launcher/launcher.h"
#include "launcher/mpi_node.h"
#include "launcher/rank_environment.h"
#include "launcher/rendezvous_folder.h"
#include "launcher/system_sampler.h"
#include "launcher/tensorboard_watch.h"

#include <csignal>
#include <deque>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace studio::launcher::detail {

using process::Fd;
using wire::Event;

inline constexpr std::size_t kTailLines = 20;

struct Rank {
    int localRank = 0;
    int globalRank = 0;
    process::Process proc;
    Fd out, err, events;
    wire::LineSplitter outLines, errLines, eventLines;
    std::deque<std::string> stderrTail;
    bool reported = false; // exit event sent
    double exitedAt = 0;   // monotonic
    // A rank mpirun started (distribution.mpi): its shim's pid, and how its shim said it ended.
    pid_t peerPid = 0;
    std::optional<process::ExitStatus> peerStatus;

    bool running() const { return peerPid > 0 ? !peerStatus : proc.running(); }
    void signal(int sig) const {
        if (peerPid > 0)
            ::kill(peerPid, sig);
        else
            proc.signal(sig);
    }
    std::optional<process::ExitStatus> poll() { return peerPid > 0 ? peerStatus : proc.poll(); }
    std::optional<process::ExitStatus> status() const {
        return peerPid > 0 ? peerStatus : proc.status();
    }
};

class Loop {
public:
    Loop(const LaunchConfig& c, int outFd, std::string tensorboardNote)
        : m_config(c)
        , m_outFd(outFd)
        , m_tensorboardNote(std::move(tensorboardNote)) {}

    int run();

private:
    const LaunchConfig& m_config;
    int m_outFd;
    bool m_outputDead = false;
    std::string m_buffer;
    Fd m_signalFd;
    std::vector<std::unique_ptr<Rank>> m_ranks;
    bool m_stopping = false;
    std::string m_stopReason;
    double m_killAt = 0;
    const Rank* m_failed = nullptr;
    std::unique_ptr<ImdsPoller> m_imds;  // spot jobs: interruption notices from IMDS
    std::optional<JournalSpace> m_space; // the journal's room kept for the node's ending
    std::string m_tensorboardNote;       // why --tensorboard-dir is not used on this host
    bool m_diskFull = false;             // from then on only status and exit events are written
    NodeResources m_resources;
    std::unique_ptr<MpiNode> m_mpi; // distribution.mpi jobs
    std::string m_mpiFailure;       // why this node failed without a rank failing

    template <typename Payload>
    void emit(int rank, Payload p, double t = 0) {
        emitAt(m_config.nodeRank, rank, std::move(p), t);
    }

    // node: another node's rank's line, as mpirun's tagged output on node 0 carries it.
    template <typename Payload>
    void emitAt(int node, int rank, Payload p, double t = 0) {
        if (m_outputDead)
            return;
        if (m_diskFull) { // the kept room is for how the node ends
            if constexpr (std::is_same_v<Payload, wire::ExitEvent>)
                p.stderrTail.clear();
            else if constexpr (!std::is_same_v<Payload, wire::StatusEvent>)
                return;
        }
        Event e{t > 0 ? t : wire::nowSeconds(), node, rank, std::move(p)};
        m_buffer += wire::encode(e);
        m_buffer += '\n';
        if (m_buffer.size() > (1 << 16))
            flush();
    }

    void flush();

    // The journal's disk is full: what is buffered is dropped, the ranks are stopped, and the
    // node's ending (a node_failure naming the disk, the exits) goes into the room kept for it.
    void stopForFullDisk();

    // SM_TENSORBOARD_DIR and the job's output folder's tensorboard/, each once.
    std::vector<std::filesystem::path> tensorboardFolders() const;

    // Each scalar of the ranks' own event files as their metric; the first of a tag is announced
    // (status "tensorboard_tag") so the studio does not write that series back into TensorBoard.
    void relayTensorboard(TensorboardWatch& watch, bool toTheEnd);

    void setUpSignals();

    // Every rank is forked before the launcher waits for any to execute its program, as a
    // shell's `&` does: waiting for each in turn made the last of N ranks wait for N - 1 execs.
    std::vector<std::int64_t> spawnRanks(const NodeResources& node);

    // distribution.mpi: serve the ranks mpirun starts here; node 0 starts mpirun.
    void startMpi(const NodeResources& node);

    // The node failed for a reason of its own (mpirun could not run, its ranks never came).
    void failMpi(const std::string& why);

    void tendMpi(double now);

    void beginStop(const std::string& reason);

    double nextWake(double nextSample) const;

    static bool hasOpenFds(const Rank& r) {
        return r.out.valid() || r.err.valid() || r.events.valid();
    }

    void pollOnce(double wakeAt);

    // The controller decides what a notice means (SIGTERM to every node's ranks, then a resume).
    void relayImds();

    void handleSignals();

    void readFrom(Rank& r, Fd& fd);

    void relay(Rank& r, Fd& fd, std::string_view bytes);

    void relayLog(Rank& r, bool isErr, wire::SplitLine line);

    // A piece of an over-long event line is no event: the whole line is dropped, and said so.
    void relayEvent(Rank& r, const wire::SplitLine& piece);

    void closeStream(Rank& r, Fd& fd);

    void reapRanks();

    void reportExit(Rank& r);

    bool finished() const;

    int finish();
};

} // namespace studio::launcher::detail
