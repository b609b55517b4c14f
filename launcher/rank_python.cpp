#include "launcher/rank_python.h"

#include "engine/process/atomic_file.h"
#include "engine/process/process.h"
#include "engine/process/python_root.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace studio::launcher {

namespace fs = std::filesystem;

std::string prepareRankPython(LaunchConfig& c) {
    if (c.pythonRoot.empty())
        c.pythonRoot = process::findPythonRoot(process::selfExecutable());
    // From --env-stdin, or (a Slurm job) from this process's own environment.
    std::string json;
    if (auto it = c.env.find(kHookConfigJsonVariable); it != c.env.end()) {
        json = it->second;
        c.env.erase(it);
    } else if (const char* inherited = std::getenv(kHookConfigJsonVariable)) {
        json = inherited;
    }
    ::unsetenv(kHookConfigJsonVariable); // ranks get the file, not the text
    if (json.empty())
        return {};
    const fs::path base = !c.modelDir.empty() ? fs::path(c.modelDir).parent_path()
                          : !c.workdir.empty()
                              ? fs::path(c.workdir) / ".mlstudio"
                              : fs::temp_directory_path() / ("mlstudio-" + c.runId);
    const fs::path file = base / "config" / "debughookconfig.json";
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    try {
        // Several launchers of one job on one machine write the same file; a rank never reads
        // half of it.
        process::writeFileAtomically(file.string(), json);
    } catch (const std::exception& e) {
        return "the Debugger hook's configuration cannot be written (" + std::string(e.what()) +
               "): scripts run without it";
    }
    c.hookConfigFile = file.string();
    return {};
}

} // namespace studio::launcher
