// mlstudio analytics: the tables behind the SDK's ExperimentAnalytics and
// HyperparameterTuningJobAnalytics DataFrames, as CSV or JSON {columns, rows}. An experiment's
// table is engine/store/analytics.h's with SageMaker's artifact columns ("<name> - MediaType",
// "<name> - Value", inputs then outputs) before Trials and Experiments, and one entry per row in
// "components" (status, times, whether it is a run: what search expressions, sort orders and
// list_runs read).
#include "app/cli/cli.h"
#include "app/cli/data_commands.h"
#include "app/present/json_views.h"

#include "engine/store/analytics.h"
#include "engine/store/tuning_analytics.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>

namespace studio::cli {

namespace {

using nlohmann::ordered_json;

bool wanted(const std::vector<std::string>& names, const std::string& name) {
    return names.empty() || std::find(names.begin(), names.end(), name) != names.end();
}

// The artifact columns of every row, inputs first, in the order they first appear.
void addArtifactColumns(store::StoreReader& reader, const std::vector<store::ComponentRow>& rows,
                        const AnalyticsQuery& q, store::AnalyticsTable& t) {
    const int trials = t.column("Trials");
    std::vector<std::string> columns;
    std::vector<std::map<std::string, std::string>> cells(rows.size());
    for (const char* kind : {"input", "output"}) {
        const bool input = std::string(kind) == "input";
        const auto& names = input ? q.inputArtifacts : q.outputArtifacts;
        for (std::size_t i = 0; i < rows.size(); ++i)
            for (const auto& a : reader.artifacts(rows[i].id)) {
                // Artifacts logged before runs said input or output count as outputs.
                if ((a.kind == "input") != input || !wanted(names, a.name))
                    continue;
                for (const auto& [suffix, value] :
                     {std::pair{" - MediaType", a.mediaType}, std::pair{" - Value", a.value}}) {
                    const std::string column = a.name + suffix;
                    if (std::find(columns.begin(), columns.end(), column) == columns.end())
                        columns.push_back(column);
                    if (!value.empty()) // no media type given: an empty cell, as SageMaker's
                        cells[i][column] = value;
                }
            }
    }
    if (columns.empty())
        return;
    t.columns.insert(t.columns.begin() + trials, columns.begin(), columns.end());
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
        std::vector<store::Cell> added;
        for (const auto& c : columns) {
            const auto it = cells[i].find(c);
            added.push_back(it == cells[i].end() ? store::Cell{} : store::Cell{it->second});
        }
        t.rows[i].insert(t.rows[i].begin() + trials, added.begin(), added.end());
    }
}

ordered_json cellJson(const store::Cell& c) {
    if (const auto* d = std::get_if<double>(&c))
        return present::numberJson(*d);
    if (const auto* s = std::get_if<std::string>(&c))
        return *s;
    return nullptr;
}

ordered_json tableJson(const store::AnalyticsTable& t) {
    ordered_json rows = ordered_json::array();
    for (const auto& r : t.rows) {
        ordered_json row = ordered_json::array();
        for (const auto& c : r)
            row.push_back(cellJson(c));
        rows.push_back(std::move(row));
    }
    return {{"columns", t.columns}, {"rows", std::move(rows)}};
}

// Each row's component: its status and times, and whether it is a Run (SageMaker's tag) rather
// than a training job.
ordered_json componentsJson(store::StoreReader& reader,
                            const std::vector<store::ComponentRow>& rows) {
    std::vector<store::ComponentId> ids;
    for (const auto& r : rows)
        ids.push_back(r.id);
    auto tags = reader.tags(ids);
    ordered_json out = ordered_json::array();
    for (const auto& r : rows)
        out.push_back({{"name", r.name},
                       {"is_run", tags[r.id]["sagemaker:trial-component-source"] == "run"},
                       {"status", r.status},
                       {"created", r.created},
                       {"started", r.started > 0 ? ordered_json(r.started) : ordered_json()},
                       {"ended", r.ended > 0 ? ordered_json(r.ended) : ordered_json()},
                       {"experiment", r.experiment},
                       {"trial", r.trial}});
    return out;
}

int printTable(const store::AnalyticsTable& t, ordered_json extra, bool json) {
    if (!json) {
        const std::string csv = store::toCsv(t);
        std::fwrite(csv.data(), 1, csv.size(), stdout);
        return kExitOk;
    }
    ordered_json out = tableJson(t);
    for (auto& [key, value] : extra.items())
        out[key] = std::move(value);
    std::printf("%s\n", out.dump().c_str());
    return kExitOk;
}

int tuningTable(store::StoreReader& reader, const AnalyticsQuery& q) {
    const auto tuning = reader.tuningJob(q.tuningJob);
    if (!tuning)
        throw std::runtime_error("no tuning job named \"" + q.tuningJob + "\"");
    return printTable(store::tuningAnalytics(reader, *tuning),
                      {{"tuning_job", tuning->name}, {"status", tuning->status}}, q.json);
}

} // namespace

int cmdAnalytics(const AnalyticsQuery& q) {
    auto reader = openReader();
    if (!q.tuningJob.empty())
        return tuningTable(reader, q);
    store::AnalyticsOptions o;
    o.experiment = q.experiment;
    o.metricNames = q.metrics;
    o.parameterNames = q.parameters;
    store::AnalyticsTable t = store::experimentAnalytics(reader, o);
    // The table's rows in its order (a component made meanwhile is read by name).
    store::ComponentFilter f;
    f.experiment = q.experiment;
    std::map<std::string, store::ComponentRow> byName;
    for (auto& r : reader.components(f))
        byName.emplace(r.name, std::move(r));
    std::vector<store::ComponentRow> rows;
    for (const auto& row : t.rows) {
        const std::string& name = std::get<std::string>(row.front());
        auto it = byName.find(name);
        if (it != byName.end())
            rows.push_back(it->second);
        else if (auto one = reader.component(name))
            rows.push_back(*one);
        else
            throw std::runtime_error("trial component " + name +
                                     " went away while its table "
                                     "was read");
    }
    addArtifactColumns(reader, rows, q, t);
    return printTable(t, {{"components", componentsJson(reader, rows)}}, q.json);
}

} // namespace studio::cli
