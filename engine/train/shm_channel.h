// A one-way message channel between two processes of one node through shared memory: a ring of
// slots, futex wake-ups, messages larger than a slot split across slots. Messages arrive in the
// order they were sent; each carries a tag and a size that the receiver checks.
// Thread-safety: one sending thread and one receiving thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace studio::train {

class ShmChannel {
public:
    // The creating side makes the segment; the other attaches to the same name.
    ShmChannel(const std::string& name, bool create, int slots, std::size_t slotBytes);
    ~ShmChannel();
    ShmChannel(const ShmChannel&) = delete;
    ShmChannel& operator=(const ShmChannel&) = delete;

    void unlinkName();
    // Blocks while every slot is full. Throws when the peer has died.
    void send(const void* data, std::size_t bytes, int tag);
    // Sends only when the whole message fits in the free slots now; false otherwise.
    bool trySend(const void* data, std::size_t bytes, int tag);
    // Blocks until the next message; throws when its tag or size is not the expected one.
    void recv(void* data, std::size_t bytes, int tag);

private:
    struct Header;
    struct Slot;
    Slot* slot(std::uint32_t index) const;
    void waitWhile(const void* counter, std::uint32_t value);

    std::string m_name;
    int m_slots;
    std::size_t m_slotBytes;
    std::size_t m_stride;
    void* m_base = nullptr;
    std::size_t m_bytes = 0;
    Header* m_header = nullptr;
};

} // namespace studio::train
