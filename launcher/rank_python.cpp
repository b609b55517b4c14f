#include "launcher/rank_python.h"

#include "engine/process/process.h"
#include "engine/process/python_root.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace studio::launcher {

namespace fs = std::filesystem;

namespace {

// Writes text to path through a temporary file and a rename: several launchers of one job on
// one machine write the same file, and a rank never reads half of it.
bool writeAtomically(const fs::path& path, const std::string& text, std::string& why) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    const fs::path tmp = path.string() + ".tmp." + std::to_string(::getpid());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        why = std::error_code(errno, std::generic_category()).message();
        return false;
    }
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            why = std::error_code(errno, std::generic_category()).message();
            ::close(fd);
            ::unlink(tmp.c_str());
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    ::close(fd);
    fs::rename(tmp, path, ec);
    if (ec) {
        why = ec.message();
        ::unlink(tmp.c_str());
        return false;
    }
    return true;
}

} // namespace

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
    std::string why;
    if (!writeAtomically(file, json, why))
        return "the Debugger hook's configuration cannot be written to " + file.string() + " (" +
               why + "): scripts run without it";
    c.hookConfigFile = file.string();
    return {};
}

} // namespace studio::launcher
