#include "engine/train/communicator.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/version.h>

#include "engine/train/shm_allreduce.h"

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

// LibTorch 1.13's process groups derive from c10d::ProcessGroup, 2.x's from c10d::Backend; both
// have the same collective methods returning intrusive_ptr<c10d::Work>.
#if TORCH_VERSION_MAJOR >= 2
using GroupBase = c10d::Backend;
#else
using GroupBase = c10d::ProcessGroup;
#endif

bool loopback(const std::string& addr) {
    return addr == "localhost" || addr.rfind("127.", 0) == 0 || addr == "::1";
}

} // namespace

struct Communicator::WorkRef {
    c10::intrusive_ptr<c10d::Work> work;
    std::shared_ptr<ShmAllreduce::Op> shm;
};

struct Communicator::Impl {
    c10::intrusive_ptr<c10d::Store> store;
    c10::intrusive_ptr<GroupBase> group;
    Options options;
    std::unique_ptr<ShmAllreduce> shm;
};

void Communicator::Handle::wait() {
    if (m_work && m_work->work)
        m_work->work->wait();
    if (m_work && m_work->shm)
        m_work->shm->wait();
    m_work.reset();
}

std::string Communicator::transport() const {
    if (d->shm)
        return "shared memory";
    return d->options.nccl ? "NCCL" : "Gloo";
}

namespace {

c10::intrusive_ptr<GroupBase> makeGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank,
                                        int size, const Communicator::Options& o) {
#ifdef USE_C10D_NCCL
    if (o.nccl) {
        auto opts = c10d::ProcessGroupNCCL::Options::create();
        return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, size, opts);
    }
#else
    if (o.nccl)
        throw std::runtime_error("this studio-train was built without NCCL; use Gloo");
#endif
    auto opts = c10d::ProcessGroupGloo::Options::create(o.timeout);
    if (const char* iface = std::getenv("GLOO_SOCKET_IFNAME"); iface && *iface)
        opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(iface));
    else if (loopback(o.masterAddr))
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

Communicator::Handle wrap(c10::intrusive_ptr<c10d::Work> work) {
    auto ref = std::make_shared<Communicator::WorkRef>();
    ref->work = std::move(work);
    return Communicator::Handle(std::move(ref));
}

} // namespace

std::shared_ptr<Communicator> Communicator::connect(const Options& o) {
    auto impl = std::make_unique<Impl>();
    impl->options = o;
    c10d::TCPStoreOptions so;
    so.port = static_cast<std::uint16_t>(o.masterPort);
    so.isServer = o.rank == 0;
    so.numWorkers = static_cast<std::size_t>(o.world);
    so.timeout = o.timeout;
    try {
        impl->store = c10::make_intrusive<c10d::TCPStore>(o.masterAddr, so);
        auto prefixed = c10::make_intrusive<c10d::PrefixStore>("default", impl->store);
        impl->group = makeGroup(prefixed, o.rank, o.world, o);
        impl->shm = setUpSharedMemory(*prefixed, *impl->group, o.rank, o.world, o, "default");
    } catch (const std::exception& e) {
        throw std::runtime_error("rank " + std::to_string(o.rank) +
                                 " could not join the process "
                                 "group at " +
                                 o.masterAddr + ":" + std::to_string(o.masterPort) + ": " +
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
    return wrap(d->group->allreduce(v));
}

void Communicator::allreduce(at::Tensor& t) {
    allreduceAsync(t).wait();
}

void Communicator::broadcast(at::Tensor& t, int root) {
    std::vector<at::Tensor> v{t};
    c10d::BroadcastOptions opts;
    opts.rootRank = root;
    d->group->broadcast(v, opts)->wait();
}

void Communicator::barrier() {
    d->group->barrier()->wait();
}

Communicator::Handle Communicator::sendAsync(at::Tensor& t, int dst, int tag) {
    std::vector<at::Tensor> v{t};
    return wrap(d->group->send(v, dst, tag));
}

Communicator::Handle Communicator::recvAsync(at::Tensor& t, int src, int tag) {
    std::vector<at::Tensor> v{t};
    return wrap(d->group->recv(v, src, tag));
}

} // namespace studio::train
