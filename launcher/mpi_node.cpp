#include "launcher/mpi_node.h"

#include "launcher/rank_environment.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sched.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace studio::launcher {

namespace {

constexpr std::size_t kTailLines = 20;

// The cluster's identity and known hosts are paths on the studio's machine; where this host's
// user cannot read them, ssh falls back to the user's own (~/.ssh), as hosts that reach each
// other by SSH have.
// Whether a line of the configuration names a file this user cannot read.
bool unreadablePath(const std::string& line) {
    for (const std::string key : {"  IdentityFile ", "  UserKnownHostsFile "}) {
        if (line.compare(0, key.size(), key) != 0)
            continue;
        std::string path = line.substr(key.size());
        if (path.size() >= 2 && path.front() == '"' && path.back() == '"')
            path = path.substr(1, path.size() - 2);
        return ::access(path.c_str(), R_OK) != 0;
    }
    return false;
}

std::string readableSshConfig(const std::string& text) {
    std::string out;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        const std::string line = text.substr(at, end - at);
        at = end + 1;
        if (!unreadablePath(line))
            out += line + "\n";
    }
    return out;
}

// mpirun's SSH launch reads the cluster's options from a file next to the journal.
std::string writeSshConfig(const LaunchConfig& c) {
    namespace fs = std::filesystem;
    const fs::path dir =
        c.journal.empty() ? fs::temp_directory_path() : fs::path(c.journal).parent_path();
    const std::string path = (dir / ("mpi_ssh_config." + std::to_string(::getpid()))).string();
    if (path.find_first_of(" \t\n'\"\\") != std::string::npos)
        throw std::runtime_error("mpirun's SSH configuration " + path +
                                 " has a space or quote in its path, which Open MPI's "
                                 "plm_rsh_agent cannot carry: choose another cluster workdir");
    const mode_t old = ::umask(077);
    std::ofstream out(path, std::ios::trunc);
    ::umask(old);
    out << readableSshConfig(c.mpiSshConfig);
    if (!out.flush())
        throw std::runtime_error("cannot write mpirun's SSH configuration " + path);
    return path;
}

} // namespace

MpiNode::MpiNode(const LaunchConfig& c, const NodeResources& node, LogSink log)
    : m_config(c)
    , m_node(node)
    , m_log(std::move(log))
    , m_listen(mpi::listenAbstract(mpi::socketName(mpi::socketPrefix(c), c.nodeRank)))
    , m_seen(static_cast<std::size_t>(c.nprocPerNode), false)
    , m_pids(static_cast<std::size_t>(c.nprocPerNode), 0)
    , m_waitUntil(process::monotonicSeconds() + c.mpiWaitSeconds)
    , m_cpus(affinityCpus(c.bindCores)) {
}

MpiNode::~MpiNode() {
    if (!m_sshConfigPath.empty())
        ::unlink(m_sshConfigPath.c_str());
}

std::string MpiNode::start() {
    if (m_config.nodeRank != 0)
        return {};
    std::vector<std::string> hosts = m_config.mpiHosts;
    if (hosts.empty())
        hosts.assign(static_cast<std::size_t>(m_config.nnodes), "localhost");
    return startMpirun(hosts);
}

MpiNode::Progress MpiNode::tend(double now, bool ending) {
    Progress p;
    p.connected = std::exchange(m_connected, {});
    if (!m_allStarted && m_connectedCount == m_config.nprocPerNode) {
        m_allStarted = true;
        p.allStarted.emplace(m_pids.begin(), m_pids.end());
    }
    std::string failure;
    if (!m_mpirunStatus && (m_mpirunStatus = mpirunEnded()) && !ending)
        failure = mpirunFailure();
    if (failure.empty() && !ending && !m_allStarted && now > m_waitUntil)
        failure = "only " + std::to_string(m_connectedCount) + " of the " +
                  std::to_string(m_config.nprocPerNode) + " ranks mpirun should start on node " +
                  std::to_string(m_config.nodeRank) + " (" + hostName() + ") reached it in " +
                  std::to_string(static_cast<int>(m_config.mpiWaitSeconds)) + " s";
    if (!failure.empty() && !m_failed) {
        m_failed = true;
        p.failure = std::move(failure);
    }
    return p;
}

