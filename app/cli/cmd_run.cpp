// mlstudio run / validate: a job in this process, with a live progress line.
#include "app/cli/cli.h"
#include "app/cli/job_follower.h"

#include "engine/control/controller.h"
#include "engine/spec/mpi_launch.h"
#include "engine/spec/spec_parser.h"

#include <cstdio>
#include <regex>

namespace studio::cli {

namespace {

void printErrors(const std::vector<spec::SpecError>& errors) {
    for (const auto& e : errors)
        std::fprintf(stderr, "%s\n", e.text().c_str());
}

// SageMaker's rule for training job names: 1-63 letters, digits and hyphens, starting and ending
// with a letter or digit.
bool validJobName(const std::string& name) {
    static const std::regex pattern("[A-Za-z0-9](-*[A-Za-z0-9]){0,62}");
    return std::regex_match(name, pattern);
}

} // namespace

int cmdValidate(const std::string& specPath, const std::vector<std::string>& overrides) {
    auto result = spec::parseSpecFile(specPath, overrides);
    if (!result.ok()) {
        printErrors(result.errors);
        return kExitUsage;
    }
    const spec::RankLauncher launcher = spec::rankLauncher(*result.spec);
    std::printf("ok\nranks: %s: %s\n", launcher.name.c_str(), launcher.reason.c_str());
    return kExitOk;
}

int cmdRun(const RunOptions& o) {
    if (!o.jobName.empty() && !validJobName(o.jobName)) {
        std::fprintf(stderr,
                     "--job-name: 1 to 63 letters, digits and hyphens, starting and ending with "
                     "a letter or digit, got \"%s\"\n",
                     o.jobName.substr(0, 80).c_str());
        return kExitUsage;
    }
    auto result = spec::parseSpecFile(o.specPath, o.overrides);
    if (!result.ok()) {
        printErrors(result.errors);
        return kExitUsage;
    }
    const spec::JobSpec& spec = *result.spec;
    control::Controller controller;
    FollowOptions fo;
    fo.streamLogs = o.streamLogs;
    fo.quiet = o.quiet;
    JobFollower follower(controller, fo);
    control::SubmittedJob job;
    try {
        job = controller.submit(spec, {}, o.jobName);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mlstudio: %s\n", e.what());
        return kExitFailed;
    }
    if (!o.quiet)
        std::fprintf(stderr, "Job %s: %d node%s x %d process%s per host%s\n", job.name.c_str(),
                     spec.instanceCount, spec.instanceCount > 1 ? "s" : "",
                     spec.distribution.processesPerHost,
                     spec.distribution.processesPerHost > 1 ? "es" : "",
                     spec.cluster == "local" ? "" : (" on cluster " + spec.cluster).c_str());
    return follower.follow(job.name);
}

} // namespace studio::cli
