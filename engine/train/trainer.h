// The built-in trainer: data-parallel training of a built-in model with bucketed gradient
// all-reduce, periodic evaluation, atomic checkpoints with resume, and events for the studio.
#pragma once

#include "engine/train/event_writer.h"
#include "engine/train/trainer_config.h"

#include <atomic>
#include <cstdint>
#include <string>

namespace studio::train {

// studio-train's exit codes.
inline constexpr int kTrainOk = 0;
inline constexpr int kTrainError = 1;
inline constexpr int kTrainBadConfig = 2;
// SIGTERM: the step in flight was finished and checkpointed; run again to resume (EX_TEMPFAIL).
inline constexpr int kTrainInterrupted = 75;

struct TrainResult {
    std::int64_t steps = 0;        // optimizer steps taken in total (resumed ones included)
    std::int64_t resumedFrom = -1; // the checkpoint's step, or -1
    double lastLoss = 0;           // rank 0's training loss of the last step
    double evalLoss = 0;
    double evalAccuracy = 0;
    double samplesPerSecond = 0; // global, over this run's steps
    bool interrupted = false;
};

// Runs to the end (or until stop turns true on any rank); throws std::runtime_error with a
// message naming the rank and what failed.
TrainResult train(const TrainerConfig& config, const RankEnvironment& env, EventWriter& events,
                  const std::atomic<bool>& stop);

} // namespace studio::train
