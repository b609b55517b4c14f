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

// Threads and determinism for the whole process, before the first tensor.
void setUpTorch(const TrainerConfig& c, const RankEnvironment& env) {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    setThreads(c.threads > 0 ? c.threads
                             : std::max(1, static_cast<int>(cores) / std::max(1, env.localWorld)));
    if (c.deterministic) {
        // cuBLAS is deterministic only with a fixed workspace, set before CUDA starts.
        ::setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8", 0);
        at::globalContext().setDeterministicAlgorithms(true, false);
    }
    torch::manual_seed(c.seed);
}

std::shared_ptr<Communicator> connect(const RankEnvironment& env, const RankDevice& device) {
    Communicator::Options o;
    o.rank = env.rank;
    o.world = env.world;
    o.masterAddr = env.masterAddr;
    o.masterPort = env.masterPort;
    o.storeFile = env.storeFile;
    o.nccl = device.cuda(); // CUDA tensors over NCCL; CPU tensors keep Gloo
    return Communicator::connect(o);
}

std::unique_ptr<DebugHook> makeHook(const EngineContext& ctx, const StepEngine& engine) {
    if (!ctx.config.hookPlan.enabled)
        return nullptr;
    DebugHookOptions o;
    o.rank = ctx.env.rank;
    // include_workers "one": the first replica saves (each pipeline stage has its own).
    o.saves = ctx.config.hookPlan.allWorkers || engine.dataRank() == 0;
    o.reporter = engine.reporter();
    o.model = ctx.config.model;
    o.rawDir = ctx.env.debugOutputDir;
    return std::make_unique<DebugHook>(ctx.config.hookPlan, ctx.events, o);
}

// This replica's share of the global batch.
std::int64_t localBatch(const TrainerConfig& c, const StepEngine& engine) {
    if (c.batchSize % engine.dataSize() != 0)
        throw std::invalid_argument("batch-size " + std::to_string(c.batchSize) +
                                    " does not divide among " + std::to_string(engine.dataSize()) +
                                    " data-parallel replicas");
    return c.batchSize / engine.dataSize();
}

// One rank's run from its first (or resumed) step to the last: the steps with the debugger hook
// and the profiler around them, progress at log intervals, evaluations, checkpoints, the model.
class TrainingRun {
public:
    TrainingRun(EngineContext& ctx, StepEngine& engine)
        : m_c(ctx.config)
        , m_env(ctx.env)
        , m_events(ctx.events)
        , m_engine(engine)
        , m_hook(ctx.hook)
        , m_profiler(*ctx.profiler)
        , m_reporter(engine.reporter())
        , m_local(localBatch(m_c, engine))
        , m_sampler(ctx.data.train->size(), engine.dataRank(), engine.dataSize(), m_c.seed)
        , m_stepsPerEpoch(m_sampler.batchesPerEpoch(m_local) / m_c.gradAccum) {
        if (m_stepsPerEpoch < 1)
            throw std::invalid_argument("the training set (" +
                                        std::to_string(ctx.data.train->size()) +
                                        " samples) is smaller than one global batch");
        m_total = m_stepsPerEpoch * m_c.epochs;
        if (m_c.maxSteps > 0)
            m_total = std::min(m_total, m_c.maxSteps);
        if (!m_env.checkpointDir.empty())
            m_checkpoints = std::make_unique<CheckpointFiles>(m_env.checkpointDir);
    }

