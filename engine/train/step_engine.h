// What the training loop drives each step: a data-parallel engine (every rank holds the whole
// model) or a pipeline engine (ranks hold stages, optionally replicated). Internal to engine/train.
#pragma once

#include "engine/train/checkpoint_files.h"
#include "engine/train/communicator.h"
#include "engine/train/datasets.h"
#include "engine/train/debug_hook.h"
#include "engine/train/device.h"
#include "engine/train/event_writer.h"
#include "engine/train/trainer_config.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace studio::train {

struct StepTimes {
    double dataMs = 0, forwardMs = 0, backwardMs = 0, commMs = 0, optimizerMs = 0;
};

struct StepOutcome {
    StepTimes times;
    bool stop = false; // some rank asked to stop: every rank stops after this step
};

struct EvalSums {
    double loss = 0;
    double accuracy = 0;
};

struct EngineContext {
    const TrainerConfig& config;
    const RankEnvironment& env;
    std::shared_ptr<Communicator> comm; // null for one process
    DataSplits& data;
    EventWriter& events;
    RankDevice device;                     // where this rank's model and batches live
    DebugHook* hook = nullptr;             // the debugger hook, when it is on
    FrameworkProfiler* profiler = nullptr; // detailed timings in the profiled window
};

class StepEngine {
public:
    virtual ~StepEngine() = default;
    virtual int dataRank() const = 0; // this rank's replica, for sharding the data
    virtual int dataSize() const = 0;
    virtual bool reporter() const = 0; // emits train/eval metrics, progress and logs
    virtual bool writesCheckpoints() const = 0;
    virtual std::string checkpointTag() const = 0;
    virtual std::int64_t parameterCount() const = 0;
    // This rank's parameters by qualified name ("block1.qkv.weight"); .grad() holds the last
    // step's gradients until the next step starts.
    virtual std::vector<std::pair<std::string, torch::Tensor>> namedParameters() = 0;

    // One optimizer step over this replica's share of the global batch. Collective.
    virtual StepOutcome step(std::int64_t step, const std::vector<std::int64_t>& batch,
                             bool stopRequested) = 0;
    // The training loss of the last step, on the reporter (reading it waits for the value).
    virtual double lastLoss() = 0;
    virtual EvalSums evaluate(std::int64_t limit) = 0;    // collective
    virtual std::string saveState(std::int64_t step) = 0; // this rank's checkpoint payload
    virtual std::int64_t
    resume(CheckpointFiles* files) = 0; // the step to continue from; collective
    virtual void saveModel(const std::string& dir, nlohmann::json& info) = 0; // collective
    virtual void barrier() = 0;
    // Engine-specific metrics, sent at log intervals by every rank that has some.
    virtual void reportExtras(std::int64_t /*step*/, EventWriter&) {}
};

// A host batch on the rank's device (see toDevice).
inline Batch batchOn(const torch::Device& device, bool pin, Batch b) {
    b.input = toDevice(b.input, device, pin);
    b.target = toDevice(b.target, device, pin);
    return b;
}

std::unique_ptr<StepEngine> makeDataParallelEngine(EngineContext& ctx);
std::unique_ptr<StepEngine> makePipelineEngine(EngineContext& ctx);

// A line for the job's log, printed by the ranks that should say it.
void trainerLog(bool speak, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

} // namespace studio::train
