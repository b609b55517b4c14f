#include "engine/train/communicator.h"

#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/version.h>

#include "engine/train/queue_worker.h"
#include "engine/train/shm_allreduce.h"
#include "engine/train/shm_channel.h"
#include "engine/train/torch_compat.h"

#include <map>
#include <mutex>

#include <unistd.h>
#ifdef USE_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace studio::train {

namespace {

using GroupBase = compat::ProcessGroupBase;

bool loopback(const std::string& addr) {
    return addr == "localhost" || addr.rfind("127.", 0) == 0 || addr == "::1";
}

} // namespace

// A send handed to the sending thread of the shared-memory channels.
struct ShmSend : Completion {
    at::Tensor tensor; // kept alive until sent
    int dst = 0;
    int tag = 0;
};

struct Communicator::WorkRef {
    c10::intrusive_ptr<c10d::Work> work;
    std::shared_ptr<ShmAllreduce::Op> shm;
    std::shared_ptr<ShmSend> send;
};

// Point-to-point between ranks of one node: one shared-memory channel per direction, created by
// the sender on first use; sends go through a thread so a send never blocks the caller.
class ShmPointToPoint {
public:
    ShmPointToPoint(c10::intrusive_ptr<c10d::Store> store, std::string prefix, int rank)
        : m_store(std::move(store))
        , m_prefix(std::move(prefix))
        , m_rank(rank)
        , m_sender([this](ShmSend& op) { sendQueued(op); }) {}

    // Copies the message into the channel now when it has room and nothing waits before it
    // (a thread would only run when the busy core lets it); else the sending thread takes it.
    std::shared_ptr<ShmSend> send(const at::Tensor& t, int dst, int tag) {
        auto op = std::make_shared<ShmSend>();
        op->tensor = t.contiguous();
        op->dst = dst;
        op->tag = tag;
        std::lock_guard lock(m_mutex);
        if (m_sender.idle()) {
            ShmChannel& c = channel(m_rank, dst);
            if (c.trySend(op->tensor.data_ptr(),
                          static_cast<std::size_t>(op->tensor.numel()) * op->tensor.element_size(),
                          tag)) {
                op->tensor = at::Tensor();
                op->complete();
                return op;
            }
        }
        m_sender.push(op);
        return op;
    }

    void recv(at::Tensor& t, int src, int tag) {
        ShmChannel& c = channel(src, m_rank);
        c.recv(t.data_ptr(), static_cast<std::size_t>(t.numel()) * t.element_size(), tag);
    }

private:
    static constexpr int kSlots = 4;
    static constexpr std::size_t kSlotBytes = 4 << 20;

    std::string name(int src, int dst) const {
        return ShmAllreduce::uniqueName(m_prefix + "-p2p-" + std::to_string(src) + "-" +
                                        std::to_string(dst));
    }

    // The sender creates the segment and announces it; the receiver attaches and unlinks the
    // name. No lock is held while waiting for a peer's announcement.
    ShmChannel& channel(int src, int dst) {
        auto key = std::make_pair(src, dst);
        {
            std::lock_guard lock(m_channelsMutex);
            auto it = m_channels.find(key);
            if (it != m_channels.end())
                return *it->second;
        }
        const std::string storeKey =
            "p2p/" + m_prefix + "/" + std::to_string(src) + "-" + std::to_string(dst);
        std::unique_ptr<ShmChannel> c;
        if (src == m_rank) { // only this rank's sends create, under m_mutex: never twice
            const std::string n = name(src, dst);
            c = std::make_unique<ShmChannel>(n, true, kSlots, kSlotBytes);
            m_store->set(storeKey, std::vector<std::uint8_t>(n.begin(), n.end()));
        } else {
            auto v = m_store->get(storeKey);
            c = std::make_unique<ShmChannel>(std::string(v.begin(), v.end()), false, kSlots,
                                             kSlotBytes);
            c->unlinkName(); // both ends have it mapped now
        }
        std::lock_guard lock(m_channelsMutex);
        return *m_channels.emplace(key, std::move(c)).first->second;
    }

