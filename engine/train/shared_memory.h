// Opens (or creates, exclusively) a POSIX shared-memory object of a given size and maps it; the
// one way the shared-memory transports get their memory. Throws std::runtime_error naming the
// object; a created object that cannot be sized is unlinked again.
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace studio::train {

inline void* mapSharedMemory(const std::string& name, std::size_t bytes, bool create) {
    int fd = ::shm_open(name.c_str(), create ? (O_RDWR | O_CREAT | O_EXCL) : O_RDWR, 0600);
    if (fd < 0)
        throw std::runtime_error("shared memory " + name + ": " + std::strerror(errno));
    if (create && ::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
        const int err = errno;
        ::close(fd);
        ::shm_unlink(name.c_str());
        throw std::runtime_error("shared memory " + name + ": " + std::strerror(err));
    }
    void* base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (base == MAP_FAILED)
        throw std::runtime_error("shared memory " + name + ": mmap: " + std::strerror(errno));
    return base;
}

} // namespace studio::train
