#include "engine/train/fused_ops.h"

#include "engine/train/counter_rng.h"

#include <ATen/Parallel.h>

namespace studio::train {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

constexpr std::uint8_t kDropped = 255;

// Dropout decisions use 16 bits each, four per hash: element `counter` keeps its value when its
// chunk is at least p * 65536.
struct MaskStream {
    std::uint64_t key;
    std::uint32_t threshold; // 0: keep everything

    MaskStream(std::uint64_t k, double p, bool training)
        : key(k)
        , threshold(training && p > 0 ? static_cast<std::uint32_t>(p * 65536.0 + 0.5) : 0) {}
    bool keep(std::uint64_t counter) const {
        if (threshold == 0)
            return true;
        const std::uint64_t bits = randomBits(key, counter >> 2);
        return ((bits >> ((counter & 3) * 16)) & 0xffff) >= threshold;
    }
};

// Walks increasing counters, hashing once per four decisions.
struct MaskCursor {
    const MaskStream& stream;
    std::uint64_t block = ~std::uint64_t(0);
    std::uint64_t bits = 0;

    bool keep(std::uint64_t counter) {
        if (stream.threshold == 0)
            return true;
        if ((counter >> 2) != block) {
            block = counter >> 2;
            bits = randomBits(stream.key, block);
        }
        return ((bits >> ((counter & 3) * 16)) & 0xffff) >= stream.threshold;
    }
};

float scaleFor(double p, bool training) {
    return training && p > 0 ? 1.0f / (1.0f - static_cast<float>(p)) : 1.0f;
}

// Decision counters enumerate a sample's outputs in (row, column, channel) order, whatever the
// memory layout, so channels-last and NCHW runs draw the same masks.
struct PoolReluDropoutFn : torch::autograd::Function<PoolReluDropoutFn> {
    static torch::Tensor forward(AutogradContext* ctx, torch::Tensor x, double p, std::int64_t key,
                                 std::int64_t offset, bool training) {
        TORCH_CHECK(x.dim() == 4 && x.scalar_type() == torch::kFloat,
                    "poolReluDropout: NCHW float input");
        const bool nhwc =
            x.is_contiguous(at::MemoryFormat::ChannelsLast) && x.size(1) > 1 && x.stride(1) == 1;
        if (!nhwc)
            x = x.contiguous();
        const std::int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
        const std::int64_t OH = H / 2, OW = W / 2, plane = OH * OW, perSample = C * plane;
        auto y = torch::empty({N, C, OH, OW}, x.options());
        auto code = torch::empty({N, OH, OW, C}, x.options().dtype(torch::kUInt8)); // NHWC order
        const float* in = x.data_ptr<float>();
        float* out = y.data_ptr<float>();
        std::uint8_t* cd = code.data_ptr<std::uint8_t>();
        const MaskStream mask(static_cast<std::uint64_t>(key), p, training);
        const float scale = scaleFor(p, training);
        at::parallel_for(0, N, 1, [&](std::int64_t n0, std::int64_t n1) {
            for (std::int64_t n = n0; n < n1; ++n) {
                const std::uint64_t base = static_cast<std::uint64_t>(offset + n) * perSample;
                for (std::int64_t i = 0; i < OH; ++i) {
                    for (std::int64_t j = 0; j < OW; ++j) {
                        std::uint8_t* codes = cd + ((n * OH + i) * OW + j) * C;
                        float* o = out + n * perSample + i * OW + j;
                        const std::uint64_t counter0 =
                            base + static_cast<std::uint64_t>((i * OW + j) * C);
                        const float* r0 = nhwc ? in + ((n * H + 2 * i) * W + 2 * j) * C : nullptr;
                        const float* r1 = nhwc ? r0 + W * C : nullptr;
                        MaskCursor cursor{mask};
                        for (std::int64_t c = 0; c < C; ++c) {
                            float a, b, e, f;
                            if (nhwc) {
                                a = r0[c], b = r0[C + c], e = r1[c], f = r1[C + c];
                            } else {
                                const float* q0 = in + ((n * C + c) * H + 2 * i) * W + 2 * j;
                                a = q0[0], b = q0[1], e = q0[W], f = q0[W + 1];
                            }
                            // Branch-free (random data defeats branch prediction); ties keep the
                            // first maximum, as max_pool2d does.
                            const bool top = b > a, bottom = f > e;
                            const float m01 = top ? b : a, m23 = bottom ? f : e;
                            const bool lower = m23 > m01;
                            const float m = lower ? m23 : m01;
                            const std::uint8_t arg = lower ? static_cast<std::uint8_t>(2 + bottom)
                                                           : static_cast<std::uint8_t>(top);
                            const bool pass =
                                cursor.keep(counter0 + static_cast<std::uint64_t>(c)) & (m > 0);
                            o[c * plane] = m * scale * static_cast<float>(pass);
                            codes[c] = pass ? arg : kDropped;
                        }
                    }
                }
            }
        });
        ctx->save_for_backward({code});
        ctx->saved_data["scale"] = static_cast<double>(scale);
        ctx->saved_data["nhwc"] = nhwc;
        ctx->saved_data["H"] = H;
        ctx->saved_data["W"] = W;
        return y;
    }

