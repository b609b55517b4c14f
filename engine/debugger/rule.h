// A Debugger rule: a class that watches one job's event stream (tensors, metrics, system samples,
// step timings, framework events) and reports findings when its condition is met. The built-in
// model and profiler rules implement it with SageMaker's names and parameters; notebook code
// implements it for custom rules. Not thread-safe: the job's debugger session owns its rules.
#pragma once

#include "engine/debugger/rule_catalog.h"
#include "engine/wire/event.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace studio::debugger {

enum class RuleStatus { InProgress, NoIssuesFound, IssuesFound, Error, NotApplicable };
const char* ruleStatusName(RuleStatus s);

// One time a rule's condition was met.
struct Finding {
    double time = 0;        // unix seconds of the data that triggered it
    std::int64_t step = -1; // -1: not tied to a step
    int node = -1;          // -1: the job as a whole
    std::string device;     // "gpu0", "cpu", "rank 1", a tensor's name; "" when none
    std::string message;    // what was seen, with the figures
    std::string recommendation;
    std::string criteria; // the trigger condition in words, with the parameter values used
};

// A finding about one saved tensor: its event's time and node, the tensor's step and name.
inline Finding tensorFinding(const wire::Event& e, const wire::TensorEvent& t) {
    Finding f;
    f.time = e.t;
    f.step = t.step;
    f.node = e.node;
    f.device = t.name;
    return f;
}

// What a rule knows about its job before data arrives.
struct JobFacts {
    std::string jobName;
    double submitTime = 0;
    int nodes = 1;
    int processesPerHost = 1;
    bool builtinTrainer = false;
};

// Thrown for a parameter that cannot be used; the session sets the rule's status to Error.
struct RuleConfigError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A rule's parameters: the values a spec gave, else the catalog's defaults (SageMaker's).
class RuleParams {
public:
    explicit RuleParams(const RuleInfo& info, std::map<std::string, std::string> given = {});

    const RuleInfo& info() const { return *m_info; }
    bool has(const std::string& name) const; // given or defaulted to something other than None
    // Each throws RuleConfigError naming the rule and the parameter when the value is missing
    // (None) or is not of the asked type.
    double number(const std::string& name) const;
    std::int64_t integer(const std::string& name) const;
    bool boolean(const std::string& name) const;
    std::string text(const std::string& name) const; // "" for None
    std::pair<double, double> numberPair(const std::string& name) const;
    std::vector<std::string> list(const std::string& name) const; // comma-separated; {} for None
    std::optional<double> optionalNumber(const std::string& name) const;
    std::optional<std::int64_t> optionalInteger(const std::string& name) const;
    // "name=value, ..." in catalog order, None shown as "None".
    std::string describe() const;

private:
    std::string raw(const std::string& name) const;
    const RuleInfo* m_info;
    std::map<std::string, std::string> m_given;
};

class Rule {
public:
    Rule(std::string name, RuleKind kind);
    virtual ~Rule() = default;
    Rule(const Rule&) = delete;
    Rule& operator=(const Rule&) = delete;

    const std::string& name() const { return m_name; }
    RuleKind kind() const { return m_kind; }

    virtual void start(const JobFacts& facts) { m_facts = facts; }
    // Every event of the job, in arrival order (launcher events have rank -1).
    virtual void onEvent(const wire::Event& e) = 0;
    // About once a second while the job runs: time-based conditions and scan intervals.
    virtual void onTick(double now) { (void)now; }
    // The job has ended: a last evaluation. Afterwards status() is final: a rule still
    // InProgress becomes NoIssuesFound when it saw data, NotApplicable (with noDataReason())
    // when it saw none.
    virtual void finish(double now);
    // The rule's figures for the profiler report and `findings --json` (JSON object).
    virtual nlohmann::json details() const { return nlohmann::json::object(); }
    // The condition in words with the parameters' values; shown for every status.
    virtual std::string criteria() const = 0;
    // True when the rule itself asks to stop the job when it fires (StalledTrainingRule's
    // stop_training_on_fire), besides any StopTraining action.
    virtual bool stopsTrainingOnFire() const { return false; }

    RuleStatus status() const { return m_status; }
    const std::string& statusMessage() const { return m_statusMessage; }
    std::int64_t fired() const { return m_fired; }
    std::int64_t datapoints() const { return m_datapoints; }
    const JobFacts& facts() const { return m_facts; }
    // Findings since the last call; the session stores them and runs the rule's actions.
    std::vector<Finding> takeNewFindings();

    // Used by the session when the rule throws.
    void setError(const std::string& message);

protected:
    // The condition is met: status IssuesFound. The finding's criteria default to criteria().
    void fire(Finding f);
    void countDatapoints(std::int64_t n = 1) { m_datapoints += n; }
    void setNotApplicable(const std::string& why);
    // Why the rule had nothing to evaluate, for NotApplicable at finish.
    virtual std::string noDataReason() const { return "no data the rule reads was recorded"; }

private:
    std::string m_name;
    RuleKind m_kind;
    JobFacts m_facts;
    RuleStatus m_status = RuleStatus::InProgress;
    std::string m_statusMessage;
    std::int64_t m_fired = 0;
    std::int64_t m_datapoints = 0;
    std::vector<Finding> m_new;
};

} // namespace studio::debugger
