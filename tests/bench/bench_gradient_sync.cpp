// Gradient sync bandwidth: the bucketed GradientReducer synchronising fmnist-cnn's gradients
// (4.8 MB in DDP-style buckets) against a bare c10d all-reduce of the same bytes as one tensor
// (the anchor). Two ranks on this machine. Goal: reducer bandwidth >= 85% of the bare one.
// Usage: bench_gradient_sync [repeats]   (it starts its own two ranks)
#include "engine/process/process.h"
#include "engine/train/communicator.h"
#include "engine/train/models.h"
#include "engine/train/reducer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

using namespace studio;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

train::Communicator::Options options(int rank, int port, bool sharedMemory) {
    train::Communicator::Options o;
    o.rank = rank;
    o.world = 2;
    o.masterPort = port;
    o.sharedMemory = sharedMemory;
    return o;
}

int worker(int rank, int port, int repeats) {
    torch::set_num_threads(1);
    // The reducer as the trainer uses it (shared memory between ranks of one node), and the
    // anchor: a plain c10d Gloo process group.
    auto comm = train::Communicator::connect(options(rank, port, true));
    auto gloo = train::Communicator::connect(options(rank, port + 1, false));
    train::TrainerConfig c;
    c.model = "fmnist-cnn";
    auto model = train::buildModel(c, train::DataShape{{1, 28, 28}, 10, false});
    train::GradientReducer reducer(model->parameters(), comm, 1 << 20, 25 << 20);
    const std::size_t bytes = reducer.gradientBytes();
    torch::Tensor flat = torch::ones({static_cast<std::int64_t>(bytes / 4)});

    std::vector<double> bare, bucketed;
    for (int i = 0; i < repeats + 3; ++i) {
        gloo->barrier();
        auto t0 = Clock::now();
        gloo->allreduce(flat);
        const double a = std::chrono::duration<double>(Clock::now() - t0).count();
        comm->barrier();
        for (auto& p : model->parameters())
            p.mutable_grad().fill_(1.0f);
        t0 = Clock::now();
        reducer.finish(); // no backward ran: every bucket launches in order, then all are awaited
        const double b = std::chrono::duration<double>(Clock::now() - t0).count();
        if (i >= 3) {
            bare.push_back(a);
            bucketed.push_back(b);
        }
    }
    if (rank == 0) {
        const double tb = median(bare), tr = median(bucketed);
        nlohmann::ordered_json out = {
            {"bench", "gradient_sync"},
            {"ranks", 2},
            {"bytes", bytes},
            {"buckets", reducer.plan().buckets.size()},
            {"reducer_transport", comm->transport()},
            {"reducer_ms", tr * 1000},
            {"reducer_gb_per_s", static_cast<double>(bytes) / tr / 1e9},
            {"anchor", "bare c10d (Gloo) all-reduce of the same bytes as one tensor"},
            {"bare_allreduce_ms", tb * 1000},
            {"bare_gb_per_s", static_cast<double>(bytes) / tb / 1e9},
            {"ratio", tb / tr},
            {"goal_ratio_at_least", 0.85},
            {"meets_goal", tb / tr >= 0.85},
        };
        std::printf("%s\n", out.dump(2).c_str());
    }
    comm->barrier();
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    const int repeats = argc > 1 ? std::atoi(argv[1]) : 30;
    if (const char* r = std::getenv("BENCH_RANK"))
        return worker(std::atoi(r), std::atoi(std::getenv("BENCH_PORT")), repeats);
    int port = process::freeTcpPort();
    while (port >= 65535) // the anchor's group takes the next port
        port = process::freeTcpPort();
    std::vector<process::Process> ranks;
    for (int r = 0; r < 2; ++r) {
        process::SpawnOptions o;
        o.argv = {process::selfExecutable(), std::to_string(repeats)};
        o.env = process::currentEnvironment();
        o.env["BENCH_RANK"] = std::to_string(r);
        o.env["BENCH_PORT"] = std::to_string(port);
        o.captureStdout = false;
        o.captureStderr = false;
        ranks.push_back(process::Process::spawn(o));
    }
    int rc = 0;
    for (auto& p : ranks)
        rc |= p.wait().success() ? 0 : 1;
    return rc;
}