    static variable_list backward(AutogradContext* ctx, variable_list grads) {
        auto code = ctx->get_saved_variables()[0];
        const float scale = static_cast<float>(ctx->saved_data["scale"].toDouble());
        const bool nhwc = ctx->saved_data["nhwc"].toBool();
        const std::int64_t H = ctx->saved_data["H"].toInt(), W = ctx->saved_data["W"].toInt();
        auto go = grads[0].contiguous();
        const std::int64_t N = go.size(0), C = go.size(1), OH = go.size(2), OW = go.size(3);
        const std::int64_t plane = OH * OW;
        auto gi = torch::empty({N, C, H, W},
                               go.options().memory_format(nhwc ? at::MemoryFormat::ChannelsLast
                                                               : at::MemoryFormat::Contiguous));
        if (H % 2 || W % 2) // odd sizes: the last row or column feeds no window
            gi.zero_();
        const float* g = go.data_ptr<float>();
        const std::uint8_t* cd = code.data_ptr<std::uint8_t>();
        float* o = gi.data_ptr<float>();
        // Each output's gradient goes to the input that won its window; the other three get 0.
        const std::int64_t rowStep = nhwc ? W * C : W, colStep = nhwc ? C : 1;
        at::parallel_for(0, N, 1, [&](std::int64_t n0, std::int64_t n1) {
            for (std::int64_t n = n0; n < n1; ++n)
                for (std::int64_t i = 0; i < OH; ++i)
                    for (std::int64_t j = 0; j < OW; ++j) {
                        const std::uint8_t* codes = cd + ((n * OH + i) * OW + j) * C;
                        const float* gs = g + n * C * plane + i * OW + j;
                        for (std::int64_t c = 0; c < C; ++c) {
                            const std::uint8_t arg = codes[c];
                            const float v =
                                gs[c * plane] * scale * static_cast<float>(arg != kDropped);
                            float* r0 = nhwc ? o + ((n * H + 2 * i) * W + 2 * j) * C + c
                                             : o + ((n * C + c) * H + 2 * i) * W + 2 * j;
                            float* r1 = r0 + rowStep;
                            r0[0] = v * static_cast<float>(arg == 0);
                            r0[colStep] = v * static_cast<float>(arg == 1);
                            r1[0] = v * static_cast<float>(arg == 2);
                            r1[colStep] = v * static_cast<float>(arg == 3);
                        }
                    }
        });
        return {gi, torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
    }
};

// Shared by reluDropout (relu = true) and dropout (relu = false): out = x * mask * scale, where
// the mask also drops x <= 0 when relu is set. The mask (as the scale or 0) is kept for backward.
struct MaskedScaleFn : torch::autograd::Function<MaskedScaleFn> {
    static torch::Tensor forward(AutogradContext* ctx, torch::Tensor x, double p, std::int64_t key,
                                 std::int64_t offset, bool training, bool relu) {
        x = x.contiguous();
        const std::int64_t N = x.size(0), perSample = x.numel() / std::max<std::int64_t>(N, 1);
        auto mask = torch::empty_like(x);
        auto y = torch::empty_like(x);
        const float* in = x.data_ptr<float>();
        float* m = mask.data_ptr<float>();
        float* out = y.data_ptr<float>();
        const MaskStream stream(static_cast<std::uint64_t>(key), p, training);
        const float scale = scaleFor(p, training);
        at::parallel_for(0, N, 1, [&](std::int64_t n0, std::int64_t n1) {
            for (std::int64_t n = n0; n < n1; ++n) {
                const std::uint64_t base = static_cast<std::uint64_t>(offset + n) * perSample;
                MaskCursor cursor{stream};
                for (std::int64_t f = 0; f < perSample; ++f) {
                    const std::int64_t i = n * perSample + f;
                    const bool pass =
                        cursor.keep(base + static_cast<std::uint64_t>(f)) && (!relu || in[i] > 0);
                    m[i] = pass ? scale : 0.f;
                    out[i] = pass ? in[i] * scale : 0.f;
                }
            }
        });
        ctx->save_for_backward({mask});
        return y;
    }

