// Shows a job that this process follows until it ends: a live progress line on a terminal,
// status transitions otherwise, and with logs every rank's lines tagged [node,rank]<stream>.
// Ctrl-C stops the job gracefully, or for `mlstudio attach` leaves it running.
#pragma once

#include "engine/control/controller.h"

#include <memory>
#include <string>

namespace studio::cli {

struct FollowOptions {
    bool streamLogs = false;
    bool quiet = false;
    bool interruptDetaches = false; // Ctrl-C: stop following, the job goes on
};

class JobFollower {
public:
    // Observes the controller from now on: create it before submitting, so no status is missed.
    JobFollower(control::Controller& controller, FollowOptions options);
    ~JobFollower();
    JobFollower(const JobFollower&) = delete;
    JobFollower& operator=(const JobFollower&) = delete;

    // Renders until the job ends (or is detached); returns the exit code of its final status
    // (kExitOk Completed, kExitStopped, kExitFailed; kExitOk when detached).
    int follow(const std::string& job);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

// The summary `mlstudio run` prints when a job ends: status, duration, metrics, reason, folder.
void printJobSummary(const std::string& home, const std::string& job);

} // namespace studio::cli