    // On the sending thread; the tensor is let go once sent, or once the send failed.
    void sendQueued(ShmSend& op) {
        const at::Tensor t = std::move(op.tensor);
        channelForSend(op.dst).send(t.data_ptr(),
                                    static_cast<std::size_t>(t.numel()) * t.element_size(), op.tag);
    }

    ShmChannel& channelForSend(int dst) {
        std::lock_guard lock(m_mutex);
        return channel(m_rank, dst);
    }

    c10::intrusive_ptr<c10d::Store> m_store;
    std::string m_prefix;
    int m_rank;
    std::mutex m_channelsMutex;
    std::map<std::pair<int, int>, std::unique_ptr<ShmChannel>> m_channels;
    std::mutex m_mutex; // a send's check of the queue and what it does after; channel creation
    QueueWorker<ShmSend> m_sender; // last: stops before the channels go
};

struct Communicator::Impl {
    c10::intrusive_ptr<c10d::Store> store;
    c10::intrusive_ptr<GroupBase> group;     // Gloo: CPU tensors, barriers
    c10::intrusive_ptr<GroupBase> cudaGroup; // NCCL for CUDA tensors, when options.nccl
    Options options;

    GroupBase& groupFor(const at::Tensor& t) const {
        return t.is_cuda() && cudaGroup ? *cudaGroup : *group;
    }
    std::unique_ptr<ShmAllreduce> shm;
    std::unique_ptr<ShmPointToPoint> p2p; // set with shm: every rank of the group on one node
};

void Communicator::Handle::wait() {
    if (m_work && m_work->work)
        m_work->work->wait();
    if (m_work && m_work->shm)
        m_work->shm->wait();
    if (m_work && m_work->send)
        m_work->send->wait();
    m_work.reset();
}

std::string Communicator::transport() const {
    if (d->shm)
        return "shared memory";
    return d->cudaGroup ? "NCCL (Gloo for CPU tensors)" : "Gloo";
}

namespace {

// NCCL for the CUDA tensors of a group, under its own key prefix in the store.
c10::intrusive_ptr<GroupBase> makeNcclGroup(const c10::intrusive_ptr<c10d::Store>& store,
                                            const std::string& prefix, int rank, int size,
                                            const Communicator::Options& o) {
    if (!o.nccl)
        return {};
#ifdef USE_C10D_NCCL
    auto prefixed = c10::make_intrusive<c10d::PrefixStore>("nccl/" + prefix, store);
    auto opts = c10d::ProcessGroupNCCL::Options::create();
    opts->timeout = o.timeout;
    return c10::make_intrusive<c10d::ProcessGroupNCCL>(prefixed, rank, size, opts);
#else
    (void)store, (void)prefix, (void)rank, (void)size;
    throw std::runtime_error("this studio-train was built without NCCL (a CPU LibTorch)");
#endif
}

c10::intrusive_ptr<GroupBase> makeGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank,
                                        int size, const Communicator::Options& o) {
    auto opts = c10d::ProcessGroupGloo::Options::create(o.timeout);
    if (const char* iface = std::getenv("GLOO_SOCKET_IFNAME"); iface && *iface)
        opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(iface));
    else if (loopback(o.masterAddr) || !o.storeFile.empty())
        opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
    else
        opts->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, size, opts);
}

std::string defaultNodeKey() {
    char host[256] = {0};
    ::gethostname(host, sizeof host - 1);
    const char* node = std::getenv("GROUP_RANK");
    return std::string(host) + ":" + (node ? node : "0");
}

constexpr std::size_t kShmChunkFloats = 2 << 20; // 8 MiB per rank and chunk

