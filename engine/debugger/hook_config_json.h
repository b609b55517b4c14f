// The Debugger hook's configuration for a script job, as the rank's Python hook reads it (the
// launcher writes it to debughookconfig.json, where SageMaker's containers find theirs): the
// same plan the built-in trainer follows (hook_plan.h), the profiler's window, and whether the
// hook attaches itself to a script that does not create one.
#pragma once

#include "engine/debugger/hook_plan.h"

#include <string>

namespace studio::debugger {

// "" when the job has nothing for a hook to do: a built-in job, a hook turned off, or a script
// job with no debugger_hook_config, rules or framework profiling. localPath: the job's
// debug-output folder on the rank's host.
std::string scriptHookConfigJson(const spec::JobSpec& spec, const std::string& localPath);

} // namespace studio::debugger
