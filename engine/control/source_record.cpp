#include "engine/control/source_record.h"

#include "engine/digest/sha256.h"
#include "engine/remote/host_executor.h"

#include <filesystem>
#include <set>
#include <system_error>
#include <vector>

namespace studio::control {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' '))
        s.pop_back();
    return s;
}

// Folders a source tree's record leaves out: version control, caches, and folders that are not
// code (a virtual environment, a CMake build tree) and can hold gigabytes.
bool leftOut(const fs::directory_entry& dir) {
    static const std::set<std::string> names = {".git",         "__pycache__", ".ipynb_checkpoints",
                                                "node_modules", ".mypy_cache", ".pytest_cache",
                                                ".tox",         ".venv"};
    std::error_code ec;
    return names.count(dir.path().filename().string()) != 0 ||
           fs::exists(dir.path() / "pyvenv.cfg", ec) ||
           fs::exists(dir.path() / "CMakeCache.txt", ec);
}

// The source folder's files (relative, sorted), walking at most limits.maxWalk entries.
std::vector<fs::path> listFiles(const fs::path& root, const SourceLimits& limits, json& notes) {
    std::vector<fs::path> paths;
    std::error_code ec;
    std::size_t walked = 0;
    for (auto it = fs::recursive_directory_iterator(root, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (++walked > limits.maxWalk) {
            notes.push_back("more than " + std::to_string(limits.maxWalk) +
                            " entries in source_dir: the rest is not recorded");
            break;
        }
        if (it->is_directory(ec) && leftOut(*it)) {
            notes.push_back("left out " + it->path().lexically_relative(root).generic_string() +
                            "/");
            it.disable_recursion_pending();
        } else if (it->is_regular_file(ec)) {
            paths.push_back(it->path().lexically_relative(root));
        }
    }
    std::sort(paths.begin(), paths.end());
    if (paths.size() > limits.maxFiles) {
        notes.push_back(std::to_string(paths.size()) + " files: the first " +
                        std::to_string(limits.maxFiles) + " are recorded");
        paths.resize(limits.maxFiles);
    }
    return paths;
}

// Per-file hashes of the source folder (a file past the hashing budget is recorded by its size
// and time instead), copying what fits into snapshotDir, and the tree's hash over them.
json hashFiles(const fs::path& root, const std::string& snapshotDir, const SourceLimits& limits) {
    json notes = json::array();
    const std::vector<fs::path> paths = listFiles(root, limits, notes);
    json files = json::object();
    std::uintmax_t hashed = 0, copied = 0;
    std::size_t copiedFiles = 0;
    bool complete = notes.empty();
    digest::Sha256 tree;
    for (const fs::path& rel : paths) {
        const fs::path from = root / rel;
        std::error_code ec;
        const std::uintmax_t size = fs::file_size(from, ec);
        std::string entry;
        if (!ec && size <= limits.maxFileBytes && hashed + size <= limits.maxHashBytes) {
            try {
                entry = digest::sha256File(from.string());
            } catch (const std::exception& e) {
                entry = std::string("unreadable: ") + e.what();
            }
            hashed += size;
        } else {
            const auto mtime = fs::last_write_time(from, ec).time_since_epoch().count();
            entry = "size " + std::to_string(ec ? 0 : size) + ", modified " + std::to_string(mtime);
        }
        const std::string name = rel.generic_string();
        tree.update(name.data(), name.size() + 1); // with its terminating NUL: names cannot run on
        tree.update(entry.data(), entry.size() + 1);
        files[name] = entry;
        if (snapshotDir.empty())
            continue;
        if (ec || size > limits.maxCopyFileBytes || copied + size > limits.maxSnapshotBytes ||
            copiedFiles >= limits.maxCopyFiles) {
            complete = false;
            continue;
        }
        const fs::path to = fs::path(snapshotDir) / rel;
        fs::create_directories(to.parent_path(), ec);
        if (fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec)) {
            copied += size;
            ++copiedFiles;
        }
    }
    json out = {{"files", std::move(files)}, {"tree_hash", tree.hex()}};
    if (!notes.empty())
        out["source_notes"] = std::move(notes);
    if (!snapshotDir.empty()) {
        out["snapshot_complete"] = complete;
        out["snapshot_bytes"] = copied;
    }
    return out;
}