    TrainResult run(const std::atomic<bool>& stop) {
        std::int64_t step = resume();
        const auto runStart = Clock::now();
        m_intervalStart = Clock::now();
        const std::int64_t firstStep = step;
        while (step < m_total) {
            const StepOutcome out = runStep(step, batchAt(step), stop);
            ++step;
            if (step % m_c.logInterval == 0 || step == m_total || out.stop)
                report(step);
            const bool epochEnd = step % m_stepsPerEpoch == 0;
            if ((m_c.evalInterval > 0 && step % m_c.evalInterval == 0) ||
                (epochEnd && step < m_total))
                evaluate(step);
            if (out.stop) {
                writeCheckpoint(step);
                m_result.interrupted = true;
                trainerLog(m_reporter || m_env.rank == 0,
                           "stopped at step %lld after a stop request; checkpoint written",
                           static_cast<long long>(step));
                break;
            }
            if (m_c.checkpointInterval > 0 && step % m_c.checkpointInterval == 0 && step < m_total)
                writeCheckpoint(step);
        }
        m_result.steps = step;
        const double seconds = std::chrono::duration<double>(Clock::now() - runStart).count();
        m_result.samplesPerSecond =
            static_cast<double>((step - firstStep) * m_c.batchSize * m_c.gradAccum) /
            std::max(seconds, 1e-9);
        if (m_result.interrupted)
            return m_result;

        evaluate(step);
        writeCheckpoint(step);
        saveModel(step);
        m_engine.barrier();
        trainerLog(true, "rank %d peak resident memory %.1f MiB", m_env.rank, peakResidentMiB());
        return m_result;
    }

private:
    std::int64_t resume() {
        const std::int64_t step = m_engine.resume(m_checkpoints.get());
        if (step > 0) {
            m_result.resumedFrom = step;
            trainerLog(m_reporter || m_env.rank == 0, "resumed from the checkpoint at step %lld",
                       static_cast<long long>(step));
        }
        return step;
    }

    // The samples of a step: its slice of the epoch's shuffled order.
    std::vector<std::int64_t> batchAt(std::int64_t step) {
        const std::int64_t epoch = step / m_stepsPerEpoch;
        if (epoch != m_loadedEpoch) {
            m_epochIndices = m_sampler.indices(epoch);
            m_loadedEpoch = epoch;
        }
        const std::int64_t perStep = m_local * m_c.gradAccum;
        const std::int64_t first = (step % m_stepsPerEpoch) * perStep;
        return {m_epochIndices.begin() + first, m_epochIndices.begin() + first + perStep};
    }

    // The debugger hook and the profiler number steps as SageMaker does: from 0.
    StepOutcome runStep(std::int64_t index, const std::vector<std::int64_t>& batch,
                        const std::atomic<bool>& stop) {
        const bool profiled = m_profiler.beginStep(index);
        const auto stepStart = Clock::now();
        if (m_hook)
            m_hook->beginStep(index, m_c.hookPlan.savesAnything(index) ? m_engine.namedParameters()
                                                                       : NamedTensors{});
        StepOutcome out = m_engine.step(index, batch, stop.load());
        if (m_hook) {
            std::optional<double> loss;
            if (m_hook->savesLoss(index))
                loss = m_engine.lastLoss();
            m_hook->endStep(index, m_hook->capture() ? m_engine.namedParameters() : NamedTensors{},
                            loss);
        }
        if (profiled) {
            m_profiler.span("step", "step", stepStart, Clock::now());
            m_profiler.endStep();
        }
        ++m_intervalSteps;
        const StepTimes& t = out.times;
        m_events.send(wire::StepEvent{index + 1, wire::Phase::Train, t.dataMs, t.forwardMs,
                                      t.backwardMs, t.commMs, t.optimizerMs});
        return out;
    }

    // Loss, throughput and progress of the steps since the last report.
    void report(std::int64_t step) {
        const double seconds =
            std::chrono::duration<double>(Clock::now() - m_intervalStart).count();
        const double throughput =
            static_cast<double>(m_intervalSteps * m_c.batchSize * m_c.gradAccum) / seconds;
        m_engine.reportExtras(step, m_events);
        if (m_reporter) {
            m_result.lastLoss = m_engine.lastLoss();
            m_events.metric("train:loss", step, m_result.lastLoss);
            m_events.metric("train:throughput", step, throughput);
            m_events.progress(step, m_total);
            trainerLog(true, "step %lld/%lld loss %.4f (%.0f samples/s)",
                       static_cast<long long>(step), static_cast<long long>(m_total),
                       m_result.lastLoss, throughput);
        }
        m_intervalStart = Clock::now();
        m_intervalSteps = 0;
    }

