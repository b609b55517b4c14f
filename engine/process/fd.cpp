#include "engine/process/fd.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdexcept>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace studio::process {

void Fd::reset(int fd) {
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = fd;
}

std::string errnoText(int err) {
    return std::strerror(err);
}

std::string privateFolderError(const std::string& dir) {
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0)
        return dir + ": " + errnoText(errno);
    if (!S_ISDIR(st.st_mode) || st.st_uid != ::geteuid())
        return dir + " is not a folder of this user (uid " + std::to_string(::geteuid()) +
               "); remove it";
    if ((st.st_mode & 077) != 0 && ::chmod(dir.c_str(), 0700) != 0)
        return "cannot make " + dir + " private: " + errnoText(errno);
    return {};
}

Pipe makePipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        throw std::runtime_error("pipe: " + errnoText(errno));
    return Pipe{Fd(fds[0]), Fd(fds[1])};
}

void setNonBlocking(int fd, bool on) {
    int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0)
        throw std::runtime_error("fcntl: " + errnoText(errno));
    flags = on ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK);
    ::fcntl(fd, F_SETFL, flags);
}

bool writeAll(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
        ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

int freeTcpPort() {
    Fd s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!s.valid())
        throw std::runtime_error("socket: " + errnoText(errno));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    if (::bind(s.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
        throw std::runtime_error("bind 127.0.0.1:0: " + errnoText(errno));
    socklen_t len = sizeof addr;
    ::getsockname(s.get(), reinterpret_cast<sockaddr*>(&addr), &len);
    return ntohs(addr.sin_port);
}

} // namespace studio::process
