#include "engine/jupyter/kernelspec.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <pwd.h>
#include <regex>
#include <stdexcept>
#include <unistd.h>

namespace studio::jupyter {

namespace fs = std::filesystem;

namespace {

std::string envOr(const char* name, const std::string& fallback = {}) {
    const char* value = std::getenv(name);
    return value && *value ? std::string(value) : fallback;
}

fs::path homeDir() {
    if (std::string home = envOr("HOME"); !home.empty())
        return home;
    if (const passwd* pw = ::getpwuid(::geteuid()); pw && pw->pw_dir)
        return pw->pw_dir;
    return "/";
}

// jupyter_core's envset(): unset is the fallback; "no", "n", "false", "off", "0", "0.0" are false.
bool envFlag(const char* name, bool fallback) {
    const char* value = std::getenv(name);
    if (!value)
        return fallback;
    std::string v = value;
    std::transform(v.begin(), v.end(), v.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return v != "no" && v != "n" && v != "false" && v != "off" && v != "0" && v != "0.0";
}

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

void appendUnique(std::vector<fs::path>& paths, const fs::path& p) {
    if (std::find(paths.begin(), paths.end(), p) == paths.end())
        paths.push_back(p);
}

bool validKernelName(const std::string& name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](unsigned char c) {
        return std::isalnum(c) || c == '.' || c == '_' || c == '-';
    });
}

std::string stringField(const Json& json, const char* key, const fs::path& file) {
    auto it = json.find(key);
    if (it == json.end() || it->is_null())
        return {};
    if (!it->is_string())
        throw std::runtime_error(file.string() + ": \"" + key + "\" must be a string");
    return it->get<std::string>();
}

} // namespace

fs::path jupyterDataDir() {
    if (std::string dir = envOr("JUPYTER_DATA_DIR"); !dir.empty())
        return dir;
    if (std::string xdg = envOr("XDG_DATA_HOME"); !xdg.empty())
        return fs::path(xdg) / "jupyter";
    return homeDir() / ".local" / "share" / "jupyter";
}

std::vector<fs::path> kernelSearchPath() {
    const std::vector<fs::path> system = {"/usr/local/share/jupyter", "/usr/share/jupyter"};
    std::vector<fs::path> user = {jupyterDataDir()};
    const fs::path userBase = envOr("PYTHONUSERBASE", (homeDir() / ".local").string());
    appendUnique(user, userBase / "share" / "jupyter");

    std::vector<fs::path> env;
    const std::string prefix = envOr("VIRTUAL_ENV", envOr("CONDA_PREFIX"));
    if (!prefix.empty() && std::find(system.begin(), system.end(),
                                     fs::path(prefix) / "share" / "jupyter") == system.end())
        env.push_back(fs::path(prefix) / "share" / "jupyter");
    // jupyter_core prefers the environment inside a virtualenv or a non-base conda env.
    const bool inEnv = !envOr("VIRTUAL_ENV").empty() ||
                       (!envOr("CONDA_PREFIX").empty() && envOr("CONDA_DEFAULT_ENV") != "base");
    const bool preferEnv = envFlag("JUPYTER_PREFER_ENV_PATH", inEnv);

    std::vector<fs::path> paths;
    std::string jupyterPath = envOr("JUPYTER_PATH");
    for (std::size_t start = 0; !jupyterPath.empty() && start <= jupyterPath.size();) {
        std::size_t colon = jupyterPath.find(':', start);
        if (colon == std::string::npos)
            colon = jupyterPath.size();
        std::string entry = jupyterPath.substr(start, colon - start);
        while (entry.size() > 1 && entry.back() == '/')
            entry.pop_back();
        if (!entry.empty())
            paths.emplace_back(entry);
        start = colon + 1;
    }
    for (const auto& group : preferEnv ? std::vector{env, user} : std::vector{user, env})
        paths.insert(paths.end(), group.begin(), group.end());
    paths.insert(paths.end(), system.begin(), system.end());

    std::vector<fs::path> kernels;
    for (const auto& p : paths)
        appendUnique(kernels, p / "kernels");
    appendUnique(kernels,
                 fs::path(envOr("IPYTHONDIR", (homeDir() / ".ipython").string())) / "kernels");
    return kernels;
}

