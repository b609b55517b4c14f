#include "launcher/mpi_wire.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <sys/socket.h>
#include <sys/un.h>

namespace studio::launcher::mpi {

namespace {

using nlohmann::json;

constexpr std::string_view kExitKey = "{\"studio_mpi_exit\":";

// sockaddr_un for an abstract name: a leading NUL, then the name (not NUL-terminated).
socklen_t abstractAddress(const std::string& name, sockaddr_un& addr) {
    std::memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    if (name.size() + 1 > sizeof addr.sun_path)
        throw std::runtime_error("the MPI rank socket name " + name + " is too long");
    std::memcpy(addr.sun_path + 1, name.data(), name.size());
    return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
}

} // namespace

std::string socketPrefix(const LaunchConfig& c) {
    std::string tag = c.journal.empty() ? std::string("attached")
                                        : std::filesystem::path(c.journal).filename().string();
    std::string prefix = "mlstudio-mpi/" + c.runId + "/" + tag;
    if (prefix.size() > 90) // room for "/node<k>" in sun_path's 107 bytes
        prefix = "mlstudio-mpi/" + std::to_string(std::hash<std::string>()(prefix));
    return prefix;
}

std::string socketName(const std::string& prefix, int node) {
    return prefix + "/node" + std::to_string(node);
}

process::Fd listenAbstract(const std::string& name) {
    sockaddr_un addr;
    const socklen_t len = abstractAddress(name, addr);
    process::Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!fd.valid())
        throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
    if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&addr), len) != 0)
        throw std::runtime_error(
            "cannot listen on the MPI rank socket @" + name + ": " + std::strerror(errno) +
            (errno == EADDRINUSE ? " (another launcher serves this node)" : ""));
    if (::listen(fd.get(), 128) != 0)
        throw std::runtime_error("listen @" + name + ": " + std::strerror(errno));
    return fd;
}

process::Fd connectAbstract(const std::string& name) {
    sockaddr_un addr;
    const socklen_t len = abstractAddress(name, addr);
    process::Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd.valid())
        return fd;
    if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), len) != 0)
        return process::Fd();
    return fd;
}

std::optional<Peer> peerOf(int fd) {
    ucred cred{};
    socklen_t len = sizeof cred;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
        return std::nullopt;
    return Peer{cred.pid, cred.uid};
}

namespace {

struct Tag {
    int rank = 0;
    wire::Stream stream = wire::Stream::Stdout;
    std::size_t length = 0;
};

// The tag "[job,rank]<stream>:" at `at`, if one starts there.
std::optional<Tag> tagAt(std::string_view s, std::size_t at) {
    std::size_t i = at + 1;
    const auto digits = [&](int* value) {
        const std::size_t from = i;
        int v = 0;
        while (i < s.size() && i - from < 9 && s[i] >= '0' && s[i] <= '9')
            v = v * 10 + (s[i++] - '0');
        if (value)
            *value = v;
        return i > from;
    };
    Tag t;
    if (s[at] != '[' || !digits(nullptr) || i >= s.size() || s[i++] != ',' || !digits(&t.rank) ||
        i >= s.size() || s[i++] != ']')
        return std::nullopt;
    static constexpr std::pair<std::string_view, wire::Stream> kStreams[] = {
        {"<stdout>:", wire::Stream::Stdout},
        {"<stderr>:", wire::Stream::Stderr},
        {"<stddiag>:", wire::Stream::Stderr}};
    for (const auto& [name, stream] : kStreams)
        if (s.substr(i, name.size()) == name) {
            t.stream = stream;
            t.length = i + name.size() - at;
            return t;
        }
    return std::nullopt;
}

constexpr std::size_t kMaxPartial = 1 << 20;

} // namespace

std::vector<TaggedLine> TaggedOutput::line(std::string_view text) {
    std::vector<TaggedLine> out;
    std::vector<std::pair<std::size_t, Tag>> tags;
    for (std::size_t at = text.find('['); at != std::string_view::npos; at = text.find('[', at + 1))
        if (auto t = tagAt(text, at)) {
            tags.emplace_back(at, *t);
            at += t->length - 1;
        }
    const std::size_t firstTag = tags.empty() ? text.size() : tags.front().first;
    if (firstTag > 0 || tags.empty())
        out.push_back(TaggedLine{-1, wire::Stream::Stdout, std::string(text.substr(0, firstTag))});
    for (std::size_t k = 0; k < tags.size(); ++k) {
        const auto& [at, tag] = tags[k];
        const std::size_t from = at + tag.length;
        const std::size_t to = k + 1 < tags.size() ? tags[k + 1].first : text.size();
        const auto key = std::make_pair(tag.rank, static_cast<int>(tag.stream));
        std::string& partial = m_partial[key];
        partial.append(text.substr(from, to - from));
        if (k + 1 == tags.size() || partial.size() > kMaxPartial) { // the newline ends it
            out.push_back(TaggedLine{tag.rank, tag.stream, std::move(partial)});
            m_partial.erase(key);
        }
    }
    return out;
}

