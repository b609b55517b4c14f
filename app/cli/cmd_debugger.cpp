// mlstudio findings / report: what the Debugger's rules found, and the profiler report.
#include "app/cli/cli.h"
#include "app/present/json_views.h"
#include "app/present/progress_bar.h"

#include "engine/control/studio_home.h"
#include "engine/report/profiler_report.h"
#include "engine/store/store_reader.h"

#include <algorithm>
#include <cstdio>

namespace studio::cli {

namespace {

// Rules that found issues first, then errors, then the rest, as SageMaker lists them.
int statusRank(const std::string& status) {
    if (status == "IssuesFound")
        return 0;
    if (status == "Error")
        return 1;
    if (status == "InProgress")
        return 2;
    if (status == "NoIssuesFound")
        return 3;
    return 4;
}

} // namespace

int cmdFindings(const std::string& job, bool json) {
    store::StoreReader reader(control::databasePath(control::studioHome()));
    const store::ComponentRow row = reader.resolveJob(job);
    std::vector<store::RuleStatusRow> rules = reader.ruleStatuses(row.id);
    const std::vector<store::FindingRow> findings = reader.findings(row.id);
    if (json) {
        nlohmann::ordered_json out = {{"job", row.name},
                                      {"status", row.status},
                                      {"rules", present::rulesJson(rules)},
                                      {"findings", present::findingsJson(findings)}};
        std::printf("%s\n", out.dump(2).c_str());
        return kExitOk;
    }
    std::stable_sort(rules.begin(), rules.end(), [](const auto& a, const auto& b) {
        return statusRank(a.status) < statusRank(b.status);
    });
    std::printf("Job %s (%s)\n\n", row.name.c_str(), row.status.c_str());
    if (rules.empty()) {
        std::printf("No rules ran: add \"rules\" to the spec, or leave the profiler on for "
                    "ProfilerReport's rules.\n");
        return kExitOk;
    }
    std::printf("%-26s %-9s %-14s %6s %10s  %s\n", "RULE", "KIND", "STATUS", "FIRED", "DATAPOINTS",
                "ACTIONS");
    for (const auto& r : rules)
        std::printf("%-26s %-9s %-14s %6lld %10lld  %s\n", r.rule.c_str(), r.kind.c_str(),
                    r.status.c_str(), static_cast<long long>(r.fired),
                    static_cast<long long>(r.datapoints),
                    r.actions.empty() ? "-" : r.actions.c_str());
    bool notes = false;
    for (const auto& r : rules)
        if ((r.status == "NotApplicable" || r.status == "Error") && !r.message.empty()) {
            if (!notes)
                std::printf("\n");
            notes = true;
            std::printf("%s %s: %s\n", r.rule.c_str(),
                        r.status == "Error" ? "failed" : "is not applicable", r.message.c_str());
        }
    if (findings.empty()) {
        std::printf("\nNo findings.\n");
        return kExitOk;
    }
    std::printf("\nFindings (%zu)\n", findings.size());
    for (const auto& f : findings) {
        std::string where;
        if (f.step >= 0)
            where += "step " + std::to_string(f.step);
        if (f.node >= 0)
            where += (where.empty() ? "" : ", ") + std::string("node ") + std::to_string(f.node);
        if (!f.device.empty())
            where += (where.empty() ? "" : ", ") + f.device;
        std::printf("\n  %s  %s%s%s\n", present::formatTime(f.time).c_str(), f.rule.c_str(),
                    where.empty() ? "" : "  ", where.c_str());
        std::printf("    %s\n", f.message.c_str());
        if (!f.recommendation.empty())
            std::printf("    advice: %s\n", f.recommendation.c_str());
        if (!f.criteria.empty())
            std::printf("    fires when: %s\n", f.criteria.c_str());
    }
    return kExitOk;
}

int cmdReport(const std::string& job, const std::string& outDir) {
    const std::string home = control::studioHome();
    store::StoreReader reader(control::databasePath(home));
    const store::ComponentRow row = reader.resolveJob(job);
    const std::string dir =
        outDir.empty() ? control::JobPaths::of(home, row.name).profilerOutput : outDir;
    const std::string path =
        report::writeProfilerReport(control::databasePath(home), row.name, dir);
    std::printf("%s\n", path.c_str());
    return kExitOk;
}

} // namespace studio::cli
