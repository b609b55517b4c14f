// Room kept ahead of an append-only journal file: the next bytes are allocated in advance
// (fallocate, size unchanged), so that when the disk fills the launcher still has space to write
// how its node ended. Plain; one writer.
#pragma once

#include <cstddef>
#include <cstdint>

namespace studio::launcher {

class JournalSpace {
public:
    static constexpr std::int64_t kAhead = 256 << 10; // allocated at a time
    static constexpr std::int64_t kKept = 64 << 10;   // always left for the node's ending

    // fd: the journal, opened for appending. Files that cannot be allocated ahead (pipes, file
    // systems without fallocate) are written as they are, unprotected.
    explicit JournalSpace(int fd);

    // Before appending n bytes: true when they fit with kKept still allocated after them.
    // False once the allocation cannot grow (the disk is full): from then on only what kKept
    // holds may be written.
    bool make(std::size_t n);
    void wrote(std::size_t n) { m_end += static_cast<std::int64_t>(n); }
    bool protects() const { return m_protects; }
    bool full() const { return m_full; }

private:
    int m_fd;
    bool m_protects = false;
    bool m_full = false;
    std::int64_t m_end = 0;       // the file's size
    std::int64_t m_allocated = 0; // allocated up to here
};

} // namespace studio::launcher
