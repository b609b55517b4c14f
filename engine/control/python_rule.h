// A custom Python rule (SageMaker's Rule.custom: an smdebug Rule class with invoke_at_step) run
// in a process of its own beside the job: `python3 -m mlstudio.debugger._rule_host` (the Python
// script jobs run with, the package found beside this program), fed the job's tensor, metric
// and step events live on its stdin as wire lines, answering on stdout with acknowledgements,
// findings and a traceback when the rule raised (the protocol is in
// python/mlstudio/debugger/_rule_host.py). The rule's own output goes to a log file of the job.
// The process ends with the job: its input closes when the job ends, and it is killed when it
// does not finish in time. One I/O thread per process; the job's thread only sees the rule.
#pragma once

#include "engine/debugger/external_rule.h"
#include "engine/spec/job_spec.h"

#include <memory>
#include <string>

namespace studio::control {

struct RuleProcessSetup {
    std::string jobName;
    std::string home;        // MLSTUDIO_HOME
    std::string debugOutput; // the job's debug-output folder (raw tensors)
    std::string logPath;     // the rule's stderr
};

class PythonRuleProcess {
public:
    // Starts the process; throws std::runtime_error naming the rule when it cannot.
    PythonRuleProcess(const spec::CustomRuleConfig& rule, RuleProcessSetup setup);
    // Ends the process (closes its input, then SIGKILL after a grace period) and its thread.
    ~PythonRuleProcess();
    PythonRuleProcess(const PythonRuleProcess&) = delete;
    PythonRuleProcess& operator=(const PythonRuleProcess&) = delete;

    // The rule the job's debugger session runs; call once.
    std::unique_ptr<debugger::Rule> makeRule();
    pid_t pid() const;

    // The event kinds a rule process is fed.
    static const std::set<std::string>& kinds();
    static constexpr double kGraceSeconds = 5;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace studio::control