// mpirun ended while the node was not ending: why that is the node's failure ("" if not).
std::string MpiNode::mpirunFailure() const {
    std::string why;
    if (!m_mpirunStatus->success())
        why = "mpirun " + m_mpirunStatus->describe();
    else if (!m_allStarted)
        why = "mpirun ended before all " + std::to_string(m_config.nprocPerNode) +
              " ranks of node 0 had started";
    if (!why.empty())
        for (const auto& line : m_tail)
            why += "\n  " + line;
    return why;
}

bool MpiNode::done(bool stopping) const {
    if (m_mpirun.pid() > 0)
        return m_mpirunStatus.has_value(); // no more ranks can come once it has ended
    return m_connectedCount == m_config.nprocPerNode || stopping || m_failed;
}

std::string MpiNode::startMpirun(const std::vector<std::string>& hosts) {
    mpi::MpirunPlan plan;
    plan.hosts = hosts;
    plan.slurm = m_config.slurm;
    plan.asRoot = ::geteuid() == 0;
    plan.self = process::selfExecutable();
    process::SpawnOptions o;
    try {
        if (!m_config.mpiSshConfig.empty())
            plan.sshConfig = m_sshConfigPath = writeSshConfig(m_config);
        o.argv = mpi::mpirunArgv(m_config, plan);
        o.env = process::currentEnvironment();
        std::error_code ec;
        if (!m_config.workdir.empty() && std::filesystem::is_directory(m_config.workdir, ec))
            o.workdir = m_config.workdir;
        o.parentDeathSignal = SIGTERM; // mpirun then takes its daemons and ranks down
        m_mpirun = process::Process::spawn(o);
    } catch (const std::exception& e) {
        const std::string why = e.what();
        if (why.find("mpirun") != std::string::npos &&
            why.find("No such file") != std::string::npos)
            return "mpirun is not installed on " + hostName() +
                   ": distribution.mpi runs scripts under Open MPI (install Debian's openmpi-bin)";
        return why;
    }
    std::string line;
    for (const auto& a : o.argv)
        line += (line.empty() ? "" : " ") + a;
    m_log(m_config.nodeRank, -1, wire::Stream::Stderr, wire::SplitLine{line, {}, 0});
    m_out = m_mpirun.takeStdout();
    m_err = m_mpirun.takeStderr();
    process::setNonBlocking(m_out.get());
    process::setNonBlocking(m_err.get());
    return {};
}

std::vector<int> MpiNode::fds() const {
    std::vector<int> fds = {m_listen.get()};
    for (const auto& p : m_pending)
        fds.push_back(p->fd.get());
    for (const process::Fd* f : {&m_out, &m_err})
        if (f->valid())
            fds.push_back(f->get());
    return fds;
}

void MpiNode::onReadable(int fd) {
    if (fd == m_listen.get())
        return accept();
    if (fd == m_out.get())
        return readMpirun(m_out, m_outLines, false);
    if (fd == m_err.get())
        return readMpirun(m_err, m_errLines, true);
    for (auto& p : m_pending)
        if (p->fd.get() == fd)
            return readPending(*p);
}

void MpiNode::accept() {
    while (true) {
        process::Fd fd(::accept4(m_listen.get(), nullptr, nullptr, SOCK_CLOEXEC));
        if (!fd.valid())
            return; // EAGAIN: no more now
        const auto peer = mpi::peerOf(fd.get());
        if (!peer || peer->uid != ::geteuid())
            continue; // only the job's own user's processes are its ranks
        auto p = std::make_unique<Pending>();
        p->fd = std::move(fd);
        p->pid = peer->pid;
        p->since = process::monotonicSeconds();
        m_pending.push_back(std::move(p));
    }
}

