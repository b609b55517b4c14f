#include "engine/train/tensor_reductions.h"

#include "engine/debugger/hook_plan.h"

#include <cmath>

namespace studio::train {

namespace r = debugger::reduction;
using torch::Tensor;

namespace {

double basic(const Tensor& x, const std::string& name) {
    if (name == "min")
        return x.min().item<double>();
    if (name == "max")
        return x.max().item<double>();
    if (name == "mean")
        return x.mean().item<double>();
    if (name == "std")
        return x.numel() > 1 ? x.std(false).item<double>() : 0.0;
    if (name == "variance")
        return x.numel() > 1 ? x.var(false).item<double>() : 0.0;
    if (name == "sum")
        return x.sum().item<double>();
    if (name == "prod")
        return x.prod().item<double>();
    if (name == "l1_norm")
        return x.abs().sum().item<double>();
    if (name == "l2_norm")
        return x.norm().item<double>();
    return std::nan("");
}

bool isBasic(const std::string& n) {
    static const char* names[] = {"min", "max",  "mean",    "std",    "variance",
                                  "sum", "prod", "l1_norm", "l2_norm"};
    for (const char* b : names)
        if (n == b)
            return true;
    return false;
}

// The axis whose entries are units: features of [B, F], channels of [B, C, H, W], the model
// dimension of [B, T, D].
int unitAxis(const Tensor& t) {
    if (t.dim() == 3)
        return 2;
    return t.dim() >= 2 ? 1 : 0;
}

double percentileOf(const Tensor& flat, double q) {
    const std::int64_t n = flat.numel();
    const auto k =
        static_cast<std::int64_t>(std::floor(q / 100.0 * static_cast<double>(n - 1))) + 1;
    return std::get<0>(flat.kthvalue(std::clamp<std::int64_t>(k, 1, n))).item<double>();
}

} // namespace

std::vector<std::pair<std::string, double>> reduceTensor(const Tensor& input,
                                                         const std::vector<std::string>& names,
                                                         const ReductionOptions& options) {
    std::vector<std::pair<std::string, double>> out;
    if (!input.defined() || input.numel() == 0)
        return out;
    torch::NoGradGuard noGrad;
    // Reductions run in the tensor's own precision (LibTorch accumulates float sums pairwise),
    // which saves copying every saved tensor to double; integers become float.
    const Tensor x = input.is_floating_point() ? input.detach() : input.detach().to(torch::kFloat);
    Tensor absolute;
    for (const auto& name : names) {
        if (isBasic(name)) {
            out.emplace_back(name, basic(x, name));
        } else if (name.rfind("abs_", 0) == 0 && isBasic(name.substr(4))) {
            if (!absolute.defined())
                absolute = x.abs();
            out.emplace_back(name, basic(absolute, name.substr(4)));
        } else if (name == r::kNonFinite) {
            out.emplace_back(name, (~torch::isfinite(x)).sum().item<double>());
        } else if (name == r::kNan) {
            out.emplace_back(name, torch::isnan(x).sum().item<double>());
        } else if (name == r::kZeroPercent) {
            out.emplace_back(name,
                             x.eq(0).sum().item<double>() * 100.0 / static_cast<double>(x.numel()));
        } else if (name == r::kP5 || name == r::kP95) {
            out.emplace_back(name, percentileOf(x.flatten(), name == r::kP5 ? 5 : 95));
        } else if (name == r::kInactiveUnitsPercent) {
            if (x.dim() < 2)
                continue;
            const int axis = unitAxis(x);
            Tensor active =
                options.hasActiveRange
                    ? x.ge(options.activeRange.first).logical_and(x.le(options.activeRange.second))
                    : x.gt(0);
            // Activity of each unit over every other axis, in percent.
            Tensor perUnit = active.to(torch::kFloat).movedim(axis, 0).flatten(1).mean(1) * 100;
            const double inactive = perUnit.lt(options.inactivityPercent).sum().item<double>();
            out.emplace_back(name, inactive * 100.0 / static_cast<double>(perUnit.numel()));
        } else if (name == r::kChannelMeanPrefix) {
            const int axis = options.channelAxis;
            if (axis < 0 || axis >= x.dim())
                continue;
            Tensor means = x.to(torch::kDouble).movedim(axis, 0).flatten(1).mean(1);
            for (std::int64_t c = 0; c < means.numel(); ++c)
                out.emplace_back(r::kChannelMeanPrefix + std::to_string(c),
                                 means[c].item<double>());
            out.emplace_back(r::kSamples, static_cast<double>(x.size(0)));
        }
    }
    return out;
}

namespace {

std::vector<std::pair<std::string, double>> counts(const Tensor& classes, const char* prefix) {
    std::vector<std::pair<std::string, double>> out;
    if (!classes.defined() || classes.numel() == 0)
        return out;
    Tensor bins = torch::bincount(classes.flatten().to(torch::kLong));
    auto a = bins.accessor<std::int64_t, 1>();
    for (std::int64_t k = 0; k < bins.numel(); ++k)
        if (a[k] > 0)
            out.emplace_back(prefix + std::to_string(k), static_cast<double>(a[k]));
    return out;
}

} // namespace

std::vector<std::pair<std::string, double>> labelCounts(const Tensor& target,
                                                        const Tensor& predicted) {
    torch::NoGradGuard noGrad;
    auto out = counts(target, r::kClassPrefix);
    auto missed = counts(target.flatten().masked_select(target.flatten().ne(predicted.flatten())),
                         r::kMispredictedPrefix);
    out.insert(out.end(), missed.begin(), missed.end());
    out.emplace_back(r::kSamples, static_cast<double>(target.numel()));
    return out;
}

std::vector<std::pair<std::string, double>> predictionCounts(const Tensor& predicted) {
    torch::NoGradGuard noGrad;
    auto out = counts(predicted, r::kClassPrefix);
    out.emplace_back(r::kSamples, static_cast<double>(predicted.numel()));
    return out;
}

} // namespace studio::train
