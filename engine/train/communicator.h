// Collective communication for the trainer: one small adapter over LibTorch's c10d process
// groups (Gloo on CPU, NCCL on CUDA builds) that hides the 1.13 / 2.x API differences.
// Thread-safety: calls of one Communicator come from one thread.
#pragma once

#include <ATen/core/Tensor.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace studio::train {

class Communicator {
public:
    struct Options {
        int rank = 0;
        int world = 1;
        std::string masterAddr = "127.0.0.1";
        int masterPort = 29500;
        std::chrono::milliseconds timeout{std::chrono::minutes(5)};
        bool nccl = false; // NCCL for CUDA tensors (CUDA builds only)
        // Ranks with the same node key share memory: their float all-reduces go through shared
        // memory instead of TCP. Empty: hostname and GROUP_RANK from the environment.
        std::string nodeKey;
        bool sharedMemory = true; // STUDIO_SHM_ALLREDUCE=0 turns it off too
        // Every rank on one host: rendezvous through this file (a c10d FileStore in a private
        // folder) instead of a TCP store, so nothing listens beyond Gloo's loopback pairs.
        std::string storeFile;
    };

    struct WorkRef;
    // An in-flight operation; wait() blocks until it is done (once).
    class Handle {
    public:
        Handle() = default;
        explicit Handle(std::shared_ptr<WorkRef> work)
            : m_work(std::move(work)) {}
        void wait();
        bool valid() const { return m_work != nullptr; }

    private:
        std::shared_ptr<WorkRef> m_work;
    };

    // Rendezvous through storeFile when set, else a TCP store on masterAddr:masterPort (rank 0
    // serves it on every interface: LibTorch 1.13 cannot bind it to one).
    static std::shared_ptr<Communicator> connect(const Options& o);
    ~Communicator();

    int rank() const { return m_rank; }
    int size() const { return m_size; }
    const std::vector<int>& globalRanks() const { return m_globalRanks; }
    // "shared memory" or "Gloo" (or "NCCL"): how float all-reduces travel.
    std::string transport() const;

    // A group of some ranks (pipeline stage pairs, data-parallel replicas). Every rank of this
    // communicator calls it with the same list in the same order; non-members get nullptr.
    std::shared_ptr<Communicator> subgroup(const std::vector<int>& ranks, const std::string& name);

    enum class Reduce { Sum, Min, Max };
    Handle allreduceAsync(at::Tensor& t); // in place, sum
    void allreduce(at::Tensor& t, Reduce op = Reduce::Sum);
    void broadcast(at::Tensor& t, int root);
    void barrier();
    // Point to point. Between ranks of one node through shared memory: sends return at once
    // (a thread delivers them, in order), receives complete before returning.
    Handle sendAsync(at::Tensor& t, int dst, int tag);
    Handle recvAsync(at::Tensor& t, int src, int tag);

private:
    struct Impl;
    explicit Communicator(std::unique_ptr<Impl> impl, int rank, int size, std::vector<int> global);
    std::unique_ptr<Impl> d;
    int m_rank = 0;
    int m_size = 1;
    std::vector<int> m_globalRanks;
};

} // namespace studio::train
