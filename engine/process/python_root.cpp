#include "engine/process/python_root.h"

#include <filesystem>
#include <system_error>

namespace studio::process {

namespace fs = std::filesystem;

std::string findPythonRoot(const std::string& exePath) {
    if (exePath.empty())
        return {};
    std::error_code ec;
    const fs::path up = fs::path(exePath).parent_path().parent_path();
    for (const fs::path& root :
         {up / "lib" / "python3" / "dist-packages", up / "python3" / "dist-packages"})
        if (fs::is_regular_file(root / "mlstudio" / "_boot" / "sitecustomize.py", ec))
            return fs::weakly_canonical(root, ec).string();
    return {};
}

std::string rankPythonPath(const std::string& root, const std::string& inherited) {
    std::string path = root + "/mlstudio/_boot:" + root;
    if (!inherited.empty())
        path += ":" + inherited;
    return path;
}

} // namespace studio::process
