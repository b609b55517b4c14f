// Jobs written through the real StoreWriter for the Experiments browser's tests: a compact way to
// say "this job, in this experiment and trial, with these parameters, metric series and tags".
#pragma once

#include "engine/store/store_writer.h"

#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace studio::testing {

struct JobSeed {
    std::string name;
    std::string experiment; // empty: Unassigned
    std::string trial;
    std::string status = "Completed";
    std::map<std::string, std::string> parameters;      // numbers are stored as numbers
    std::map<std::string, std::vector<double>> metrics; // one point per step
    std::map<std::string, std::string> tags;
    std::string notes;
    std::string instanceType = "local";
    int instanceCount = 1;
    int processesPerHost = 1;
    double durationSeconds = 60;
};

inline std::optional<double> numberOf(const std::string& s) {
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size())
        return std::nullopt;
    return v;
}

// Creates the jobs in order, one second apart from `created`; returns their ids.
inline std::vector<store::ComponentId>
writeJobs(store::StoreWriter& w, const std::vector<JobSeed>& jobs, double created = 1.7e9) {
    std::vector<store::ComponentId> ids;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        const JobSeed& j = jobs[i];
        store::NewComponent c;
        c.name = j.name;
        c.experiment = j.experiment;
        c.trial = j.trial;
        c.created = created + static_cast<double>(i);
        c.instanceType = j.instanceType;
        c.instanceCount = j.instanceCount;
        c.processesPerHost = j.processesPerHost;
        c.tags = j.tags;
        for (const auto& [k, v] : j.parameters)
            c.parameters.push_back({k, v, numberOf(v)});
        const store::ComponentId id = w.createComponent(c);
        ids.push_back(id);
        const double start = c.created + 1;
        w.setStarted(id, start);
        for (const auto& [metric, values] : j.metrics)
            for (std::size_t s = 0; s < values.size(); ++s)
                w.addMetric(id, metric,
                            {static_cast<std::int64_t>(s), start + static_cast<double>(s),
                             values[s], 0, 0});
        if (j.status != "InProgress") {
            w.setStatus(id, j.status, j.status == "Completed" ? "Completed" : j.status, "",
                        start + j.durationSeconds);
            w.setEnded(id, start + j.durationSeconds);
        }
        if (!j.notes.empty())
            w.setNotes(id, j.notes);
    }
    w.flush();
    return ids;
}

} // namespace studio::testing
