// Detailed step timings in the profiled window (profiler_config.framework_profile_params): per
// block forward and backward spans, data loading, communication and the optimizer, sent as
// "profile" events. Outside the window it costs one branch per block.
// Not thread-safe: the training thread owns it (autograd hooks run on that thread on CPU).
#pragma once

#include "engine/spec/job_spec.h"
#include "engine/train/event_writer.h"

#include <torch/torch.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace studio::train {

class FrameworkProfiler {
public:
    using Clock = std::chrono::steady_clock;

    // Profiles nothing unless config.frameworkProfiling. Without a range it profiles step 5 for
    // one step, as SageMaker's detailed profiling does by default.
    FrameworkProfiler(const spec::ProfilerConfig& config, EventWriter& events);

    // Decides whether this step (0-based) is profiled; returns that.
    bool beginStep(std::int64_t step);
    bool active() const { return m_active; }
    // Sends the step's events.
    void endStep();

    void span(const std::string& name, const char* category, Clock::time_point start,
              Clock::time_point end);
    // A block's forward pass; hooks its output so its backward start is seen.
    void blockForward(const std::string& name, Clock::time_point start, Clock::time_point end,
                      torch::Tensor& output);
    // A backward pass over hooked blocks ran from begin to end: one span per block.
    void backwardDone(Clock::time_point begin, Clock::time_point end);

private:
    struct Mark {
        std::string block;
        Clock::time_point at;
    };
    bool inWindow(std::int64_t step) const;

    spec::ProfilerConfig m_config;
    EventWriter& m_events;
    bool m_enabled = false;
    bool m_active = false;
    std::int64_t m_step = 0;
    std::int64_t m_pid = 0;
    std::vector<wire::ProfileEvent> m_pending;
    std::shared_ptr<std::vector<Mark>> m_marks;
};

} // namespace studio::train
