#include "engine/tboard/import.h"

#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"
#include "engine/tboard/event_file.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <stdexcept>

namespace studio::tboard {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kJobNameMax = 63;
constexpr std::size_t kExperimentNameMax = 120;

struct RunData {
    fs::path dir;
    int node = 0, rank = 0;
    std::map<std::string, std::vector<store::MetricPoint>> series; // by tag, steps ascending
    std::optional<SessionStart> session;
    std::optional<int> endStatus;
    double endTime = 0;
    std::int64_t points = 0;
};

struct JobData {
    std::string key; // the run's path under DIR ("" for DIR itself)
    std::string name;
    std::vector<RunData> runs;
};

// TensorBoard's rule for a step that goes back (a writer restarted from a checkpoint): the
// points at that step and after it are dropped, the new ones kept.
void addPoint(std::vector<store::MetricPoint>& s, const ScalarPoint& p, std::int64_t& count) {
    while (!s.empty() && s.back().step >= p.step) {
        s.pop_back();
        --count;
    }
    s.push_back({p.step, p.wallTime, p.value, 0, 0});
    ++count;
}

RunData readRun(const fs::path& dir, std::vector<std::string>& warnings) {
    RunData run;
    run.dir = dir;
    for (const auto& file : eventFilesIn(dir)) {
        EventFileReader reader(file);
        for (;;) {
            auto b = reader.poll();
            for (const auto& p : b.scalars)
                addPoint(run.series[p.tag], p, run.points);
            if (b.session)
                run.session = std::move(b.session);
            if (b.sessionEndStatus) {
                run.endStatus = b.sessionEndStatus;
                run.endTime = b.sessionEndTime;
            }
            if (b.records == 0 || reader.failed())
                break;
        }
        if (reader.failed())
            warnings.push_back(reader.error() + "; the records before it were imported");
        else if (const auto size = fs::file_size(file); size > reader.offset())
            warnings.push_back(file.string() + ": truncated at byte " +
                               std::to_string(reader.offset()) + " of " + std::to_string(size) +
                               "; the records before it were imported");
    }
    return run;
}

std::vector<fs::path> runFolders(const fs::path& dir) {
    std::vector<fs::path> out;
    if (!eventFilesIn(dir).empty())
        out.push_back(dir);
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_directory(ec) && !eventFilesIn(it->path()).empty())
            out.push_back(it->path());
    if (ec)
        throw std::runtime_error("cannot read " + dir.string() + ": " + ec.message());
    std::sort(out.begin(), out.end());
    return out;
}

// Groups runs into jobs: node<N>-rank<R> folders join their parent's job.
std::vector<JobData> collectJobs(const fs::path& dir, std::vector<std::string>& warnings,
                                 int& runCount) {
    static const std::regex rankFolder("node([0-9]+)-rank([0-9]+)");
    std::map<std::string, JobData> jobs;
    for (const auto& folder : runFolders(dir)) {
        RunData run = readRun(folder, warnings);
        if (run.series.empty() && !run.session)
            continue; // an experiment summary (the export's root) or nothing TensorBoard shows
        ++runCount;
        fs::path rel = folder.lexically_relative(dir);
        if (rel == ".")
            rel.clear();
        std::smatch m;
        const std::string leaf = rel.filename().string();
        if (rel.has_parent_path() && std::regex_match(leaf, m, rankFolder)) {
            run.node = std::stoi(m[1]);
            run.rank = std::stoi(m[2]);
            rel = rel.parent_path();
        }
        JobData& job = jobs[rel.generic_string()];
        job.key = rel.generic_string();
        job.runs.push_back(std::move(run));
    }
    std::vector<JobData> out;
    for (auto& [key, job] : jobs)
        out.push_back(std::move(job));
    return out;
}

void nameJobs(std::vector<JobData>& jobs, const fs::path& dir, const std::string& database,
              bool rename) {
    store::StoreReader reader(database);
    std::set<std::string> taken;
    const std::string folder = fs::absolute(dir).lexically_normal().filename().string();
    for (auto& job : jobs) {
        const std::string base = sanitizedName(job.key.empty() ? folder : job.key, kJobNameMax);
        std::string name = base;
        for (int n = 2; taken.count(name) || reader.component(name); ++n) {
            if (!rename)
                throw std::runtime_error("a job named " + name + " exists (from " +
                                         (dir / job.key).string() +
                                         "); pass --rename to import it as " + base + "-2");
            const std::string suffix = "-" + std::to_string(n);
            name = base.substr(0, kJobNameMax - suffix.size()) + suffix;
        }
        taken.insert(name);
        job.name = name;
    }
}

store::ParameterRow parameterOf(const std::string& name, const HParamValue& v) {
    store::ParameterRow p;
    p.name = name;
    if (const auto* d = std::get_if<double>(&v)) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.15g", *d); // the shortest text that reads back the same
        if (std::strtod(buf, nullptr) != *d)
            std::snprintf(buf, sizeof buf, "%.17g", *d);
        p.value = buf;
        p.number = *d;
    } else if (const auto* b = std::get_if<bool>(&v)) {
        p.value = *b ? "true" : "false";
    } else {
        p.value = std::get<std::string>(v);
    }
    return p;
}

// The job's first and last time: its session's start, its points, its session's end.
std::pair<double, double> timeSpan(const JobData& job) {
    double first = INFINITY, last = 0;
    for (const auto& run : job.runs) {
        if (run.session && run.session->startTime > 0)
            first = std::min(first, run.session->startTime);
        for (const auto& [tag, points] : run.series)
            for (const auto& p : points) {
                first = std::min(first, p.time);
                last = std::max(last, p.time);
            }
        last = std::max(last, run.endTime);
    }
    if (!std::isfinite(first))
        first = last;
    return {first, std::max(first, last)};
}

