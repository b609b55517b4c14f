// Live updates from running jobs, for the CLI's progress bar and the GUI's adapter.
#pragma once

#include "engine/store/records.h"
#include "engine/wire/event.h"

#include <string>

namespace studio::control {

struct JobStatusUpdate {
    std::string job;
    store::ComponentId id = 0;
    std::string status;          // InProgress, Completed, Failed, Stopping, Stopped
    std::string secondaryStatus; // Starting, Downloading, Training, Uploading, ...
    std::string message;
    double time = 0;
};

// A rule with the Notify action found an issue.
struct JobNotification {
    std::string job;
    store::ComponentId id = 0;
    std::string rule;
    std::string message;
    double time = 0;
};

// Called on the job's own thread: implementations return quickly and never block or throw.
class JobObserver {
public:
    virtual ~JobObserver() = default;
    virtual void jobStatus(const JobStatusUpdate&) {}
    virtual void jobEvent(const std::string& /*job*/, store::ComponentId, const wire::Event&) {}
    virtual void jobNotification(const JobNotification&) {}
};

} // namespace studio::control
