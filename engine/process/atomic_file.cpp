#include "engine/process/atomic_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <stdexcept>
#include <unistd.h>

namespace studio::process {

namespace fs = std::filesystem;

void writeFileAtomically(const std::string& path, const std::string& bytes) {
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    ::unlink(tmp.c_str()); // a leftover of this pid's earlier life; never followed if a link
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        throw std::runtime_error("cannot write " + tmp + ": " + std::strerror(errno));
    std::size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            const int err = errno;
            ::close(fd);
            ::unlink(tmp.c_str());
            throw std::runtime_error("cannot write " + tmp + ": " + std::strerror(err));
        }
        done += static_cast<std::size_t>(n);
    }
    ::fsync(fd);
    ::close(fd);
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        throw std::runtime_error("cannot rename " + tmp + " to " + path + ": " +
                                 std::strerror(err));
    }
    // The rename itself must survive a crash: sync the folder that holds the new name.
    const std::string dir = fs::path(path).parent_path().empty()
                                ? std::string(".")
                                : fs::path(path).parent_path().string();
    if (int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}

} // namespace studio::process
