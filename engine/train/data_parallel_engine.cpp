// Data parallel: every rank holds the whole model; gradients are bucketed and all-reduced.
#include "engine/train/models.h"
#include "engine/train/precision.h"
#include "engine/train/reducer.h"
#include "engine/train/sampler.h"
#include "engine/train/step_engine.h"
#include "engine/train/training_state.h"

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <filesystem>

namespace studio::train {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {
double msSince(Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}
} // namespace

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

std::unique_ptr<torch::optim::Optimizer>
makeOptimizer(const TrainerConfig& c, std::vector<torch::Tensor> params, double lr) {
    if (c.optimizer == "adam")
        return std::make_unique<torch::optim::Adam>(
            params, torch::optim::AdamOptions(lr).weight_decay(c.weightDecay));
    if (c.optimizer == "adamw")
        return std::make_unique<torch::optim::AdamW>(
            params, torch::optim::AdamWOptions(lr).weight_decay(c.weightDecay));
    return std::make_unique<torch::optim::SGD>(
        params, torch::optim::SGDOptions(lr).momentum(c.momentum).weight_decay(c.weightDecay));
}

namespace {

class DataParallelEngine : public StepEngine {
public:
    explicit DataParallelEngine(EngineContext& ctx)
        : m_ctx(ctx)
        , m_c(ctx.config)
        , m_device(ctx.device.device)
        , m_precision(ctx.config.amp, ctx.device, ctx.env.rank) {
        m_rank = ctx.env.rank;
        m_world = ctx.env.world;
        m_model = buildSeededModel(m_c, ctx.data.shape);
        m_model->to(m_device);
        if (ctx.comm)
            broadcastModel(*ctx.comm, *m_model, 0);
        m_local = m_c.batchSize / m_world;
        m_optimizer =
            makeOptimizer(m_c, m_model->parameters(), m_c.lr * (m_c.lrScaling ? m_world : 1));
        makeReducer();
        for (const auto& p : m_model->parameters())
            m_params += p.numel();
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
    std::int64_t parameterCount() const override { return m_params; }
    std::vector<std::pair<std::string, torch::Tensor>> namedParameters() override {
        std::vector<std::pair<std::string, torch::Tensor>> out;
        for (const auto& item : m_model->named_parameters())
            out.emplace_back(item.key(), item.value());
        return out;
    }

    StepOutcome step(std::int64_t step, const std::vector<std::int64_t>& batch,
                     bool stopRequested) override {
        StepOutcome out;
        if (m_reducer) {
            m_reducer->zeroGrad();
            m_reducer->setControl(0, stopRequested ? 1.0f : 0.0f);
        } else {
            for (auto& p : m_model->parameters())
                if (p.grad().defined())
                    p.mutable_grad().zero_();
        }
        torch::Tensor loss, lossSum = torch::zeros({}, torch::TensorOptions(m_device));
        FrameworkProfiler* profiler =
            m_ctx.profiler && m_ctx.profiler->active() ? m_ctx.profiler : nullptr;
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
            if (m_reducer &&
                micro + 1 == m_c.gradAccum) // the mean over ranks travels with the gradients
                m_reducer->setControl(1, lossSum.item<float>() *
                                             static_cast<float>(m_reducer->lossScale()));
            out.times.forwardMs += msSince(t0);
            t0 = Clock::now();
            if (m_reducer)
                m_reducer->setSync(micro + 1 == m_c.gradAccum);
            scaled.backward();
            out.times.backwardMs += msSince(t0);
            if (profiler)
                profiler->backwardDone(t0, Clock::now());
        }
        auto t0 = Clock::now();
        out.times.commMs = m_reducer ? m_reducer->finish() * 1000.0 : 0.0;
        if (profiler && m_reducer)
            profiler->span("allreduce wait", "comm", t0, Clock::now());
        out.stop = m_reducer ? m_reducer->control(0) > 0 : stopRequested;
        t0 = Clock::now();
        if (m_precision.unscale(m_model->parameters())) // fp16: an overflowing step is skipped
            m_optimizer->step();
        out.times.optimizerMs = msSince(t0);
        if (profiler)
            profiler->span(m_c.optimizer, "optimizer", t0, Clock::now());
        m_lastLoss = m_reducer ? torch::tensor(m_reducer->control(1)) : lossSum;
        return out;
    }

