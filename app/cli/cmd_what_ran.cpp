// What ran: `mlstudio diff JOB_A JOB_B` and the "what ran" part of `show` (engine/report/
// what_ran.h has the record and the comparison).
#include "app/cli/cli.h"

#include "engine/control/studio_home.h"
#include "engine/report/what_ran.h"
#include "engine/store/store_reader.h"

#include <cstdio>

namespace studio::cli {

report::WhatRan whatRanOf(store::StoreReader& reader, const store::ComponentRow& row) {
    const control::JobPaths paths = control::JobPaths::of(control::studioHome(), row.name);
    return report::loadWhatRan(reader, row, paths.root);
}

void printWhatRan(const report::WhatRan& w) {
    const auto& s = w.source;
    if (!s.is_object() && w.ranks.empty())
        return;
    std::printf("\nWhat ran\n");
    if (s.is_object()) {
        std::printf("  entry point   %s\n", s.value("entry_point", std::string()).c_str());
        if (s.contains("tree_hash"))
            std::printf("  source        %s (tree sha256 %s)\n",
                        s.value("source_dir", std::string()).c_str(),
                        s.value("tree_hash", std::string()).substr(0, 16).c_str());
        if (s.contains("git") && s["git"].is_object()) {
            const auto& g = s["git"];
            std::printf("  git           %s @ %s%s\n", g.value("branch", std::string()).c_str(),
                        g.value("commit", std::string()).substr(0, 12).c_str(),
                        g.value("dirty", false) ? ", with uncommitted changes" : ", clean");
        }
    }
    for (const auto& r : w.ranks) {
        const auto& b = r.body;
        std::string line = "python " + b.value("python", std::string("?"));
        if (b.contains("torch") && b["torch"].is_string())
            line += ", torch " + b["torch"].get<std::string>();
        if (b.contains("cuda") && b["cuda"].is_string())
            line += ", CUDA " + b["cuda"].get<std::string>();
        if (b.contains("packages") && b["packages"].is_object())
            line += ", " + std::to_string(b["packages"].size()) + " packages";
        std::printf("  rank %-8d %s (%s)\n", r.rank, line.c_str(),
                    b.value("host", std::string()).c_str());
    }
}

int cmdDiff(const std::string& jobA, const std::string& jobB, bool json) {
    auto reader = openReader();
    const store::ComponentRow a = reader.resolveJob(jobA);
    const store::ComponentRow b = reader.resolveJob(jobB);
    const report::WhatRanDiff diff =
        report::diffWhatRan(whatRanOf(reader, a), whatRanOf(reader, b));
    if (json) {
        auto out = diff.toJson();
        out["a"] = a.name;
        out["b"] = b.name;
        std::printf("%s\n",
                    out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    } else {
        const std::string text = diff.toText(a.name, b.name);
        std::fwrite(text.data(), 1, text.size(), stdout);
    }
    return kExitOk;
}

} // namespace studio::cli
