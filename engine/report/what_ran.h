// What ran for a job, gathered from the store and the job's folder: the controller's record of
// the code (control/source_record.h), each rank's interpreter, packages and framework versions
// (the "provenance" facts a Python rank sends), and the job's parameters. Also the comparison of
// two jobs' records that `mlstudio diff` and the window's Compare show.
#pragma once

#include "engine/store/records.h"
#include "engine/store/store_reader.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace studio::report {

struct RankProvenance {
    int node = 0;
    int rank = 0;
    nlohmann::json body; // python, packages, torch, cuda, nccl, env_names, host ...
};

struct WhatRan {
    std::string job;
    nlohmann::json source;             // null when the job has no record (older jobs)
    std::vector<RankProvenance> ranks; // by node and rank
    std::vector<store::ParameterRow> parameters;
    std::string snapshotDir;  // the copy of the source folder ("" when none)
    nlohmann::json operators; // the first rank's profiled window (top operators), or null
    std::vector<RankProvenance> logging; // per rank: points sent and dropped under back-pressure

    // The provenance of the lowest rank that sent one, or null.
    const nlohmann::json& firstRank() const;
};

// The record from a job's facts (the store's, or a ComponentDetail's), in their order; no job
// name, parameters or source copy.
WhatRan whatRanFromFacts(const std::vector<store::FactsRow>& facts);

// jobFolder: <home>/jobs/<job>, where the copy of the source folder is.
WhatRan loadWhatRan(store::StoreReader& reader, const store::ComponentRow& job,
                    const std::string& jobFolder);

// For `show --json`: {"source": ..., "ranks": [{"node", "rank", ...}], "operators": ...,
// "logging": [{"node", "rank", ...}]}.
nlohmann::json whatRanJson(const WhatRan& w);

// One line of a comparison: a field or a name and its value in each job ("" when absent).
struct Difference {
    std::string section; // "code", "runtime", "packages", "hyperparameters", "environment"
    std::string name;
    std::string a;
    std::string b;
    std::string detail; // for a changed source file: its unified diff
};

struct WhatRanDiff {
    std::vector<Difference> differences;
    bool same() const { return differences.empty(); }
    nlohmann::json toJson() const;
    // Grouped by section, as `mlstudio diff` prints it.
    std::string toText(const std::string& jobA, const std::string& jobB) const;
};

WhatRanDiff diffWhatRan(const WhatRan& a, const WhatRan& b);

} // namespace studio::report
