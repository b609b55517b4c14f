// Checkpoint files: written atomically (temp file, fsync, rename) with a manifest holding the
// step and the SHA-256 of the payload; on start the newest checkpoint whose bytes match its
// manifest is chosen, falling back to older ones (and saying why) when the newest is corrupt.
#pragma once

#include "engine/process/atomic_file.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace studio::train {

struct CheckpointInfo {
    std::int64_t step = 0;
    std::int64_t epoch = 0;
    std::string tag;  // "model", or "stage1" for a pipeline stage
    std::string path; // the payload file
    std::string sha256;
    std::int64_t bytes = 0;
};

struct LoadedCheckpoint {
    CheckpointInfo info;
    std::string payload;
};

// One manifest, checked: nullopt with `why` for a field of the wrong type or a file outside
// the checkpoint folder; `path` holds the bare file name.
std::optional<CheckpointInfo> manifestEntry(const nlohmann::json& manifest, const std::string& tag,
                                            std::string& why);

class CheckpointFiles {
public:
    explicit CheckpointFiles(std::string dir, int keep = 5);

    // Writes payload and manifest atomically, then prunes all but the newest `keep`.
    CheckpointInfo write(std::int64_t step, std::int64_t epoch, const std::string& tag,
                         const std::string& payload);
    // Manifests for a tag, newest first (unreadable manifests are reported in warnings).
    std::vector<CheckpointInfo> list(const std::string& tag,
                                     std::vector<std::string>* warnings = nullptr) const;
    // The newest valid checkpoint; every one skipped is explained in warnings.
    std::optional<LoadedCheckpoint> loadNewestValid(const std::string& tag,
                                                    std::vector<std::string>& warnings) const;
    // The newest valid checkpoint's step (-1: none), checking bytes as loadNewestValid does.
    std::int64_t newestValidStep(const std::string& tag, std::vector<std::string>& warnings) const;
    // The checkpoint of exactly this step; throws std::runtime_error when it is missing or corrupt.
    LoadedCheckpoint load(const std::string& tag, std::int64_t step) const;

private:
    std::string m_dir;
    int m_keep;
};

// Writes a file so that readers see the old content or the new, never a torn one.
using process::writeFileAtomically;

} // namespace studio::train