KernelSpec loadKernelSpec(const fs::path& resourceDir) {
    const fs::path file = resourceDir / "kernel.json";
    std::ifstream in(file);
    if (!in)
        throw std::runtime_error(file.string() + ": cannot read the kernelspec");
    Json json;
    try {
        json = Json::parse(in);
    } catch (const Json::parse_error& e) {
        throw std::runtime_error(file.string() + ": not valid JSON (" + e.what() + ")");
    }
    if (!json.is_object())
        throw std::runtime_error(file.string() + ": not a JSON object");
    KernelSpec spec;
    spec.name = lower(resourceDir.filename().string());
    spec.resourceDir = resourceDir;
    auto argv = json.find("argv");
    if (argv == json.end() || !argv->is_array() || argv->empty() ||
        !std::all_of(argv->begin(), argv->end(), [](const Json& a) { return a.is_string(); }))
        throw std::runtime_error(file.string() + ": \"argv\" must be a non-empty list of strings");
    spec.argv = argv->get<std::vector<std::string>>();
    spec.displayName = stringField(json, "display_name", file);
    spec.language = stringField(json, "language", file);
    if (std::string mode = stringField(json, "interrupt_mode", file); !mode.empty()) {
        mode = lower(mode);
        if (mode != "signal" && mode != "message")
            throw std::runtime_error(file.string() +
                                     ": \"interrupt_mode\" must be \"signal\" or \"message\", "
                                     "got \"" +
                                     mode + "\"");
        spec.interruptMode = mode;
    }
    if (auto env = json.find("env"); env != json.end() && !env->is_null()) {
        if (!env->is_object())
            throw std::runtime_error(file.string() + ": \"env\" must be an object of strings");
        for (auto it = env->begin(); it != env->end(); ++it) {
            if (!it->is_string())
                throw std::runtime_error(file.string() + ": \"env." + it.key() +
                                         "\" must be a string");
            spec.env[it.key()] = it->get<std::string>();
        }
    }
    if (auto metadata = json.find("metadata"); metadata != json.end() && !metadata->is_null()) {
        if (!metadata->is_object())
            throw std::runtime_error(file.string() + ": \"metadata\" must be an object");
        spec.metadata = *metadata;
    }
    return spec;
}

std::vector<KernelSpec> findKernelSpecs(std::vector<std::string>* problems) {
    std::vector<KernelSpec> specs;
    auto known = [&](const std::string& name) {
        return std::any_of(specs.begin(), specs.end(),
                           [&](const KernelSpec& s) { return s.name == name; });
    };
    for (const fs::path& dir : kernelSearchPath()) {
        std::error_code ec;
        std::vector<fs::path> entries;
        for (const auto& entry : fs::directory_iterator(dir, ec))
            entries.push_back(entry.path());
        std::sort(entries.begin(), entries.end()); // a stable order within one folder
        for (const fs::path& entry : entries) {
            const std::string name = lower(entry.filename().string());
            if (!fs::is_directory(entry, ec) || !fs::exists(entry / "kernel.json", ec) ||
                known(name))
                continue;
            if (!validKernelName(name)) {
                if (problems)
                    problems->push_back(entry.string() +
                                        ": not a kernel name (letters, digits, '.', '_', '-')");
                continue;
            }
            try {
                specs.push_back(loadKernelSpec(entry));
            } catch (const std::exception& e) {
                if (problems)
                    problems->push_back(e.what());
            }
        }
    }
    if (!known("python3"))
        specs.push_back(builtinPythonSpec());
    return specs;
}

std::optional<KernelSpec> findKernelSpec(const std::string& name) {
    const std::string wanted = lower(name);
    for (KernelSpec& spec : findKernelSpecs())
        if (spec.name == wanted)
            return std::move(spec);
    return std::nullopt;
}

KernelSpec builtinPythonSpec() {
    KernelSpec spec;
    spec.name = "python3";
    spec.displayName = "Python 3 (ipykernel)";
    spec.language = "python";
    spec.argv = {"/usr/bin/python3", "-m", "ipykernel_launcher", "-f", "{connection_file}"};
    spec.metadata = Json{{"debugger", true}};
    return spec;
}