// Ranks of one node all-reduce through shared memory; the store carries each rank's node key
// and the segment's name. Returns nullptr (Gloo stays) when ranks span nodes or it is off.
std::unique_ptr<ShmAllreduce> setUpSharedMemory(c10d::Store& store, GroupBase& group, int rank,
                                                int size, const Communicator::Options& o,
                                                const std::string& hint) {
    const char* env = std::getenv("STUDIO_SHM_ALLREDUCE");
    if (size < 2 || !o.sharedMemory || o.nccl || (env && std::string(env) == "0"))
        return nullptr;
    const std::string key = o.nodeKey.empty() ? defaultNodeKey() : o.nodeKey;
    const std::string tag = "shm/" + hint + "/";
    store.set(tag + "node/" + std::to_string(rank),
              std::vector<std::uint8_t>(key.begin(), key.end()));
    bool local = true;
    for (int r = 0; r < size; ++r) {
        auto v = store.get(tag + "node/" + std::to_string(r));
        local = local && std::string(v.begin(), v.end()) == key;
    }
    if (!local)
        return nullptr;
    std::unique_ptr<ShmAllreduce> shm;
    std::string error;
    if (rank == 0) {
        const std::string name =
            ShmAllreduce::uniqueName(hint + "-" + std::to_string(o.masterPort));
        try {
            shm = std::make_unique<ShmAllreduce>(name, 0, size, kShmChunkFloats, true);
        } catch (const std::exception& e) {
            error = e.what();
        }
        const std::string value = shm ? name : std::string();
        store.set(tag + "name", std::vector<std::uint8_t>(value.begin(), value.end()));
    } else {
        auto v = store.get(tag + "name");
        const std::string name(v.begin(), v.end());
        if (!name.empty()) {
            try {
                shm = std::make_unique<ShmAllreduce>(name, rank, size, kShmChunkFloats, false);
            } catch (const std::exception& e) {
                error = e.what();
            }
        }
    }
    // Everyone must agree: one rank that could not map the segment sends the group to Gloo.
    auto ok = torch::tensor({shm ? 1.0f : 0.0f});
    std::vector<at::Tensor> v{ok};
    c10d::AllreduceOptions min;
    min.reduceOp = c10d::ReduceOp::MIN;
    group.allreduce(v, min)->wait();
    if (rank == 0 && shm)
        shm->unlinkName(); // every rank has it mapped: no name left behind
    if (ok.item<float>() < 1.0f) {
        if (!error.empty())
            std::fprintf(
                stderr, "warning: rank %d: shared-memory all-reduce unavailable (%s); using Gloo\n",
                rank, error.c_str());
        return nullptr;
    }
    return shm;
}

c10::intrusive_ptr<c10d::Store> openStore(const Communicator::Options& o) {
    if (!o.storeFile.empty()) {
        auto store = c10::make_intrusive<c10d::FileStore>(o.storeFile, o.world);
        store->setTimeout(o.timeout);
        return store;
    }
    c10d::TCPStoreOptions so;
    so.port = static_cast<std::uint16_t>(o.masterPort);
    so.isServer = o.rank == 0;
    so.numWorkers = static_cast<std::size_t>(o.world);
    so.timeout = o.timeout;
    return c10::make_intrusive<c10d::TCPStore>(o.masterAddr, so);
}

std::string storeName(const Communicator::Options& o) {
    return o.storeFile.empty() ? o.masterAddr + ":" + std::to_string(o.masterPort) : o.storeFile;
}

Communicator::Handle wrap(c10::intrusive_ptr<c10d::Work> work) {
    auto ref = std::make_shared<Communicator::WorkRef>();
    ref->work = std::move(work);
    return Communicator::Handle(std::move(ref));
}

} // namespace

std::shared_ptr<Communicator> Communicator::connect(const Options& o) {
    auto impl = std::make_unique<Impl>();
    impl->options = o;
    try {
        impl->store = openStore(o);
        auto prefixed = c10::make_intrusive<c10d::PrefixStore>("default", impl->store);
        impl->group = makeGroup(prefixed, o.rank, o.world, o);
        impl->cudaGroup = makeNcclGroup(impl->store, "default", o.rank, o.world, o);
        impl->shm = setUpSharedMemory(*prefixed, *impl->group, o.rank, o.world, o, "default");
        if (impl->shm)
            impl->p2p = std::make_unique<ShmPointToPoint>(
                prefixed, "default-" + std::to_string(o.masterPort), o.rank);
    } catch (const std::exception& e) {
        throw std::runtime_error("rank " + std::to_string(o.rank) +
                                 " could not join the process group at " + storeName(o) + ": " +
                                 e.what());
    }
    std::vector<int> global(static_cast<std::size_t>(o.world));
    for (int i = 0; i < o.world; ++i)
        global[static_cast<std::size_t>(i)] = i;
    return std::shared_ptr<Communicator>(
        new Communicator(std::move(impl), o.rank, o.world, global));
}

