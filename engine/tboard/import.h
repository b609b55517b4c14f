// `mlstudio import --tensorboard`: every run of a TensorBoard log folder into the studio database
// as jobs with status Imported, browsable and comparable with native jobs.
//  - DIR/<path>/ with event files: one job named from <path> (letters, digits and hyphens);
//  - DIR/<job>/node<N>-rank<R>/ (the export's layout): one job <job>, its points on node N,
//    rank R;
//  - scalars (tensor and legacy forms) become the job's metrics with their steps and wall times;
//    an HParams session's hparams its parameters; a run that holds only an HParams experiment
//    (the export's root) is no job. A step written again later (a restarted writer) replaces
//    the earlier point, as TensorBoard shows it.
// A truncated or corrupt file imports up to its bad record, with a warning naming the file and
// the byte offset. Each job is written whole in one transaction, its status message naming its
// folder (and how its HParams sessions ended); another HParams group than the job's own is kept
// as the tag tensorboard_group.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace studio::tboard {

struct ImportOptions {
    std::string database;      // the studio database
    std::filesystem::path dir; // the TensorBoard log folder
    std::string experiment;    // "": DIR's folder name
    bool rename = false;       // a job name already taken gets -2, -3, ... instead of an error
    std::function<void(const std::string& job, std::int64_t points)> progress; // per job
};

struct ImportSummary {
    std::vector<std::string> jobs; // the names they got
    int runs = 0;
    std::int64_t points = 0;
    std::vector<std::string> warnings;
};

// Reads every run first; a name already taken (without rename) or a folder with no run:
// std::runtime_error naming it, nothing written. A database error later: std::runtime_error
// naming the job, the jobs before it imported.
ImportSummary importTensorboard(const ImportOptions& o);

// A run's relative path as a job or experiment name: letters, digits and hyphens, at most max.
std::string sanitizedName(const std::string& text, std::size_t max);

} // namespace studio::tboard
