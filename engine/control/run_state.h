// What a studio process needs to take over a job that another one started, stored with the job
// (trial_components.run_state) whenever it changes: the spec's base folder, the attempt and its
// clocks, and where the rendezvous is.
#pragma once

#include <cstdint>
#include <string>

namespace studio::control {

struct RunState {
    std::string baseDir; // the spec's relative paths were resolved against it
    int attempt = 1;
    double jobStart = 0;
    double attemptStart = 0;
    double runningBefore = 0;
    bool trainingStarted = false;
    bool startedRecorded = false;
    double ranksStartedAt = 0;
    std::int64_t lastCheckpointStep = -1;
    std::int64_t lostSteps = 0;
    std::string secondary = "Starting";
};

std::string runStateToJson(const RunState& s);
// Defaults for what the text lacks; nullopt-free: an unreadable text gives a default state.
RunState runStateFromJson(const std::string& text);

} // namespace studio::control
