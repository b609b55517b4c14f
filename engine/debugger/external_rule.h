// A rule whose condition is evaluated outside the job's thread: a custom Python rule, whose class
// runs in a rule process beside the job (engine/control/python_rule.h). The rule queues the
// events it watches on a link; the evaluator feeds them to its process and posts findings back,
// which the rule fires on the job's thread (so the session stores them and runs the actions).
#pragma once

#include "engine/debugger/rule.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <set>

namespace studio::debugger {

// The two ends' meeting point. Thread-safe.
class ExternalRuleLink {
public:
    // Rule side (the job's thread).
    // Queues an event; calls the wake-up callback when the queue was empty. Events beyond
    // kMaxQueued are dropped and counted (a slow evaluator never stalls the job).
    void push(const wire::Event& e);
    std::vector<Finding> takeFindings();
    // The evaluator's error or detach message, "" while it works.
    std::string failure() const;
    // The job ended: no more events come. The evaluator is woken to finish its work.
    void endInput();
    // Waits until every queued event has been evaluated (and, for an evaluator that said
    // expectEnd(), until it finished after endInput()), the evaluator failed, or timeout.
    bool waitDrained(double timeoutSeconds);
    std::int64_t dropped() const;

    // Evaluator side (any thread).
    // Called when events arrive at an empty queue: the evaluator schedules a drain.
    void setWakeup(std::function<void()> wakeup);
    // Takes the queued events; call done() after evaluating them.
    std::deque<wire::Event> takeEvents();
    void done(std::size_t evaluated);
    // This evaluator has last work to do after endInput(): waitDrained waits for finished().
    void expectEnd();
    bool inputEnded() const;
    void finished();
    void post(Finding f);
    // The evaluator cannot go on (its function threw, its kernel restarted): the rule's status
    // becomes Error with this message, and later events are not queued.
    void fail(const std::string& message);

    static constexpr std::size_t kMaxQueued = 100000;

private:
    mutable std::mutex m_mutex;
    std::condition_variable m_drained;
    std::function<void()> m_wakeup;
    std::deque<wire::Event> m_events;
    std::size_t m_inFlight = 0; // taken, not yet done
    std::vector<Finding> m_findings;
    std::string m_failure;
    std::int64_t m_dropped = 0;
    bool m_expectEnd = false;
    bool m_ended = false;
    bool m_finished = false;
};

class ExternalRule : public Rule {
public:
    // kinds: the event kinds the evaluator sees (wire::kindName: "metric", "tensor", ...).
    ExternalRule(std::string name, std::string criteria, std::set<std::string> kinds,
                 std::shared_ptr<ExternalRuleLink> link);

    void onEvent(const wire::Event& e) override;
    void onTick(double now) override;
    // Gives the evaluator up to drainSeconds to catch up, then fires what it posted.
    void finish(double now) override;
    std::string criteria() const override { return m_criteria; }
    nlohmann::json details() const override;

    static constexpr double kDrainSeconds = 10;

protected:
    std::string noDataReason() const override;

private:
    void collect();

    std::string m_criteria;
    std::set<std::string> m_kinds;
    std::shared_ptr<ExternalRuleLink> m_link;
};

} // namespace studio::debugger
