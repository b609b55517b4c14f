// What the controller records of a job's code when the job starts (the "source" part of what
// ran): the entry point, the source folder's tree hash and per-file hashes, the git commit,
// branch and uncommitted diff when the folder is in a git work tree, and the names (never the
// values) of the job's environment variables. It also keeps a copy of the source folder's
// files in the job's folder (as SageMaker keeps sourcedir.tar.gz), so two jobs' code can be
// compared line by line later (what_ran_diff.h).
#pragma once

#include "engine/spec/job_spec.h"

#include <nlohmann/json.hpp>

#include <string>

namespace studio::control {

struct SourceLimits {
    std::size_t maxFiles = 5000;                 // files hashed and copied
    std::uintmax_t maxFileBytes = 1u << 20;      // larger files are hashed, not copied
    std::uintmax_t maxSnapshotBytes = 64u << 20; // the copy stops growing past this
    std::size_t maxGitDiffBytes = 1u << 20;      // the uncommitted diff is cut here
    double gitTimeoutSeconds = 10;
};

// The record, and the copy of the source folder into snapshotDir (created; "" for none).
// Never throws for what it cannot read: the record says what is missing.
nlohmann::json recordSource(const spec::JobSpec& spec, const std::string& snapshotDir,
                            const SourceLimits& limits = {});

// A URL without the user name or token it may carry ("https://tok@host/x" -> "https://host/x").
std::string withoutCredentials(const std::string& url);

} // namespace studio::control
