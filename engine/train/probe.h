// What this trainer can train with: the LibTorch it runs, CUDA devices, NCCL, Gloo, BLAS and
// threads (`studio-train --probe`, read by `mlstudio doctor` and the About box).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace studio::train {

// Collects the facts; a part that cannot be read is reported as such, never thrown.
nlohmann::json probeTrainer();

// The same facts as aligned "label: value" lines.
std::string probeText(const nlohmann::json& probe);

} // namespace studio::train
