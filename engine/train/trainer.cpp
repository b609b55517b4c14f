#include "engine/train/trainer.h"

#include "engine/train/checkpoint_files.h"
#include "engine/train/datasets.h"
#include "engine/train/models.h"
#include "engine/train/reducer.h"
#include "engine/train/sampler.h"
#include "engine/train/training_state.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <dlfcn.h>
#include <filesystem>
#include <thread>

namespace studio::train {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

void setThreads(int threads) {
    torch::set_num_threads(threads);
    // Debian's LibTorch does not know it runs on OpenBLAS: pin its threads too.
    using SetThreads = void (*)(int);
    if (auto f = reinterpret_cast<SetThreads>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads")))
        f(threads);
}

std::unique_ptr<torch::optim::Optimizer> makeOptimizer(const TrainerConfig& c, Model& model,
                                                       double lr) {
    if (c.optimizer == "adam")
        return std::make_unique<torch::optim::Adam>(
            model.parameters(), torch::optim::AdamOptions(lr).weight_decay(c.weightDecay));
    if (c.optimizer == "adamw")
        return std::make_unique<torch::optim::AdamW>(
            model.parameters(), torch::optim::AdamWOptions(lr).weight_decay(c.weightDecay));
    return std::make_unique<torch::optim::SGD>(
        model.parameters(),
        torch::optim::SGDOptions(lr).momentum(c.momentum).weight_decay(c.weightDecay));
}

struct EvalResult {
    double loss = 0;
    double accuracy = 0;
};

// Every rank evaluates its shard of the test set; sums are all-reduced.
EvalResult evaluate(Model& model, const Dataset& test, std::int64_t limit, Communicator* comm,
                    int rank, int world) {
    torch::NoGradGuard noGrad;
    model.eval();
    const std::int64_t realSize = limit > 0 ? std::min(limit, test.size()) : test.size();
    DistributedSampler shard(realSize, rank, world, 0, false);
    std::vector<std::int64_t> idx = shard.indices(0);
    double lossSum = 0, correct = 0, count = 0;
    StepContext ctx;
    ctx.training = false;
    for (std::size_t i = 0; i < idx.size(); i += 500) {
        std::vector<std::int64_t> part;
        for (std::size_t j = i; j < std::min(idx.size(), i + 500); ++j)
            if (static_cast<std::int64_t>(j) * world + rank < realSize) // skip the padding
                part.push_back(idx[j]);
        if (part.empty())
            continue;
        Batch b = test.batch(part, model.channelsLast);
        torch::Tensor out = model.forward(b.input, ctx);
        const double n = static_cast<double>(model.predictions(b.target));
        lossSum += model.loss(out, b.target).item<double>() * n;
        correct += static_cast<double>(model.correct(out, b.target));
        count += n;
    }
    torch::Tensor sums = torch::tensor({lossSum, correct, count}, torch::kDouble);
    if (comm)
        comm->allreduce(sums);
    model.train();
    auto s = sums.accessor<double, 1>();
    return {s[0] / std::max(1.0, s[2]), s[1] / std::max(1.0, s[2])};
}

void log(int rank, const char* fmt, auto... args) {
    if (rank != 0)
        return;
    std::printf(fmt, args...);
    std::printf("\n");
    std::fflush(stdout);
}

} // namespace

TrainResult train(const TrainerConfig& c, const RankEnvironment& env, EventWriter& events,
                  const std::atomic<bool>& stop) {
    const int rank = env.rank, world = env.world;
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    setThreads(c.threads > 0 ? c.threads
                             : std::max(1, static_cast<int>(cores) / std::max(1, env.localWorld)));
    if (c.deterministic)
        at::globalContext().setDeterministicAlgorithms(true, false);
    torch::manual_seed(c.seed);

    std::shared_ptr<Communicator> comm;
    if (world > 1) {
        Communicator::Options o;
        o.rank = rank;
        o.world = world;
        o.masterAddr = env.masterAddr;
        o.masterPort = env.masterPort;
        comm = Communicator::connect(o);
    }

    DataSplits data = loadData(c, env.channels);
    auto model = buildModel(c, data.shape);
    if (comm)
        broadcastModel(*comm, *model, 0);
    if (c.batchSize % world != 0)
        throw std::invalid_argument("batch-size " + std::to_string(c.batchSize) +
                                    " does not divide among " + std::to_string(world) + " ranks");
    const std::int64_t local = c.batchSize / world;
    const double lr = c.lr * (c.lrScaling ? world : 1);
    auto optimizer = makeOptimizer(c, *model, lr);

    std::unique_ptr<GradientReducer> reducer;
    if (comm)
        reducer = std::make_unique<GradientReducer>(
            model->parameters(), comm, static_cast<std::size_t>(c.firstBucketMb * 1048576),
            static_cast<std::size_t>(c.bucketCapMb * 1048576));

    DistributedSampler sampler(data.train->size(), rank, world, c.seed);
    const std::int64_t stepsPerEpoch = sampler.batchesPerEpoch(local) / c.gradAccum;
    if (stepsPerEpoch < 1)
        throw std::invalid_argument("the training set (" + std::to_string(data.train->size()) +
                                    " samples) is smaller than one global batch");
    std::int64_t total = stepsPerEpoch * c.epochs;
    if (c.maxSteps > 0)
        total = std::min(total, c.maxSteps);

    std::int64_t params = 0;
    for (const auto& p : model->parameters())
        params += p.numel();
    log(rank,
        "%s: %lld parameters in %zu blocks; %s; world %d, batch %lld (%lld per rank), lr %g, %d "
        "thread(s)",
        c.model.c_str(), static_cast<long long>(params), model->blocks.size(),
        data.train->description().c_str(), world, static_cast<long long>(c.batchSize),
        static_cast<long long>(local), lr, torch::get_num_threads());
    if (reducer)
        log(rank, "gradients: %zu bytes in %zu bucket(s), all-reduced through %s",
            reducer->gradientBytes(), reducer->plan().buckets.size(), comm->transport().c_str());

    // Resume: rank 0 reads the newest valid checkpoint and sends it to everyone.
    TrainResult result;
    std::unique_ptr<CheckpointFiles> checkpoints;
    if (!env.checkpointDir.empty())
        checkpoints = std::make_unique<CheckpointFiles>(env.checkpointDir);
    std::int64_t step = 0;
    if (checkpoints) {
        std::string payload;
        if (rank == 0) {
            std::vector<std::string> warnings;
            auto loaded = checkpoints->loadNewestValid("model", warnings);
            for (const auto& w : warnings)
                std::fprintf(stderr, "warning: %s\n", w.c_str());
            if (loaded)
                payload = std::move(loaded->payload);
        }
        if (comm)
            payload = broadcastBytes(*comm, payload, 0);
        if (!payload.empty()) {
            step = loadTrainingState(payload, *model, *optimizer);
            result.resumedFrom = step;
            if (reducer) // load() replaced the tensors the gradients view; rebuild the buckets
                reducer = std::make_unique<GradientReducer>(
                    model->parameters(), comm, static_cast<std::size_t>(c.firstBucketMb * 1048576),
                    static_cast<std::size_t>(c.bucketCapMb * 1048576));
            log(rank, "resumed from the checkpoint at step %lld", static_cast<long long>(step));
        }
    }

    auto writeCheckpoint = [&](std::int64_t atStep) {
        if (!checkpoints || rank != 0)
            return;
        CheckpointInfo info = checkpoints->write(atStep, atStep / stepsPerEpoch, "model",
                                                 saveTrainingState(*model, *optimizer, atStep));
        events.send(wire::CheckpointEvent{atStep, info.path, info.sha256, info.bytes});
        log(rank, "checkpoint at step %lld: %s", static_cast<long long>(atStep), info.path.c_str());
    };
    auto runEval = [&](std::int64_t atStep) {
        EvalResult e = evaluate(*model, *data.test, c.evalSamples, comm.get(), rank, world);
        result.evalLoss = e.loss;
        result.evalAccuracy = e.accuracy;
        if (rank == 0) {
            events.metric("eval:loss", atStep, e.loss, wire::Phase::Eval);
            events.metric("eval:accuracy", atStep, e.accuracy, wire::Phase::Eval);
        }
        log(rank, "eval at step %lld: loss %.4f accuracy %.4f", static_cast<long long>(atStep),
            e.loss, e.accuracy);
    };

    model->train();
    std::vector<std::int64_t> epochIndices;
    std::int64_t loadedEpoch = -1;
    const auto runStart = Clock::now();
    auto intervalStart = Clock::now();
    std::int64_t intervalSteps = 0;
    const std::int64_t firstStep = step;
    std::vector<std::int64_t> batchIdx(static_cast<std::size_t>(local));

    while (step < total) {
        const std::int64_t epoch = step / stepsPerEpoch;
        if (epoch != loadedEpoch) {
            epochIndices = sampler.indices(epoch);
            loadedEpoch = epoch;
        }
        const bool stopHere = stop.load();
        if (reducer)
            reducer->zeroGrad(), reducer->setControl(stopHere ? 1.0f : 0.0f);
        else
            for (auto& p : model->parameters())
                if (p.grad().defined())
                    p.mutable_grad().zero_();

        double dataMs = 0, forwardMs = 0, backwardMs = 0;
        double lossValue = 0;
        torch::Tensor loss;
        for (int micro = 0; micro < c.gradAccum; ++micro) {
            auto t0 = Clock::now();
            const std::int64_t first = ((step % stepsPerEpoch) * c.gradAccum + micro) * local;
            std::copy(epochIndices.begin() + first, epochIndices.begin() + first + local,
                      batchIdx.begin());
            Batch b = data.train->batch(batchIdx, model->channelsLast);
            dataMs += msSince(t0);
            t0 = Clock::now();
            StepContext ctx{step, c.seed, (static_cast<std::int64_t>(micro) * world + rank) * local,
                            true};
            torch::Tensor out = model->forward(b.input, ctx);
            loss = model->loss(out, b.target);
            const double scale = (reducer ? reducer->lossScale() : 1.0) / c.gradAccum;
            if (scale != 1.0)
                loss = loss * scale;
            forwardMs += msSince(t0);
            t0 = Clock::now();
            if (reducer)
                reducer->setSync(micro + 1 == c.gradAccum);
            loss.backward();
            backwardMs += msSince(t0);
        }
        const double commMs = reducer ? reducer->finish() * 1000.0 : 0.0;
        const bool stopNow = reducer ? reducer->control() > 0 : stopHere;
        auto t0 = Clock::now();
        optimizer->step();
        const double optimizerMs = msSince(t0);
        ++step;
        ++intervalSteps;
        events.send(wire::StepEvent{step, wire::Phase::Train, dataMs, forwardMs, backwardMs, commMs,
                                    optimizerMs});

        if (step % c.logInterval == 0 || step == total || stopNow) {
            lossValue = loss.item<double>() * c.gradAccum * (reducer ? world : 1);
            result.lastLoss = lossValue;
            const double seconds =
                std::chrono::duration<double>(Clock::now() - intervalStart).count();
            const double throughput =
                static_cast<double>(intervalSteps * c.batchSize * c.gradAccum) / seconds;
            if (rank == 0) {
                events.metric("train:loss", step, lossValue);
                events.metric("train:throughput", step, throughput);
                events.progress(step, total);
            }
            log(rank, "step %lld/%lld loss %.4f (%.0f samples/s)", static_cast<long long>(step),
                static_cast<long long>(total), lossValue, throughput);
            intervalStart = Clock::now();
            intervalSteps = 0;
        }
        const bool epochEnd = step % stepsPerEpoch == 0;
        if ((c.evalInterval > 0 && step % c.evalInterval == 0) || (epochEnd && step < total))
            runEval(step);
        if (stopNow) {
            writeCheckpoint(step);
            result.interrupted = true;
            log(rank, "stopped at step %lld after a stop request; checkpoint written",
                static_cast<long long>(step));
            break;
        }
        if (c.checkpointInterval > 0 && step % c.checkpointInterval == 0 && step < total)
            writeCheckpoint(step);
    }
    result.steps = step;
    const double seconds = std::chrono::duration<double>(Clock::now() - runStart).count();
    result.samplesPerSecond = static_cast<double>((step - firstStep) * c.batchSize * c.gradAccum) /
                              std::max(seconds, 1e-9);
    if (result.interrupted)
        return result;

    runEval(step);
    writeCheckpoint(step);
    if (rank == 0 && !env.modelDir.empty()) {
        fs::create_directories(env.modelDir);
        saveModelForPython(*model, (fs::path(env.modelDir) / "model.pt").string());
        nlohmann::json info = {{"model", c.model},
                               {"blocks", model->blockNames},
                               {"parameters", params},
                               {"steps", step},
                               {"eval_loss", result.evalLoss},
                               {"eval_accuracy", result.evalAccuracy},
                               {"format", "state dict: torch.load(\"model.pt\")"}};
        writeFileAtomically((fs::path(env.modelDir) / "model.json").string(), info.dump(2));
        log(rank, "model saved to %s", (fs::path(env.modelDir) / "model.pt").c_str());
    }
    if (comm)
        comm->barrier();
    return result;
}

} // namespace studio::train
