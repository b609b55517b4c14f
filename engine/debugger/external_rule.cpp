#include "engine/debugger/external_rule.h"

#include <chrono>

namespace studio::debugger {

// The wake-up is called with the mutex held, so once fail() returns it is never called again
// (the evaluator may be gone); it only posts a call, so it is quick and takes no lock of ours.
void ExternalRuleLink::push(const wire::Event& e) {
    std::lock_guard lock(m_mutex);
    if (!m_failure.empty())
        return;
    if (m_events.size() >= kMaxQueued) {
        ++m_dropped;
        return;
    }
    m_events.push_back(e);
    if (m_events.size() == 1 && m_wakeup)
        m_wakeup();
}

std::vector<Finding> ExternalRuleLink::takeFindings() {
    std::lock_guard lock(m_mutex);
    std::vector<Finding> out;
    out.swap(m_findings);
    return out;
}

std::string ExternalRuleLink::failure() const {
    std::lock_guard lock(m_mutex);
    return m_failure;
}

bool ExternalRuleLink::waitDrained(double timeoutSeconds) {
    std::unique_lock lock(m_mutex);
    return m_drained.wait_for(lock, std::chrono::duration<double>(timeoutSeconds), [&] {
        return !m_failure.empty() ||
               (m_events.empty() && m_inFlight == 0 && (!m_expectEnd || m_finished));
    });
}

void ExternalRuleLink::endInput() {
    std::lock_guard lock(m_mutex);
    if (m_ended)
        return;
    m_ended = true;
    if (m_wakeup && m_failure.empty())
        m_wakeup();
}

void ExternalRuleLink::expectEnd() {
    std::lock_guard lock(m_mutex);
    m_expectEnd = true;
}

bool ExternalRuleLink::inputEnded() const {
    std::lock_guard lock(m_mutex);
    return m_ended;
}

void ExternalRuleLink::finished() {
    std::lock_guard lock(m_mutex);
    m_finished = true;
    m_drained.notify_all();
}

std::int64_t ExternalRuleLink::dropped() const {
    std::lock_guard lock(m_mutex);
    return m_dropped;
}

void ExternalRuleLink::setWakeup(std::function<void()> wakeup) {
    std::lock_guard lock(m_mutex);
    m_wakeup = std::move(wakeup);
    if (!m_events.empty() && m_wakeup && m_failure.empty())
        m_wakeup();
}

std::deque<wire::Event> ExternalRuleLink::takeEvents() {
    std::lock_guard lock(m_mutex);
    std::deque<wire::Event> out;
    out.swap(m_events);
    m_inFlight += out.size();
    return out;
}

void ExternalRuleLink::done(std::size_t evaluated) {
    std::lock_guard lock(m_mutex);
    m_inFlight -= std::min(evaluated, m_inFlight);
    m_drained.notify_all();
}

void ExternalRuleLink::post(Finding f) {
    std::lock_guard lock(m_mutex);
    m_findings.push_back(std::move(f));
}

void ExternalRuleLink::fail(const std::string& message) {
    std::lock_guard lock(m_mutex);
    if (m_failure.empty())
        m_failure = message.empty() ? "the rule's evaluator stopped" : message;
    m_events.clear();
    m_wakeup = nullptr;
    m_drained.notify_all();
}

ExternalRule::ExternalRule(std::string name, std::string criteria, std::set<std::string> kinds,
                           std::shared_ptr<ExternalRuleLink> link)
    : Rule(std::move(name), RuleKind::Model)
    , m_criteria(std::move(criteria))
    , m_kinds(std::move(kinds))
    , m_link(std::move(link)) {
}

void ExternalRule::onEvent(const wire::Event& e) {
    if (m_kinds.count(wire::kindName(e.payload)) != 0) {
        countDatapoints();
        m_link->push(e);
    }
    collect();
}

void ExternalRule::onTick(double /*now*/) {
    collect();
}

void ExternalRule::finish(double now) {
    m_link->endInput();
    m_link->waitDrained(kDrainSeconds);
    collect();
    Rule::finish(now);
}

nlohmann::json ExternalRule::details() const {
    nlohmann::json kinds = nlohmann::json::array();
    for (const auto& k : m_kinds)
        kinds.push_back(k);
    return {{"custom", true}, {"kinds", kinds}, {"dropped_events", m_link->dropped()}};
}

std::string ExternalRule::noDataReason() const {
    return "the job sent none of the events this rule watches";
}

void ExternalRule::collect() {
    for (Finding& f : m_link->takeFindings())
        fire(std::move(f));
    if (status() != RuleStatus::Error) {
        if (const std::string why = m_link->failure(); !why.empty())
            setError(why);
    }
}

} // namespace studio::debugger
