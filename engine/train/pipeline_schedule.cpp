#include "engine/train/pipeline_schedule.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace studio::train {

const char* pipeOpName(PipeOp op) {
    switch (op) {
    case PipeOp::RecvActivation:
        return "recv-activation";
    case PipeOp::Forward:
        return "forward";
    case PipeOp::SendActivation:
        return "send-activation";
    case PipeOp::RecvGradient:
        return "recv-gradient";
    case PipeOp::Backward:
        return "backward";
    case PipeOp::SendGradient:
        return "send-gradient";
    }
    return "?";
}

ScheduleKind scheduleFromName(const std::string& pipeline) {
    if (pipeline == "simple")
        return ScheduleKind::Simple;
    if (pipeline == "interleaved")
        return ScheduleKind::Interleaved;
    throw std::invalid_argument("pipeline must be \"simple\" or \"interleaved\", got \"" +
                                pipeline + "\"");
}

namespace {

void addForward(std::vector<PipeAction>& a, int stage, int stages, int mb) {
    if (stage > 0)
        a.push_back({PipeOp::RecvActivation, mb});
    a.push_back({PipeOp::Forward, mb});
    if (stage + 1 < stages)
        a.push_back({PipeOp::SendActivation, mb});
}

void addBackward(std::vector<PipeAction>& a, int stage, int stages, int mb) {
    if (stage + 1 < stages)
        a.push_back({PipeOp::RecvGradient, mb});
    a.push_back({PipeOp::Backward, mb});
    if (stage > 0)
        a.push_back({PipeOp::SendGradient, mb});
}

} // namespace

PipelinePlan planPipeline(ScheduleKind kind, int stages, int microbatches) {
    if (stages < 1 || microbatches < 1)
        throw std::invalid_argument("a pipeline needs at least one stage and one microbatch");
    PipelinePlan plan;
    plan.stages = stages;
    plan.microbatches = microbatches;
    plan.perStage.resize(static_cast<std::size_t>(stages));
    for (int s = 0; s < stages; ++s) {
        auto& a = plan.perStage[static_cast<std::size_t>(s)];
        if (kind == ScheduleKind::Simple) {
            for (int mb = 0; mb < microbatches; ++mb)
                addForward(a, s, stages, mb);
            for (int mb = 0; mb < microbatches; ++mb)
                addBackward(a, s, stages, mb);
            continue;
        }
        // 1F1B: stage s warms up with p - s - 1 forwards, then alternates one forward and one
        // backward, then drains the remaining backwards. At most p - s activations are alive.
        const int warmup = std::min(stages - s - 1, microbatches);
        int nextForward = 0, nextBackward = 0;
        for (; nextForward < warmup; ++nextForward)
            addForward(a, s, stages, nextForward);
        while (nextForward < microbatches) {
            addForward(a, s, stages, nextForward++);
            addBackward(a, s, stages, nextBackward++);
        }
        while (nextBackward < microbatches)
            addBackward(a, s, stages, nextBackward++);
    }
    return plan;
}

double SimulationResult::bubbleFraction() const {
    if (busy.empty() || makespan <= 0)
        return 0;
    double idle = 0;
    for (double b : busy)
        idle += makespan - b;
    return idle / (makespan * static_cast<double>(busy.size()));
}

double theoreticalBubble(int stages, int microbatches) {
    return static_cast<double>(stages - 1) / static_cast<double>(microbatches + stages - 1);
}

SimulationResult simulatePipeline(const PipelinePlan& plan, double forwardTime,
                                  double backwardTime) {
    return simulatePipeline(
        plan, std::vector<double>(static_cast<std::size_t>(plan.stages), forwardTime),
        std::vector<double>(static_cast<std::size_t>(plan.stages), backwardTime));
}

SimulationResult simulatePipeline(const PipelinePlan& plan, const std::vector<double>& forwardTimes,
                                  const std::vector<double>& backwardTimes) {
    const int p = plan.stages;
    SimulationResult r;
    r.peakInFlight.assign(static_cast<std::size_t>(p), 0);
    r.busy.assign(static_cast<std::size_t>(p), 0);
    std::vector<std::size_t> pc(static_cast<std::size_t>(p), 0);
    std::vector<double> clock(static_cast<std::size_t>(p), 0);
    std::vector<int> inFlight(static_cast<std::size_t>(p), 0);
    // (receiving stage, op, microbatch) -> the time the message became available
    std::map<std::tuple<int, int, int>, double> mailbox;
    bool progress = true;
    while (progress) {
        progress = false;
        for (int s = 0; s < p; ++s) {
            auto& actions = plan.perStage[static_cast<std::size_t>(s)];
            auto& i = pc[static_cast<std::size_t>(s)];
            auto& t = clock[static_cast<std::size_t>(s)];
            while (i < actions.size()) {
                const PipeAction& a = actions[i];
                if (a.op == PipeOp::RecvActivation || a.op == PipeOp::RecvGradient) {
                    auto key = std::make_tuple(s, static_cast<int>(a.op), a.microbatch);
                    auto it = mailbox.find(key);
                    if (it == mailbox.end())
                        break; // blocked until the peer sends
                    t = std::max(t, it->second);
                    mailbox.erase(it);
                } else if (a.op == PipeOp::SendActivation) {
                    mailbox[std::make_tuple(s + 1, static_cast<int>(PipeOp::RecvActivation),
                                            a.microbatch)] = t;
                } else if (a.op == PipeOp::SendGradient) {
                    mailbox[std::make_tuple(s - 1, static_cast<int>(PipeOp::RecvGradient),
                                            a.microbatch)] = t;
                } else if (a.op == PipeOp::Forward) {
                    const double forwardTime = forwardTimes[static_cast<std::size_t>(s)];
                    t += forwardTime;
                    r.busy[static_cast<std::size_t>(s)] += forwardTime;
                    auto& n = inFlight[static_cast<std::size_t>(s)];
                    r.peakInFlight[static_cast<std::size_t>(s)] =
                        std::max(r.peakInFlight[static_cast<std::size_t>(s)], ++n);
                } else {
                    const double backwardTime = backwardTimes[static_cast<std::size_t>(s)];
                    t += backwardTime;
                    r.busy[static_cast<std::size_t>(s)] += backwardTime;
                    --inFlight[static_cast<std::size_t>(s)];
                }
                ++i;
                progress = true;
            }
        }
    }
    r.completed = true;
    for (int s = 0; s < p; ++s) {
        const auto& actions = plan.perStage[static_cast<std::size_t>(s)];
        const auto i = pc[static_cast<std::size_t>(s)];
        if (i < actions.size()) {
            r.completed = false;
            r.blockedAt += (r.blockedAt.empty() ? "" : "; ") + std::string("stage ") +
                           std::to_string(s) + " waits at " + pipeOpName(actions[i].op) +
                           " of microbatch " + std::to_string(actions[i].microbatch);
            continue;
        }
        r.makespan = std::max(r.makespan, clock[static_cast<std::size_t>(s)]);
    }
    return r;
}

} // namespace studio::train
