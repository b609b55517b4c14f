// mlstudio record: a Python Run (mlstudio.experiments) kept as a trial component. The SDK starts
// one `record` per open Run and sends its log calls as JSON lines on stdin; this process is the
// run's only writer, as `mlstudio run` is its job's, and the store's writer commits what it is
// given within a batch delay, so the window and `mlstudio list`/`metrics` see the run while it
// is open. Stdin's end without an "end" line means the Python process died: the run Failed.
#include "app/cli/cli.h"
#include "app/cli/data_commands.h"

#include "engine/control/studio_home.h"
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"
#include "engine/wire/event.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <stdexcept>
#include <unistd.h>

namespace studio::cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// SageMaker marks a Run's trial component with this tag; list_runs and `record` tell runs from
// training jobs by it.
constexpr const char* kSourceTag = "sagemaker:trial-component-source";
constexpr std::size_t kMaxReportedErrors = 20;

volatile std::sig_atomic_t g_signal = 0;

void onSignal(int signal) {
    g_signal = signal;
}

// SIGINT and SIGTERM end the wait for input (no SA_RESTART) so the run is closed as Failed;
// SIGPIPE is ignored so a reader that went away costs only the reply.
void installSignals() {
    struct sigaction sa {};
    sa.sa_handler = onSignal;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGTERM, &sa, nullptr);
    std::signal(SIGPIPE, SIG_IGN);
}

// Lines of stdin through read(2), which a signal interrupts (std::getline would retry).
class LineReader {
public:
    // False at the end of input, or once a signal arrived.
    bool next(std::string& line) {
        for (;;) {
            const auto nl = m_buffer.find('\n');
            if (nl != std::string::npos) {
                line.assign(m_buffer, 0, nl);
                m_buffer.erase(0, nl + 1);
                return true;
            }
            if (m_eof || g_signal) {
                if (m_buffer.empty() || g_signal)
                    return false;
                line.swap(m_buffer);
                m_buffer.clear();
                return true;
            }
            char chunk[65536];
            const ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
            if (n > 0)
                m_buffer.append(chunk, static_cast<std::size_t>(n));
            else if (n == 0 || errno != EINTR)
                m_eof = true;
        }
    }

private:
    std::string m_buffer;
    bool m_eof = false;
};

void checkName(const std::string& value, const char* option) {
    static const std::regex pattern("^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,119}$");
    if (!std::regex_match(value, pattern))
        throw std::invalid_argument(std::string(option) + ": \"" + value +
                                    "\" must be letters, digits and hyphens, starting and "
                                    "ending with a letter or digit");
}

// A file name made of the artifact's name (letters, digits, '.', '_', '-').
std::string fileSafe(const std::string& name) {
    std::string out;
    for (char c : name)
        out += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'
                   ? c
                   : '_';
    return out.empty() || out.front() == '.' ? "artifact" + out : out;
}

std::string stringField(const json& line, const char* key, bool required = true) {
    const auto it = line.find(key);
    if (it == line.end() || it->is_null()) {
        if (required)
            throw std::runtime_error(std::string("field \"") + key + "\" is required");
        return {};
    }
    if (!it->is_string())
        throw std::runtime_error(std::string("field \"") + key + "\" must be a string, got " +
                                 it->dump());
    return it->get<std::string>();
}

// Numbers, and the CLI's own spelling of non-finite ones ("NaN", "Infinity", "-Infinity").
double numberField(const json& line, const char* key) {
    const auto it = line.find(key);
    if (it != line.end() && it->is_number())
        return it->get<double>();
    if (it != line.end() && it->is_string()) {
        const std::string s = it->get<std::string>();
        if (s == "NaN")
            return std::nan("");
        if (s == "Infinity" || s == "-Infinity")
            return s.front() == '-' ? -HUGE_VAL : HUGE_VAL;
    }
    throw std::runtime_error(std::string("field \"") + key + "\" must be a number, got " +
                             (it == line.end() ? std::string("nothing") : it->dump()));
}

