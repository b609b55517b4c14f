// A small tmpfs of the test's own on an empty folder (root only), unmounted when it goes: the
// place to fill a disk without touching the machine's. fill() takes all its free space.
#pragma once

#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <string>
#include <sys/statvfs.h>
#include <unistd.h>

class TmpfsMount {
public:
    // size as mount(8) takes it ("32m"); mounted() is false when not root or mount failed.
    TmpfsMount(std::string dir, const std::string& size)
        : m_dir(std::move(dir)) {
        if (::geteuid() != 0)
            return;
        const std::string cmd =
            "mount -t tmpfs -o size=" + size + ",mode=0700 studio-test-tmpfs '" + m_dir + "'";
        m_mounted = std::system(cmd.c_str()) == 0;
    }
    ~TmpfsMount() {
        if (m_mounted)
            (void)!std::system(("umount -l '" + m_dir + "'").c_str());
    }
    TmpfsMount(const TmpfsMount&) = delete;
    TmpfsMount& operator=(const TmpfsMount&) = delete;

    bool mounted() const { return m_mounted; }
    const std::string& dir() const { return m_dir; }

    static long long freeBytes(const std::string& dir) {
        struct statvfs fs {};
        if (::statvfs(dir.c_str(), &fs) != 0)
            return -1;
        return static_cast<long long>(fs.f_bavail) * static_cast<long long>(fs.f_frsize);
    }

    // Takes every free block: one file allocated at once, one written block by block to the end.
    void fill() {
        const std::string bulk = m_dir + "/filler";
        const int fd = ::open(bulk.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd >= 0) {
            (void)::posix_fallocate(fd, 0, static_cast<off_t>(freeBytes(m_dir)));
            ::close(fd);
        }
        const int rest = ::open((m_dir + "/filler-rest").c_str(),
                                O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (rest < 0)
            return;
        char block[4096] = {};
        for (int i = 0; i < (1 << 16) && ::write(rest, block, sizeof block) > 0; ++i) {
        }
        ::close(rest);
    }
    void empty() {
        std::error_code ec;
        std::filesystem::remove(m_dir + "/filler", ec);
        std::filesystem::remove(m_dir + "/filler-rest", ec);
    }

private:
    std::string m_dir;
    bool m_mounted = false;
};
