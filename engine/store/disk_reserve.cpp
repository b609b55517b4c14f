#include "engine/store/disk_reserve.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace studio::store {

namespace {

bool isOurFile(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
           st.st_size >= DiskReserve::kBytes;
}

std::int64_t freeBytes(const std::string& path) {
    const auto slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
    struct statvfs fs {};
    if (::statvfs(dir.c_str(), &fs) != 0)
        return 0;
    return static_cast<std::int64_t>(fs.f_bavail) * static_cast<std::int64_t>(fs.f_frsize);
}

} // namespace

DiskReserve::DiskReserve(std::string path)
    : m_path(std::move(path)) {
    if (isOurFile(m_path)) {
        m_held = true;
        return;
    }
    if (freeBytes(m_path) < kMinimumFree)
        return;
    const int fd =
        ::open(m_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        m_held = errno == EEXIST && isOurFile(m_path); // another writer made it just now
        return;
    }
    const bool ok = ::posix_fallocate(fd, 0, kBytes) == 0;
    ::close(fd);
    if (ok)
        m_held = true;
    else
        ::unlink(m_path.c_str());
}

bool DiskReserve::release() {
    if (!m_held.exchange(false))
        return false;
    return ::unlink(m_path.c_str()) == 0;
}

} // namespace studio::store
