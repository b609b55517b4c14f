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

    // Takes every free block, as another program filling the disk would, and then stops: space
    // freed afterwards stays free. It allocates in large steps while much is free and page by
    // page near the end, so a writer racing it loses at most a page to it. When watch is given
    // (a studio's reserve file), is there at the start and goes away, the studio has met the full
    // disk: filling stops there, and the reserve it released is left to it.
    void fill(const std::string& watch = {}) {
        const int fd =
            ::open((m_dir + "/filler").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0)
            return;
        constexpr long long kPage = 4096, kLarge = 1 << 20;
        off_t end = 0;
        int misses = 0;
        std::error_code ec;
        const bool watching = !watch.empty() && std::filesystem::exists(watch, ec);
        for (int step = 0; step < (1 << 20) && misses < 8; ++step) {
            if (watching && !std::filesystem::exists(watch, ec))
                break;
            const long long free = freeBytes(m_dir);
            if (free <= 0)
                break;
            const long long chunk = free > 2 * kLarge ? free - kLarge : kPage;
            if (::posix_fallocate(fd, end, static_cast<off_t>(chunk)) == 0) {
                end += static_cast<off_t>(chunk);
                misses = 0;
            } else {
                ++misses; // another writer took the page first: look again
            }
        }
        ::close(fd);
    }
    void empty() {
        std::error_code ec;
        std::filesystem::remove(m_dir + "/filler", ec);
    }

private:
    std::string m_dir;
    bool m_mounted = false;
};
