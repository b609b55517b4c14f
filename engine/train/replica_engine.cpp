#include "engine/train/replica_engine.h"

#include "engine/train/training_state.h"

#include <cstdio>
#include <filesystem>

namespace studio::train {

namespace fs = std::filesystem;

double msSince(Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
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

void warnAboutCheckpoints(const std::vector<std::string>& warnings) {
    for (const auto& w : warnings)
        std::fprintf(stderr, "warning: %s\n", w.c_str());
}

void EvalTally::add(Model& model, const torch::Tensor& output, const torch::Tensor& target) {
    const double n = static_cast<double>(model.predictions(target));
    loss += model.loss(output, target).item<double>() * n;
    correct += static_cast<double>(model.correct(output, target));
    count += n;
}

EvalSums EvalTally::mean(Communicator* comm) const {
    torch::Tensor sums = torch::tensor({loss, correct, count}, torch::kDouble);
    if (comm)
        comm->allreduce(sums);
    auto s = sums.accessor<double, 1>();
    return {s[0] / std::max(1.0, s[2]), s[1] / std::max(1.0, s[2])};
}

ReplicaEngine::ReplicaEngine(EngineContext& ctx)
    : m_ctx(ctx)
    , m_c(ctx.config)
    , m_device(ctx.device.device) {
}

std::vector<std::pair<std::string, torch::Tensor>> ReplicaEngine::namedParameters() {
    std::vector<std::pair<std::string, torch::Tensor>> out;
    for (const auto& item : m_module->named_parameters())
        out.emplace_back(item.key(), item.value());
    return out;
}

double ReplicaEngine::lastLoss() {
    return m_lastLoss.defined() ? m_lastLoss.item<double>() : std::nan("");
}

std::string ReplicaEngine::saveState(std::int64_t step) {
    return saveTrainingState(*m_module, *m_optimizer, step);
}

void ReplicaEngine::adopt(std::shared_ptr<torch::nn::Module> module,
                          std::shared_ptr<Communicator> replicas, double lr) {
    m_module = std::move(module);
    m_replicas = std::move(replicas);
    if (m_replicas)
        broadcastModel(*m_replicas, *m_module, 0);
    m_optimizer = makeOptimizer(m_c, m_module->parameters(), lr);
    makeReducer();
    for (const auto& p : m_module->parameters())
        m_params += p.numel();
}

FrameworkProfiler* ReplicaEngine::activeProfiler() const {
    return m_ctx.profiler && m_ctx.profiler->active() ? m_ctx.profiler : nullptr;
}

void ReplicaEngine::zeroGradients() {
    if (m_reducer) {
        m_reducer->zeroGrad();
        return;
    }
    for (auto& p : m_module->parameters())
        if (p.grad().defined())
            p.mutable_grad().zero_();
}

void ReplicaEngine::sendLossWithGradients(const torch::Tensor& lossSum) {
    m_reducer->setControl(1, lossSum.item<float>() * static_cast<float>(m_reducer->lossScale()));
}

double ReplicaEngine::finishReduction(FrameworkProfiler* profiler) {
    if (!m_reducer)
        return 0;
    const auto t0 = Clock::now();
    const double ms = m_reducer->finish() * 1000.0;
    if (profiler)
        profiler->span("allreduce wait", "comm", t0, Clock::now());
    return ms;
}

void ReplicaEngine::keepLoss(const torch::Tensor& lossSum) {
    m_lastLoss = m_reducer ? torch::tensor(m_reducer->control(1)) : lossSum;
}

std::int64_t ReplicaEngine::evalSize(std::int64_t limit) const {
    const std::int64_t size = m_ctx.data.test->size();
    return limit > 0 ? std::min(limit, size) : size;
}

std::int64_t ReplicaEngine::restore(std::string payload) {
    if (m_replicas)
        payload = broadcastBytes(*m_replicas, payload, 0);
    if (payload.empty())
        return 0;
    const std::int64_t step =
        loadTrainingState(payload, *m_module, *m_optimizer, m_model->channelsLast, m_device);
    makeReducer(); // load() replaced the tensors the gradients view
    return step;
}

void ReplicaEngine::saveModuleForPython(const std::string& dir, const std::string& fileName) {
    fs::create_directories(dir);
    saveModelForPython(*m_module, (fs::path(dir) / fileName).string());
}

void ReplicaEngine::makeReducer() {
    if (!m_replicas)
        return;
    m_reducer.reset();
    m_reducer = std::make_unique<GradientReducer>(
        m_module->parameters(), m_replicas, static_cast<std::size_t>(m_c.firstBucketMb * 1048576),
        static_cast<std::size_t>(m_c.bucketCapMb * 1048576));
}

} // namespace studio::train
