// Data parallel: every rank holds the whole model; gradients are bucketed and all-reduced.
#include "engine/train/models.h"
#include "engine/train/precision.h"
#include "engine/train/replica_engine.h"
#include "engine/train/sampler.h"
#include "engine/train/training_state.h"

#include <cstdarg>
#include <cstdio>

namespace studio::train {

void trainerLog(bool speak, const char* fmt, ...) {
    if (!speak)
        return;
    va_list args;
    va_start(args, fmt);
    std::vprintf(fmt, args);
    va_end(args);
    std::printf("\n");
    std::fflush(stdout);
}

namespace {

class DataParallelEngine : public ReplicaEngine {
public:
    explicit DataParallelEngine(EngineContext& ctx)
        : ReplicaEngine(ctx)
        , m_precision(ctx.config.amp, ctx.device, ctx.env.rank) {
        m_rank = ctx.env.rank;
        m_world = ctx.env.world;
        m_model = buildSeededModel(m_c, ctx.data.shape);
        m_model->to(m_device);
        m_local = m_c.batchSize / m_world;
        adopt(m_model, ctx.comm, m_c.lr * (m_c.lrScaling ? m_world : 1));
        trainerLog(reporter(),
                   "%s: %lld parameters in %zu blocks; %s; world %d, batch %lld (%lld per rank), "
                   "lr %g, %d thread(s)",
                   m_c.model.c_str(), static_cast<long long>(m_params), m_model->blocks.size(),
                   ctx.data.train->description().c_str(), m_world,
                   static_cast<long long>(m_c.batchSize), static_cast<long long>(m_local),
                   m_c.lr * (m_c.lrScaling ? m_world : 1), torch::get_num_threads());
        if (m_reducer)
            trainerLog(reporter(), "gradients: %zu bytes in %zu bucket(s), all-reduced through %s",
                       m_reducer->gradientBytes(), m_reducer->plan().buckets.size(),
                       ctx.comm->transport().c_str());
    }

    int dataRank() const override { return m_rank; }
    int dataSize() const override { return m_world; }
    bool reporter() const override { return m_rank == 0; }
    bool writesCheckpoints() const override { return m_rank == 0; }
    std::string checkpointTag() const override { return "model"; }

    StepOutcome step(std::int64_t step, const std::vector<std::int64_t>& batch,
                     bool stopRequested) override {
        StepOutcome out;
        zeroGradients();
        if (m_reducer)
            m_reducer->setControl(0, stopRequested ? 1.0f : 0.0f);
        torch::Tensor loss, lossSum = torch::zeros({}, torch::TensorOptions(m_device));
        FrameworkProfiler* profiler = activeProfiler();
        ActivationCapture* capture = m_ctx.hook ? m_ctx.hook->capture() : nullptr;
        for (int micro = 0; micro < m_c.gradAccum; ++micro) {
            auto t0 = Clock::now();
            std::vector<std::int64_t> idx(batch.begin() + micro * m_local,
                                          batch.begin() + (micro + 1) * m_local);
            Batch b = batchOn(m_device, m_c.pinMemory,
                              m_ctx.data.train->batch(idx, m_model->channelsLast));
            out.times.dataMs += msSince(t0);
            if (profiler)
                profiler->span("dataloader", "dataloader", t0, Clock::now());
            t0 = Clock::now();
            StepContext sc{step, m_c.seed,
                           (static_cast<std::int64_t>(micro) * m_world + m_rank) * m_local, true};
            sc.capture = capture;
            sc.profiler = profiler;
            torch::Tensor output;
            {
                const auto autocast = m_precision.autocast();
                output = m_model->forward(b.input, sc);
                loss = m_model->loss(output, b.target);
            }
            if (capture)
                m_ctx.hook->observeBatch(output, b.target);
            const double scale = (m_reducer ? m_reducer->lossScale() : 1.0) *
                                 m_precision.lossScale() / m_c.gradAccum;
            torch::Tensor scaled = scale != 1.0 ? loss * scale : loss;
            lossSum += loss.detach() / m_c.gradAccum;
            if (m_reducer && micro + 1 == m_c.gradAccum)
                sendLossWithGradients(lossSum);
            out.times.forwardMs += msSince(t0);
            t0 = Clock::now();
            if (m_reducer)
                m_reducer->setSync(micro + 1 == m_c.gradAccum);
            scaled.backward();
            out.times.backwardMs += msSince(t0);
            if (profiler)
                profiler->backwardDone(t0, Clock::now());
        }
        out.times.commMs = finishReduction(profiler);
        out.stop = m_reducer ? m_reducer->control(0) > 0 : stopRequested;
        const auto t0 = Clock::now();
        if (m_precision.unscale(m_model->parameters())) // fp16: an overflowing step is skipped
            m_optimizer->step();
        out.times.optimizerMs = msSince(t0);
        if (profiler)
            profiler->span(m_c.optimizer, "optimizer", t0, Clock::now());
        keepLoss(lossSum);
        return out;
    }

    EvalSums evaluate(std::int64_t limit) override {
        torch::NoGradGuard noGrad;
        m_model->eval();
        const Dataset& test = *m_ctx.data.test;
        const std::int64_t size = evalSize(limit);
        DistributedSampler shard(size, m_rank, m_world, 0, false);
        std::vector<std::int64_t> idx = shard.indices(0);
        EvalTally tally;
        StepContext sc;
        sc.training = false;
        for (std::size_t i = 0; i < idx.size(); i += 500) {
            std::vector<std::int64_t> part;
            for (std::size_t j = i; j < std::min(idx.size(), i + 500); ++j)
                if (static_cast<std::int64_t>(j) * m_world + m_rank < size) // skip the padding
                    part.push_back(idx[j]);
            if (part.empty())
                continue;
            Batch b = batchOn(m_device, m_c.pinMemory, test.batch(part, m_model->channelsLast));
            const auto autocast = m_precision.autocast();
            tally.add(*m_model, m_model->forward(b.input, sc), b.target);
        }
        const EvalSums sums = tally.mean(m_ctx.comm.get());
        m_model->train();
        return sums;
    }

    std::int64_t resume(CheckpointFiles* files) override {
        std::string payload;
        if (files && m_rank == 0) {
            std::vector<std::string> warnings;
            auto loaded = files->loadNewestValid("model", warnings);
            warnAboutCheckpoints(warnings);
            if (loaded)
                payload = std::move(loaded->payload);
        }
        return restore(std::move(payload));
    }

    void saveModel(const std::string& dir, nlohmann::json& info) override {
        if (m_rank != 0)
            return;
        saveModuleForPython(dir, "model.pt");
        info["blocks"] = m_model->blockNames;
    }

    void barrier() override {
        if (m_ctx.comm)
            m_ctx.comm->barrier();
    }

    void reportExtras(std::int64_t step, EventWriter& events) override {
        if (reporter() && m_precision.name() == "fp16")
            events.metric("train:amp_skipped_steps", step,
                          static_cast<double>(m_precision.skippedSteps()));
    }

private:
    MixedPrecision m_precision;
    int m_rank = 0, m_world = 1;
    std::int64_t m_local = 0;
};

} // namespace

std::unique_ptr<StepEngine> makeDataParallelEngine(EngineContext& ctx) {
    return std::make_unique<DataParallelEngine>(ctx);
}

} // namespace studio::train
