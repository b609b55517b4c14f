// `mlstudio export --tensorboard`: jobs' metrics and hyperparameters from the studio database
// into a TensorBoard log folder. Layout (the importer reads it back losslessly):
//   DIR/                       the root run: the HParams experiment (every hparam and metric)
//   DIR/<job>/                 a job whose points all come from one (node, rank)
//   DIR/<job>/node<N>-rank<R>/ one run per (node, rank) of a job whose points come from several
// Each run holds one event file: the job's scalars (tag = metric name; TensorBoard stores
// 32-bit floats), its hyperparameters as an HParams session (group = the job), and how it ended.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace studio::tboard {

struct ExportOptions {
    std::string database;          // the studio database
    std::filesystem::path dir;     // the TensorBoard log folder
    std::string experiment;        // every job of this experiment, or
    std::vector<std::string> jobs; // these jobs (names or unique prefixes)
    std::function<void(const std::string& job, std::int64_t points)> progress; // per job
};

struct ExportSummary {
    int jobs = 0;
    int runs = 0;
    std::int64_t points = 0;
};

// Checks every job first (an unknown job or experiment, a run folder that already holds event
// files: std::runtime_error naming it, nothing written), then writes.
ExportSummary exportTensorboard(const ExportOptions& o);

// hparams.Status of a studio status: Completed 1 (success), Failed 2 (failure), InProgress 3
// (running), anything else 0 (unknown: Stopped has no TensorBoard status of its own).
int sessionStatusOf(const std::string& status);

} // namespace studio::tboard