void MpiNode::readPending(Pending& p) {
    char buf[4096];
    const ssize_t n = ::recv(p.fd.get(), buf, sizeof buf, MSG_DONTWAIT);
    std::optional<int> rank;
    bool drop = n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
    if (n > 0)
        for (const auto& line : p.lines.append(std::string_view(buf, static_cast<size_t>(n))))
            if (!rank && line.part == wire::LinePart::Whole)
                rank = mpi::parseHello(line.text);
    if (rank) {
        const std::string refused = admit(*rank, p.pid, p);
        if (!refused.empty()) {
            mpi::RankSetup no;
            no.error = refused;
            process::writeAll(p.fd.get(), mpi::setupLine(no));
            m_log(m_config.nodeRank, -1, wire::Stream::Stderr,
                  wire::SplitLine{"refused an MPI rank's connection: " + refused, {}, 0});
        }
        drop = true;
    }
    if (drop)
        std::erase_if(m_pending, [&](const auto& q) { return q.get() == &p; });
}

std::string MpiNode::admit(int rank, pid_t pid, Pending& p) {
    const int ppn = m_config.nprocPerNode;
    const int local = rank - m_config.nodeRank * ppn;
    if (local < 0 || local >= ppn)
        return "rank " + std::to_string(rank) + " does not belong to node " +
               std::to_string(m_config.nodeRank) + " (" + std::to_string(ppn) +
               " ranks per node): mpirun placed it on the wrong host";
    if (m_seen[static_cast<std::size_t>(local)])
        return "rank " + std::to_string(rank) + " connected twice";
    mpi::RankSetup s;
    s.env = rankEnvironment(m_config, local, m_node, {});
    s.argv = m_config.command;
    s.workdir = m_config.workdir;
    s.cpus = rankCpus(m_cpus, ppn, local);
    if (!process::writeAll(p.fd.get(), mpi::setupLine(s)))
        return "rank " + std::to_string(rank) + " went away before its set-up";
    m_seen[static_cast<std::size_t>(local)] = true;
    m_pids[static_cast<std::size_t>(local)] = pid;
    ++m_connectedCount;
    process::setNonBlocking(p.fd.get());
    m_connected.push_back(Connected{std::move(p.fd), pid, rank, local});
    return {};
}

void MpiNode::readMpirun(process::Fd& fd, wire::LineSplitter& lines, bool isErr) {
    char buf[65536];
    while (true) {
        const ssize_t n = ::read(fd.get(), buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return;
        if (n == 0) {
            if (wire::SplitLine rest = lines.finish(); !rest.text.empty())
                mpirunLine(std::move(rest), isErr);
            for (auto& t : (isErr ? m_errTags : m_outTags).finish())
                tagged(std::move(t), isErr);
            fd.reset();
            return;
        }
        for (auto& line : lines.append(std::string_view(buf, static_cast<size_t>(n))))
            mpirunLine(std::move(line), isErr);
    }
}

void MpiNode::mpirunLine(wire::SplitLine line, bool isErr) {
    // A line over the limit comes in pieces; each is taken as a line of its own.
    for (auto& t : (isErr ? m_errTags : m_outTags).line(line.text))
        tagged(std::move(t), isErr);
}

void MpiNode::tagged(mpi::TaggedLine t, bool isErr) {
    if (t.rank >= 0) {
        m_log(t.rank / m_config.nprocPerNode, t.rank, t.stream,
              wire::SplitLine{std::move(t.text), {}, 0});
        return;
    }
    if (isErr && !t.text.empty()) {
        m_tail.push_back(t.text);
        if (m_tail.size() > kTailLines)
            m_tail.pop_front();
    }
    m_log(m_config.nodeRank, -1, isErr ? wire::Stream::Stderr : wire::Stream::Stdout,
          wire::SplitLine{std::move(t.text), {}, 0});
}

std::optional<process::ExitStatus> MpiNode::mpirunEnded() {
    if (m_mpirun.pid() <= 0 || !m_mpirun.poll())
        return std::nullopt;
    for (process::Fd* f : {&m_out, &m_err})
        if (f->valid())
            readMpirun(*f, f == &m_out ? m_outLines : m_errLines, f == &m_err);
    if (m_out.valid() || m_err.valid())
        return std::nullopt; // a rank's daemon may still hold them: read on
    return m_mpirun.status();
}

void MpiNode::signalMpirun(int sig) {
    if (m_mpirun.running())
        m_mpirun.signal(sig);
}

} // namespace studio::launcher
