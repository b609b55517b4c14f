#include "engine/train/framework_profiler.h"

#include <algorithm>
#include <unistd.h>

namespace studio::train {

namespace {

// Steady-clock instants as unix seconds, for events other processes read.
double unixSeconds(FrameworkProfiler::Clock::time_point t) {
    using namespace std::chrono;
    const auto sinceNow = t - FrameworkProfiler::Clock::now();
    return duration<double>((system_clock::now() + duration_cast<system_clock::duration>(sinceNow))
                                .time_since_epoch())
        .count();
}

double ms(FrameworkProfiler::Clock::time_point a, FrameworkProfiler::Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

} // namespace

FrameworkProfiler::FrameworkProfiler(const spec::ProfilerConfig& config, EventWriter& events)
    : m_config(config)
    , m_events(events)
    , m_enabled(config.frameworkProfiling && !config.disabled)
    , m_pid(::getpid())
    , m_marks(std::make_shared<std::vector<Mark>>()) {
}

bool FrameworkProfiler::inWindow(std::int64_t step) const {
    if (m_config.startUnixTime >= 0) {
        const double now = wire::nowSeconds();
        const double duration = m_config.durationSeconds >= 0 ? m_config.durationSeconds : 60;
        return now >= m_config.startUnixTime && now < m_config.startUnixTime + duration;
    }
    const std::int64_t start = m_config.startStep >= 0 ? m_config.startStep : 5;
    const std::int64_t steps = m_config.numSteps > 0 ? m_config.numSteps : 1;
    return step >= start && step < start + steps;
}

bool FrameworkProfiler::beginStep(std::int64_t step) {
    m_active = m_enabled && inWindow(step);
    m_step = step;
    m_pending.clear();
    m_marks->clear();
    return m_active;
}

void FrameworkProfiler::endStep() {
    if (!m_active)
        return;
    for (auto& e : m_pending)
        m_events.send(std::move(e));
    m_pending.clear();
    m_active = false;
}

void FrameworkProfiler::span(const std::string& name, const char* category, Clock::time_point start,
                             Clock::time_point end) {
    if (!m_active)
        return;
    m_pending.push_back(wire::ProfileEvent{name, category, m_step, unixSeconds(start),
                                           ms(start, end), m_pid, wire::Phase::Train});
}

void FrameworkProfiler::blockForward(const std::string& name, Clock::time_point start,
                                     Clock::time_point end, torch::Tensor& output) {
    if (!m_active)
        return;
    span(name, "forward", start, end);
    if (output.requires_grad()) {
        auto marks = m_marks;
        output.register_hook([marks, name](const torch::Tensor&) {
            marks->push_back(Mark{name, Clock::now()});
        });
    }
}

void FrameworkProfiler::backwardDone(Clock::time_point begin, Clock::time_point end) {
    if (!m_active)
        return;
    // The gradient of block i's output arrives when block i's backward starts; block i's
    // backward ends when the gradient of its input (block i-1's output) arrives, or when the
    // whole backward pass returns for the first block.
    std::vector<Mark> marks = *m_marks;
    std::sort(marks.begin(), marks.end(), [](const Mark& a, const Mark& b) { return a.at < b.at; });
    for (std::size_t i = 0; i < marks.size(); ++i) {
        const Clock::time_point stop = i + 1 < marks.size() ? marks[i + 1].at : end;
        span(marks[i].block, "backward", std::max(marks[i].at, begin), stop);
    }
    if (marks.empty())
        span("backward", "backward", begin, end);
    m_marks->clear();
}

} // namespace studio::train
