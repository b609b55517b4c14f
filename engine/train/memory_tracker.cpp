#include "engine/train/memory_tracker.h"

#include "engine/train/torch_compat.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>

#include <atomic>
#include <mutex>

namespace studio::train {

namespace {

std::atomic<std::int64_t> g_live{0};

// Each block carries a 64-byte header in front (keeping the 64-byte alignment) with its size and
// the inner allocation's context and deleter, so the data pointer is also the context, as
// raw_allocate() requires.
class CountingAllocator : public compat::Allocator {
public:
    explicit CountingAllocator(c10::Allocator* inner)
        : m_inner(inner) {}

    c10::DataPtr allocateBlock(size_t bytes) const override {
        c10::DataPtr inner = m_inner->allocate(bytes + kHeader);
        const c10::Device device = inner.device();
        const c10::DeleterFnPtr deleter = inner.get_deleter();
        char* base = static_cast<char*>(inner.get());
        void* ctx = inner.release_context();
        auto* h = reinterpret_cast<Header*>(base);
        h->ctx = ctx;
        h->deleter = deleter;
        h->bytes = static_cast<std::int64_t>(bytes);
        g_live.fetch_add(h->bytes, std::memory_order_relaxed);
        void* data = base + kHeader;
        return c10::DataPtr(data, data, &release, device);
    }

    c10::DeleterFnPtr raw_deleter() const override { return &release; }

private:
    static constexpr std::size_t kHeader = 64;
    struct Header {
        void* ctx;
        c10::DeleterFnPtr deleter;
        std::int64_t bytes;
    };
    static void release(void* data) {
        auto* h = reinterpret_cast<Header*>(static_cast<char*>(data) - kHeader);
        g_live.fetch_sub(h->bytes, std::memory_order_relaxed);
        h->deleter(h->ctx);
    }

    c10::Allocator* m_inner;
};

} // namespace

void installMemoryTracker() {
    static std::once_flag once;
    std::call_once(once, [] {
        static CountingAllocator counting(c10::GetCPUAllocator());
        c10::SetCPUAllocator(&counting, /*priority*/ 1);
    });
}

std::int64_t trackedBytes() {
    return g_live.load(std::memory_order_relaxed);
}

} // namespace studio::train
