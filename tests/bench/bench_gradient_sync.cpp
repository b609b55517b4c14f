// Gradient sync bandwidth: the bucketed GradientReducer synchronising fmnist-cnn's gradients
// (4.8 MB in DDP-style buckets: 1 MiB first, then up to 25 MiB) against a bare all-reduce of the
// same bytes as one tensor over the SAME transport: the reducer on shared memory against a bare
// shared-memory all-reduce, the reducer on Gloo against a bare Gloo all-reduce. Goal: each
// reducer's bandwidth >= 85% of its bare all-reduce's. Bare shared memory against bare Gloo is
// reported apart, as what the transport alone is worth.
// Two ranks on this machine, one thread each, unpinned; the four sides alternate their order
// round by round (bench::interleave). A sample's time is the slower rank's.
// Usage: bench_gradient_sync [--quick] [--json FILE] [samples]   (it starts its own two ranks)
#include "engine/process/process.h"
#include "engine/train/communicator.h"
#include "engine/train/models.h"
#include "engine/train/reducer.h"
#include "tests/bench/bench_support.h"
#include "tests/support/read_to_end.h"

#include <torch/version.h>

#include <cstdlib>
#include <map>

using namespace studio;
namespace bench = studio::bench;

namespace {

constexpr int kWorld = 2;
const char* const kSides[] = {"bare_shm", "reducer_shm", "bare_gloo", "reducer_gloo"};

train::Communicator::Options options(int rank, int port, bool sharedMemory) {
    train::Communicator::Options o;
    o.rank = rank;
    o.world = kWorld;
    o.masterPort = port;
    o.sharedMemory = sharedMemory;
    return o;
}

// Every element of t equals the sum of the ranks' contributions (each rank filled ones).
bool allEqualWorld(const torch::Tensor& t) {
    return torch::all(t == static_cast<float>(kWorld)).item<bool>();
}

// One rank: the four sides timed round by round; prints one JSON line with its times (seconds
// per sample, warm-up rounds left out), the transports and whether every result was correct.
int worker(int rank, int port, int samples, int warmup) {
    torch::set_num_threads(1);
    auto shm = train::Communicator::connect(options(rank, port, true));
    auto gloo = train::Communicator::connect(options(rank, port + 1, false));
    train::TrainerConfig c;
    c.model = "fmnist-cnn";
    const train::DataShape shape{{1, 28, 28}, 10, false};
    // One model per reducer: a reducer owns its parameters' .grad (views into its buckets).
    auto modelShm = train::buildModel(c, shape);
    auto modelGloo = train::buildModel(c, shape);
    train::GradientReducer reducerShm(modelShm->parameters(), shm, 1 << 20, 25 << 20);
    train::GradientReducer reducerGloo(modelGloo->parameters(), gloo, 1 << 20, 25 << 20);
    const std::size_t bytes = reducerShm.gradientBytes();
    torch::Tensor flat = torch::empty({static_cast<std::int64_t>(bytes / 4)});

    std::map<std::string, std::vector<double>> times;
    bool correct = true;
    // Each side captures its communicator (and model, reducer) by pointer: the sides outlive
    // the calls that make them.
    auto bare = [&](const char* name, train::Communicator* comm) {
        return [&, name, comm](int round) {
            flat.fill_(1.0f);
            comm->barrier();
            const double s = bench::timeSeconds([&] { comm->allreduce(flat); });
            correct = correct && allEqualWorld(flat);
            if (round >= warmup)
                times[name].push_back(s);
        };
    };
    auto bucketed = [&](const char* name, train::Communicator* comm, torch::nn::Module* model,
                        train::GradientReducer* reducer) {
        return [&, name, comm, model, reducer](int round) {
            for (auto& p : model->parameters())
                p.mutable_grad().fill_(1.0f);
            comm->barrier();
            // No backward ran: every bucket launches in order, then all are awaited.
            const double s = bench::timeSeconds([&] { reducer->finish(); });
            for (auto& p : model->parameters())
                correct = correct && allEqualWorld(p.grad());
            if (round >= warmup)
                times[name].push_back(s);
        };
    };
    bench::interleave(warmup + samples,
                      {bare(kSides[0], shm.get()),
                       bucketed(kSides[1], shm.get(), modelShm.get(), &reducerShm),
                       bare(kSides[2], gloo.get()),
                       bucketed(kSides[3], gloo.get(), modelGloo.get(), &reducerGloo)});
    std::vector<std::size_t> bucketBytes;
    const auto params = modelShm->parameters();
    for (const auto& b : reducerShm.plan().buckets) {
        std::size_t n = 0;
        for (auto i : b)
            n += static_cast<std::size_t>(params[i].numel()) * params[i].element_size();
        bucketBytes.push_back(n);
    }
    nlohmann::json out = {{"rank", rank},
                          {"bytes", bytes},
                          {"bucket_bytes", bucketBytes},
                          {"shm_transport", shm->transport()},
                          {"gloo_transport", gloo->transport()},
                          {"correct", correct},
                          {"times", times}};
    // Both ranks are done with every collective before either prints (the parent reads rank 0
    // to its end first) and tears its groups down.
    shm->barrier();
    std::printf("%s\n", out.dump().c_str());
    std::fflush(stdout);
    return 0;
}

// The two ranks' JSON lines, or an empty object for a rank that failed.
std::vector<nlohmann::json> runRanks(int samples, int warmup, bench::Report& report) {
    int port = process::freeTcpPort();
    while (port >= 65535) // the Gloo group takes the next port
        port = process::freeTcpPort();
    std::vector<process::Process> ranks;
    for (int r = 0; r < kWorld; ++r) {
        process::SpawnOptions o;
        o.argv = {process::selfExecutable()};
        o.env = process::currentEnvironment();
        o.env["BENCH_RANK"] = std::to_string(r);
        o.env["BENCH_PORT"] = std::to_string(port);
        o.env["BENCH_SAMPLES"] = std::to_string(samples);
        o.env["BENCH_WARMUP"] = std::to_string(warmup);
        o.captureStderr = false;
        ranks.push_back(process::Process::spawn(o));
    }
    std::vector<nlohmann::json> out;
    for (auto& p : ranks)
        out.push_back(nlohmann::json::parse(readToEnd(p.stdoutFd()), nullptr, false));
    for (int r = 0; r < kWorld; ++r) {
        const bool ok = ranks[r].wait().success() && out[r].is_object();
        report.check(ok, "rank " + std::to_string(r) + " ran and reported its times");
        if (!ok)
            out[r] = nlohmann::json::object();
    }
    return out;
}

// A side's bandwidth samples (bytes / the slower rank's seconds, sample by sample).
bench::Samples bandwidth(const std::vector<nlohmann::json>& ranks, const std::string& side,
                         double bytes) {
    auto times = [&](const nlohmann::json& rank) {
        const auto t = rank.find("times");
        return t != rank.end() ? t->value(side, nlohmann::json::array()) : nlohmann::json::array();
    };
    bench::Samples s = bench::higherIsBetter();
    const nlohmann::json a = times(ranks[0]);
    const nlohmann::json b = times(ranks[1]);
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        s.add(bytes / std::max(a[i].get<double>(), b[i].get<double>()) / 1e9);
    return s;
}

void sameTransportFigures(bench::Report& report, const std::string& transport,
                          const bench::Samples& reducer, const bench::Samples& bare,
                          const std::string& anchorName) {
    const std::string n = std::to_string(reducer.size());
    report.figure({"reducer bandwidth, " + transport + " (best of " + n + ")", "GB/s",
                   reducer.best(), bare.best(), anchorName, bench::Goal::ratioAtLeast(0.85), ""});
    report.figure({"reducer bandwidth, " + transport + " (median of " + n + ")", "GB/s",
                   reducer.median(), bare.median(), anchorName, bench::Goal::ratioAtLeast(0.85),
                   ""});
}

void anchors(bench::Report& report, const std::string& work) {
    bench::Anchor shm{"bare shared-memory all-reduce",
                      "Communicator::allreduce of one flat float tensor through studio's "
                      "shared-memory all-reduce (engine/train/shm_allreduce), no buckets",
                      "studio " STUDIO_VERSION,
                      1,
                      "none (both ranks unpinned)",
                      "shared memory",
                      work};
    bench::Anchor gloo{"bare Gloo all-reduce",
                       "c10d ProcessGroupGloo::allreduce of one flat float tensor, no buckets",
                       "LibTorch " TORCH_VERSION,
                       1,
                       "none (both ranks unpinned)",
                       "Gloo over loopback",
                       work};
    report.anchor(shm);
    report.anchor(gloo);
}

} // namespace

