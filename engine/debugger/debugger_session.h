// One job's live rule evaluation: builds the rules a spec lists (and, while the profiler is on,
// every profiler rule under ProfilerReport), feeds them the job's events, stores statuses and
// findings, and runs the rules' actions (StopTraining, Notify).
// Not thread-safe: the job's runner thread drives it.
#pragma once

#include "engine/debugger/rule.h"
#include "engine/spec/job_spec.h"
#include "engine/store/store_writer.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace studio::debugger {

struct SessionCallbacks {
    // A rule asks to stop the job; reason: "Stopped by rule <Name>".
    std::function<void(const std::string& rule, const std::string& reason)> stopTraining;
    // A rule with the Notify action fired (the notification is already stored).
    std::function<void(const std::string& rule, const std::string& message, double time)> notify;
};

class DebuggerSession {
public:
    // writer may be null (tests): nothing is stored.
    DebuggerSession(const spec::JobSpec& spec, JobFacts facts, store::StoreWriter* writer,
                    store::ComponentId id, SessionCallbacks callbacks = {});
    ~DebuggerSession();
    DebuggerSession(const DebuggerSession&) = delete;
    DebuggerSession& operator=(const DebuggerSession&) = delete;

    // Adds a rule built elsewhere (a custom rule) with its actions.
    void addRule(std::unique_ptr<Rule> rule, std::vector<std::string> actions = {});
    bool empty() const;
    std::vector<const Rule*> rules() const;

    void onEvent(const wire::Event& e);
    // Call often (every poll); rules get onTick about once a second.
    void tick(double now);
    // The job ended: last evaluation, final statuses and details stored.
    void finish(double now);

    // Findings stored per rule at most; later ones are counted in `fired` only.
    static constexpr int kMaxStoredFindings = 100;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace studio::debugger
