#include "launcher/journal_space.h"

#include <cerrno>
#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/stat.h>

namespace studio::launcher {

JournalSpace::JournalSpace(int fd)
    : m_fd(fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return;
    m_end = st.st_size;
    m_allocated = m_end;
    m_protects = ::fallocate(fd, FALLOC_FL_KEEP_SIZE, m_end, kAhead) == 0;
    if (m_protects)
        m_allocated = m_end + kAhead;
    else
        m_full = errno == ENOSPC || errno == EDQUOT; // no room even now
}

bool JournalSpace::make(std::size_t n) {
    if (!m_protects)
        return !m_full;
    const std::int64_t need = m_end + static_cast<std::int64_t>(n) + kKept;
    if (need <= m_allocated)
        return !m_full;
    if (m_full)
        return false;
    if (::fallocate(m_fd, FALLOC_FL_KEEP_SIZE, m_allocated, need - m_allocated + kAhead) == 0) {
        m_allocated = need + kAhead;
        return true;
    }
    if (errno != ENOSPC && errno != EDQUOT) { // allocation stopped working: write unprotected
        m_protects = false;
        return true;
    }
    m_full = true;
    return false;
}

} // namespace studio::launcher
