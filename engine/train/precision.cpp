#include "engine/train/precision.h"

#include <stdexcept>

namespace studio::train {

MixedPrecision::MixedPrecision(const std::string& amp, const RankDevice& device, int rank)
    : m_name(amp)
    , m_type(device.device.type()) {
    if (amp == "none")
        return;
    if (amp != "bf16" && amp != "fp16")
        throw std::invalid_argument("hyperparameters.amp: '" + amp + "' is not none, bf16 or fp16");
    if (amp == "fp16" && !device.cuda())
        throw std::invalid_argument("hyperparameters.amp: fp16 needs a CUDA device, and rank " +
                                    std::to_string(rank) + " trains on " + device.description +
                                    "; use bf16 on CPUs");
    m_enabled = true;
    m_fp16 = amp == "fp16";
    m_dtype = m_fp16 ? at::kHalf : at::kBFloat16;
}

bool MixedPrecision::unscale(const std::vector<torch::Tensor>& params) {
    if (!m_fp16)
        return true;
    torch::NoGradGuard noGrad;
    const double inverse = 1.0 / m_scaler.scale();
    torch::Tensor bad;
    for (const auto& p : params) {
        if (!p.grad().defined())
            continue;
        torch::Tensor g = p.grad();
        g.mul_(inverse);
        torch::Tensor n = g.isfinite().logical_not().sum();
        bad = bad.defined() ? bad + n : n;
    }
    const bool overflow = bad.defined() && bad.item<std::int64_t>() > 0;
    return m_scaler.update(overflow);
}

} // namespace studio::train
