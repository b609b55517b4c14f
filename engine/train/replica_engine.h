// What the data-parallel and the pipeline engines share: the module this rank trains (the whole
// model, or its pipeline stage) with its optimizer and the gradient reducer among its replicas,
// checkpoint payloads saved and restored over those replicas, and the sums of an evaluation.
// Internal to engine/train.
#pragma once

#include "engine/train/reducer.h"
#include "engine/train/step_engine.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace studio::train {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t);

std::unique_ptr<torch::optim::Optimizer>
makeOptimizer(const TrainerConfig& c, std::vector<torch::Tensor> params, double lr);

// The checkpoint folder's warnings (files skipped as truncated or corrupt), on stderr.
void warnAboutCheckpoints(const std::vector<std::string>& warnings);

// An evaluation's running sums on one rank: the loss weighted by predictions, the correct
// predictions, and the predictions.
struct EvalTally {
    double loss = 0, correct = 0, count = 0;

    void add(Model& model, const torch::Tensor& output, const torch::Tensor& target);
    // The means over every rank of comm (null: this rank alone). Collective.
    EvalSums mean(Communicator* comm) const;
};

class ReplicaEngine : public StepEngine {
public:
    std::int64_t parameterCount() const override { return m_params; }
    std::vector<std::pair<std::string, torch::Tensor>> namedParameters() override;
    // The mean over replicas (and micro-steps) of the last step's loss.
    double lastLoss() override;
    std::string saveState(std::int64_t step) override;

protected:
    explicit ReplicaEngine(EngineContext& ctx);

    // What this rank trains from now on: replica 0's weights go to every replica (replicas null:
    // none), then the optimizer with this learning rate and the reducer are made for it.
    void adopt(std::shared_ptr<torch::nn::Module> module, std::shared_ptr<Communicator> replicas,
               double lr);
    // The profiler while it records this step, else null.
    FrameworkProfiler* activeProfiler() const;
    // Before a step: the reducer's buckets, or the module's own gradients.
    void zeroGradients();
    // The replicas' mean loss rides along with the last gradients the reducer sends.
    void sendLossWithGradients(const torch::Tensor& lossSum);
    // Waits for the reducer's last buckets; the milliseconds spent waiting (0 without one).
    double finishReduction(FrameworkProfiler* profiler);
    // After the optimizer: the replicas' mean from the reducer, or this rank's own sum.
    void keepLoss(const torch::Tensor& lossSum);
    // How many test samples an evaluation reads: limit when positive and smaller.
    std::int64_t evalSize(std::int64_t limit) const;
    // Replica 0's checkpoint payload to every replica, loaded into the module and the optimizer;
    // returns its step, or 0 when replica 0 had none. Collective over the replicas.
    std::int64_t restore(std::string payload);
    // The module's state dict as dir/fileName, for torch.load.
    void saveModuleForPython(const std::string& dir, const std::string& fileName);

    EngineContext& m_ctx;
    const TrainerConfig& m_c;
    torch::Device m_device;
    std::shared_ptr<Model> m_model;              // the whole model (a stage's copy, in a pipeline)
    std::shared_ptr<torch::nn::Module> m_module; // what this rank trains and checkpoints
    std::shared_ptr<Communicator> m_replicas;    // the module's replicas; null when alone
    std::unique_ptr<torch::optim::Optimizer> m_optimizer;
    std::unique_ptr<GradientReducer> m_reducer;
    std::int64_t m_params = 0;

private:
    void makeReducer();

    torch::Tensor m_lastLoss;
};

} // namespace studio::train
