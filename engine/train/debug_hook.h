// The built-in trainer's debugger hook: on the steps a collection saves (engine/debugger's
// HookPlan), it reduces the collection's tensors (weights, biases, gradients, activations,
// labels, scalars) and sends one "tensor" event per collection and tensor; raw tensors go to
// <debug-output>/tensors/<step>/rank-<r>/<tensor>.npy with an index.jsonl beside them.
// Steps are SageMaker's: 0 is the first optimizer step.
// Not thread-safe: the training thread owns it.
#pragma once

#include "engine/debugger/hook_plan.h"
#include "engine/train/activation_capture.h"
#include "engine/train/event_writer.h"
#include "engine/train/tensor_reductions.h"

#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace studio::train {

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

struct DebugHookOptions {
    int rank = 0;
    bool saves = true;    // this rank saves tensors (include_workers, or the first replica)
    bool reporter = true; // this rank saves scalars (losses, metrics)
    std::string model;    // the built-in model's name, for "<model>_input_0"
    std::string rawDir;   // where raw tensors go; "" drops them
};

class DebugHook {
public:
    DebugHook(debugger::HookPlan plan, EventWriter& events, DebugHookOptions options);

    bool enabled() const { return m_plan.enabled; }
    const debugger::HookPlan& plan() const { return m_plan; }

    // Before a train step runs. Returns the capture forward passes fill, or null when no
    // activation is saved at this step; snapshots weights whose update norm is saved.
    ActivationCapture* beginStep(std::int64_t step, const NamedTensors& parameters);
    // The capture of the step begun, null when it saves no activation.
    ActivationCapture* capture() { return m_capturing ? &m_capture : nullptr; }
    // A batch's targets and the model's output, on steps labels or predictions are saved.
    void observeBatch(const torch::Tensor& output, const torch::Tensor& target);
    // After the optimizer step: reduces parameters, gradients, captured activations and the
    // step's training loss (loss: only where known, on the reporter).
    void endStep(std::int64_t step, const NamedTensors& parameters, std::optional<double> loss);
    // After an evaluation at the given (global) step.
    void evaluation(std::int64_t step, double loss, double accuracy);
    // Whether endStep will want the training loss of this step.
    bool savesLoss(std::int64_t step) const;

private:
    // Every saving collection the tensor belongs to, with the reductions each asks for.
    void emit(std::int64_t step, const std::string& name, const torch::Tensor& t,
              wire::Phase phase = wire::Phase::Train);
    void emitScalar(const std::string& collection, const std::string& name, std::int64_t step,
                    double value, wire::Phase phase);
    void writeRaw(std::int64_t step, const std::string& collection, const std::string& name,
                  const torch::Tensor& t);
    bool savesTensor(std::int64_t step, const std::string& name) const;
    ReductionOptions optionsFor(const std::string& name) const;

    debugger::HookPlan m_plan;
    EventWriter& m_events;
    DebugHookOptions m_options;
    ActivationCapture m_capture;
    bool m_capturing = false;
    std::int64_t m_step = -1;
    std::map<std::string, torch::Tensor> m_before; // weights before the step, for update norms
    mutable std::map<std::string, std::vector<const debugger::CollectionPlan*>> m_membership;
};

} // namespace studio::train
