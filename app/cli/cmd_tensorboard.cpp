// mlstudio export --tensorboard and mlstudio import --tensorboard.
#include "app/cli/cli.h"
#include "app/present/terminal.h"

#include "engine/control/studio_home.h"
#include "engine/tboard/export.h"
#include "engine/tboard/import.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <unistd.h>

namespace studio::cli {

int cmdExportTensorboard(const std::string& dir, const std::string& experiment,
                         const std::vector<std::string>& jobs) {
    if (experiment.empty() && jobs.empty()) {
        std::fprintf(stderr, "mlstudio export: --tensorboard needs --experiment NAME or JOB "
                             "names\n");
        return kExitUsage;
    }
    const std::string home = control::studioHome();
    tboard::ExportOptions o;
    o.database = control::databasePath(home);
    if (std::filesystem::exists(o.database))
        settleLostJobs(home); // jobs whose studio process died export as they ended
    o.dir = dir;
    o.experiment = experiment;
    o.jobs = jobs;
    const bool lines = !present::terminalModeOf(STDERR_FILENO).interactive;
    o.progress = [&](const std::string& job, std::int64_t points) {
        std::fprintf(stderr, lines ? "%s: %lld points\n" : "\r\033[K%s: %lld points", job.c_str(),
                     static_cast<long long>(points));
        std::fflush(stderr);
    };
    const tboard::ExportSummary s = tboard::exportTensorboard(o);
    if (!lines)
        std::fprintf(stderr, "\r\033[K");
    std::printf("%d job(s), %d run(s), %lld points -> %s\n", s.jobs, s.runs,
                static_cast<long long>(s.points), dir.c_str());
    std::printf("Look at them: tensorboard --logdir %s --samples_per_plugin scalars=0\n",
                dir.c_str());
    return kExitOk;
}

int cmdImport(const ImportOptions& io) {
    tboard::ImportOptions o;
    o.database = control::databasePath(control::studioHome());
    control::makePrivateHome(control::studioHome());
    o.dir = io.tensorboard;
    o.experiment = io.experiment;
    o.rename = io.rename;
    if (!io.json)
        o.progress = [](const std::string& job, std::int64_t points) {
            std::fprintf(stderr, "%s: %lld points\n", job.c_str(), static_cast<long long>(points));
        };
    const tboard::ImportSummary s = tboard::importTensorboard(o);
    for (const auto& w : s.warnings)
        std::fprintf(stderr, "warning: %s\n", w.c_str());
    if (io.json) {
        nlohmann::json j = {
            {"jobs", s.jobs}, {"runs", s.runs}, {"points", s.points}, {"warnings", s.warnings}};
        std::printf("%s\n", j.dump().c_str());
    } else {
        std::printf("%zu job(s) from %d run(s), %lld points imported from %s\n", s.jobs.size(),
                    s.runs, static_cast<long long>(s.points), io.tensorboard.c_str());
    }
    return kExitOk;
}

} // namespace studio::cli
