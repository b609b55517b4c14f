// File descriptors owned by RAII, pipes, and small socket helpers shared by the launcher and the
// controller.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace studio::process {

class Fd {
public:
    Fd() = default;
    explicit Fd(int fd)
        : m_fd(fd) {}
    ~Fd() { reset(); }
    Fd(Fd&& o) noexcept
        : m_fd(std::exchange(o.m_fd, -1)) {}
    Fd& operator=(Fd&& o) noexcept {
        if (this != &o) {
            reset();
            m_fd = std::exchange(o.m_fd, -1);
        }
        return *this;
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;

    int get() const { return m_fd; }
    bool valid() const { return m_fd >= 0; }
    int release() { return std::exchange(m_fd, -1); }
    void reset(int fd = -1);

private:
    int m_fd = -1;
};

struct Pipe {
    Fd read;
    Fd write;
};

// A pipe whose both ends are close-on-exec.
Pipe makePipe();
void setNonBlocking(int fd, bool on = true);

// Writes all bytes, retrying on EINTR and short writes; false on error (EPIPE included).
bool writeAll(int fd, std::string_view bytes);

// A TCP port on 127.0.0.1 that was free a moment ago.
int freeTcpPort();

std::string errnoText(int err);

// Whether dir is a real folder (not a link) of this user, made 0700 when others could enter it:
// empty when so, else why not, naming the folder. Sockets and secrets go only into such folders.
std::string privateFolderError(const std::string& dir);

} // namespace studio::process