Communicator::Communicator(std::unique_ptr<Impl> impl, int rank, int size, std::vector<int> global)
    : d(std::move(impl))
    , m_rank(rank)
    , m_size(size)
    , m_globalRanks(std::move(global)) {
}

Communicator::~Communicator() = default;

std::shared_ptr<Communicator> Communicator::subgroup(const std::vector<int>& ranks,
                                                     const std::string& name) {
    auto it = std::find(ranks.begin(), ranks.end(), m_rank);
    if (it == ranks.end())
        return nullptr;
    const int groupRank = static_cast<int>(it - ranks.begin());
    auto impl = std::make_unique<Impl>();
    impl->options = d->options;
    impl->store = d->store;
    auto prefixed = c10::make_intrusive<c10d::PrefixStore>("group/" + name, d->store);
    impl->group = makeGroup(prefixed, groupRank, static_cast<int>(ranks.size()), d->options);
    impl->cudaGroup = makeNcclGroup(d->store, "group/" + name, groupRank,
                                    static_cast<int>(ranks.size()), d->options);
    impl->shm = setUpSharedMemory(*prefixed, *impl->group, groupRank,
                                  static_cast<int>(ranks.size()), d->options, name);
    std::vector<int> global;
    for (int r : ranks)
        global.push_back(m_globalRanks[static_cast<std::size_t>(r)]);
    return std::shared_ptr<Communicator>(
        new Communicator(std::move(impl), groupRank, static_cast<int>(ranks.size()), global));
}

Communicator::Handle Communicator::allreduceAsync(at::Tensor& t) {
    if (d->shm && t.device().is_cpu() && t.scalar_type() == at::kFloat && t.is_contiguous()) {
        auto ref = std::make_shared<WorkRef>();
        ref->shm = d->shm->allreduceAsync(t.data_ptr<float>(), static_cast<std::size_t>(t.numel()));
        return Handle(std::move(ref));
    }
    std::vector<at::Tensor> v{t};
    return wrap(d->groupFor(t).allreduce(v));
}

void Communicator::allreduce(at::Tensor& t, Reduce op) {
    if (op == Reduce::Sum) {
        allreduceAsync(t).wait();
        return;
    }
    std::vector<at::Tensor> v{t};
    c10d::AllreduceOptions o;
    o.reduceOp = op == Reduce::Min ? c10d::ReduceOp::MIN : c10d::ReduceOp::MAX;
    d->groupFor(t).allreduce(v, o)->wait();
}

void Communicator::broadcast(at::Tensor& t, int root) {
    std::vector<at::Tensor> v{t};
    c10d::BroadcastOptions opts;
    opts.rootRank = root;
    d->groupFor(t).broadcast(v, opts)->wait();
}

void Communicator::barrier() {
    d->group->barrier()->wait();
}

Communicator::Handle Communicator::sendAsync(at::Tensor& t, int dst, int tag) {
    if (d->p2p && t.device().is_cpu()) {
        auto ref = std::make_shared<WorkRef>();
        ref->send = d->p2p->send(t, dst, tag);
        return Handle(std::move(ref));
    }
    std::vector<at::Tensor> v{t};
    return wrap(d->groupFor(t).send(v, dst, tag));
}

Communicator::Handle Communicator::recvAsync(at::Tensor& t, int src, int tag) {
    if (d->p2p && t.device().is_cpu() && t.is_contiguous()) {
        d->p2p->recv(t, src, tag); // completes here: receives are awaited at once anyway
        return Handle();
    }
    std::vector<at::Tensor> v{t};
    return wrap(d->groupFor(t).recv(v, src, tag));
}

} // namespace studio::train