// The run being written: applies the SDK's lines to the store.
class RunRecorder {
public:
    RunRecorder(store::StoreWriter& writer, store::ComponentId id, std::string artifactDir)
        : m_writer(writer)
        , m_id(id)
        , m_artifactDir(std::move(artifactDir)) {}

    // Where each metric's next step starts when a line gives none (a reopened run goes on).
    void continueSteps(const std::map<std::string, store::MetricSummary>& summaries) {
        for (const auto& [name, s] : summaries)
            m_nextStep[name] = s.lastStep + 1;
    }

    // Applies one line; throws naming the field that is wrong. Returns false for "end".
    bool apply(const json& line) {
        if (!line.is_object())
            throw std::runtime_error("not a JSON object");
        const std::string kind = stringField(line, "kind");
        if (kind == "param")
            parameter(line);
        else if (kind == "metric")
            metric(line);
        else if (kind == "artifact" || kind == "file" || kind == "graph")
            artifact(kind, line);
        else if (kind == "end")
            return false;
        else
            throw std::runtime_error("unknown kind \"" + kind +
                                     "\" (param, metric, artifact, file, graph, end)");
        return true;
    }

private:
    void parameter(const json& line) {
        store::ParameterRow p;
        p.name = stringField(line, "name");
        const auto& value = line.contains("value") ? line["value"] : json();
        if (value.is_number()) {
            p.number = value.get<double>();
            p.value = value.dump();
        } else if (value.is_string()) {
            p.value = value.get<std::string>();
        } else {
            throw std::runtime_error("parameter " + p.name +
                                     ": value must be a number or a string, got " + value.dump());
        }
        m_writer.setParameter(m_id, p);
    }

    void metric(const json& line) {
        const std::string name = stringField(line, "name");
        if (name.empty())
            throw std::runtime_error("field \"name\" must not be empty");
        store::MetricPoint p;
        p.value = numberField(line, "value");
        std::int64_t& next = m_nextStep[name];
        p.step = line.contains("step") && !line["step"].is_null()
                     ? static_cast<std::int64_t>(numberField(line, "step"))
                     : next;
        next = std::max(next, p.step + 1);
        p.time = line.contains("time") && !line["time"].is_null() ? numberField(line, "time")
                                                                  : wire::nowSeconds();
        m_writer.addMetric(m_id, name, p);
    }

    // "artifact": a value as given; "file": a copy kept in the run's folder; "graph": its data
    // written there as JSON (a confusion matrix, a precision-recall or ROC curve).
    void artifact(const std::string& kind, const json& line) {
        store::ArtifactRow a;
        a.name = stringField(line, "name");
        if (a.name.empty())
            throw std::runtime_error("field \"name\" must not be empty");
        a.kind = line.value("is_output", true) ? "output" : "input";
        a.mediaType = stringField(line, "media_type", false);
        if (kind == "artifact") {
            a.value = stringField(line, "value");
        } else if (kind == "file") {
            const fs::path source = stringField(line, "path");
            if (!fs::is_regular_file(source))
                throw std::runtime_error("file " + source.string() + " does not exist");
            fs::create_directories(m_artifactDir);
            const fs::path copy = fs::path(m_artifactDir) / fileSafe(source.filename().string());
            fs::copy_file(source, copy, fs::copy_options::overwrite_existing);
            a.value = copy.string();
        } else {
            if (!line.contains("data"))
                throw std::runtime_error("field \"data\" is required");
            fs::create_directories(m_artifactDir);
            const fs::path file = fs::path(m_artifactDir) / (fileSafe(a.name) + ".json");
            std::ofstream out(file, std::ios::binary | std::ios::trunc);
            out << line["data"].dump() << "\n";
            if (!out.flush())
                throw std::runtime_error("cannot write " + file.string());
            a.value = file.string();
            if (a.mediaType.empty())
                a.mediaType = "application/json";
        }
        m_writer.setArtifact(m_id, a);
    }