    static variable_list backward(AutogradContext* ctx, variable_list grads) {
        auto mask = ctx->get_saved_variables()[0];
        return {grads[0] * mask, torch::Tensor(), torch::Tensor(),
                torch::Tensor(), torch::Tensor(), torch::Tensor()};
    }
};

// The masks the fused kernels draw, as scale-or-0 floats in [N, perSample] (counter order), for
// inputs the fused CPU kernels do not take: CUDA tensors and reduced precision under autocast.
// The same counters give the same masks, so a GPU rank drops what the CPU one would.
torch::Tensor keepMask(std::int64_t n, std::int64_t perSample, double p, DropoutKey key,
                       bool training) {
    auto mask = torch::empty({n, perSample}, torch::kFloat);
    float* m = mask.data_ptr<float>();
    const MaskStream stream(key.key, p, training);
    const float scale = scaleFor(p, training);
    at::parallel_for(0, n, 1, [&](std::int64_t n0, std::int64_t n1) {
        for (std::int64_t i = n0; i < n1; ++i) {
            const std::uint64_t base = static_cast<std::uint64_t>(key.sampleOffset + i) *
                                       static_cast<std::uint64_t>(perSample);
            MaskCursor cursor{stream};
            for (std::int64_t f = 0; f < perSample; ++f)
                m[i * perSample + f] =
                    cursor.keep(base + static_cast<std::uint64_t>(f)) ? scale : 0.f;
        }
    });
    return mask;
}

bool fusedKernelTakes(const torch::Tensor& x) {
    return x.device().is_cpu() && x.scalar_type() == torch::kFloat;
}

torch::Tensor onDeviceOf(const torch::Tensor& mask, const torch::Tensor& x) {
    return mask.to(x.device(), x.scalar_type());
}

} // namespace

torch::Tensor poolReluDropout(const torch::Tensor& x, double p, DropoutKey key, bool training) {
    if (!fusedKernelTakes(x)) {
        torch::Tensor y = torch::relu(torch::max_pool2d(x, 2));
        if (!training || p <= 0)
            return y;
        const std::int64_t n = y.size(0), c = y.size(1), oh = y.size(2), ow = y.size(3);
        // Counters run in (row, column, channel) order within a sample.
        auto mask = keepMask(n, oh * ow * c, p, key, training).view({n, oh, ow, c});
        return y * onDeviceOf(mask.permute({0, 3, 1, 2}), y);
    }
    return PoolReluDropoutFn::apply(x, p, static_cast<std::int64_t>(key.key), key.sampleOffset,
                                    training);
}

torch::Tensor reluDropout(const torch::Tensor& x, double p, DropoutKey key, bool training) {
    if (!fusedKernelTakes(x)) {
        torch::Tensor y = torch::relu(x);
        if (!training || p <= 0)
            return y;
        const std::int64_t n = x.size(0);
        return y *
               onDeviceOf(keepMask(n, x.numel() / std::max<std::int64_t>(n, 1), p, key, training)
                              .view(x.sizes()),
                          x);
    }
    return MaskedScaleFn::apply(x, p, static_cast<std::int64_t>(key.key), key.sampleOffset,
                                training, true);
}

torch::Tensor dropout(const torch::Tensor& x, double p, DropoutKey key, bool training) {
    if (!training || p <= 0)
        return x;
    if (!fusedKernelTakes(x)) {
        const std::int64_t n = x.size(0);
        return x *
               onDeviceOf(keepMask(n, x.numel() / std::max<std::int64_t>(n, 1), p, key, training)
                              .view(x.sizes()),
                          x);
    }
    return MaskedScaleFn::apply(x, p, static_cast<std::int64_t>(key.key), key.sampleOffset,
                                training, false);
}

} // namespace studio::train
