#include "engine/train/checkpoint_files.h"

#include "engine/digest/sha256.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace studio::train {

namespace fs = std::filesystem;

CheckpointFiles::CheckpointFiles(std::string dir, int keep)
    : m_dir(std::move(dir))
    , m_keep(keep) {
    fs::create_directories(m_dir);
}

namespace {
std::string baseName(std::int64_t step, const std::string& tag) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "ckpt-%09lld-", static_cast<long long>(step));
    return buf + tag;
}
} // namespace

CheckpointInfo CheckpointFiles::write(std::int64_t step, std::int64_t epoch, const std::string& tag,
                                      const std::string& payload) {
    CheckpointInfo info;
    info.step = step;
    info.epoch = epoch;
    info.tag = tag;
    info.path = (fs::path(m_dir) / (baseName(step, tag) + ".pt")).string();
    info.sha256 = digest::sha256Hex(payload);
    info.bytes = static_cast<std::int64_t>(payload.size());
    writeFileAtomically(info.path, payload);
    nlohmann::json manifest = {{"step", step},
                               {"epoch", epoch},
                               {"tag", tag},
                               {"file", fs::path(info.path).filename().string()},
                               {"sha256", info.sha256},
                               {"bytes", info.bytes}};
    writeFileAtomically((fs::path(m_dir) / (baseName(step, tag) + ".json")).string(),
                        manifest.dump(2));

    auto all = list(tag);
    for (std::size_t i = static_cast<std::size_t>(m_keep); i < all.size(); ++i) {
        std::error_code ec;
        fs::remove(all[i].path, ec);
        fs::remove(fs::path(m_dir) / (baseName(all[i].step, tag) + ".json"), ec);
    }
    return info;
}

namespace {
bool isInteger(const nlohmann::json& j, const char* key) {
    return j.contains(key) && j[key].is_number_integer();
}
} // namespace

std::optional<CheckpointInfo> manifestEntry(const nlohmann::json& j, const std::string& tag,
                                            std::string& why) {
    if (!j.is_object() || !isInteger(j, "step") || !j.contains("file") || !j["file"].is_string() ||
        !j.contains("sha256") || !j["sha256"].is_string()) {
        why = "is unreadable (needs an integer step, a string file and a string sha256)";
        return std::nullopt;
    }
    for (const char* key : {"epoch", "bytes"})
        if (j.contains(key) && !isInteger(j, key)) {
            why = std::string("has a ") + key + " that is not an integer";
            return std::nullopt;
        }
    const std::string file = j["file"].get<std::string>();
    // Confined to the checkpoint folder: a bare file name, never a path or a link upwards.
    if (file.empty() || file == "." || file == ".." || file.find('/') != std::string::npos ||
        file.find('\0') != std::string::npos) {
        why = "names a file outside its folder (\"" + file.substr(0, 80) + "\")";
        return std::nullopt;
    }
    CheckpointInfo c;
    c.step = j["step"].get<std::int64_t>();
    c.epoch = j.value("epoch", std::int64_t(0));
    c.tag = tag;
    c.path = file;
    c.sha256 = j["sha256"].get<std::string>();
    c.bytes = j.value("bytes", std::int64_t(-1));
    return c;
}

std::vector<CheckpointInfo> CheckpointFiles::list(const std::string& tag,
                                                  std::vector<std::string>* warnings) const {
    std::vector<CheckpointInfo> out;
    std::error_code ec;
    const std::string suffix = "-" + tag + ".json";
    for (const auto& entry : fs::directory_iterator(m_dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("ckpt-", 0) != 0 || name.size() < suffix.size() ||
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
            continue;
        std::ifstream in(entry.path());
        std::stringstream ss;
        ss << in.rdbuf();
        auto j = nlohmann::json::parse(ss.str(), nullptr, false);
        std::string why;
        auto c = manifestEntry(j, tag, why);
        if (!c) {
            if (warnings)
                warnings->push_back("checkpoint manifest " + entry.path().string() + " " + why +
                                    "; skipped");
            continue;
        }
        c->path = (fs::path(m_dir) / c->path).string();
        out.push_back(std::move(*c));
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.step > b.step; });
    return out;
}

namespace {
// The payload when its size and SHA-256 match the manifest; else why not.
std::optional<std::string> readVerified(const CheckpointInfo& c, std::string& problem) {
    std::ifstream in(c.path, std::ios::binary);
    if (!in) {
        problem = "checkpoint at step " + std::to_string(c.step) + " (" + c.path + ") is missing";
        return std::nullopt;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    std::string payload = ss.str();
    if (c.bytes >= 0 && static_cast<std::int64_t>(payload.size()) != c.bytes) {
        problem = "checkpoint at step " + std::to_string(c.step) + " is truncated (" +
                  std::to_string(payload.size()) + " of " + std::to_string(c.bytes) + " bytes)";
        return std::nullopt;
    }
    if (digest::sha256Hex(payload) != c.sha256) {
        problem = "checkpoint at step " + std::to_string(c.step) + " is corrupt (SHA-256 mismatch)";
        return std::nullopt;
    }
    return payload;
}
} // namespace

std::int64_t CheckpointFiles::newestValidStep(const std::string& tag,
                                              std::vector<std::string>& warnings) const {
    auto loaded = loadNewestValid(tag, warnings);
    return loaded ? loaded->info.step : -1;
}

LoadedCheckpoint CheckpointFiles::load(const std::string& tag, std::int64_t step) const {
    for (const auto& c : list(tag)) {
        if (c.step != step)
            continue;
        std::string problem;
        if (auto payload = readVerified(c, problem))
            return LoadedCheckpoint{c, std::move(*payload)};
        throw std::runtime_error(problem);
    }
    throw std::runtime_error("no " + tag + " checkpoint at step " + std::to_string(step) + " in " +
                             m_dir);
}

std::optional<LoadedCheckpoint>
CheckpointFiles::loadNewestValid(const std::string& tag, std::vector<std::string>& warnings) const {
    for (const auto& c : list(tag, &warnings)) {
        std::string problem;
        if (auto payload = readVerified(c, problem))
            return LoadedCheckpoint{c, std::move(*payload)};
        warnings.push_back(problem + "; falling back to an older one");
    }
    return std::nullopt;
}

} // namespace studio::train