    store::StoreWriter& m_writer;
    store::ComponentId m_id;
    std::string m_artifactDir;
    std::map<std::string, std::int64_t> m_nextStep;
};

struct OpenedRun {
    store::ComponentId id = 0;
    bool created = false;
    bool ownsStatus = false; // the status follows this process (a run's, not a training job's)
    store::ComponentRow row;
    std::vector<store::ArtifactRow> artifacts;
    std::map<std::string, store::MetricSummary> summaries;
};

// Opens the run's component: made when missing, reopened (InProgress again, as SageMaker's
// `with` does) when it is a run; a training job is logged to only with --load, and keeps its
// status. Refuses a component that a live process has open.
OpenedRun openRun(store::StoreWriter& writer, const std::string& home, const RecordOptions& o,
                  const std::string& name) {
    OpenedRun r;
    const double now = wire::nowSeconds();
    std::optional<store::ComponentRow> existing;
    {
        store::StoreReader reader(control::databasePath(home));
        existing = reader.component(name);
        if (existing) {
            r.artifacts = reader.artifacts(existing->id);
            r.summaries = reader.metricSummaries(existing->id);
            const auto tags = reader.tags(existing->id);
            const auto source = tags.find(kSourceTag);
            const bool isRun = source != tags.end() && source->second == "run";
            if (store::isLiveStatus(existing->status) && !existing->owner.empty() &&
                control::ownerAlive(existing->owner))
                throw std::runtime_error("run " + name + " is open in another process (" +
                                         existing->owner + "); close it there first");
            if (!o.load && !isRun)
                throw std::runtime_error(name + " is a training job, not a run: mlstudio "
                                                "record --load logs to it and leaves its "
                                                "status as it is");
            r.ownsStatus = isRun;
        }
    }
    if (existing) {
        r.id = existing->id;
        r.row = *existing;
        if (r.ownsStatus) {
            writer.setStatus(r.id, "InProgress", "Training", "reopened", now);
            writer.setFailureReason(r.id, "");
            writer.setEnded(r.id, 0);
            writer.setOwner(r.id, control::processOwnerId());
        }
        return r;
    }
    store::NewComponent c;
    c.name = name;
    c.displayName = o.displayName.empty() ? name : o.displayName;
    c.experiment = o.experiment;
    c.trial = o.trial;
    c.secondaryStatus = "Training";
    c.statusMessage = "opened by process " + std::to_string(::getppid());
    c.entryPoint = "mlstudio.experiments.Run";
    c.jobDir = control::JobPaths::of(home, name).root;
    c.owner = control::processOwnerId();
    c.created = now;
    c.tags[kSourceTag] = "run";
    r.id = writer.createComponent(c);
    writer.setStarted(r.id, now);
    r.created = true;
    r.ownsStatus = true;
    r.row.name = name;
    r.row.displayName = c.displayName;
    r.row.experiment = o.experiment;
    r.row.trial = o.trial;
    r.row.status = "InProgress";
    r.row.jobDir = c.jobDir;
    return r;
}

json readyJson(const OpenedRun& r, const RecordOptions& o) {
    json artifacts = {{"input", json::array()}, {"output", json::array()}};
    for (const auto& a : r.artifacts)
        artifacts[a.kind == "input" ? "input" : "output"].push_back(a.name);
    return {{"run", r.row.name},
            {"experiment", r.created ? o.experiment : r.row.experiment},
            {"trial", r.created ? o.trial : r.row.trial},
            {"display_name", r.row.displayName},
            {"created", r.created},
            {"status", r.ownsStatus ? std::string("InProgress") : r.row.status},
            {"job_dir", r.row.jobDir},
            {"artifacts", artifacts}};
}

void printLine(const json& j) {
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
}

