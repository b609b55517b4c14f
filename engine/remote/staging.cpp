#include "engine/remote/staging.h"
#include "engine/process/process.h"

#include "engine/digest/sha256.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <poll.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace studio::remote {

namespace fs = std::filesystem;

namespace {

void hashEntry(digest::Sha256& h, const fs::path& root, const fs::path& p) {
    const std::string rel = fs::relative(p, root).generic_string();
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0)
        throw std::runtime_error("cannot read " + p.string());
    const std::string head =
        rel + '\0' + std::to_string((st.st_mode & 07777) | (st.st_mode & S_IFMT)) + '\0';
    h.update(head.data(), head.size());
    if (S_ISLNK(st.st_mode)) {
        const std::string target = fs::read_symlink(p).string();
        h.update(target.data(), target.size());
    } else if (S_ISREG(st.st_mode)) {
        std::ifstream in(p, std::ios::binary);
        if (!in)
            throw std::runtime_error("cannot read " + p.string());
        char buf[1 << 16];
        while (in.read(buf, sizeof buf) || in.gcount() > 0)
            h.update(buf, static_cast<std::size_t>(in.gcount()));
        const std::string size = '\0' + std::to_string(st.st_size);
        h.update(size.data(), size.size());
    }
}

// Two local processes joined by a pipe, both bounded by one deadline: producer | consumer.
void runPipeline(const std::vector<std::string>& producer, const std::vector<std::string>& consumer,
                 double timeoutSeconds, const std::string& what) {
    process::SpawnOptions a;
    a.argv = producer;
    a.env = process::currentEnvironment();
    process::Process first = process::Process::spawn(a);
    process::Fd pipe = first.takeStdout();
    process::Fd firstErr = first.takeStderr();
    process::SpawnOptions b;
    b.argv = consumer;
    b.env = a.env;
    b.captureStdout = true;
    b.passFds = {{pipe.get(), 0}};
    process::Process second = process::Process::spawn(b);
    pipe.reset();
    process::Fd secondOut = second.takeStdout(), secondErr = second.takeStderr();
    std::string errors;
    const double deadline = process::monotonicSeconds() + timeoutSeconds;
    std::vector<process::Fd*> fds = {&firstErr, &secondOut, &secondErr};
    for (auto* f : fds)
        process::setNonBlocking(f->get());
    while (!(first.poll() && second.poll())) {
        if (process::monotonicSeconds() > deadline) {
            first.kill();
            second.kill();
            throw std::runtime_error(what + ": no end within " +
                                     std::to_string(static_cast<int>(timeoutSeconds)) + " s");
        }
        std::vector<pollfd> p;
        for (auto* f : fds)
            if (f->valid())
                p.push_back({f->get(), POLLIN, 0});
        ::poll(p.data(), p.size(), 50);
        for (auto* f : fds) {
            if (!f->valid())
                continue;
            char buf[4096];
            ssize_t n;
            while ((n = ::read(f->get(), buf, sizeof buf)) > 0)
                if (f != &secondOut && errors.size() < 4096)
                    errors.append(buf, static_cast<std::size_t>(n));
            if (n == 0)
                f->reset();
        }
    }
    if (!first.status()->success() || !second.status()->success()) {
        while (!errors.empty() && (errors.back() == '\n' || errors.back() == ' '))
            errors.pop_back();
        throw std::runtime_error(what + ": " +
                                 (errors.empty()
                                      ? (first.status()->success() ? second.status()->describe()
                                                                   : first.status()->describe())
                                      : errors));
    }
}

} // namespace

std::string treeHash(const std::string& path) {
    const fs::path root(path);
    std::error_code ec;
    if (!fs::exists(root, ec))
        throw std::runtime_error(path + " does not exist");
    digest::Sha256 h;
    if (!fs::is_directory(root)) {
        hashEntry(h, root.parent_path(), root);
        return h.hex();
    }
    std::vector<fs::path> entries;
    for (auto it = fs::recursive_directory_iterator(root, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        entries.push_back(it->path());
    if (ec)
        throw std::runtime_error("cannot read " + path + ": " + ec.message());
    std::sort(entries.begin(), entries.end());
    for (const auto& p : entries)
        hashEntry(h, root, p);
    return h.hex();
}

std::string StageItem::remotePath() const {
    return isFile ? remote + "/" + fs::path(local).filename().string() : remote;
}

StageItem planStage(const std::string& local, const std::string& remoteCacheDir) {
    StageItem item;
    item.local = fs::path(local).lexically_normal().string();
    if (item.local.size() > 1 && item.local.back() == '/')
        item.local.pop_back();
    item.isFile = !fs::is_directory(item.local);
    item.hash = treeHash(item.local);
    item.remote = remoteCacheDir + "/" + item.hash.substr(0, 32);
    return item;
}

void stageItems(const HostExecutor& host, const std::string& launcher,
                const std::vector<StageItem>& items, double timeoutSeconds) {
    if (items.empty())
        return;
    std::vector<std::string> check = {launcher, "stage"};
    for (const auto& i : items) {
        check.push_back("--check");
        check.push_back(i.remote);
    }
    const CommandResult r = runOnHost(host, check, timeoutSeconds);
    const auto marker = r.out.find("@@studio-stage\n");
    if (!r.ok() || marker == std::string::npos)
        throw std::runtime_error("host " + host.label() +
                                 ": cannot check the staged files: " + r.describe());
    const std::string missing = r.out.substr(marker);
    for (const auto& i : items) {
        if (missing.find("missing " + i.remote + "\n") == std::string::npos)
            continue;
        const fs::path local(i.local);
        std::vector<std::string> tar = {"tar", "-c", "-f", "-", "-C"};
        if (i.isFile) {
            tar.push_back(local.parent_path().string());
            tar.push_back(local.filename().string());
        } else {
            tar.push_back(local.string());
            tar.push_back(".");
        }
        runPipeline(tar, host.wrap({launcher, "stage", "--into", i.remote}), timeoutSeconds,
                    "host " + host.label() + ": staging " + i.local);
    }
}

bool fetchFolder(const HostExecutor& host, const std::string& launcher,
                 const std::string& remoteDir, const std::string& localDir, double timeoutSeconds) {
    const CommandResult exists = runOnHost(host, {launcher, "stage", "--check", remoteDir}, 30);
    if (!exists.ok())
        throw std::runtime_error("host " + host.label() + ": cannot read " + remoteDir + ": " +
                                 exists.describe());
    if (exists.out.find("missing " + remoteDir + "\n") != std::string::npos)
        return false;
    std::error_code ec;
    fs::create_directories(localDir, ec);
    runPipeline(host.wrap({launcher, "pack", remoteDir}),
                {"tar", "-x", "--no-same-owner", "-f", "-", "-C", localDir}, timeoutSeconds,
                "host " + host.label() + ": fetching " + remoteDir);
    return true;
}

} // namespace studio::remote