// HParams' session end status (api.proto's Status) in words.
std::string endStatusText(int status) {
    switch (status) {
    case 1:
        return "success";
    case 2:
        return "failure";
    case 3:
        return "running";
    default:
        return "unknown";
    }
}

// Where the job came from, and how its HParams sessions said they ended.
std::string statusMessageOf(const JobData& job, const fs::path& dir) {
    std::string m = "imported from " + fs::absolute(dir / job.key).lexically_normal().string();
    std::set<std::string> ends;
    for (const auto& run : job.runs)
        if (run.endStatus)
            ends.insert(endStatusText(*run.endStatus));
    for (const auto& e : ends)
        m += (e == *ends.begin() ? "; the TensorBoard session ended: " : ", ") + e;
    return m;
}

// Each tag's points over the job's runs (ranks), in wall-time order as a live job writes them;
// moved out of the job (an import holds every point in memory once).
std::vector<store::MetricSeries> seriesOf(JobData& job) {
    std::map<std::string, std::vector<store::MetricPoint>> byTag;
    for (auto& run : job.runs)
        for (auto& [tag, points] : run.series) {
            auto& out = byTag[tag];
            for (auto& p : points) {
                p.node = run.node;
                p.rank = run.rank;
            }
            if (out.empty())
                out = std::move(points);
            else
                out.insert(out.end(), points.begin(), points.end());
            points = {};
        }
    std::vector<store::MetricSeries> out;
    for (auto& [tag, points] : byTag) {
        if (job.runs.size() > 1)
            std::stable_sort(points.begin(), points.end(),
                             [](const auto& a, const auto& b) { return a.time < b.time; });
        out.push_back({tag, std::move(points)});
    }
    return out;
}

store::NewComponent componentOf(const JobData& job, const std::string& experiment,
                                const fs::path& dir, double created) {
    store::NewComponent c;
    c.name = job.name;
    c.experiment = experiment;
    c.status = "Imported";
    c.secondaryStatus = "Imported";
    c.statusMessage = statusMessageOf(job, dir);
    c.jobDir = fs::absolute(dir / job.key).lexically_normal().string();
    c.created = created;
    std::set<int> nodes;
    std::map<int, int> ranksPerNode;
    for (const auto& run : job.runs) {
        nodes.insert(run.node);
        ++ranksPerNode[run.node];
        if (!run.session)
            continue;
        for (const auto& [name, value] : run.session->hparams)
            if (std::none_of(c.parameters.begin(), c.parameters.end(),
                             [&](const auto& p) { return p.name == name; }))
                c.parameters.push_back(parameterOf(name, value));
        // The export names a session after its job; another group is kept as a tag.
        const std::string& group = run.session->groupName;
        if (!group.empty() && group != job.key && group != job.name)
            c.tags["tensorboard_group"] = group;
    }
    c.instanceCount = static_cast<int>(nodes.size());
    for (const auto& [node, n] : ranksPerNode)
        c.processesPerHost = std::max(c.processesPerHost, n);
    c.tags["source"] = "tensorboard";
    return c;
}

// The job and all its points in one transaction: an import cut short leaves no half job.
std::int64_t writeJob(store::StoreWriter& w, JobData& job, const std::string& experiment,
                      const fs::path& dir) {
    const auto [first, last] = timeSpan(job);
    const store::NewComponent c = componentOf(job, experiment, dir, first);
    const std::vector<store::MetricSeries> series = seriesOf(job);
    w.importComponent(c, first, last, series);
    std::int64_t points = 0;
    for (const auto& s : series)
        points += static_cast<std::int64_t>(s.points.size());
    return points;
}

} // namespace

std::string sanitizedName(const std::string& text, std::size_t max) {
    std::string out;
    for (char c : text) {
        const bool alnum = std::isalnum(static_cast<unsigned char>(c)) != 0;
        if (alnum)
            out += c;
        else if (!out.empty() && out.back() != '-')
            out += '-';
    }
    if (out.size() > max)
        out.resize(max);
    while (!out.empty() && out.back() == '-')
        out.pop_back();
    return out.empty() ? "run" : out;
}

ImportSummary importTensorboard(const ImportOptions& o) {
    if (!fs::is_directory(o.dir))
        throw std::runtime_error("no folder " + o.dir.string());
    ImportSummary sum;
    std::vector<JobData> jobs = collectJobs(o.dir, sum.warnings, sum.runs);
    if (jobs.empty())
        throw std::runtime_error(o.dir.string() + " holds no TensorBoard run with scalars or "
                                                  "hyperparameters (no *tfevents* file)");
    nameJobs(jobs, o.dir, o.database, o.rename);
    const std::string experiment = sanitizedName(
        o.experiment.empty() ? fs::absolute(o.dir).lexically_normal().filename().string()
                             : o.experiment,
        kExperimentNameMax);
    store::StoreWriter w(o.database);
    for (auto& job : jobs) {
        const std::int64_t points = writeJob(w, job, experiment, o.dir);
        sum.jobs.push_back(job.name);
        sum.points += points;
        if (o.progress)
            o.progress(job.name, points);
    }
    w.flush();
    if (const std::string e = w.lastError(); !e.empty())
        throw std::runtime_error("the studio database refused the import: " + e);
    return sum;
}

} // namespace studio::tboard
