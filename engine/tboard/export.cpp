#include "engine/tboard/export.h"

#include "engine/store/store_reader.h"
#include "engine/tboard/event_file.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace studio::tboard {

namespace fs = std::filesystem;

namespace {

using NodeRank = std::pair<int, int>;

// One job's points by (node, rank), each point with its metric name.
struct JobSeries {
    store::ComponentRow row;
    std::vector<store::ParameterRow> parameters;
    std::map<NodeRank, std::vector<ScalarPoint>> runs;
};

// A stored parameter as the HParams plugin types it: a number, a boolean, else text.
HParamValue hparamOf(const store::ParameterRow& p) {
    if (p.number)
        return *p.number;
    if (p.value == "true" || p.value == "false")
        return p.value == "true";
    return p.value;
}

int hparamType(const HParamValue& v) {
    if (std::holds_alternative<double>(v))
        return 3; // DATA_TYPE_FLOAT64
    return std::holds_alternative<bool>(v) ? 2 : 1;
}

std::vector<store::ComponentRow> selectJobs(store::StoreReader& reader, const ExportOptions& o) {
    std::vector<store::ComponentRow> rows;
    if (!o.experiment.empty()) {
        const auto experiments = reader.experiments();
        if (std::none_of(experiments.begin(), experiments.end(),
                         [&](const auto& e) { return e.name == o.experiment; }))
            throw std::runtime_error("no experiment named " + o.experiment);
        store::ComponentFilter f;
        f.experiment = o.experiment;
        rows = reader.components(f);
    }
    for (const auto& job : o.jobs)
        rows.push_back(reader.resolveJob(job)); // throws naming the job
    if (rows.empty())
        throw std::runtime_error(o.experiment.empty()
                                     ? "name jobs or an experiment to export"
                                     : "experiment " + o.experiment + " has no jobs");
    return rows;
}

JobSeries readJob(store::StoreReader& reader, const store::ComponentRow& row) {
    JobSeries s;
    s.row = row;
    auto params = reader.parameters({row.id});
    s.parameters = std::move(params[row.id]);
    for (const auto& name : reader.metricNames(row.id))
        for (const auto& p : reader.metricPoints(row.id, name))
            s.runs[{p.node, p.rank}].push_back({name, p.step, p.time, p.value});
    if (s.runs.empty())
        s.runs[{0, 0}]; // a job without metrics still shows in the HParams table
    return s;
}

fs::path runDir(const fs::path& dir, const JobSeries& s, const NodeRank& key) {
    if (s.runs.size() <= 1)
        return dir / s.row.name;
    return dir / s.row.name /
           ("node" + std::to_string(key.first) + "-rank" + std::to_string(key.second));
}

void writeRun(const fs::path& path, const JobSeries& s, const std::vector<ScalarPoint>& points) {
    EventFileWriter w(path, {}, s.row.started > 0 ? s.row.started : s.row.created);
    SessionStart start;
    for (const auto& p : s.parameters)
        start.hparams[p.name] = hparamOf(p);
    start.groupName = s.row.name;
    start.startTime = s.row.started > 0 ? s.row.started : s.row.created;
    w.addSessionStart(start, start.startTime);
    for (const auto& p : points)
        w.addScalar(p);
    if (s.row.ended > 0)
        w.addSessionEnd(sessionStatusOf(s.row.status), s.row.ended);
}

} // namespace

int sessionStatusOf(const std::string& status) {
    if (status == "Completed")
        return 1;
    if (status == "Failed")
        return 2;
    return status == "InProgress" ? 3 : 0;
}

ExportSummary exportTensorboard(const ExportOptions& o) {
    store::StoreReader reader(o.database);
    std::vector<JobSeries> jobs;
    std::set<std::string> seen;
    for (const auto& row : selectJobs(reader, o))
        if (seen.insert(row.name).second)
            jobs.push_back(readJob(reader, row));
    for (const auto& s : jobs) // refuse before writing anything
        for (const auto& [key, points] : s.runs)
            if (!eventFilesIn(runDir(o.dir, s, key)).empty())
                throw std::runtime_error(runDir(o.dir, s, key).string() +
                                         " already holds TensorBoard event files; export into "
                                         "another folder or remove them first");
    ExportSummary sum;
    Experiment experiment;
    std::map<std::string, int> hparamTypes;
    std::set<std::string> tags;
    for (const auto& s : jobs) {
        std::int64_t points = 0;
        for (const auto& [key, series] : s.runs) {
            writeRun(runDir(o.dir, s, key), s, series);
            ++sum.runs;
            points += static_cast<std::int64_t>(series.size());
            for (const auto& p : series)
                tags.insert(p.tag);
        }
        for (const auto& p : s.parameters)
            hparamTypes.emplace(p.name, hparamType(hparamOf(p)));
        experiment.timeCreated = experiment.timeCreated > 0
                                     ? std::min(experiment.timeCreated, s.row.created)
                                     : s.row.created;
        sum.points += points;
        ++sum.jobs;
        if (o.progress)
            o.progress(s.row.name, points);
    }
    for (const auto& [name, type] : hparamTypes) {
        experiment.hparamNames.push_back(name);
        experiment.hparamTypes.push_back(type);
    }
    experiment.metricTags.assign(tags.begin(), tags.end());
    EventFileWriter root(o.dir, {}, experiment.timeCreated);
    root.addExperiment(experiment, experiment.timeCreated);
    return sum;
}

} // namespace studio::tboard
