// Pipeline schedules as pure plans: for p stages and m microbatches, each stage's ordered list of
// forward, backward, send and receive actions. "simple" is GPipe (all forwards, then all
// backwards); "interleaved" is 1F1B (after a warm-up, a backward whenever one is ready).
// A simulator runs a plan with buffered sends and blocking receives, so tests check that it never
// deadlocks and how many activations each stage holds at once, and a timed replay gives the bubble.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace studio::train {

enum class PipeOp { RecvActivation, Forward, SendActivation, RecvGradient, Backward, SendGradient };
const char* pipeOpName(PipeOp op);

struct PipeAction {
    PipeOp op;
    int microbatch;
};

struct PipelinePlan {
    int stages = 1;
    int microbatches = 1;
    std::vector<std::vector<PipeAction>> perStage;
};

enum class ScheduleKind { Simple, Interleaved };
ScheduleKind scheduleFromName(const std::string& pipeline); // "simple" | "interleaved"

PipelinePlan planPipeline(ScheduleKind kind, int stages, int microbatches);

struct SimulationResult {
    bool completed = false; // false: some stage waits forever (a deadlock)
    std::string blockedAt;  // every stage left waiting and for what, when it did not complete
    std::vector<int> peakInFlight; // per stage: most forwards awaiting their backward
    std::vector<double> busy;      // per stage: time computing
    double makespan = 0;           // time until the last stage finishes
    double bubbleFraction() const; // mean over stages of idle / makespan
};

// Replays a plan; forward and backward of one microbatch on one stage take the given times,
// messages arrive instantly. Sends never block; a receive waits for its message.
SimulationResult simulatePipeline(const PipelinePlan& plan, double forwardTime = 1.0,
                                  double backwardTime = 2.0);
// The same with each stage's own forward and backward time per microbatch.
SimulationResult simulatePipeline(const PipelinePlan& plan, const std::vector<double>& forwardTimes,
                                  const std::vector<double>& backwardTimes);

// The bubble of GPipe and 1F1B with uniform stages: (p - 1) / (m + p - 1).
double theoreticalBubble(int stages, int microbatches);

} // namespace studio::train