json gitFacts(const std::string& dir, const SourceLimits& limits) {
    auto git = [&](std::vector<std::string> args) {
        std::vector<std::string> argv = {"git", "-C", dir};
        argv.insert(argv.end(), args.begin(), args.end());
        return remote::runLocal(argv, limits.gitTimeoutSeconds);
    };
    const remote::CommandResult top = git({"rev-parse", "--show-toplevel"});
    if (!top.ok())
        return nullptr; // not a work tree, or no git here
    json g = {{"root", trimmed(top.out)}};
    if (auto head = git({"rev-parse", "HEAD"}); head.ok())
        g["commit"] = trimmed(head.out);
    if (auto branch = git({"rev-parse", "--abbrev-ref", "HEAD"}); branch.ok())
        g["branch"] = trimmed(branch.out);
    if (auto url = git({"config", "--get", "remote.origin.url"}); url.ok())
        g["remote"] = withoutCredentials(trimmed(url.out));
    // The uncommitted changes under the source folder, as `git diff HEAD` prints them.
    const remote::CommandResult diff =
        git({"diff", "--no-color", "--no-ext-diff", "HEAD", "--", "."});
    std::string text = diff.ok() ? diff.out : std::string();
    g["dirty"] = !text.empty();
    if (text.size() > limits.maxGitDiffBytes) {
        text.resize(limits.maxGitDiffBytes);
        g["diff_truncated"] = true;
    }
    g["diff"] = text;
    if (auto untracked = git({"ls-files", "--others", "--exclude-standard", "--", "."});
        untracked.ok() && !untracked.out.empty()) {
        g["dirty"] = true;
        g["untracked"] = trimmed(untracked.out);
    }
    return g;
}

// Whether the job's code is in its source folder: a script entry point is; a command is when an
// argument names a file there ("python3 scripts/train.py", not "/bin/sh -c 'echo hi'"), so a
// spec's folder that merely holds the spec is not walked and copied for every run.
bool commandUsesFolder(const spec::JobSpec& spec) {
    if (spec.entryPoint.kind == spec::EntryKind::Script)
        return true;
    std::error_code ec;
    for (const auto& arg : spec.entryPoint.argv) {
        if (arg.empty() || arg.front() == '-')
            continue;
        const fs::path p =
            fs::path(arg).is_absolute() ? fs::path(arg) : fs::path(spec.sourceDir) / arg;
        const fs::path rel = p.lexically_normal().lexically_relative(spec.sourceDir);
        if (!rel.empty() && *rel.begin() != ".." && fs::is_regular_file(p, ec))
            return true;
    }
    return false;
}

// The script as the source folder holds it ("train.py"), else its path.
std::string scriptName(const spec::JobSpec& spec) {
    const fs::path rel = fs::path(spec.entryPoint.script).lexically_relative(spec.sourceDir);
    return rel.empty() || *rel.begin() == ".." ? spec.entryPoint.script : rel.generic_string();
}

} // namespace

std::string withoutCredentials(const std::string& url) {
    const std::size_t scheme = url.find("://");
    if (scheme == std::string::npos)
        return url;
    const std::size_t hostStart = scheme + 3;
    const std::size_t at = url.find('@', hostStart);
    const std::size_t slash = url.find('/', hostStart);
    if (at == std::string::npos || (slash != std::string::npos && at > slash))
        return url;
    return url.substr(0, hostStart) + url.substr(at + 1);
}

json recordSource(const spec::JobSpec& spec, const std::string& snapshotDir,
                  const SourceLimits& limits) {
    json r = json::object();
    if (spec.isBuiltin()) {
        r["entry_point"] = "builtin:" + spec.entryPoint.builtinModel;
    } else {
        r["entry_point"] =
            spec.entryPoint.kind == spec::EntryKind::Script ? scriptName(spec) : "command";
        r["command"] = spec.command();
    }
    json names = json::array();
    for (const auto& [k, v] : spec.environment)
        names.push_back(k);
    json secrets = json::array();
    for (const auto& [k, v] : spec.secretEnvironment)
        secrets.push_back(k);
    r["environment_names"] = std::move(names);
    r["secret_environment_names"] = std::move(secrets);
    r["studio_version"] = STUDIO_VERSION;
    if (spec.sourceDir.empty() || spec.isBuiltin())
        return r;
    r["source_dir"] = spec.sourceDir;
    std::error_code ec;
    if (!commandUsesFolder(spec)) {
        r["source_note"] = "the command names no file in source_dir: the folder is not recorded";
        return r;
    }
    if (!fs::is_directory(spec.sourceDir, ec)) {
        r["source_error"] = "source_dir " + spec.sourceDir + " is no folder";
        return r;
    }
    r.update(hashFiles(spec.sourceDir, snapshotDir, limits));
    if (!snapshotDir.empty())
        r["snapshot"] = "source";
    r["git"] = gitFacts(spec.sourceDir, limits);
    return r;
}

} // namespace studio::control