// The options checked, the trial defaulted and the tags split; a usage message otherwise.
std::optional<std::string> checkOptions(RecordOptions& o,
                                        std::map<std::string, std::string>& tags) {
    try {
        checkName(o.experiment, "--experiment");
        checkName(o.run, "--run");
        if (o.trial.empty())
            o.trial = "Default-Run-Group-" + o.experiment;
        checkName(o.trial, "--trial");
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    for (const auto& t : o.tags) {
        const auto eq = t.find('=');
        if (eq == std::string::npos || eq == 0)
            return "--tag " + t + ": give KEY=VALUE";
        tags[t.substr(0, eq)] = t.substr(eq + 1);
    }
    return std::nullopt;
}

// What the SDK sent: how many lines, the errors of the bad ones, and its "end" line (null when
// stdin ended, or a signal came, first).
struct ReadLines {
    std::int64_t lines = 0;
    json errors = json::array();
    json end;
};

ReadLines applyLines(RunRecorder& recorder, const std::string& name) {
    ReadLines r;
    LineReader input;
    std::string text;
    while (input.next(text)) {
        if (text.empty())
            continue;
        ++r.lines;
        const json line = json::parse(text, nullptr, false);
        try {
            if (line.is_discarded())
                throw std::runtime_error("not JSON");
            if (!recorder.apply(line)) {
                r.end = line;
                break;
            }
        } catch (const std::exception& e) {
            const std::string message = "line " + std::to_string(r.lines) + ": " + e.what();
            std::fprintf(stderr, "mlstudio record: %s: %s\n", name.c_str(), message.c_str());
            if (r.errors.size() < kMaxReportedErrors)
                r.errors.push_back(message);
        }
    }
    return r;
}

// The run's final status and its message, from the end line (or its absence).
std::pair<std::string, std::string> finalStatus(ReadLines& read) {
    if (!read.end.is_object())
        return {"Failed", g_signal ? "mlstudio record was stopped by signal " +
                                         std::to_string(static_cast<int>(g_signal))
                                   : "the process that opened the run exited before closing it"};
    const json& status = read.end.contains("status") ? read.end["status"] : json("Completed");
    const json& message = read.end.contains("message") ? read.end["message"] : json("");
    std::string text = message.is_string() ? message.get<std::string>() : message.dump();
    if (status == "Completed" || status == "Failed" || status == "Stopped")
        return {status.get<std::string>(), text};
    read.errors.push_back("end: status must be Completed, Failed or Stopped, got " + status.dump());
    return {"Failed", text};
}

} // namespace

int cmdRecord(const RecordOptions& options) {
    RecordOptions o = options;
    std::map<std::string, std::string> tags;
    if (const auto usage = checkOptions(o, tags)) {
        std::fprintf(stderr, "mlstudio record: %s\n", usage->c_str());
        return kExitUsage;
    }
    installSignals();
    const std::string home = control::studioHome();
    control::makePrivateHome(home);
    const std::string name = o.experiment + "-" + o.run;
    store::StoreWriter writer(control::databasePath(home));
    const OpenedRun run = openRun(writer, home, o, name);
    for (const auto& [key, value] : tags)
        if (key != kSourceTag)
            writer.setTag(run.id, key, value);
    writer.flush();
    printLine(readyJson(run, o));

    RunRecorder recorder(writer, run.id, run.row.jobDir + "/artifacts");
    recorder.continueSteps(run.summaries);
    ReadLines read = applyLines(recorder, name);
    const auto [status, message] = finalStatus(read);
    if (run.ownsStatus) {
        const double now = wire::nowSeconds();
        writer.setStatus(run.id, status, status, message, now);
        if (status != "Completed")
            writer.setFailureReason(run.id, message);
        writer.setEnded(run.id, now);
        writer.setOwner(run.id, "");
    }
    writer.flush();
    if (const std::string lost = writer.lastError(); !lost.empty())
        read.errors.push_back("the database refused a write: " + lost);
    printLine({{"ended", true},
               {"run", name},
               {"status", run.ownsStatus ? status : run.row.status},
               {"lines", read.lines},
               {"errors", read.errors}});
    return read.end.is_object() ? kExitOk : kExitFailed;
}

} // namespace studio::cli
