// All-reduce (sum) of float32 buffers among ranks on one node through shared memory: each rank
// copies its buffer into its slot, reduces one slice of all slots into a shared result in rank
// order (so every rank gets bitwise the same sums), and copies the result back. Futex barriers
// separate the phases; a worker thread makes it asynchronous; a peer that dies is detected.
// Thread-safety: enqueue from one thread; the worker thread does the rest.
#pragma once

#include "engine/train/queue_worker.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace studio::train {

class ShmAllreduce {
public:
    // A pending operation; wait() rethrows what went wrong.
    class Op : public Completion {
    private:
        friend class ShmAllreduce;
        float* m_data = nullptr;
        std::size_t m_count = 0;
    };

    // Rank 0 creates the segment (create = true), the others attach to `name` afterwards.
    // capacityFloats bounds one chunk; larger buffers are reduced chunk by chunk.
    ShmAllreduce(const std::string& name, int rank, int size, std::size_t capacityFloats,
                 bool create);
    ~ShmAllreduce();
    ShmAllreduce(const ShmAllreduce&) = delete;
    ShmAllreduce& operator=(const ShmAllreduce&) = delete;

    // Removes the name; mappings stay valid. Called by rank 0 once every rank has attached.
    void unlinkName();
    std::shared_ptr<Op> allreduceAsync(float* data, std::size_t count);

    static std::string uniqueName(const std::string& hint);

private:
    struct Header;
    void reduce(float* data, std::size_t count);
    void barrier();

    std::string m_name;
    int m_rank;
    int m_size;
    std::size_t m_capacity;
    void* m_base = nullptr;
    std::size_t m_bytes = 0;
    Header* m_header = nullptr;
    float* m_slots = nullptr;
    float* m_result = nullptr;
    bool m_owner = false;
    std::unique_ptr<QueueWorker<Op>> m_worker; // started once the segment is mapped
};

} // namespace studio::train
