// mlstudio doctor: what this machine can train with, as aligned "label: value" lines or one
// JSON object.
#include "app/cli/cli.h"

#include "engine/control/doctor.h"

#include <cstdio>
#include <sstream>

namespace studio::cli {

namespace {

using control::DoctorReport;
using control::TrainerProbe;

constexpr int kLabelWidth = 17;

void line(std::ostringstream& out, const std::string& label, const std::string& value) {
    out << "  " << label << ':' << std::string(kLabelWidth - label.size() - 1, ' ') << value
        << '\n';
}

std::string orNotFound(const std::string& path) {
    return path.empty() ? "not found" : path;
}

void trainerLines(std::ostringstream& out, const TrainerProbe& p) {
    line(out, "LibTorch", p.libtorch);
    line(out, "CUDA", control::cudaSummary(p));
    line(out, "NCCL", control::ncclSummary(p));
    line(out, "Gloo", p.gloo ? "yes" : "no");
    line(out, "BLAS", p.blas);
    line(out, "threads", control::threadsSummary(p));
    line(out, "parallel", p.parallel);
    line(out, "AMP", control::ampSummary(p));
}

std::string doctorText(const DoctorReport& r) {
    std::ostringstream out;
    out << "ML Studio " << r.version << "\n\n";
    line(out, "studio-launcher", orNotFound(r.launcherPath));
    line(out, "studio-train",
         orNotFound(r.trainerPath) + (r.trainerFromEnv ? " (from $MLSTUDIO_TRAINER)" : ""));
    if (r.probe)
        trainerLines(out, *r.probe);
    else
        line(out, "LibTorch", "unknown: the probe failed (the error is below)");
    line(out, "resources",
         r.resourcesPath.empty() ? "not found" : r.resourcesPath + " (" + r.resourcesFrom + ")");
    line(out, "Python", r.python);
    line(out, "Python torch", control::pythonTorchSummary(r));
    if (r.probe) {
        out << "\ndevices:\n";
        if (r.probe->devices.empty())
            out << "  no CUDA device\n";
        for (const auto& d : r.probe->devices)
            out << "  cuda:" << d.index << "  " << control::deviceSummary(d) << '\n';
    }
    if (!r.warnings.empty()) {
        out << "\nwarnings:\n";
        for (const auto& w : r.warnings)
            out << "  - " << w << '\n';
    }
    if (!r.ok())
        out << "\nerror: " << r.probeError << '\n';
    return out.str();
}

nlohmann::ordered_json orNull(const std::string& s) {
    return s.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(s);
}

nlohmann::ordered_json doctorJson(const DoctorReport& r) {
    nlohmann::ordered_json j;
    j["version"] = r.version;
    j["ok"] = r.ok();
    j["studio_launcher"] = orNull(r.launcherPath);
    j["studio_train"] = {{"path", orNull(r.trainerPath)}, {"from_env", r.trainerFromEnv}};
    j["trainer"] = r.probeJson;
    j["trainer_error"] = orNull(r.probeError);
    j["python"] = {{"path", r.python},
                   {"torch", orNull(r.pythonTorch)},
                   {"error", orNull(r.pythonTorchError)}};
    j["resources"] = {{"path", orNull(r.resourcesPath)},
                      {"from", orNull(r.resourcesFrom)},
                      {"error", orNull(r.resourcesError)}};
    j["torch_matches_libtorch"] =
        r.torchMatch ? nlohmann::ordered_json(*r.torchMatch) : nlohmann::ordered_json();
    j["warnings"] = r.warnings;
    return j;
}

} // namespace

int cmdDoctor(bool json) {
    const DoctorReport r = control::collectDoctorReport();
    const std::string text = json ? doctorJson(r).dump(2) + "\n" : doctorText(r);
    std::fwrite(text.data(), 1, text.size(), stdout);
    return r.ok() ? kExitOk : kExitFailed;
}

} // namespace studio::cli
