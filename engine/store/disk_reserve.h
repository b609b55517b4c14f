// Space set aside beside the studio database: when the disk fills, releasing it leaves room for
// the few writes that record how the running jobs ended. Plain and thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace studio::store {

class DiskReserve {
public:
    static constexpr std::int64_t kBytes = 1 << 20;
    // A reserve is made only where this much is free: one made on a nearly full disk would take
    // the space it is meant to give back.
    static constexpr std::int64_t kMinimumFree = 16 * kBytes;

    // Takes over the file at path, or makes it (0600, its blocks allocated) when there is room.
    explicit DiskReserve(std::string path);
    DiskReserve(const DiskReserve&) = delete;
    DiskReserve& operator=(const DiskReserve&) = delete;

    const std::string& path() const { return m_path; }
    bool held() const { return m_held.load(); }
    // Deletes the file; true when this call freed the space.
    bool release();

private:
    std::string m_path;
    std::atomic<bool> m_held{false};
};

} // namespace studio::store
