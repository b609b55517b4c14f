#include "engine/remote/host_executor.h"
#include "engine/process/fd.h"
#include "engine/process/process.h"

#include "engine/remote/shell_quote.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <poll.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace studio::remote {

namespace fs = std::filesystem;

namespace {

// One mutex per control socket: two threads opening the same master at once would make one of
// them run unmultiplexed ("ControlSocket ... already exists, disabling multiplexing").
std::mutex& masterMutex(const std::string& key) {
    static std::mutex guard;
    static std::map<std::string, std::unique_ptr<std::mutex>> mutexes;
    std::lock_guard lock(guard);
    auto& m = mutexes[key];
    if (!m)
        m = std::make_unique<std::mutex>();
    return *m;
}

std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' '))
        s.pop_back();
    return s;
}

} // namespace

SshExecutor::SshExecutor(SshTarget target, SshOptions options)
    : m_target(std::move(target))
    , m_options(std::move(options)) {
}

std::vector<std::string> SshExecutor::sshPrefix(bool withDestination) const {
    const auto opt = [](const std::string& kv) {
        return std::vector<std::string>{"-o", kv};
    };
    std::vector<std::string> argv = {"ssh"};
    const auto add = [&argv](const std::vector<std::string>& more) {
        argv.insert(argv.end(), more.begin(), more.end());
    };
    add(opt("BatchMode=yes")); // never a password or passphrase prompt
    add(opt("ConnectTimeout=" + std::to_string(m_options.connectTimeoutSeconds)));
    add(opt("ServerAliveInterval=" + std::to_string(m_options.serverAliveSeconds)));
    add(opt("ServerAliveCountMax=3"));
    add(opt(std::string("StrictHostKeyChecking=") +
            (m_options.acceptNewHostKeys ? "accept-new" : "yes")));
    if (!m_options.knownHostsFile.empty())
        add(opt("UserKnownHostsFile=" + m_options.knownHostsFile));
    if (!m_options.identityFile.empty()) {
        add({"-i", m_options.identityFile});
        add(opt("IdentitiesOnly=yes"));
    }
    if (!m_options.controlDir.empty()) {
        // %C names the user, host and port; the prefix names how the master was opened, so a
        // cluster with another key or known_hosts never rides on a master it did not verify.
        const std::string how = m_options.identityFile + "|" + m_options.knownHostsFile + "|" +
                                (m_options.acceptNewHostKeys ? "new" : "strict");
        char prefix[16];
        std::snprintf(prefix, sizeof prefix, "%08zx", std::hash<std::string>()(how) & 0xffffffffu);
        add(opt("ControlMaster=auto"));
        add(opt("ControlPath=" + m_options.controlDir + "/" + prefix + "-%C"));
        add(opt("ControlPersist=" + std::to_string(m_options.controlPersistSeconds)));
    }
    add(opt("LogLevel=ERROR"));
    if (!m_target.user.empty())
        add({"-l", m_target.user});
    add({"-p", std::to_string(m_target.port)});
    if (withDestination)
        add({"--", m_target.host});
    return argv;
}

std::vector<std::string> SshExecutor::wrap(const std::vector<std::string>& command) const {
    std::vector<std::string> argv = sshPrefix();
    argv.push_back(shellCommand(command));
    return argv;
}

std::string SshExecutor::connect(double timeoutSeconds) {
    std::lock_guard lock(masterMutex(m_options.controlDir + "|" + m_target.text()));
    if (!m_options.controlDir.empty()) {
        std::vector<std::string> check = sshPrefix(false);
        check.insert(check.end(), {"-O", "check", "--", m_target.host});
        if (runLocal(check, 5).ok())
            return {};
    }
    std::vector<std::string> open = sshPrefix();
    open.push_back("true");
    const CommandResult r = runLocal(open, timeoutSeconds);
    if (r.ok())
        return {};
    std::string why = "host " + m_target.text() + ": " + r.describe();
    if (r.err.find("Host key verification failed") != std::string::npos)
        why += " (its key is not in " +
               (m_options.knownHostsFile.empty() ? std::string("your known_hosts")
                                                 : m_options.knownHostsFile) +
               ", or differs from the one there: `mlstudio cluster add ... "
               "--accept-new-host-keys` trusts a key seen for the first time; a changed key "
               "must be checked and replaced by hand)";
    return why;
}

void SshExecutor::disconnect() {
    if (m_options.controlDir.empty())
        return;
    std::vector<std::string> exit = sshPrefix(false);
    exit.insert(exit.end(), {"-O", "exit", "--", m_target.host});
    runLocal(exit, 3);
}

