// What the controller records of a job's code when the job starts (the "source" part of what
// ran): the entry point; the source folder's per-file hashes and a hash over them (bounded:
// virtual environments, build trees and caches are left out, and past the limits below a file
// is recorded by its size and time); the git commit, branch and uncommitted diff when the folder
// is in a git work tree; the names (never the values) of the job's environment variables. It
// also keeps a copy of the source folder's small files in the job's folder (as SageMaker keeps
// sourcedir.tar.gz), so two jobs' code can be compared line by line later
// (engine/report/what_ran.h).
#pragma once

#include "engine/spec/job_spec.h"

#include <nlohmann/json.hpp>

#include <string>

namespace studio::control {

struct SourceLimits {
    std::size_t maxWalk = 20000;                  // entries of source_dir looked at
    std::size_t maxFiles = 5000;                  // files recorded
    std::uintmax_t maxFileBytes = 1u << 20;       // larger files: size and time, not a hash
    std::uintmax_t maxHashBytes = 32u << 20;      // bytes hashed in all
    std::uintmax_t maxCopyFileBytes = 256u << 10; // larger files are not copied
    std::uintmax_t maxSnapshotBytes = 16u << 20;  // the copy stops growing past this
    std::size_t maxCopyFiles = 2000;
    std::size_t maxGitDiffBytes = 1u << 20; // the uncommitted diff is cut here
    double gitTimeoutSeconds = 10;
};

// The record, and the copy of the source folder into snapshotDir (created; "" for none).
// Never throws for what it cannot read: the record says what is missing.
nlohmann::json recordSource(const spec::JobSpec& spec, const std::string& snapshotDir,
                            const SourceLimits& limits = {});

// A URL without the user name or token it may carry ("https://tok@host/x" -> "https://host/x").
std::string withoutCredentials(const std::string& url);

} // namespace studio::control