    // The mean over ranks (and micro-steps) of the last step's loss.
    double lastLoss() override {
        return m_lastLoss.defined() ? m_lastLoss.item<double>() : std::nan("");
    }

    EvalSums evaluate(std::int64_t limit) override {
        torch::NoGradGuard noGrad;
        m_model->eval();
        const Dataset& test = *m_ctx.data.test;
        const std::int64_t size = limit > 0 ? std::min(limit, test.size()) : test.size();
        DistributedSampler shard(size, m_rank, m_world, 0, false);
        std::vector<std::int64_t> idx = shard.indices(0);
        double lossSum = 0, correct = 0, count = 0;
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
            torch::Tensor out = m_model->forward(b.input, sc);
            const double n = static_cast<double>(m_model->predictions(b.target));
            lossSum += m_model->loss(out, b.target).item<double>() * n;
            correct += static_cast<double>(m_model->correct(out, b.target));
            count += n;
        }
        torch::Tensor sums = torch::tensor({lossSum, correct, count}, torch::kDouble);
        if (m_ctx.comm)
            m_ctx.comm->allreduce(sums);
        m_model->train();
        auto s = sums.accessor<double, 1>();
        return {s[0] / std::max(1.0, s[2]), s[1] / std::max(1.0, s[2])};
    }

    std::string saveState(std::int64_t step) override {
        return saveTrainingState(*m_model, *m_optimizer, step);
    }

    std::int64_t resume(CheckpointFiles* files) override {
        std::string payload;
        if (files && m_rank == 0) {
            std::vector<std::string> warnings;
            auto loaded = files->loadNewestValid("model", warnings);
            for (const auto& w : warnings)
                std::fprintf(stderr, "warning: %s\n", w.c_str());
            if (loaded)
                payload = std::move(loaded->payload);
        }
        if (m_ctx.comm)
            payload = broadcastBytes(*m_ctx.comm, payload, 0);
        if (payload.empty())
            return 0;
        const std::int64_t step =
            loadTrainingState(payload, *m_model, *m_optimizer, m_model->channelsLast, m_device);
        makeReducer(); // load() replaced the tensors the gradients view
        return step;
    }

    void saveModel(const std::string& dir, nlohmann::json& info) override {
        if (m_rank != 0)
            return;
        fs::create_directories(dir);
        saveModelForPython(*m_model, (fs::path(dir) / "model.pt").string());
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
    void makeReducer() {
        if (!m_ctx.comm)
            return;
        m_reducer.reset();
        m_reducer =
            std::make_unique<GradientReducer>(m_model->parameters(), m_ctx.comm,
                                              static_cast<std::size_t>(m_c.firstBucketMb * 1048576),
                                              static_cast<std::size_t>(m_c.bucketCapMb * 1048576));
    }

    EngineContext& m_ctx;
    const TrainerConfig& m_c;
    torch::Device m_device;
    MixedPrecision m_precision;
    int m_rank = 0, m_world = 1;
    std::int64_t m_local = 0, m_params = 0;
    std::shared_ptr<Model> m_model;
    std::unique_ptr<torch::optim::Optimizer> m_optimizer;
    std::unique_ptr<GradientReducer> m_reducer;
    torch::Tensor m_lastLoss;
};

} // namespace

std::unique_ptr<StepEngine> makeDataParallelEngine(EngineContext& ctx) {
    return std::make_unique<DataParallelEngine>(ctx);
}

} // namespace studio::train