std::string controlDirectory(const std::string& home) {
    // <dir>/ + 8 + 1 + 40 hex digits of %C must fit sun_path (108 bytes, with its NUL), and
    // ssh adds a temporary suffix of about 17 characters while it creates the socket.
    std::string dir = (fs::path(home) / "ssh").string();
    if (dir.size() > 40)
        dir = "/tmp/mlstudio-ssh-" + std::to_string(::getuid()) + "-" +
              std::to_string(std::hash<std::string>()(home) % 100000000);
    std::error_code ec;
    fs::create_directories(fs::path(dir).parent_path(), ec);
    ::mkdir(dir.c_str(), 0700);
    if (process::privateFolderError(dir).empty())
        return dir;
    // Someone else made that name (in /tmp anyone can): a link, or a folder ssh's sockets
    // could be swapped in. Use a fresh one that mkdtemp makes ours alone.
    std::string fresh = "/tmp/mlstudio-ssh-XXXXXX";
    if (::mkdtemp(fresh.data()) == nullptr)
        throw std::runtime_error("no private folder for SSH control sockets: " + dir +
                                 " is not this user's, and mkdtemp failed");
    return fresh;
}

std::shared_ptr<HostExecutor> makeExecutor(const ClusterConfig& cluster, std::size_t index,
                                           const std::string& controlDir, bool acceptNewHostKeys) {
    if (cluster.isLocal() || cluster.isSlurm()) // Slurm: journals on the shared filesystem
        return std::make_shared<LocalExecutor>();
    SshOptions o;
    o.identityFile = cluster.identityFile;
    o.knownHostsFile = cluster.knownHostsFile;
    o.controlDir = controlDir;
    o.acceptNewHostKeys = acceptNewHostKeys;
    return std::make_shared<SshExecutor>(cluster.hosts.at(index), o);
}

std::string CommandResult::describe() const {
    if (!startError.empty())
        return startError;
    std::string text = trimmed(err);
    if (timedOut)
        return "no answer within the time limit" + (text.empty() ? "" : " (" + text + ")");
    if (!text.empty()) {
        // ssh's own message is its last line; a login shell may print before it.
        const auto nl = text.rfind('\n');
        return nl == std::string::npos ? text : text.substr(nl + 1);
    }
    return status ? status->describe() : "did not run";
}

CommandResult runLocal(const std::vector<std::string>& argv, double timeoutSeconds,
                       const std::string& stdinData) {
    CommandResult r;
    process::Process p;
    process::Pipe in;
    try {
        in = process::makePipe();
        process::SpawnOptions o;
        o.argv = argv;
        o.env = process::currentEnvironment();
        o.passFds = {{in.read.get(), 0}};
        p = process::Process::spawn(o);
    } catch (const std::exception& e) {
        r.startError = e.what();
        return r;
    }
    in.read.reset();
    process::Fd out = p.takeStdout(), err = p.takeStderr();
    process::setNonBlocking(in.write.get());
    process::setNonBlocking(out.get());
    process::setNonBlocking(err.get());
    std::size_t written = 0;
    if (stdinData.empty())
        in.write.reset();
    const double deadline = process::monotonicSeconds() + timeoutSeconds;
    double exitedAt = 0;
    while (true) {
        const double now = process::monotonicSeconds();
        if (p.poll() && exitedAt == 0)
            exitedAt = now;
        // A process that left a background child holding its pipes (an ssh master) has ended.
        if (exitedAt > 0 && ((!out.valid() && !err.valid()) || now > exitedAt + 0.2))
            break;
        if (now >= deadline) {
            r.timedOut = true;
            p.kill();
            return r;
        }
        std::vector<pollfd> fds;
        if (out.valid())
            fds.push_back({out.get(), POLLIN, 0});
        if (err.valid())
            fds.push_back({err.get(), POLLIN, 0});
        if (in.write.valid())
            fds.push_back({in.write.get(), POLLOUT, 0});
        ::poll(fds.data(), fds.size(), 50);
        for (auto [fd, text] :
             {std::pair<process::Fd*, std::string*>{&out, &r.out}, {&err, &r.err}}) {
            if (!fd->valid())
                continue;
            char buf[65536];
            ssize_t n;
            while ((n = ::read(fd->get(), buf, sizeof buf)) > 0)
                text->append(buf, static_cast<std::size_t>(n));
            if (n == 0)
                fd->reset();
        }
        if (in.write.valid()) {
            ssize_t n =
                ::write(in.write.get(), stdinData.data() + written, stdinData.size() - written);
            if (n > 0)
                written += static_cast<std::size_t>(n);
            if ((n < 0 && errno != EAGAIN && errno != EINTR) || written == stdinData.size())
                in.write.reset();
        }
    }
    r.status = p.status();
    return r;
}

CommandResult runOnHost(const HostExecutor& host, const std::vector<std::string>& command,
                        double timeoutSeconds, const std::string& stdinData) {
    try {
        return runLocal(host.wrap(command), timeoutSeconds, stdinData);
    } catch (const std::exception& e) {
        CommandResult r;
        r.startError = e.what();
        return r;
    }
}

} // namespace studio::remote
