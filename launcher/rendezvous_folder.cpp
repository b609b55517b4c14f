#include "launcher/rendezvous_folder.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace studio::launcher {

namespace {

constexpr const char* kPrefix = "studio-rendezvous-";

// Folders of this user whose launcher is gone (killed before it could remove them).
void sweep(const std::string& base) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(base, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(kPrefix, 0) != 0)
            continue;
        const long pid = std::strtol(name.c_str() + std::strlen(kPrefix), nullptr, 10);
        struct stat st {};
        if (pid <= 0 || ::lstat(entry.path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
            st.st_uid != ::geteuid())
            continue;
        if (::kill(static_cast<pid_t>(pid), 0) == -1 && errno == ESRCH) {
            std::error_code ignored;
            std::filesystem::remove_all(entry.path(), ignored);
        }
    }
}

} // namespace

RendezvousFolder::~RendezvousFolder() {
    if (m_path.empty())
        return;
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
    // Off the ranks' start-up path: the launcher's work is done when it sweeps.
    sweep(std::filesystem::path(m_path).parent_path().string());
}

std::string RendezvousFolder::create() {
    const char* tmp = std::getenv("TMPDIR");
    const std::string base = tmp && *tmp == '/' ? tmp : "/tmp";
    std::string name = base + "/" + kPrefix + std::to_string(::getpid()) + "-XXXXXX";
    if (!::mkdtemp(name.data())) {
        std::fprintf(stderr,
                     "studio-launcher: no private folder for the rendezvous in %s (%s); the "
                     "ranks meet through a TCP store\n",
                     base.c_str(), std::strerror(errno));
        return {};
    }
    m_path = name;
    return m_path + "/store";
}

} // namespace studio::launcher
