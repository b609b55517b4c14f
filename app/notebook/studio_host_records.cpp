// Experiments, trials, trackers and ExperimentAnalytics of the notebook API, as the SageMaker
// Experiments SDK names them.
#include "app/notebook/kernel_worker.h"
#include "app/notebook/studio_host.h"
#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/store/analytics.h"
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"
#include "engine/wire/event.h"

#include <filesystem>
#include <map>
#include <regex>

namespace studio::notebook {

namespace {

// SageMaker's pattern for experiment, trial and component names.
std::string checkedName(const nlohmann::json& args, const std::string& key, bool required = true) {
    if (!args.contains(key) || args[key].is_null()) {
        if (required)
            throw HostError(key + " is required", key);
        return {};
    }
    if (!args[key].is_string())
        throw HostError(key + " must be a string", key);
    const std::string name = args[key].get<std::string>();
    static const std::regex pattern("^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,119}$");
    if (!std::regex_match(name, pattern))
        throw HostError(key + " \"" + name +
                            "\" must be 1-120 letters, digits and hyphens, starting and ending "
                            "with a letter or digit",
                        key);
    return name;
}

std::string mediaTypeOf(const std::string& path) {
    static const std::map<std::string, std::string> types = {
        {".json", "application/json"}, {".csv", "text/csv"},
        {".txt", "text/plain"},        {".png", "image/png"},
        {".html", "text/html"},        {".pt", "application/octet-stream"},
        {".npy", "application/x-npy"}, {".ipynb", "application/x-ipynb+json"}};
    const auto it = types.find(std::filesystem::path(path).extension().string());
    return it == types.end() ? "application/octet-stream" : it->second;
}

nlohmann::json cellJson(const store::Cell& c) {
    if (const auto* d = std::get_if<double>(&c))
        return std::isfinite(*d) ? nlohmann::json(*d) : nlohmann::json(std::to_string(*d));
    if (const auto* s = std::get_if<std::string>(&c))
        return *s;
    return nullptr;
}

// "metrics.train:loss.min" -> "train:loss - Min"; "parameters.lr" -> "lr"; others unchanged.
std::string analyticsColumn(const std::string& sortBy) {
    if (sortBy.rfind("parameters.", 0) == 0)
        return sortBy.substr(11);
    if (sortBy.rfind("metrics.", 0) == 0) {
        const std::string rest = sortBy.substr(8);
        const auto dot = rest.rfind('.');
        if (dot != std::string::npos) {
            std::string stat = rest.substr(dot + 1);
            for (const auto& s : store::summaryStatistics()) {
                std::string lower = s;
                for (auto& ch : lower)
                    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
                if (lower == stat || (stat == "avg" && s == "Avg") ||
                    (stat == "std" && s == "StdDev"))
                    return rest.substr(0, dot) + " - " + s;
            }
        }
    }
    return sortBy;
}

} // namespace

StudioHost::Json StudioHost::experimentCreate(const Json& args) {
    const std::string name = checkedName(args, "experiment_name");
    const std::string description = args.value("description", "");
    try {
        m_worker.controller().writer().createExperiment(name, description, wire::nowSeconds());
    } catch (const std::exception& e) {
        throw HostError(std::string(e.what()) + "; Experiment.load opens it", "experiment_name");
    }
    return experimentLoad(args);
}

StudioHost::Json StudioHost::experimentLoad(const Json& args) {
    const std::string name = checkedName(args, "experiment_name");
    for (const auto& e : m_worker.reader().experiments())
        if (e.name == name)
            return {{"experiment_name", e.name},
                    {"description", e.description},
                    {"creation_time", e.created},
                    {"trials", e.trials}};
    throw HostError("experiment \"" + name + "\" does not exist; Experiment.create makes it",
                    "experiment_name");
}

StudioHost::Json StudioHost::experimentTrials(const Json& args) {
    const std::string name = checkedName(args, "experiment_name");
    Json out = Json::array();
    for (const auto& t : m_worker.reader().trials(name))
        out.push_back({{"trial_name", t.name},
                       {"experiment_name", t.experiment},
                       {"creation_time", t.created},
                       {"components", t.components}});
    return out;
}

StudioHost::Json StudioHost::trialCreate(const Json& args) {
    const std::string experiment = checkedName(args, "experiment_name");
    const std::string trial = checkedName(args, "trial_name");
    try {
        m_worker.controller().writer().createTrial(experiment, trial, wire::nowSeconds());
    } catch (const std::exception& e) {
        throw HostError(e.what(), "trial_name");
    }
    return trialLoad(args);
}

StudioHost::Json StudioHost::trialLoad(const Json& args) {
    const std::string experiment = checkedName(args, "experiment_name");
    const std::string trial = checkedName(args, "trial_name");
    for (const auto& t : m_worker.reader().trials(experiment))
        if (t.name == trial)
            return {{"trial_name", t.name},
                    {"experiment_name", t.experiment},
                    {"creation_time", t.created},
                    {"components", t.components}};
    throw HostError("trial \"" + trial + "\" does not exist in experiment \"" + experiment + "\"",
                    "trial_name");
}

StudioHost::Json StudioHost::trialAddComponent(const Json& args) {
    const std::string experiment = checkedName(args, "experiment_name");
    const std::string trial = checkedName(args, "trial_name");
    const auto row = m_worker.reader().component(args.value("component", ""));
    if (!row)
        throw HostError("no trial component named \"" + args.value("component", "") + "\"",
                        "component");
    try {
        m_worker.controller().writer().assignComponent(row->id, experiment, trial);
    } catch (const std::exception& e) {
        throw HostError(e.what(), "trial_name");
    }
    return nullptr;
}

StudioHost::Json StudioHost::trialComponents(const Json& args) {
    store::ComponentFilter f;
    f.experiment = checkedName(args, "experiment_name");
    f.trial = checkedName(args, "trial_name");
    Json out = Json::array();
    for (const auto& c : m_worker.reader().components(f))
        out.push_back({{"trial_component_name", c.name},
                       {"display_name", c.displayName},
                       {"status", c.status}});
    return out;
}

StudioHost::Json StudioHost::trackerCreate(const Json& args) {
    const std::string experiment = checkedName(args, "experiment_name", false);
    const std::string trial = checkedName(args, "trial_name", false);
    if (!trial.empty() && experiment.empty())
        throw HostError("Tracker.create: a trial_name needs its experiment_name",
                        "experiment_name");
    if (!experiment.empty()) {
        bool found = false;
        for (const auto& e : m_worker.reader().experiments())
            found = found || e.name == experiment;
        if (!found)
            throw HostError("experiment \"" + experiment +
                                "\" does not exist; Experiment.create "
                                "makes it",
                            "experiment_name");
    }
    std::string display = args.value("display_name", "");
    std::string base;
    for (char c : display)
        base += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
    if (base.empty() || !std::isalnum(static_cast<unsigned char>(base.front())))
        base = "tracker";
    base = base.substr(0, 38);
    while (!base.empty() && base.back() == '-')
        base.pop_back();

    store::NewComponent c;
    c.created = wire::nowSeconds();
    c.name = control::timestampedJobName(base, c.created);
    c.displayName = display.empty() ? c.name : display;
    c.experiment = experiment;
    c.trial = trial;
    c.secondaryStatus = "Training";
    c.entryPoint = "notebook";
    c.owner = control::processOwnerId();
    store::StoreWriter& writer = m_worker.controller().writer();
    const store::ComponentId id = writer.createComponent(c);
    writer.setStarted(id, c.created);
    const auto row = m_worker.reader().component(c.name);
    return {{"trial_component_name", c.name},
            {"display_name", c.displayName},
            {"experiment_name", row ? row->experiment : experiment},
            {"trial_name", row ? row->trial : trial}};
}

StudioHost::Json StudioHost::trackerParameters(const Json& args) {
    const auto row = m_worker.reader().component(args.value("component", ""));
    if (!row)
        throw HostError("the tracker's trial component is gone", "component");
    if (!args.contains("parameters") || !args["parameters"].is_object())
        throw HostError("log_parameters takes an object {name: value}", "parameters");
    for (const auto& [name, value] : args["parameters"].items()) {
        store::ParameterRow p;
        p.name = name;
        if (value.is_number()) {
            p.number = value.get<double>();
            p.value = value.dump();
        } else if (value.is_string()) {
            p.value = value.get<std::string>();
        } else {
            p.value = value.dump();
        }
        m_worker.controller().writer().setParameter(row->id, p);
    }
    return nullptr;
}

StudioHost::Json StudioHost::trackerMetric(const Json& args) {
    const std::string component = args.value("component", "");
    const auto row = m_worker.reader().component(component);
    if (!row)
        throw HostError("the tracker's trial component is gone", "component");
    const std::string name = args.value("name", "");
    if (name.empty())
        throw HostError("log_metric needs a metric_name", "metric_name");
    if (!args.contains("value") || !args["value"].is_number())
        throw HostError("log_metric(" + name + "): value must be a number", "value");
    std::int64_t& next = m_nextStep[{component, name}];
    store::MetricPoint p;
    p.step =
        args.contains("step") && args["step"].is_number() ? args["step"].get<std::int64_t>() : next;
    next = std::max(next, p.step + 1);
    p.time = args.contains("timestamp") && args["timestamp"].is_number()
                 ? args["timestamp"].get<double>()
                 : wire::nowSeconds();
    p.value = args["value"].get<double>();
    m_worker.controller().writer().addMetric(row->id, name, p);
    return nullptr;
}

StudioHost::Json StudioHost::trackerArtifact(const Json& args) {
    const auto row = m_worker.reader().component(args.value("component", ""));
    if (!row)
        throw HostError("the tracker's trial component is gone", "component");
    store::ArtifactRow a;
    a.kind = args.value("kind", "artifact");
    a.value = args.contains("value") && args["value"].is_string()
                  ? args["value"].get<std::string>()
                  : args.value("value", Json()).dump();
    if (args.value("file", false)) {
        a.value = resolvePath(a.value);
        if (!std::filesystem::is_regular_file(a.value))
            throw HostError("log_artifact: no file " + a.value, "file_path");
    }
    a.name = args.contains("name") && args["name"].is_string()
                 ? args["name"].get<std::string>()
                 : std::filesystem::path(a.value).filename().string();
    if (a.name.empty())
        throw HostError("log_" + a.kind + " needs a name", "name");
    a.mediaType = args.contains("media_type") && args["media_type"].is_string()
                      ? args["media_type"].get<std::string>()
                      : (args.value("file", false) ? mediaTypeOf(a.value) : std::string());
    m_worker.controller().writer().setArtifact(row->id, a);
    return nullptr;
}

StudioHost::Json StudioHost::trackerClose(const Json& args) {
    const auto row = m_worker.reader().component(args.value("component", ""));
    if (!row)
        throw HostError("the tracker's trial component is gone", "component");
    const double now = wire::nowSeconds();
    store::StoreWriter& writer = m_worker.controller().writer();
    writer.setStatus(row->id, "Completed", "Completed", "Tracker closed", now);
    writer.setEnded(row->id, now);
    writer.flush();
    return nullptr;
}

StudioHost::Json StudioHost::analytics(const Json& args) {
    store::AnalyticsOptions o;
    o.experiment = checkedName(args, "experiment_name");
    if (args.contains("sort_by") && args["sort_by"].is_string())
        o.sortBy = analyticsColumn(args["sort_by"].get<std::string>());
    if (args.contains("sort_order") && args["sort_order"].is_string()) {
        const std::string order = args["sort_order"].get<std::string>();
        if (order != "Ascending" && order != "Descending")
            throw HostError("sort_order must be Ascending or Descending", "sort_order");
        o.descending = order == "Descending";
    }
    for (const char* key : {"metric_names", "parameter_names"}) {
        if (!args.contains(key))
            continue;
        if (!args[key].is_array())
            throw HostError(std::string(key) + " must be an array of names", key);
        auto& list = std::string(key) == "metric_names" ? o.metricNames : o.parameterNames;
        for (const auto& n : args[key])
            list.push_back(n.is_string() ? n.get<std::string>() : n.dump());
    }
    m_worker.controller().writer().flush();
    store::AnalyticsTable t;
    try {
        t = store::experimentAnalytics(m_worker.reader(), o);
    } catch (const std::exception& e) {
        throw HostError(e.what(), o.sortBy.empty() ? "experiment_name" : "sort_by");
    }
    return tableJson(t);
}

nlohmann::json tableJson(const store::AnalyticsTable& t) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : t.rows) {
        nlohmann::json row = nlohmann::json::array();
        for (const auto& c : r)
            row.push_back(cellJson(c));
        rows.push_back(row);
    }
    return {{"columns", t.columns}, {"rows", rows}};
}

} // namespace studio::notebook
