// Mixed precision for a rank (the amp hyperparameter): autocast of the forward pass to bfloat16
// or float16, and for float16 a dynamic loss scale whose overflowing steps are skipped.
#pragma once

#include "engine/train/device.h"
#include "engine/train/loss_scaler.h"
#include "engine/train/torch_compat.h"

#include <torch/torch.h>

#include <string>
#include <vector>

namespace studio::train {

class MixedPrecision {
public:
    // amp: none, bf16 or fp16. Throws std::invalid_argument naming hyperparameters.amp when
    // float16 is asked of a CPU rank.
    MixedPrecision(const std::string& amp, const RankDevice& device, int rank);

    bool enabled() const { return m_enabled; }
    const std::string& name() const { return m_name; }
    // Holds autocast on for the forward pass and the loss in its scope.
    compat::AutocastGuard autocast() const {
        return compat::AutocastGuard(m_enabled, m_type, m_dtype);
    }
    // Multiply the loss by this before backward (1 but for float16).
    double lossScale() const { return m_fp16 ? m_scaler.scale() : 1.0; }
    // Once the gradients are complete: divides out the loss scale and looks for inf and NaN.
    // False when the optimizer must skip this step (the scale was lowered).
    bool unscale(const std::vector<torch::Tensor>& params);
    std::int64_t skippedSteps() const { return m_scaler.skippedSteps(); }

private:
    std::string m_name;
    bool m_enabled = false;
    bool m_fp16 = false;
    c10::DeviceType m_type = c10::DeviceType::CPU;
    at::ScalarType m_dtype = at::kBFloat16;
    LossScaler m_scaler;
};

} // namespace studio::train
