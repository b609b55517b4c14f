// Runs one job to its end on the calling thread: starts a launcher per node, routes their
// events into the store and to observers, applies stop requests, and records the outcome.
// Internal to engine/control; the Controller owns runners and their threads.
#pragma once

#include "engine/control/job_observer.h"
#include "engine/control/placement.h"
#include "engine/control/studio_home.h"
#include "engine/debugger/rule.h"
#include "engine/spec/job_spec.h"
#include "engine/store/store_writer.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace studio::control {

// A rule from outside the spec (a notebook's Rule.custom) and its actions ("StopTraining",
// "Notify"). make is called once, when the job's rules start.
struct CustomRule {
    std::function<std::unique_ptr<debugger::Rule>()> make;
    std::vector<std::string> actions;
};

struct RunnerContext {
    std::string home;
    std::string jobName;
    store::ComponentId id = 0;
    spec::JobSpec spec;
    JobPaths paths;
    LaunchPaths launch;
    store::StoreWriter* writer = nullptr;
    std::function<void(const JobStatusUpdate&)> onStatus;
    std::function<void(const wire::Event&)> onEvent;
    std::function<void(const JobNotification&)> onNotification;
    double graceSeconds = 10;
    std::string imdsEndpoint; // spot jobs: the instance metadata endpoint to poll (empty: none)
    std::vector<CustomRule> customRules;
};

struct JobProgress {
    std::int64_t step = -1;
    std::int64_t total = -1;
};

class JobRunner {
public:
    explicit JobRunner(RunnerContext ctx);
    ~JobRunner();
    JobRunner(const JobRunner&) = delete;
    JobRunner& operator=(const JobRunner&) = delete;

    void run();

    // Thread-safe. secondary: "Stopped" (user), "MaxRuntimeExceeded", ...; false once ended.
    bool requestStop(const std::string& reason, const std::string& secondary = "Stopped");
    // Thread-safe. A manual spot interruption notice (mlstudio interrupt, the studio's Interrupt
    // action): the ranks get SIGTERM, the job waits for capacity and resumes from its newest
    // checkpoint. False when the job is not a spot job or has ended.
    bool requestInterrupt(const std::string& reason);
    bool ended() const { return m_ended.load(); }
    std::string finalStatus() const;
    JobProgress progress() const;
    const std::string& name() const;
    store::ComponentId id() const;

private:
    void startDebugger();
    void launchAttempt();
    void superviseAttempt();
    // Spot: interruption notices and the max_run / max_wait clocks (spot_attempts.cpp).
    void checkInterruptions(double now);
    void checkClocks(double now);
    // Records the attempt's running segment; true when a spot interruption ended it and the
    // job goes on with another attempt.
    bool endAttempt(double now);
    // Waits for capacity before the next attempt; false when the job was stopped meanwhile.
    bool waitForCapacity();
    void serveControl();
    void handleLauncherLine(struct LauncherProc& l, bool isStderr, const std::string& line);
    void decideOutcome(std::string& status, std::string& secondary, std::string& reason);
    void finish(const std::string& status, const std::string& secondary, const std::string& reason);

    struct State;
    std::unique_ptr<State> d;
    std::atomic<bool> m_ended{false};
    double m_jobStart = 0;
    double m_attemptStart = 0;
    double m_runningBefore = 0; // Σ running seconds of the attempts that have ended
};

} // namespace studio::control
