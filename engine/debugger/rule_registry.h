// The built-in rules by SageMaker name: model rules (model_rules.cpp) and profiler rules
// (profiler_rules.cpp), built from a spec's rule entry or from parameters.
#pragma once

#include "engine/debugger/rule.h"
#include "engine/spec/job_spec.h"

#include <memory>

namespace studio::debugger {

// Throws RuleConfigError for an unknown rule or a parameter it cannot use.
std::unique_ptr<Rule> makeBuiltinRule(const std::string& name,
                                      const std::map<std::string, std::string>& parameters = {});

// nullptr when params.info() is not a model rule (resp. a profiler rule).
std::unique_ptr<Rule> makeModelRule(const RuleParams& params);
std::unique_ptr<Rule> makeProfilerRule(const RuleParams& params);

} // namespace studio::debugger
