#include "engine/spec/spec_parser.h"

#include "engine/spec/spec_json.h"
#include "engine/spec/spec_sections.h"
#include "engine/spec/suggest.h"
#include "engine/spot/instance_catalog.h"
#include "engine/train/builtin_models.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <re2/re2.h>
#include <sstream>

namespace studio::spec {

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kTopLevelKeys = {
    "name", "entry_point", "source_dir", "hyperparameters", "instance_type", "instance_count",
    "distribution", "inputs", "environment", "metric_definitions", "use_spot_instances", "max_run",
    "max_wait", "max_retry_attempts", "checkpoint_local_path", "debugger_hook_config",
    "profiler_config", "disable_profiler", "rules", "experiment_config", "spot_simulation",
    "local_prices", "tags", "cluster", "slurm", "tensorboard_output_config",
    // SDK arguments accepted so pasted configs validate; they have no effect on a local run.
    "base_job_name", "role", "framework_version", "py_version", "image_uri", "output_path",
    "volume_size", "checkpoint_s3_uri"};

const std::vector<std::string> kIgnoredStringKeys = {
    "role", "framework_version", "py_version", "image_uri", "output_path", "checkpoint_s3_uri"};

// Variables the launcher sets for every rank; a spec may not override them.
bool reservedVariable(const std::string& k) {
    static const std::vector<std::string> exact = {
        "RANK",        "LOCAL_RANK",  "GROUP_RANK",          "WORLD_SIZE",      "LOCAL_WORLD_SIZE",
        "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RUN_ID", "STUDIO_EVENTS_FD",
        "STUDIO_STORE_FILE"};
    return std::find(exact.begin(), exact.end(), k) != exact.end() || k.rfind("SM_", 0) == 0;
}

// Names are checked by hand, not with std::regex: it recurses once per character and a long
// enough name overflows the stack.
bool isAlnum(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// ^[a-zA-Z0-9](-*[a-zA-Z0-9])*$
bool hyphenatedName(const std::string& s) {
    return !s.empty() && isAlnum(s.front()) && isAlnum(s.back()) &&
           std::all_of(s.begin(), s.end(), [](char c) { return isAlnum(c) || c == '-'; });
}

// ^[A-Za-z0-9][A-Za-z0-9._-]*$
bool channelName(const std::string& s) {
    return !s.empty() && isAlnum(s.front()) && std::all_of(s.begin(), s.end(), [](char c) {
        return isAlnum(c) || c == '.' || c == '_' || c == '-';
    });
}

// ^[A-Za-z_][A-Za-z0-9_]*$
bool environmentName(const std::string& s) {
    return !s.empty() && (s.front() == '_' || !(s.front() >= '0' && s.front() <= '9')) &&
           std::all_of(s.begin(), s.end(), [](char c) { return isAlnum(c) || c == '_'; });
}

// A value quoted in a message, cut when long so one bad key cannot flood the output.
std::string shown(const std::string& v) {
    return v.size() <= 80 ? v : v.substr(0, 60) + "... (" + std::to_string(v.size()) + " bytes)";
}

std::string absoluteFrom(const std::string& base, const std::string& p) {
    fs::path path(p.rfind("file://", 0) == 0 ? p.substr(7) : p);
    if (path.is_relative())
        path = fs::path(base) / path;
    return path.lexically_normal().string();
}

std::string defaultName(const EntryPoint& e) {
    std::string raw;
    if (e.kind == EntryKind::Builtin)
        raw = e.builtinModel;
    else if (e.kind == EntryKind::Script)
        raw = fs::path(e.script).stem().string();
    else if (!e.argv.empty())
        raw = fs::path(e.argv.back()).stem().string();
    std::string out;
    for (char c : raw) {
        bool alnum = std::isalnum(static_cast<unsigned char>(c));
        if (alnum)
            out.push_back(c);
        else if (!out.empty() && out.back() != '-')
            out.push_back('-');
    }
    while (!out.empty() && out.back() == '-')
        out.pop_back();
    return out.empty() ? "job" : out.substr(0, 38);
}

void parseEntryPoint(SpecReader& r, const json& root, JobSpec& spec, const ParseOptions& opt) {
    auto it = root.find("entry_point");
    if (it == root.end()) {
        r.error("entry_point",
                "required: \"builtin:<model>\", a script path, or an argv array such as "
                "[\"/usr/bin/python3\", \"train.py\"]");
        return;
    }
    EntryPoint& e = spec.entryPoint;
    if (it->is_array()) {
        e.kind = EntryKind::Argv;
        if (it->empty())
            r.error("entry_point", "argv array must not be empty");
        for (std::size_t i = 0; i < it->size(); ++i) {
            const json& a = (*it)[i];
            if (!a.is_string() || (i == 0 && a.get<std::string>().empty()))
                r.mustBe(indexPath("entry_point", i), "a non-empty string", a);
            else
                e.argv.push_back(a.get<std::string>());
        }
        return;
    }
    if (!it->is_string() || it->get<std::string>().empty()) {
        r.mustBe("entry_point", "\"builtin:<model>\", a script path or an argv array", *it);
        return;
    }
    std::string s = it->get<std::string>();
    if (s.rfind("builtin:", 0) == 0) {
        e.kind = EntryKind::Builtin;
        e.builtinModel = s.substr(8);
        if (!train::findBuiltinModel(e.builtinModel)) {
            std::vector<std::string> names = train::builtinModelNames();
            r.error("entry_point", "unknown built-in model \"" + e.builtinModel +
                                       "\"; built-in models: " + quoteList(names) +
                                       didYouMean(e.builtinModel, names));
        }
        return;
    }
    e.kind = EntryKind::Script;
    e.script = absoluteFrom(spec.sourceDir, s);
    if (opt.checkFiles && !fs::is_regular_file(e.script))
        r.error("entry_point", "script " + e.script + " does not exist");
}

void parseHyperparameters(SpecReader& r, const json& root, JobSpec& spec) {
    auto it = root.find("hyperparameters");
    if (it == root.end() || !r.isObject(*it, "hyperparameters"))
        return;
    for (auto h = it->begin(); h != it->end(); ++h) {
        const std::string p = childPath("hyperparameters", h.key());
        if (h.key().empty() || h.key().find_first_of(" \t=") != std::string::npos) {
            r.error(p, "hyperparameter names must be non-empty, without spaces or '='");
            continue;
        }
        HyperValue v;
        if (h->is_string()) {
            v.text = h->get<std::string>();
        } else if (h->is_boolean()) {
            v.text = h->get<bool>() ? "true" : "false";
            v.isBool = true;
        } else if (h->is_number()) {
            v.text = h->dump();
            v.number = h->get<double>();
        } else {
            r.mustBe(p, "a string, number or boolean", *h);
            continue;
        }
        if (!v.number && !v.isBool) {
            char* end = nullptr;
            double d = std::strtod(v.text.c_str(), &end);
            if (!v.text.empty() && end && *end == '\0')
                v.number = d;
        }
        spec.hyperparameters.emplace(h.key(), std::move(v));
    }
}

void parseStringMap(
    SpecReader& r, const json& root, const std::string& key,
    std::map<std::string, std::string>& out,
    const std::function<void(const std::string&, const std::string&, const std::string&)>& check) {
    auto it = root.find(key);
    if (it == root.end() || !r.isObject(*it, key))
        return;
    for (auto v = it->begin(); v != it->end(); ++v) {
        const std::string p = childPath(key, v.key());
        if (!v->is_string()) {
            r.mustBe(p, "a string", *v);
            continue;
        }
        check(p, v.key(), v->get<std::string>());
        out[v.key()] = v->get<std::string>();
    }
}

// "NAME": "value", or "NAME": {"secret": true, "from_env": "VAR"} for a value that stays out of
// the spec, the database and every command line.
void parseEnvironment(SpecReader& r, const json& root, JobSpec& spec) {
    auto it = root.find("environment");
    if (it == root.end() || !r.isObject(*it, "environment"))
        return;
    for (auto v = it->begin(); v != it->end(); ++v) {
        const std::string p = childPath("environment", v.key());
        if (v.key().size() > 1024 || !environmentName(v.key()))
            r.error(p, "not a valid environment variable name");
        else if (reservedVariable(v.key()))
            r.error(p, "reserved: the launcher sets " + v.key() + " for every rank");
        if (v->is_string()) {
            spec.environment[v.key()] = v->get<std::string>();
            continue;
        }
        if (!v->is_object()) {
            r.mustBe(p, "a string or {\"secret\": true, \"from_env\": \"VARIABLE\"}", *v);
            continue;
        }
        r.checkKeys(*v, p, {"secret", "from_env", "value"});
        if (v->contains("value"))
            r.error(childPath(p, "value"), "a secret's value is never written in a spec; name "
                                           "the studio's variable that holds it with from_env");
        const auto secret = r.boolean(*v, "secret", p);
        const auto from = r.string(*v, "from_env", p);
        if (!v->contains("from_env"))
            r.error(childPath(p, "from_env"), "required: the variable of the studio's "
                                              "environment that holds the value");
        else if (from && !environmentName(*from))
            r.error(childPath(p, "from_env"), "not a valid environment variable name");
        if (secret && !*secret)
            r.error(childPath(p, "secret"), "must be true (a plain value is a string)");
        if (from)
            spec.secretEnvironment[v.key()] = *from;
    }
}

void parseIo(SpecReader& r, const json& root, JobSpec& spec, const ParseOptions& opt) {
    parseStringMap(r, root, "inputs", spec.inputs,
                   [&](const std::string& p, const std::string& k, const std::string& v) {
                       if (k.size() > 255 || !channelName(k))
                           r.error(p, "channel names use letters, digits, '.', '-' and '_'");
                       if (v.rfind("s3://", 0) == 0)
                           r.error(p, "S3 inputs need a download step that local runs do not "
                                      "have; give a local path or file:// URI");
                       else if (opt.checkFiles && !fs::exists(absoluteFrom(spec.baseDir, v)))
                           r.error(p, "path " + absoluteFrom(spec.baseDir, v) + " does not exist");
                   });
    for (auto& [k, v] : spec.inputs)
        v = absoluteFrom(spec.baseDir, v);

    parseEnvironment(r, root, spec);

    auto md = root.find("metric_definitions");
    if (md != root.end()) {
        if (!md->is_array()) {
            r.mustBe("metric_definitions", "an array of {\"Name\", \"Regex\"} objects", *md);
        } else {
            if (md->size() > 40)
                r.error("metric_definitions",
                        "at most 40 definitions, got " + std::to_string(md->size()));
            for (std::size_t i = 0; i < md->size(); ++i) {
                const json& d = (*md)[i];
                const std::string p = indexPath("metric_definitions", i);
                if (!r.isObject(d, p))
                    continue;
                r.checkKeys(d, p, {"Name", "Regex"});
                auto name = r.string(d, "Name", p);
                auto regex = r.string(d, "Regex", p);
                if (!d.contains("Name"))
                    r.error(childPath(p, "Name"), "required");
                if (!d.contains("Regex"))
                    r.error(childPath(p, "Regex"), "required");
                if (name && name->size() > 255)
                    r.error(childPath(p, "Name"), "at most 255 characters");
                for (const auto& prev : spec.metricDefinitions)
                    if (name && prev.name == *name)
                        r.error(childPath(p, "Name"), "duplicate metric name \"" + *name + "\"");
                if (regex) {
                    re2::RE2::Options o;
                    o.set_log_errors(false);
                    const re2::RE2 re(*regex, o);
                    if (!re.ok())
                        r.error(childPath(p, "Regex"),
                                "not a valid regular expression (RE2 syntax): " + re.error());
                    else if (re.NumberOfCapturingGroups() < 1)
                        r.error(childPath(p, "Regex"),
                                "needs a capture group for the value, e.g. \"loss=([0-9.]+)\"");
                }
                if (name && regex)
                    spec.metricDefinitions.push_back({*name, *regex});
            }
        }
    }
}

void parseSpot(SpecReader& r, const json& root, JobSpec& spec) {
    spec.useSpotInstances = r.boolean(root, "use_spot_instances", "").value_or(false);
    spec.maxRun = r.integer(root, "max_run", "", 1, 28 * 24 * 3600).value_or(86400);
    spec.maxRetryAttempts =
        static_cast<int>(r.integer(root, "max_retry_attempts", "", 1, 30).value_or(1));
    if (auto w = r.integer(root, "max_wait", "", 1, 28 * 24 * 3600)) {
        spec.maxWait = *w;
        if (!spec.useSpotInstances)
            r.error("max_wait", "only applies to spot training: set use_spot_instances to true");
        else if (*w < spec.maxRun)
            r.error("max_wait", "must be >= max_run (" + std::to_string(spec.maxRun) + "), got " +
                                    std::to_string(*w));
    } else if (spec.useSpotInstances && !root.contains("max_wait")) {
        r.error("max_wait", "required with use_spot_instances: the longest time, waiting "
                            "included, the job may take (>= max_run)");
    }
    if (auto c = r.string(root, "checkpoint_local_path", ""))
        spec.checkpointLocalPath = absoluteFrom(spec.baseDir, *c);

    auto sim = root.find("spot_simulation");
    if (sim != root.end() && r.isObject(*sim, "spot_simulation")) {
        r.checkKeys(*sim, "spot_simulation",
                    {"interruptions_per_hour", "mean_capacity_wait_s", "seed"});
        SpotSimulation s;
        s.interruptionsPerHour =
            r.number(*sim, "interruptions_per_hour", "spot_simulation", 0, 3600).value_or(0);
        s.meanCapacityWaitSeconds =
            r.number(*sim, "mean_capacity_wait_s", "spot_simulation", 0, 86400).value_or(0);
        s.seed =
            static_cast<std::uint64_t>(r.integer(*sim, "seed", "spot_simulation", 0).value_or(0));
        if (!spec.useSpotInstances)
            r.error("spot_simulation", "only applies to spot training: set use_spot_instances "
                                       "to true");
        spec.spotSimulation = s;
    }

    auto lp = root.find("local_prices");
    if (lp != root.end() && r.isObject(*lp, "local_prices")) {
        r.checkKeys(*lp, "local_prices", {"on_demand_per_hour", "spot_per_hour"});
        for (const char* k : {"on_demand_per_hour", "spot_per_hour"})
            if (auto v = r.number(*lp, k, "local_prices", 0, 1e6))
                spec.localPrices[k] = *v;
        if (spec.instanceType != "local")
            r.error("local_prices", "only for instance_type \"local\"; " + spec.instanceType +
                                        " is priced from the catalog");
    }
}

// SageMaker's TensorBoardOutputConfig. There is no S3 here: s3_output_path is accepted beside a
// local folder (as checkpoint_s3_uri is) and refused alone, where nothing would be written.
void parseTensorboard(SpecReader& r, const json& root, JobSpec& spec) {
    auto it = root.find("tensorboard_output_config");
    if (it == root.end() || !r.isObject(*it, "tensorboard_output_config"))
        return;
    const std::string p = "tensorboard_output_config";
    r.checkKeys(*it, p, {"local_path", "container_local_output_path", "s3_output_path"});
    // container_local_output_path is the SDK's argument name for the same folder.
    const char* key = it->contains("local_path") ? "local_path" : "container_local_output_path";
    if (it->contains("local_path") && it->contains("container_local_output_path"))
        r.error(childPath(p, "container_local_output_path"),
                "give the folder once: local_path and container_local_output_path are the same");
    const auto local = r.string(*it, key, p, true);
    r.string(*it, "s3_output_path", p);
    if (local && local->empty())
        r.error(childPath(p, key), "must be a folder's path, got an empty string");
    else if (local)
        spec.tensorboardLocalPath = absoluteFrom(spec.baseDir, *local);
    if (!it->contains(key) && it->contains("s3_output_path"))
        r.error(childPath(p, "s3_output_path"),
                "S3 uploads are not available on a local run; give local_path, a folder on this "
                "machine, for the job's TensorBoard event files");
    else if (!it->contains(key))
        r.error(childPath(p, "local_path"), "required: the folder for the job's TensorBoard "
                                            "event files");
}

void parseExperiment(SpecReader& r, const json& root, JobSpec& spec) {
    auto it = root.find("experiment_config");
    if (it == root.end() || !r.isObject(*it, "experiment_config"))
        return;
    const std::string p = "experiment_config";
    r.checkKeys(*it, p, {"ExperimentName", "TrialName", "TrialComponentDisplayName", "RunName"});
    for (const char* key : {"ExperimentName", "TrialName"}) {
        auto v = r.string(*it, key, p);
        if (v && (!hyphenatedName(*v) || std::count_if(v->begin(), v->end(), isAlnum) > 120))
            r.error(childPath(p, key), "up to 120 letters, digits and hyphens, starting with a "
                                       "letter or digit, got \"" +
                                           shown(*v) + "\"");
        else if (v)
            (std::string(key) == "ExperimentName" ? spec.experiment.experimentName
                                                  : spec.experiment.trialName) = *v;
    }
    if (auto d = r.string(*it, "TrialComponentDisplayName", p))
        spec.experiment.displayName = *d;
    if (auto d = r.string(*it, "RunName", p))
        spec.experiment.displayName = *d;
    if (!spec.experiment.trialName.empty() && spec.experiment.experimentName.empty())
        r.error(childPath(p, "TrialName"), "needs ExperimentName");
}

void parseTags(SpecReader& r, const json& root, JobSpec& spec) {
    auto it = root.find("tags");
    if (it == root.end())
        return;
    if (!it->is_array()) {
        r.mustBe("tags", "an array of {\"Key\", \"Value\"} objects", *it);
        return;
    }
    for (std::size_t i = 0; i < it->size(); ++i) {
        const std::string p = indexPath("tags", i);
        const json& t = (*it)[i];
        if (!r.isObject(t, p))
            continue;
        r.checkKeys(t, p, {"Key", "Value"});
        auto k = r.string(t, "Key", p);
        auto v = r.string(t, "Value", p, true);
        if (!t.contains("Key"))
            r.error(childPath(p, "Key"), "required");
        if (k && k->size() > 128)
            r.error(childPath(p, "Key"), "at most 128 characters");
        if (k)
            spec.tags[*k] = v.value_or("");
    }
}

} // namespace

ParseResult parseSpecJson(json doc, const std::string& baseDir, const ParseOptions& opt) {
    SpecReader r;
    ParseResult result;
    if (!doc.is_object()) {
        r.mustBe("", "a JSON object", doc);
        result.errors = std::move(r.errors);
        return result;
    }
    JobSpec spec;
    spec.baseDir = fs::absolute(baseDir.empty() ? "." : baseDir).lexically_normal().string();
    spec.effectiveJson = doc.dump(2);
    r.checkKeys(doc, "", kTopLevelKeys);

    spec.sourceDir = spec.baseDir;
    if (auto s = r.string(doc, "source_dir", "")) {
        spec.sourceDir = absoluteFrom(spec.baseDir, *s);
        if (opt.checkFiles && !fs::is_directory(spec.sourceDir))
            r.error("source_dir", "directory " + spec.sourceDir + " does not exist");
    }
    parseEntryPoint(r, doc, spec, opt);

    auto name = r.string(doc, "name", "");
    if (!name)
        name = r.string(doc, "base_job_name", "");
    if (name) {
        const std::string key = doc.contains("name") ? "name" : "base_job_name";
        if (name->size() > 38 || !hyphenatedName(*name))
            r.error(key, "up to 38 letters, digits and hyphens, starting and ending with a letter "
                         "or digit (a timestamp is appended), got \"" +
                             shown(*name) + "\"");
        spec.name = *name;
    } else {
        spec.name = defaultName(spec.entryPoint);
    }
    for (const auto& k : kIgnoredStringKeys)
        r.string(doc, k, "");
    r.integer(doc, "volume_size", "", 1);

    parseHyperparameters(r, doc, spec);
    if (auto t = r.string(doc, "instance_type", "")) {
        try {
            const auto& catalog = spot::InstanceCatalog::shipped();
            if (!catalog.find(*t))
                r.error("instance_type", "unknown instance type \"" + *t + "\"" +
                                             didYouMean(*t, catalog.names()) +
                                             " (\"local\" or a type from the catalog)");
        } catch (const std::exception& e) {
            r.error("instance_type", e.what());
        }
        spec.instanceType = *t;
    }
    spec.instanceCount = static_cast<int>(r.integer(doc, "instance_count", "", 1, 256).value_or(1));
    if (auto c = r.string(doc, "cluster", "")) {
        // Whether it exists, and has instance_count hosts, is checked when the job is submitted.
        if (c->size() > 63 || !hyphenatedName(*c))
            r.error("cluster", "a cluster name (letters, digits and hyphens; \"local\" is this "
                               "machine), got \"" +
                                   shown(*c) + "\"");
        spec.cluster = *c;
    }
    parseDistribution(r, doc, spec);
    parseIo(r, doc, spec, opt);
    parseSpot(r, doc, spec);
    parseTensorboard(r, doc, spec);
    parseDebugger(r, doc, spec);
    parseRules(r, doc, spec, opt);
    parseExperiment(r, doc, spec);
    parseTags(r, doc, spec);
    parseSlurm(r, doc, spec);
    if (spec.isBuiltin())
        checkBuiltinHyperparameters(r, spec);
    checkParallelLayout(r, spec);

    result.errors = std::move(r.errors);
    if (result.errors.empty())
        result.spec = std::move(spec);
    return result;
}

ParseResult parseSpecText(std::string_view text, const std::string& baseDir,
                          const std::vector<std::string>& overrides, const ParseOptions& opt) {
    ParseResult result;
    std::size_t at = 0;
    if (jsonNesting(text, &at) > kMaxSpecNesting) {
        result.errors.push_back(
            SpecError{"", "the spec nests deeper than " + std::to_string(kMaxSpecNesting) +
                              " levels (at byte " + std::to_string(at) + "); specs need a few"});
        return result;
    }
    json doc;
    try {
        doc = json::parse(text.begin(), text.end());
    } catch (const json::parse_error& e) {
        // Turn the byte offset into line:column, which editors understand.
        std::size_t line = 1, col = 1;
        for (std::size_t i = 0; i < std::min<std::size_t>(e.byte ? e.byte - 1 : 0, text.size());
             ++i) {
            if (text[i] == '\n') {
                ++line;
                col = 1;
            } else {
                ++col;
            }
        }
        std::string what = e.what();
        auto pos = what.find("syntax error");
        result.errors.push_back(SpecError{
            "", "invalid JSON at line " + std::to_string(line) + ", column " + std::to_string(col) +
                    ": " + (pos == std::string::npos ? what : what.substr(pos))});
        return result;
    } catch (const json::out_of_range& e) {
        // A number past a double's range ("1e400") is no syntax error, but as fatal.
        const std::string what = e.what();
        const auto pos = what.find("] ");
        result.errors.push_back(SpecError{
            "", "invalid JSON: " + (pos == std::string::npos ? what : what.substr(pos + 2))});
        return result;
    }
    try {
        for (const auto& o : overrides)
            applyOverride(doc, o);
    } catch (const SpecException& e) {
        result.errors = e.errors();
        return result;
    }
    return parseSpecJson(std::move(doc), baseDir, opt);
}

ParseResult parseSpecFile(const std::string& path, const std::vector<std::string>& overrides,
                          const ParseOptions& opt) {
    std::ifstream in(path);
    if (!in) {
        ParseResult r;
        r.errors.push_back(SpecError{"", "cannot read spec file " + path});
        return r;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    ParseResult r =
        parseSpecText(ss.str(), fs::absolute(path).parent_path().string(), overrides, opt);
    for (auto& e : r.errors)
        if (e.path.empty())
            e.message = path + ": " + e.message;
    return r;
}

} // namespace studio::spec
