// The profiler report of a job: one self-contained HTML file (inline SVG charts, no network)
// with SageMaker's sections, built from what the studio database holds about the job.
#pragma once

#include "engine/store/store_reader.h"

#include <string>

namespace studio::report {

// The report's HTML for a job (name or unique prefix); throws std::runtime_error naming the job.
std::string renderProfilerReport(store::StoreReader& reader, const std::string& job);

// Writes <outDir>/profiler-report.html and, as SageMaker does beside it, the computed figures in
// <outDir>/profiler-reports/report.json (creating the folders); returns the HTML file's path.
// Throws std::runtime_error naming the job, the folder or the file.
std::string writeProfilerReport(const std::string& databasePath, const std::string& job,
                                const std::string& outDir);

} // namespace studio::report
