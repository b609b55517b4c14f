#include "engine/control/run_state.h"

#include <nlohmann/json.hpp>

namespace studio::control {

std::string runStateToJson(const RunState& s) {
    return nlohmann::json{{"base_dir", s.baseDir},
                          {"attempt", s.attempt},
                          {"job_start", s.jobStart},
                          {"attempt_start", s.attemptStart},
                          {"running_before", s.runningBefore},
                          {"training_started", s.trainingStarted},
                          {"started_recorded", s.startedRecorded},
                          {"ranks_started_at", s.ranksStartedAt},
                          {"last_checkpoint_step", s.lastCheckpointStep},
                          {"lost_steps", s.lostSteps},
                          {"secondary", s.secondary}}
        .dump();
}

RunState runStateFromJson(const std::string& text) {
    RunState s;
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object())
        return s;
    try {
        s.baseDir = j.value("base_dir", "");
        s.attempt = j.value("attempt", 1);
        s.jobStart = j.value("job_start", 0.0);
        s.attemptStart = j.value("attempt_start", 0.0);
        s.runningBefore = j.value("running_before", 0.0);
        s.trainingStarted = j.value("training_started", false);
        s.startedRecorded = j.value("started_recorded", false);
        s.ranksStartedAt = j.value("ranks_started_at", 0.0);
        s.lastCheckpointStep = j.value("last_checkpoint_step", std::int64_t{-1});
        s.lostSteps = j.value("lost_steps", std::int64_t{0});
        s.secondary = j.value("secondary", "Starting");
    } catch (const std::exception&) {
        return RunState{};
    }
    return s;
}

} // namespace studio::control
