#include "engine/train/shm_allreduce.h"

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
constexpr int kMaxRanks = 256;
constexpr auto kTimeout = std::chrono::minutes(5);

long futex(std::atomic<std::uint32_t>* addr, int op, std::uint32_t value, const timespec* timeout) {
    return ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(addr), op, value, timeout, nullptr,
                     0);
}
} // namespace

struct ShmAllreduce::Header {
    std::atomic<std::uint32_t> arrived;
    std::atomic<std::uint32_t> generation;
    std::atomic<std::int32_t> pids[kMaxRanks];
};

std::string ShmAllreduce::uniqueName(const std::string& hint) {
    std::string name = "/mlstudio-" + std::to_string(::getpid()) + "-";
    for (char c : hint)
        name.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
    return name.substr(0, 200);
}

ShmAllreduce::ShmAllreduce(const std::string& name, int rank, int size, std::size_t capacityFloats,
                           bool create)
    : m_name(name)
    , m_rank(rank)
    , m_size(size)
    , m_capacity(capacityFloats)
    , m_owner(create) {
    if (size < 1 || size > kMaxRanks)
        throw std::invalid_argument("shared-memory all-reduce: " + std::to_string(size) + " ranks");
    const std::size_t header = (sizeof(Header) + 63) / 64 * 64;
    m_bytes = header + (static_cast<std::size_t>(size) + 1) * capacityFloats * sizeof(float);
    m_base = mapSharedMemory(name, m_bytes, create);
    m_header = static_cast<Header*>(m_base); // zero-filled by ftruncate: counters start at 0
    m_header->pids[rank].store(::getpid());
    m_slots = reinterpret_cast<float*>(static_cast<char*>(m_base) + header);
    m_result = m_slots + static_cast<std::size_t>(size) * capacityFloats;
    m_worker = std::make_unique<QueueWorker<Op>>([this](Op& op) { reduce(op.m_data, op.m_count); });
}

ShmAllreduce::~ShmAllreduce() {
    m_worker.reset(); // finishes the queued operations before the segment goes
    ::munmap(m_base, m_bytes);
}

void ShmAllreduce::unlinkName() {
    ::shm_unlink(m_name.c_str());
}

std::shared_ptr<ShmAllreduce::Op> ShmAllreduce::allreduceAsync(float* data, std::size_t count) {
    auto op = std::make_shared<Op>();
    op->m_data = data;
    op->m_count = count;
    m_worker->push(op);
    return op;
}

void ShmAllreduce::reduce(float* data, std::size_t count) {
    float* mine = m_slots + static_cast<std::size_t>(m_rank) * m_capacity;
    for (std::size_t off = 0; off < count; off += m_capacity) {
        const std::size_t n = std::min(m_capacity, count - off);
        std::memcpy(mine, data + off, n * sizeof(float));
        barrier(); // every slot holds this chunk
        const std::size_t begin = n * static_cast<std::size_t>(m_rank) / m_size;
        const std::size_t end = n * static_cast<std::size_t>(m_rank + 1) / m_size;
        float* out = m_result + begin;
        std::memcpy(out, m_slots + begin, (end - begin) * sizeof(float));
        for (int k = 1; k < m_size; ++k) { // rank order: every rank gets the same sums
            const float* in = m_slots + static_cast<std::size_t>(k) * m_capacity + begin;
            for (std::size_t i = 0; i < end - begin; ++i)
                out[i] += in[i];
        }
        barrier(); // the result is complete
        std::memcpy(data + off, m_result, n * sizeof(float));
        // The next chunk's first barrier keeps anyone from overwriting the result before every
        // rank has copied it out.
    }
}

void ShmAllreduce::barrier() {
    Header& h = *m_header;
    const std::uint32_t gen = h.generation.load(std::memory_order_acquire);
    if (h.arrived.fetch_add(1, std::memory_order_acq_rel) + 1 ==
        static_cast<std::uint32_t>(m_size)) {
        h.arrived.store(0, std::memory_order_relaxed);
        h.generation.fetch_add(1, std::memory_order_release);
        futex(&h.generation, FUTEX_WAKE, INT_MAX, nullptr);
        return;
    }
    for (int spin = 0; spin < 2000; ++spin) // peers are usually close behind
        if (h.generation.load(std::memory_order_acquire) != gen)
            return;
    const auto deadline = std::chrono::steady_clock::now() + kTimeout;
    const timespec tick{0, 100 * 1000 * 1000};
    while (h.generation.load(std::memory_order_acquire) == gen) {
        futex(&h.generation, FUTEX_WAIT, gen, &tick);
        if (h.generation.load(std::memory_order_acquire) != gen)
            return;
        for (int r = 0; r < m_size; ++r) {
            const std::int32_t pid = h.pids[r].load();
            if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH)
                throw std::runtime_error("local rank " + std::to_string(r) + " (pid " +
                                         std::to_string(pid) + ") exited during an all-reduce");
        }
        if (std::chrono::steady_clock::now() > deadline)
            throw std::runtime_error(
                "all-reduce timed out after 5 minutes waiting for local ranks");
    }
}

} // namespace studio::train