std::vector<TaggedLine> TaggedOutput::finish() {
    std::vector<TaggedLine> out;
    for (auto& [key, text] : m_partial)
        out.push_back(
            TaggedLine{key.first, static_cast<wire::Stream>(key.second), std::move(text)});
    m_partial.clear();
    return out;
}

std::string hostList(const std::vector<std::string>& hosts, int slotsPerHost) {
    std::vector<std::pair<std::string, int>> slots;
    for (const auto& h : hosts) {
        auto it =
            std::find_if(slots.begin(), slots.end(), [&](const auto& s) { return s.first == h; });
        if (it == slots.end())
            slots.emplace_back(h, slotsPerHost);
        else
            it->second += slotsPerHost;
    }
    std::string out;
    for (const auto& [h, n] : slots)
        out += (out.empty() ? "" : ",") + h + ":" + std::to_string(n);
    return out;
}

std::vector<std::string> mpirunArgv(const LaunchConfig& c, const MpirunPlan& plan) {
    const std::string ppn = std::to_string(c.nprocPerNode);
    std::vector<std::string> argv = {"mpirun", "--tag-output", "-np",
                                     std::to_string(c.worldSize())};
    if (plan.slurm) // the allocation's nodes, in Slurm's order; its slots are the launchers'
        argv.insert(argv.end(), {"--map-by", "ppr:" + ppn + ":node", "--oversubscribe", "--mca",
                                 "plm_slurm_args", "--overlap"});
    else // rank r on host r / ppn
        argv.insert(argv.end(),
                    {"--host", hostList(plan.hosts, c.nprocPerNode), "--map-by", "slot"});
    argv.insert(argv.end(), {"--bind-to", "none"}); // the launcher binds each rank's CPUs
    if (plan.asRoot)
        argv.push_back("--allow-run-as-root");
    if (!plan.sshConfig.empty())
        argv.insert(argv.end(), {"--mca", "plm_rsh_agent", "ssh -F " + plan.sshConfig});
    argv.insert(argv.end(), c.mpiArgs.begin(), c.mpiArgs.end());
    argv.insert(argv.end(), {plan.self, "mpi-rank", "--socket", socketPrefix(c), "--ppn", ppn});
    return argv;
}

std::string helloLine(int rank) {
    return json{{"studio_mpi_hello", {{"rank", rank}}}}.dump() + "\n";
}

std::optional<int> parseHello(std::string_view line) {
    const json j = json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("studio_mpi_hello"))
        return std::nullopt;
    const json& h = j["studio_mpi_hello"];
    if (!h.is_object() || !h.contains("rank") || !h["rank"].is_number_integer())
        return std::nullopt;
    return h["rank"].get<int>();
}

std::string setupLine(const RankSetup& s) {
    return json{{"env", s.env},
                {"argv", s.argv},
                {"workdir", s.workdir},
                {"cpus", s.cpus},
                {"error", s.error}}
               .dump() +
           "\n";
}

std::optional<RankSetup> parseSetup(std::string_view line) {
    const json j = json::parse(line, nullptr, false);
    if (!j.is_object())
        return std::nullopt;
    try {
        RankSetup s;
        s.env = j.value("env", std::map<std::string, std::string>{});
        s.argv = j.value("argv", std::vector<std::string>{});
        s.workdir = j.value("workdir", "");
        s.cpus = j.value("cpus", std::vector<int>{});
        s.error = j.value("error", "");
        return s;
    } catch (const json::exception&) {
        return std::nullopt;
    }
}

std::string exitLine(const RankEnd& e) {
    return json{{"studio_mpi_exit",
                 {{"code", e.status.code},
                  {"signal", e.status.signal},
                  {"stderr_tail", e.stderrTail}}}}
               .dump() +
           "\n";
}

std::optional<RankEnd> parseExit(std::string_view line) {
    if (line.substr(0, kExitKey.size()) != kExitKey)
        return std::nullopt;
    const json j = json::parse(line, nullptr, false);
    if (!j.is_object() || !j["studio_mpi_exit"].is_object())
        return std::nullopt;
    const json& x = j["studio_mpi_exit"];
    try {
        RankEnd e;
        e.status.code = x.value("code", -1);
        e.status.signal = x.value("signal", 0);
        e.stderrTail = x.value("stderr_tail", std::vector<std::string>{});
        return e;
    } catch (const json::exception&) {
        return std::nullopt;
    }
}

} // namespace studio::launcher::mpi
