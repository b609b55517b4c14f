// `mlstudio doctor`: what this machine can train with. The studio's programs, what the built-in
// trainer's LibTorch says about itself (`studio-train --probe --json`: CUDA, devices, NCCL, Gloo,
// BLAS, threads) and the Python that script jobs and the benches' PyTorch anchor run with. Data
// only: the CLI prints it, the About box shows it.
// Thread-safe: collectDoctorReport() shares no state, so it may run on any thread.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace studio::control {

// One CUDA device as the trainer's LibTorch sees it.
struct ProbedDevice {
    int index = 0;
    std::string name;
    std::int64_t memoryBytes = 0;
    std::string capability; // "9.0"
};

// The trainer's answer to --probe --json.
struct TrainerProbe {
    std::string libtorch; // "1.13.1", "2.5.1"
    bool cudaCompiled = false;
    bool cudaAvailable = false;
    std::string cudaRuntime; // "" without CUDA
    std::vector<ProbedDevice> devices;
    bool ncclCompiled = false;
    std::string ncclVersion;      // "" without NCCL
    std::string ncclProcessGroup; // "ok" or "unavailable: <why>"
    bool gloo = false;
    std::string blas;
    int intraOpThreads = 0;
    int interOpThreads = 0;
    std::string parallel;         // at::get_parallel_info()'s first line
    std::vector<std::string> amp; // "bf16", "fp16"
};

// Reads the probe's JSON object. Throws std::runtime_error naming the field that is missing or
// of the wrong type.
TrainerProbe parseTrainerProbe(const nlohmann::ordered_json& probe);

inline constexpr double kDoctorProbeSeconds = 60;

struct DoctorReport {
    std::string version;              // STUDIO_VERSION
    std::string launcherPath;         // "" when not found
    std::string trainerPath;          // the program probed; "" when not found
    bool trainerFromEnv = false;      // $MLSTUDIO_TRAINER chose it
    nlohmann::ordered_json probeJson; // the probe's object as printed; null when it failed
    std::optional<TrainerProbe> probe;
    std::string probeError;         // "studio-train probe failed: <why>" when probe is empty
    std::string python;             // the interpreter of script jobs
    std::string pythonTorch;        // its torch.__version__; "" when it has none
    std::string pythonTorchError;   // why there is none
    std::optional<bool> torchMatch; // Python torch's major.minor == LibTorch's; empty: unknown
    std::string resourcesPath;      // the folder the instance catalogue was found in; ""
    std::string resourcesFrom;      // "MLSTUDIO_RESOURCES", "installed" or "source tree"
    std::string resourcesError;     // why none was found
    std::vector<std::string> warnings;

    bool ok() const { return probe.has_value(); }
};

// The trainer doctor probes: $MLSTUDIO_TRAINER when set, else studio-train beside this program
// or on PATH (as the controller finds it); "" when there is none.
std::string doctorTrainerProgram();

// Probes the trainer and the Python (at the same time), each bounded by kDoctorProbeSeconds.
// Never throws: what fails is reported in the report.
DoctorReport collectDoctorReport();

// Warnings a user should act on, from a report's facts (mismatched torch, missing pieces).
std::vector<std::string> doctorWarnings(const DoctorReport& r);

// "2.1" of "2.1.0+cu121"; "" when the text has no major.minor.
std::string majorMinor(const std::string& version);

// One-line values the CLI and the About box both show.
std::string cudaSummary(const TrainerProbe& p);    // "runtime 13.2, available"
std::string ncclSummary(const TrainerProbe& p);    // "2.30.7, process group ok"
std::string threadsSummary(const TrainerProbe& p); // "intra-op 8, inter-op 8"
std::string ampSummary(const TrainerProbe& p);     // "bf16, fp16"
// "NVIDIA H100 80GB HBM3, 79.2 GiB, capability 9.0"
std::string deviceSummary(const ProbedDevice& d);
// "1.13.0 (matches LibTorch 1.13.1)", "not found (<why>)"
std::string pythonTorchSummary(const DoctorReport& r);

} // namespace studio::control