KernelSpec defaultKernelSpec() {
    if (auto spec = findKernelSpec("python3"))
        return *spec;
    return builtinPythonSpec();
}

fs::path defaultPythonInterpreter() {
    if (::access("/usr/bin/python3", X_OK) == 0)
        return "/usr/bin/python3";
    std::string path = envOr("PATH", "/usr/local/bin:/usr/bin:/bin");
    for (std::size_t start = 0; start <= path.size();) {
        std::size_t colon = path.find(':', start);
        if (colon == std::string::npos)
            colon = path.size();
        const fs::path candidate = fs::path(path.substr(start, colon - start)) / "python3";
        if (colon > start && ::access(candidate.c_str(), X_OK) == 0)
            return candidate;
        start = colon + 1;
    }
    return "python3";
}

std::vector<std::string> formatKernelArgv(const KernelSpec& spec, const fs::path& connectionFile,
                                          const fs::path& pythonGiven) {
    const fs::path python = pythonGiven.empty() ? defaultPythonInterpreter() : pythonGiven;
    std::error_code ec;
    fs::path file = fs::weakly_canonical(fs::absolute(connectionFile), ec);
    if (ec)
        file = fs::absolute(connectionFile);
    const std::map<std::string, std::string> values = {
        {"connection_file", file.string()},
        {"resource_dir", spec.resourceDir.string()},
        {"prefix", python.parent_path().parent_path().string()}};
    static const std::regex field(R"(\{([A-Za-z0-9_]+)\})");
    std::vector<std::string> argv;
    for (const std::string& arg : spec.argv) {
        std::string out;
        auto last = arg.cbegin();
        for (std::sregex_iterator it(arg.begin(), arg.end(), field), end; it != end; ++it) {
            out.append(last, (*it)[0].first);
            auto value = values.find((*it)[1].str());
            out += value != values.end() ? value->second : (*it)[0].str();
            last = (*it)[0].second;
        }
        out.append(last, arg.cend());
        argv.push_back(std::move(out));
    }
    if (!argv.empty()) {
        static const std::regex versioned(R"(python3\.[0-9]+)");
        const std::string& first = argv[0];
        if (first == "python" || first == "python3")
            argv[0] = python.string();
        else if (std::regex_match(first, versioned) &&
                 fs::weakly_canonical(python, ec).filename() == first)
            argv[0] = python.string();
    }
    return argv;
}

std::string expandVariables(const std::string& text,
                            const std::map<std::string, std::string>& vars) {
    auto identStart = [](char c) {
        return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
    };
    auto identChar = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    };
    std::string out;
    std::size_t i = 0;
    while (i < text.size()) {
        if (text[i] != '$' || i + 1 >= text.size()) {
            out += text[i++];
            continue;
        }
        if (text[i + 1] == '$') {
            out += '$';
            i += 2;
            continue;
        }
        std::size_t nameStart = i + 1, nameEnd = nameStart;
        const bool braced = text[nameStart] == '{';
        if (braced)
            nameEnd = ++nameStart;
        if (nameEnd < text.size() && identStart(text[nameEnd]))
            while (nameEnd < text.size() && identChar(text[nameEnd]))
                ++nameEnd;
        const bool closed = !braced || (nameEnd < text.size() && text[nameEnd] == '}');
        auto value = vars.find(text.substr(nameStart, nameEnd - nameStart));
        if (nameEnd == nameStart || !closed || value == vars.end()) {
            out += text[i++]; // safe_substitute keeps what it cannot fill
            continue;
        }
        out += value->second;
        i = nameEnd + (braced ? 1 : 0);
    }
    return out;
}

std::map<std::string, std::string>
kernelEnvironment(const KernelSpec& spec, const std::map<std::string, std::string>& extra,
                  std::map<std::string, std::string> base) {
    for (const auto& [key, value] : extra)
        base[key] = value;
    std::map<std::string, std::string> expanded;
    for (const auto& [key, value] : spec.env)
        expanded[key] = expandVariables(value, base);
    for (auto& [key, value] : expanded)
        base[key] = std::move(value);
    return base;
}

} // namespace studio::jupyter
