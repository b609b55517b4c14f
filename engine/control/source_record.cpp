#include "engine/control/source_record.h"

#include "engine/digest/sha256.h"
#include "engine/remote/host_executor.h"
#include "engine/remote/staging.h"

#include <filesystem>
#include <fstream>
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

std::string fileSha256(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    digest::Sha256 h;
    char buf[65536];
    while (in.read(buf, sizeof buf) || in.gcount() > 0)
        h.update(buf, static_cast<std::size_t>(in.gcount()));
    return h.hex();
}

bool skipped(const fs::path& rel) {
    for (const auto& part : rel)
        if (part == ".git" || part == "__pycache__" || part == ".ipynb_checkpoints")
            return true;
    return false;
}

// Per-file hashes of the source folder, copying what fits into snapshotDir.
json hashFiles(const fs::path& root, const std::string& snapshotDir, const SourceLimits& limits) {
    json files = json::object();
    std::vector<fs::path> paths;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        const fs::path rel = it->path().lexically_relative(root);
        if (skipped(rel)) {
            if (it->is_directory(ec))
                it.disable_recursion_pending();
            continue;
        }
        if (it->is_regular_file(ec))
            paths.push_back(rel);
    }
    std::sort(paths.begin(), paths.end());
    std::uintmax_t copied = 0;
    bool cut = paths.size() > limits.maxFiles;
    if (cut)
        paths.resize(limits.maxFiles);
    for (const fs::path& rel : paths) {
        const fs::path from = root / rel;
        files[rel.generic_string()] = fileSha256(from);
        const std::uintmax_t size = fs::file_size(from, ec);
        if (snapshotDir.empty() || ec || size > limits.maxFileBytes ||
            copied + size > limits.maxSnapshotBytes) {
            cut = cut || (!snapshotDir.empty() && !ec);
            continue;
        }
        const fs::path to = fs::path(snapshotDir) / rel;
        fs::create_directories(to.parent_path(), ec);
        if (fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec))
            copied += size;
    }
    json out = {{"files", std::move(files)}};
    if (!snapshotDir.empty()) {
        out["snapshot_complete"] = !cut;
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
    if (!fs::is_directory(spec.sourceDir, ec)) {
        r["source_error"] = "source_dir " + spec.sourceDir + " is no folder";
        return r;
    }
    try {
        r["tree_hash"] = remote::treeHash(spec.sourceDir); // the hash staging addresses it by
    } catch (const std::exception& e) {
        r["source_error"] = e.what();
    }
    r.update(hashFiles(spec.sourceDir, snapshotDir, limits));
    if (!snapshotDir.empty())
        r["snapshot"] = "source";
    r["git"] = gitFacts(spec.sourceDir, limits);
    return r;
}

} // namespace studio::control
