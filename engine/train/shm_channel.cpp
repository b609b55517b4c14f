#include "engine/train/shm_channel.h"

#include "engine/train/shared_memory.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdexcept>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace studio::train {

namespace {
constexpr auto kTimeout = std::chrono::minutes(5);

long futex(std::atomic<std::uint32_t>* addr, int op, std::uint32_t value, const timespec* timeout) {
    return ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(addr), op, value, timeout, nullptr,
                     0);
}
} // namespace

struct ShmChannel::Header {
    std::atomic<std::uint32_t> written; // messages chunks written so far
    std::atomic<std::uint32_t> read;    // chunks read so far
    std::atomic<std::int32_t> pids[2];  // creator, attacher
};

struct ShmChannel::Slot {
    std::uint64_t bytes; // of this chunk
    std::uint64_t total; // of the whole message
    std::int32_t tag;
    std::int32_t pad;
    // data follows
};

ShmChannel::ShmChannel(const std::string& name, bool create, int slots, std::size_t slotBytes)
    : m_name(name)
    , m_slots(slots)
    , m_slotBytes(slotBytes) {
    m_stride = (sizeof(Slot) + slotBytes + 63) / 64 * 64;
    const std::size_t header = (sizeof(Header) + 63) / 64 * 64;
    m_bytes = header + m_stride * static_cast<std::size_t>(slots);
    m_base = mapSharedMemory(name, m_bytes, create);
    m_header = static_cast<Header*>(m_base);
    m_header->pids[create ? 0 : 1].store(::getpid());
}

ShmChannel::~ShmChannel() {
    ::munmap(m_base, m_bytes);
}

void ShmChannel::unlinkName() {
    ::shm_unlink(m_name.c_str());
}

ShmChannel::Slot* ShmChannel::slot(std::uint32_t index) const {
    const std::size_t header = (sizeof(Header) + 63) / 64 * 64;
    return reinterpret_cast<Slot*>(static_cast<char*>(m_base) + header +
                                   m_stride * (index % static_cast<std::uint32_t>(m_slots)));
}

// Waits until *counter != value, checking that the peer still lives.
void ShmChannel::waitWhile(const void* counterPtr, std::uint32_t value) {
    auto* counter = const_cast<std::atomic<std::uint32_t>*>(
        static_cast<const std::atomic<std::uint32_t>*>(counterPtr));
    for (int spin = 0; spin < 2000; ++spin)
        if (counter->load(std::memory_order_acquire) != value)
            return;
    const auto deadline = std::chrono::steady_clock::now() + kTimeout;
    const timespec tick{0, 100 * 1000 * 1000};
    while (counter->load(std::memory_order_acquire) == value) {
        futex(counter, FUTEX_WAIT, value, &tick);
        if (counter->load(std::memory_order_acquire) != value)
            return;
        for (const auto& pid : m_header->pids) {
            const std::int32_t p = pid.load();
            if (p > 0 && ::kill(p, 0) != 0 && errno == ESRCH)
                throw std::runtime_error("the peer process " + std::to_string(p) +
                                         " of a pipeline channel exited");
        }
        if (std::chrono::steady_clock::now() > deadline)
            throw std::runtime_error("a pipeline message did not arrive within 5 minutes");
    }
}

void ShmChannel::send(const void* data, std::size_t bytes, int tag) {
    const auto* p = static_cast<const char*>(data);
    std::size_t done = 0;
    do {
        const std::uint32_t w = m_header->written.load(std::memory_order_relaxed);
        std::uint32_t r;
        while (w - (r = m_header->read.load(std::memory_order_acquire)) >=
               static_cast<std::uint32_t>(m_slots))
            waitWhile(&m_header->read, r); // every slot is full
        Slot* s = slot(w);
        const std::size_t n = std::min(m_slotBytes, bytes - done);
        std::memcpy(reinterpret_cast<char*>(s + 1), p + done, n);
        s->bytes = n;
        s->total = bytes;
        s->tag = tag;
        m_header->written.store(w + 1, std::memory_order_release);
        futex(&m_header->written, FUTEX_WAKE, INT_MAX, nullptr);
        done += n;
    } while (done < bytes);
}

bool ShmChannel::trySend(const void* data, std::size_t bytes, int tag) {
    const std::size_t chunks = std::max<std::size_t>(1, (bytes + m_slotBytes - 1) / m_slotBytes);
    const std::uint32_t used = m_header->written.load(std::memory_order_relaxed) -
                               m_header->read.load(std::memory_order_acquire);
    if (used + chunks > static_cast<std::size_t>(m_slots))
        return false;
    send(data, bytes, tag); // cannot block: the slots are free
    return true;
}

void ShmChannel::recv(void* data, std::size_t bytes, int tag) {
    auto* p = static_cast<char*>(data);
    std::size_t done = 0;
    do {
        const std::uint32_t r = m_header->read.load(std::memory_order_relaxed);
        waitWhile(&m_header->written, r);
        Slot* s = slot(r);
        if (s->tag != tag || s->total != bytes)
            throw std::runtime_error("pipeline channel " + m_name + ": expected message " +
                                     std::to_string(tag) + " of " + std::to_string(bytes) +
                                     " bytes, got " + std::to_string(s->tag) + " of " +
                                     std::to_string(s->total));
        std::memcpy(p + done, reinterpret_cast<const char*>(s + 1), s->bytes);
        done += s->bytes;
        m_header->read.store(r + 1, std::memory_order_release);
        futex(&m_header->read, FUTEX_WAKE, INT_MAX, nullptr);
    } while (done < bytes);
}

} // namespace studio::train