    void evaluate(std::int64_t atStep) {
        EvalSums e = m_engine.evaluate(m_c.evalSamples);
        m_result.evalLoss = e.loss;
        m_result.evalAccuracy = e.accuracy;
        if (m_reporter) {
            m_events.metric("eval:loss", atStep, e.loss, wire::Phase::Eval);
            m_events.metric("eval:accuracy", atStep, e.accuracy, wire::Phase::Eval);
        }
        if (m_hook && atStep > 0) // the debugger counts steps from 0
            m_hook->evaluation(atStep - 1, e.loss, e.accuracy);
        trainerLog(m_reporter, "eval at step %lld: loss %.4f accuracy %.4f",
                   static_cast<long long>(atStep), e.loss, e.accuracy);
    }

    void writeCheckpoint(std::int64_t atStep) {
        if (!m_checkpoints || !m_engine.writesCheckpoints())
            return;
        CheckpointInfo info = m_checkpoints->write(
            atStep, atStep / m_stepsPerEpoch, m_engine.checkpointTag(), m_engine.saveState(atStep));
        m_events.send(wire::CheckpointEvent{atStep, info.path, info.sha256, info.bytes});
        trainerLog(true, "checkpoint at step %lld: %s", static_cast<long long>(atStep),
                   info.path.c_str());
    }

    void saveModel(std::int64_t step) {
        if (m_env.modelDir.empty())
            return;
        nlohmann::json info = {{"model", m_c.model},
                               {"parameters", m_engine.parameterCount()},
                               {"steps", step},
                               {"eval_loss", m_result.evalLoss},
                               {"eval_accuracy", m_result.evalAccuracy},
                               {"format", "state dict: torch.load(\"model.pt\")"}};
        m_engine.saveModel(m_env.modelDir, info);
        if (m_env.rank == 0) {
            writeFileAtomically((fs::path(m_env.modelDir) / "model.json").string(), info.dump(2));
            trainerLog(true, "model saved to %s", (fs::path(m_env.modelDir) / "model.pt").c_str());
        }
    }

    const TrainerConfig& m_c;
    const RankEnvironment& m_env;
    EventWriter& m_events;
    StepEngine& m_engine;
    DebugHook* m_hook;
    FrameworkProfiler& m_profiler;
    const bool m_reporter;
    const std::int64_t m_local;
    DistributedSampler m_sampler;
    const std::int64_t m_stepsPerEpoch;
    std::int64_t m_total = 0;
    std::unique_ptr<CheckpointFiles> m_checkpoints;
    TrainResult m_result;
    std::vector<std::int64_t> m_epochIndices;
    std::int64_t m_loadedEpoch = -1;
    Clock::time_point m_intervalStart;
    std::int64_t m_intervalSteps = 0;
};

} // namespace

TrainResult train(const TrainerConfig& c, const RankEnvironment& env, EventWriter& events,
                  const std::atomic<bool>& stop) {
    setUpTorch(c, env);
    const RankDevice device = selectDevice(c.device, env.rank, env.localRank);
    events.send(wire::StatusEvent{"device", device.description, {}, 0, 0, -1, -1, {}});
    trainerLog(true, "rank %d trains on %s", env.rank, device.description.c_str());

    std::shared_ptr<Communicator> comm = env.world > 1 ? connect(env, device) : nullptr;
    DataSplits data = loadData(c, env.channels);
    EngineContext ctx{c, env, comm, data, events, device};
    std::unique_ptr<StepEngine> engine =
        c.modelParallel ? makePipelineEngine(ctx) : makeDataParallelEngine(ctx);
    std::unique_ptr<DebugHook> hook = makeHook(ctx, *engine);
    FrameworkProfiler profiler(c.profiler, events);
    ctx.hook = hook.get();
    ctx.profiler = &profiler;
    return TrainingRun(ctx, *engine).run(stop);
}

} // namespace studio::train
