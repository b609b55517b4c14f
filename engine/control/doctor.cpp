#include "engine/control/doctor.h"

#include "engine/control/studio_home.h"
#include "engine/remote/host_executor.h"
#include "engine/spec/job_spec.h"
#include "engine/spot/instance_catalog.h"

#include <cstdio>
#include <cstdlib>
#include <future>
#include <regex>
#include <stdexcept>

namespace studio::control {

namespace {

using json = nlohmann::ordered_json;

const json& field(const json& object, const char* key, const std::string& path) {
    auto it = object.find(key);
    if (it == object.end())
        throw std::runtime_error("field \"" + path + key + "\" is missing");
    return *it;
}

std::string text(const json& o, const char* key, const std::string& path = {}) {
    const json& v = field(o, key, path);
    if (!v.is_string())
        throw std::runtime_error("field \"" + path + key + "\" is not a string");
    return v.get<std::string>();
}

bool flag(const json& o, const char* key, const std::string& path = {}) {
    const json& v = field(o, key, path);
    if (!v.is_boolean())
        throw std::runtime_error("field \"" + path + key + "\" is not a boolean");
    return v.get<bool>();
}

std::int64_t integer(const json& o, const char* key, const std::string& path = {}) {
    const json& v = field(o, key, path);
    if (!v.is_number_integer())
        throw std::runtime_error("field \"" + path + key + "\" is not an integer");
    return v.get<std::int64_t>();
}

const json& object(const json& o, const char* key, const std::string& path = {}) {
    const json& v = field(o, key, path);
    if (!v.is_object())
        throw std::runtime_error("field \"" + path + key + "\" is not an object");
    return v;
}

const json& array(const json& o, const char* key) {
    const json& v = field(o, key, {});
    if (!v.is_array())
        throw std::runtime_error(std::string("field \"") + key + "\" is not an array");
    return v;
}

ProbedDevice parseDevice(const json& d, std::size_t i) {
    const std::string path = "devices[" + std::to_string(i) + "].";
    if (!d.is_object())
        throw std::runtime_error("field \"devices[" + std::to_string(i) + "]\" is not an object");
    ProbedDevice device;
    device.index = static_cast<int>(integer(d, "index", path));
    device.name = text(d, "name", path);
    device.memoryBytes = integer(d, "memory_bytes", path);
    device.capability = text(d, "capability", path);
    return device;
}

std::string firstLine(const std::string& s) {
    const auto start = s.find_first_not_of(" \t\r\n");
    if (start == std::string::npos)
        return {};
    const auto end = s.find_first_of("\r\n", start);
    return s.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// Why a command failed, in one line: its stderr's first line, else how it ended.
std::string failureOf(const remote::CommandResult& r, double timeoutSeconds) {
    if (!r.startError.empty())
        return r.startError;
    if (r.timedOut)
        return "no answer within " + std::to_string(static_cast<int>(timeoutSeconds)) + " s";
    if (std::string line = firstLine(r.err); !line.empty())
        return line;
    return r.status ? r.status->describe() : "did not run";
}

struct PythonTorch {
    std::string version;
    std::string error;
};

PythonTorch probePythonTorch(const std::string& python) {
    const auto r = remote::runLocal({python, "-c", "import torch; print(torch.__version__)"},
                                    kDoctorProbeSeconds);
    if (r.ok() && !firstLine(r.out).empty())
        return {firstLine(r.out), {}};
    // A traceback's last line says what went wrong (ModuleNotFoundError: ...).
    std::string err = r.err;
    while (!err.empty() && (err.back() == '\n' || err.back() == '\r'))
        err.pop_back();
    if (r.status && !err.empty())
        return {{}, err.substr(err.rfind('\n') + 1)};
    return {{}, failureOf(r, kDoctorProbeSeconds)};
}

// The probe's part of a report, from what the probe printed and how it ended.
void readProbeOutput(DoctorReport& r, bool exitedOk, const std::string& out,
                     const std::string& failure) {
    const std::string prefix = "studio-train probe failed: ";
    if (!exitedOk) {
        r.probeError = prefix + failure;
        return;
    }
    json j = json::parse(out, nullptr, false);
    if (j.is_discarded()) {
        const std::string line = firstLine(out);
        r.probeError = prefix + "it printed no JSON" + (line.empty() ? "" : " (\"" + line + "\")");
        return;
    }
    try {
        r.probe = parseTrainerProbe(j);
        r.probeJson = std::move(j);
    } catch (const std::exception& e) {
        r.probeError = prefix + e.what();
    }
}

} // namespace

TrainerProbe parseTrainerProbe(const json& j) {
    if (!j.is_object())
        throw std::runtime_error("its output is not a JSON object");
    TrainerProbe p;
    p.libtorch = text(j, "libtorch");
    p.cudaCompiled = flag(j, "cuda_compiled");
    p.cudaAvailable = flag(j, "cuda_available");
    p.cudaRuntime = text(j, "cuda_runtime");
    const json& devices = array(j, "devices");
    for (std::size_t i = 0; i < devices.size(); ++i)
        p.devices.push_back(parseDevice(devices[i], i));
    const json& nccl = object(j, "nccl");
    p.ncclCompiled = flag(nccl, "compiled", "nccl.");
    p.ncclVersion = text(nccl, "version", "nccl.");
    p.ncclProcessGroup = text(nccl, "process_group", "nccl.");
    p.gloo = flag(j, "gloo");
    p.blas = text(j, "blas");
    const json& threads = object(j, "threads");
    p.intraOpThreads = static_cast<int>(integer(threads, "intra_op", "threads."));
    p.interOpThreads = static_cast<int>(integer(threads, "inter_op", "threads."));
    p.parallel = text(j, "parallel");
    for (const json& a : array(j, "amp")) {
        if (!a.is_string())
            throw std::runtime_error("field \"amp\" holds a value that is not a string");
        p.amp.push_back(a.get<std::string>());
    }
    return p;
}

std::string majorMinor(const std::string& version) {
    static const std::regex re(R"(^\s*v?(\d+)\.(\d+))");
    std::smatch m;
    if (!std::regex_search(version, m, re))
        return {};
    return m[1].str() + "." + m[2].str();
}

std::string cudaSummary(const TrainerProbe& p) {
    if (!p.cudaCompiled)
        return "not compiled in (CPU LibTorch)";
    return "runtime " + p.cudaRuntime + (p.cudaAvailable ? ", available" : ", not available");
}

std::string ncclSummary(const TrainerProbe& p) {
    if (!p.ncclCompiled)
        return "not compiled in";
    return p.ncclVersion + ", process group " + p.ncclProcessGroup;
}

std::string threadsSummary(const TrainerProbe& p) {
    return "intra-op " + std::to_string(p.intraOpThreads) + ", inter-op " +
           std::to_string(p.interOpThreads);
}

std::string ampSummary(const TrainerProbe& p) {
    std::string s;
    for (const auto& a : p.amp)
        s += (s.empty() ? "" : ", ") + a;
    return s.empty() ? "none" : s;
}

std::string deviceSummary(const ProbedDevice& d) {
    char gib[32];
    std::snprintf(gib, sizeof gib, "%.1f GiB", static_cast<double>(d.memoryBytes) / (1 << 30));
    return d.name + ", " + gib + ", capability " + d.capability;
}

std::string pythonTorchSummary(const DoctorReport& r) {
    if (r.pythonTorch.empty())
        return "not found (" + r.pythonTorchError + ")";
    if (!r.torchMatch)
        return r.pythonTorch;
    return r.pythonTorch + (*r.torchMatch ? " (matches LibTorch " : " (LibTorch is ") +
           r.probe->libtorch + ")";
}

std::string doctorTrainerProgram() {
    if (const char* env = std::getenv("MLSTUDIO_TRAINER"); env && *env)
        return env;
    return findProgram("studio-train");
}

std::vector<std::string> doctorWarnings(const DoctorReport& r) {
    std::vector<std::string> w;
    if (r.launcherPath.empty())
        w.push_back("studio-launcher not found beside mlstudio, in its ../lib/mlstudio or on PATH: "
                    "no job can start");
    if (r.probe) {
        const TrainerProbe& p = *r.probe;
        if (p.cudaCompiled && !p.cudaAvailable)
            w.push_back("LibTorch was built with CUDA " + p.cudaRuntime +
                        " but sees no usable device: is the NVIDIA driver loaded?");
        if (p.cudaAvailable && p.ncclProcessGroup != "ok")
            w.push_back("NCCL " + p.ncclProcessGroup + ": data-parallel jobs on GPUs need it");
        if (!p.gloo)
            w.push_back("no Gloo in this LibTorch: data-parallel jobs on CPUs cannot run");
    }
    if (r.resourcesPath.empty())
        w.push_back(r.resourcesError + ": spot jobs cannot be priced and instance types not "
                                       "checked");
    if (r.pythonTorch.empty())
        w.push_back(r.python + " has no torch (" + r.pythonTorchError +
                    "): Python script jobs that import torch fail and the benches have no "
                    "PyTorch anchor");
    else if (r.torchMatch == false)
        w.push_back("Python torch " + r.pythonTorch + " and studio-train's LibTorch " +
                    r.probe->libtorch +
                    " differ: checkpoints and model.pt still load across them, but the benches' "
                    "PyTorch anchor measures another build than the studio's");
    return w;
}

DoctorReport collectDoctorReport() {
    DoctorReport r;
    r.version = STUDIO_VERSION;
    r.launcherPath = findProgram("studio-launcher");
    const char* env = std::getenv("MLSTUDIO_TRAINER");
    r.trainerFromEnv = env && *env;
    r.trainerPath = doctorTrainerProgram();
    r.python = spec::defaultPythonInterpreter();
    try {
        const spot::ResourceRoot root = spot::findResourceRoot("catalog/instances.json");
        r.resourcesPath = root.path;
        r.resourcesFrom = root.origin;
    } catch (const std::exception& e) {
        r.resourcesError = e.what();
    }

    // import torch takes seconds; it runs while the trainer probes.
    auto python = std::async(std::launch::async, probePythonTorch, r.python);
    if (r.trainerPath.empty()) {
        readProbeOutput(
            r, false, {},
            "studio-train not found beside mlstudio, in its ../lib/mlstudio or on PATH");
    } else {
        const auto probe =
            remote::runLocal({r.trainerPath, "--probe", "--json"}, kDoctorProbeSeconds);
        readProbeOutput(r, probe.ok(), probe.out, failureOf(probe, kDoctorProbeSeconds));
    }
    const PythonTorch torch = python.get();
    r.pythonTorch = torch.version;
    r.pythonTorchError = torch.error;
    if (r.probe && !r.pythonTorch.empty())
        r.torchMatch = majorMinor(r.pythonTorch) == majorMinor(r.probe->libtorch);
    r.warnings = doctorWarnings(r);
    return r;
}

} // namespace studio::control
