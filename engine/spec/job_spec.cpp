#include "engine/spec/job_spec.h"

#include <cstdlib>
#include <filesystem>

namespace studio::spec {

std::string defaultPythonInterpreter() {
    if (const char* p = std::getenv("MLSTUDIO_PYTHON"); p && *p)
        return p;
    // Debian's python3-torch lives in the system interpreter, not in a user's pyenv or venv.
    if (std::filesystem::exists("/usr/bin/python3"))
        return "/usr/bin/python3";
    return "python3";
}

std::vector<std::string> JobSpec::command() const {
    switch (entryPoint.kind) {
    case EntryKind::Argv:
        return entryPoint.argv;
    case EntryKind::Script:
        if (std::filesystem::path(entryPoint.script).extension() == ".py")
            return {defaultPythonInterpreter(), entryPoint.script};
        return {entryPoint.script};
    case EntryKind::Builtin:
        return {};
    }
    return {};
}

std::vector<std::string> JobSpec::hyperparameterArgs() const {
    std::vector<std::string> args;
    for (const auto& [name, value] : hyperparameters) {
        args.push_back("--" + name);
        args.push_back(value.text);
    }
    return args;
}

} // namespace studio::spec
