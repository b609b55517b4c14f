#include "engine/spec/job_spec.h"

#include <cstdlib>
#include <filesystem>

// The build gives STUDIO_PYTHON (CMake's cache variable); builds that compile this file on their
// own (the fuzz targets) get Debian's.
#ifndef STUDIO_PYTHON
#define STUDIO_PYTHON "/usr/bin/python3"
#endif

namespace studio::spec {

std::string defaultPythonInterpreter() {
    if (const char* p = std::getenv("MLSTUDIO_PYTHON"); p && *p)
        return p;
    // The build's Python: Debian's (python3-torch) or the wheel build's virtual environment.
    if (std::filesystem::exists(STUDIO_PYTHON))
        return STUDIO_PYTHON;
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
