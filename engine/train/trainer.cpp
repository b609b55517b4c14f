#include "engine/train/trainer.h"

#include "engine/train/checkpoint_files.h"
#include "engine/train/datasets.h"
#include "engine/train/sampler.h"
#include "engine/train/step_engine.h"
#include "engine/train/training_state.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <thread>

namespace studio::train {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

void setThreads(int threads) {
    torch::set_num_threads(threads);
    // Debian's LibTorch does not know it runs on OpenBLAS: pin its threads too.
    using SetThreads = void (*)(int);
    if (auto f = reinterpret_cast<SetThreads>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads")))
        f(threads);
}

// VmHWM of /proc/self/status: the most memory this process has held resident.
double peakResidentMiB() {
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmHWM:", 0) == 0)
            return std::strtod(line.c_str() + 6, nullptr) / 1024.0;
    return 0;
}

} // namespace

TrainResult train(const TrainerConfig& c, const RankEnvironment& env, EventWriter& events,
                  const std::atomic<bool>& stop) {
    const int rank = env.rank, world = env.world;
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    setThreads(c.threads > 0 ? c.threads
                             : std::max(1, static_cast<int>(cores) / std::max(1, env.localWorld)));
    if (c.deterministic) {
        // cuBLAS is deterministic only with a fixed workspace, set before CUDA starts.
        ::setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8", 0);
        at::globalContext().setDeterministicAlgorithms(true, false);
    }
    torch::manual_seed(c.seed);

    const RankDevice device = selectDevice(c.device, rank, env.localRank);
    events.send(wire::StatusEvent{"device", device.description, {}, 0, 0, -1, -1, {}});
    trainerLog(true, "rank %d trains on %s", rank, device.description.c_str());

    std::shared_ptr<Communicator> comm;
    if (world > 1) {
        Communicator::Options o;
        o.rank = rank;
        o.world = world;
        o.masterAddr = env.masterAddr;
        o.masterPort = env.masterPort;
        o.storeFile = env.storeFile;
        o.nccl = device.cuda(); // CUDA tensors over NCCL; CPU tensors keep Gloo
        comm = Communicator::connect(o);
    }
    DataSplits data = loadData(c, env.channels);
    EngineContext ctx{c, env, comm, data, events, device};
    std::unique_ptr<StepEngine> engine =
        c.modelParallel ? makePipelineEngine(ctx) : makeDataParallelEngine(ctx);
    const bool reporter = engine->reporter();
    std::unique_ptr<DebugHook> hook;
    if (c.hookPlan.enabled) {
        DebugHookOptions o;
        o.rank = rank;
        // include_workers "one": the first replica saves (each pipeline stage has its own).
        o.saves = c.hookPlan.allWorkers || engine->dataRank() == 0;
        o.reporter = reporter;
        o.model = c.model;
        o.rawDir = env.debugOutputDir;
        hook = std::make_unique<DebugHook>(c.hookPlan, events, o);
    }
    FrameworkProfiler profiler(c.profiler, events);
    ctx.hook = hook.get();
    ctx.profiler = &profiler;

    if (c.batchSize % engine->dataSize() != 0)
        throw std::invalid_argument("batch-size " + std::to_string(c.batchSize) +
                                    " does not divide among " + std::to_string(engine->dataSize()) +
                                    " data-parallel replicas");
    const std::int64_t local = c.batchSize / engine->dataSize();
    DistributedSampler sampler(data.train->size(), engine->dataRank(), engine->dataSize(), c.seed);
    const std::int64_t stepsPerEpoch = sampler.batchesPerEpoch(local) / c.gradAccum;
    if (stepsPerEpoch < 1)
        throw std::invalid_argument("the training set (" + std::to_string(data.train->size()) +
                                    " samples) is smaller than one global batch");
    std::int64_t total = stepsPerEpoch * c.epochs;
    if (c.maxSteps > 0)
        total = std::min(total, c.maxSteps);

    TrainResult result;
    std::unique_ptr<CheckpointFiles> checkpoints;
    if (!env.checkpointDir.empty())
        checkpoints = std::make_unique<CheckpointFiles>(env.checkpointDir);
    std::int64_t step = engine->resume(checkpoints.get());
    if (step > 0) {
        result.resumedFrom = step;
        trainerLog(reporter || rank == 0, "resumed from the checkpoint at step %lld",
                   static_cast<long long>(step));
    }

    auto writeCheckpoint = [&](std::int64_t atStep) {
        if (!checkpoints || !engine->writesCheckpoints())
            return;
        CheckpointInfo info = checkpoints->write(
            atStep, atStep / stepsPerEpoch, engine->checkpointTag(), engine->saveState(atStep));
        events.send(wire::CheckpointEvent{atStep, info.path, info.sha256, info.bytes});
        trainerLog(true, "checkpoint at step %lld: %s", static_cast<long long>(atStep),
                   info.path.c_str());
    };
    auto runEval = [&](std::int64_t atStep) {
        EvalSums e = engine->evaluate(c.evalSamples);
        result.evalLoss = e.loss;
        result.evalAccuracy = e.accuracy;
        if (reporter) {
            events.metric("eval:loss", atStep, e.loss, wire::Phase::Eval);
            events.metric("eval:accuracy", atStep, e.accuracy, wire::Phase::Eval);
        }
        if (hook && atStep > 0) // the debugger counts steps from 0
            hook->evaluation(atStep - 1, e.loss, e.accuracy);
        trainerLog(reporter, "eval at step %lld: loss %.4f accuracy %.4f",
                   static_cast<long long>(atStep), e.loss, e.accuracy);
    };

    std::vector<std::int64_t> epochIndices;
    std::int64_t loadedEpoch = -1;
    const auto runStart = Clock::now();
    auto intervalStart = Clock::now();
    std::int64_t intervalSteps = 0;
    const std::int64_t firstStep = step;
    const std::int64_t perStep = local * c.gradAccum;

    while (step < total) {
        const std::int64_t epoch = step / stepsPerEpoch;
        if (epoch != loadedEpoch) {
            epochIndices = sampler.indices(epoch);
            loadedEpoch = epoch;
        }
        const std::int64_t first = (step % stepsPerEpoch) * perStep;
        std::vector<std::int64_t> batch(epochIndices.begin() + first,
                                        epochIndices.begin() + first + perStep);
        // The debugger hook and the profiler number steps as SageMaker does: from 0.
        const std::int64_t index = step;
        const bool profiled = profiler.beginStep(index);
        const auto stepStart = Clock::now();
        if (hook)
            hook->beginStep(index, c.hookPlan.savesAnything(index) ? engine->namedParameters()
                                                                   : NamedTensors{});
        StepOutcome out = engine->step(step, batch, stop.load());
        ++step;
        if (hook) {
            std::optional<double> loss;
            if (hook->savesLoss(index))
                loss = engine->lastLoss();
            hook->endStep(index, hook->capture() ? engine->namedParameters() : NamedTensors{},
                          loss);
        }
        if (profiled) {
            profiler.span("step", "step", stepStart, Clock::now());
            profiler.endStep();
        }
        ++intervalSteps;
        events.send(wire::StepEvent{step, wire::Phase::Train, out.times.dataMs, out.times.forwardMs,
                                    out.times.backwardMs, out.times.commMs, out.times.optimizerMs});

        if (step % c.logInterval == 0 || step == total || out.stop) {
            const double seconds =
                std::chrono::duration<double>(Clock::now() - intervalStart).count();
            const double throughput =
                static_cast<double>(intervalSteps * c.batchSize * c.gradAccum) / seconds;
            engine->reportExtras(step, events);
            if (reporter) {
                result.lastLoss = engine->lastLoss();
                events.metric("train:loss", step, result.lastLoss);
                events.metric("train:throughput", step, throughput);
                events.progress(step, total);
                trainerLog(true, "step %lld/%lld loss %.4f (%.0f samples/s)",
                           static_cast<long long>(step), static_cast<long long>(total),
                           result.lastLoss, throughput);
            }
            intervalStart = Clock::now();
            intervalSteps = 0;
        }
        const bool epochEnd = step % stepsPerEpoch == 0;
        if ((c.evalInterval > 0 && step % c.evalInterval == 0) || (epochEnd && step < total))
            runEval(step);
        if (out.stop) {
            writeCheckpoint(step);
            result.interrupted = true;
            trainerLog(reporter || rank == 0,
                       "stopped at step %lld after a stop request; checkpoint written",
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
    if (!env.modelDir.empty()) {
        nlohmann::json info = {{"model", c.model},
                               {"parameters", engine->parameterCount()},
                               {"steps", step},
                               {"eval_loss", result.evalLoss},
                               {"eval_accuracy", result.evalAccuracy},
                               {"format", "state dict: torch.load(\"model.pt\")"}};
        engine->saveModel(env.modelDir, info);
        if (rank == 0) {
            writeFileAtomically((fs::path(env.modelDir) / "model.json").string(), info.dump(2));
            trainerLog(true, "model saved to %s", (fs::path(env.modelDir) / "model.pt").c_str());
        }
    }
    engine->barrier();
    trainerLog(true, "rank %d peak resident memory %.1f MiB", rank, peakResidentMiB());
    return result;
}

} // namespace studio::train