int main(int argc, char** argv) {
    if (const char* r = std::getenv("BENCH_RANK"))
        return worker(std::atoi(r), std::atoi(std::getenv("BENCH_PORT")),
                      std::atoi(std::getenv("BENCH_SAMPLES")),
                      std::atoi(std::getenv("BENCH_WARMUP")));
    const bench::Options opt = bench::Options::parse(argc, argv);
    bench::Report report("gradient_sync", opt);
    const int samples = opt.pick(0, 5, 200);
    const int warmup = opt.quick ? 1 : 5;
    const std::vector<nlohmann::json> ranks = runRanks(samples, warmup, report);
    if (report.failed())
        return report.finish();
    for (int r = 0; r < kWorld; ++r)
        report.check(ranks[r].value("correct", false),
                     "rank " + std::to_string(r) + ": every all-reduce summed both ranks' values");
    report.check(ranks[0].value("shm_transport", "") == "shared memory",
                 "the shared-memory communicator all-reduces through shared memory");
    report.check(ranks[0].value("gloo_transport", "") == "Gloo",
                 "the Gloo communicator all-reduces through Gloo");
    const double bytes = ranks[0].value("bytes", 0.0);
    std::map<std::string, bench::Samples> bw;
    for (const char* side : kSides) {
        bw[side] = bandwidth(ranks, side, bytes);
        report.check(static_cast<int>(bw[side].size()) == samples,
                     std::string(side) + ": every sample measured on both ranks");
    }
    anchors(report, "2 ranks each all-reduce " + std::to_string(static_cast<long>(bytes)) +
                        " bytes (fmnist-cnn's gradients), " + std::to_string(samples) +
                        " samples per side after " + std::to_string(warmup) + " warm-up rounds");
    sameTransportFigures(report, "shared memory", bw["reducer_shm"], bw["bare_shm"],
                         "bare shared-memory all-reduce");
    sameTransportFigures(report, "Gloo", bw["reducer_gloo"], bw["bare_gloo"],
                         "bare Gloo all-reduce");
    report.figure({"transport: bare shared-memory vs bare Gloo all-reduce (median)", "GB/s",
                   bw["bare_shm"].median(), bw["bare_gloo"].median(), "bare Gloo all-reduce",
                   std::nullopt, "ours is the bare shared-memory all-reduce: the transport alone"});
    bench::Json& d = report.details();
    d["ranks"] = kWorld;
    d["bytes"] = bytes;
    d["bucket_bytes"] = ranks[0].value("bucket_bytes", nlohmann::json::array());
    d["bandwidth_definition"] =
        "algorithm bandwidth: the bytes each rank all-reduces (its whole gradient) divided by the "
        "seconds from the barrier's end to the collective's completion, the slower rank's";
    for (const char* side : kSides)
        d["gb_per_s"][side] = bw[side].json();
    return report.finish();
}
