#include "engine/train/models.h"

#include "engine/train/counter_rng.h"

#include <cmath>
#include <mutex>
#include <stdexcept>

namespace studio::train {

namespace nn = torch::nn;
using torch::Tensor;

DropoutKey StepContext::dropoutKey(int layer) const {
    return {streamKey(seed, static_cast<std::uint64_t>(step), static_cast<std::uint64_t>(layer)),
            sampleOffset};
}

void Model::addBlock(const std::string& name, std::shared_ptr<Block> block) {
    blocks.push_back(register_module(name, block));
    blockNames.push_back(name);
}

Tensor Model::forward(Tensor x, const StepContext& ctx, int first, int last) {
    if (last < 0)
        last = static_cast<int>(blocks.size());
    if (!ctx.capture && !(ctx.profiler && ctx.profiler->active())) {
        for (int i = first; i < last; ++i)
            x = blocks[static_cast<std::size_t>(i)]->forward(x, ctx);
        return x;
    }
    if (ctx.capture && first == 0)
        ctx.capture->addNamed(kind + "_input_0", x);
    for (int i = first; i < last; ++i) {
        const std::string& name = blockNames[static_cast<std::size_t>(i)];
        if (ctx.capture)
            ctx.capture->block = name;
        const auto start = FrameworkProfiler::Clock::now();
        x = blocks[static_cast<std::size_t>(i)]->forward(x, ctx);
        if (ctx.profiler)
            ctx.profiler->blockForward(name, start, FrameworkProfiler::Clock::now(), x);
        if (ctx.capture)
            ctx.capture->add("output_0", x);
    }
    return x;
}

Tensor Model::loss(const Tensor& out, const Tensor& target) const {
    if (languageModel)
        return torch::cross_entropy_loss(out.reshape({-1, out.size(-1)}), target.reshape({-1}));
    return torch::nll_loss(out, target);
}

std::int64_t Model::correct(const Tensor& out, const Tensor& target) const {
    return out.argmax(-1).eq(target).sum().item<std::int64_t>();
}

std::int64_t Model::predictions(const Tensor& target) const {
    return target.numel();
}

std::vector<Tensor> Model::blockParameters(int first, int last) const {
    std::vector<Tensor> out;
    for (int i = first; i < last; ++i)
        for (auto& p : blocks[static_cast<std::size_t>(i)]->parameters())
            out.push_back(p);
    return out;
}

namespace {

void toChannelsLast(nn::Module& m) {
    for (auto& p : m.parameters())
        if (p.dim() == 4)
            p.set_data(p.contiguous(at::MemoryFormat::ChannelsLast));
}

// An in-place ReLU that hands its input and output to the debugger's capture when it is on.
void reluInPlace(Tensor& y, const StepContext& ctx) {
    if (ctx.capture)
        ctx.capture->add("relu_input", y);
    y.relu_();
    if (ctx.capture)
        ctx.capture->add("relu_output", y);
}

// --- fmnist-cnn: conv 32, conv 64, max-pool, dropout .25, fc 9216->128, dropout .5, fc 10 ---

struct FmnistConv1 : Block {
    nn::Conv2d conv{nullptr};
    FmnistConv1() { conv = register_module("conv", nn::Conv2d(nn::Conv2dOptions(1, 32, 3))); }
    Tensor forward(const Tensor& x, const StepContext& ctx) override {
        Tensor y = conv->forward(x);
        reluInPlace(y, ctx);
        return y;
    }
};

struct FmnistConv2 : Block {
    nn::Conv2d conv{nullptr};
    FmnistConv2() { conv = register_module("conv", nn::Conv2d(nn::Conv2dOptions(32, 64, 3))); }
    Tensor forward(const Tensor& x, const StepContext& ctx) override {
        // max-pool then ReLU equals ReLU then max-pool; fused with dropout(0.25)
        Tensor y = conv->forward(x);
        if (ctx.capture &&
            (ctx.capture->wants("relu_input") || ctx.capture->wants("relu_output"))) {
            torch::NoGradGuard noGrad; // the hook's copies only; training uses the fused op
            Tensor pooled = torch::max_pool2d(y, 2);
            ctx.capture->add("relu_input", pooled);
            ctx.capture->add("relu_output", pooled.relu());
        }
        return poolReluDropout(y, 0.25, ctx.dropoutKey(1), ctx.training);
    }
};

struct FmnistFc1 : Block {
    nn::Linear fc{nullptr};
    explicit FmnistFc1(std::int64_t in) { fc = register_module("fc", nn::Linear(in, 128)); }
    Tensor forward(const Tensor& x, const StepContext& ctx) override {
        Tensor h = fc->forward(x.flatten(1));
        if (ctx.capture &&
            (ctx.capture->wants("relu_input") || ctx.capture->wants("relu_output"))) {
            ctx.capture->add("relu_input", h);
            ctx.capture->add("relu_output", h.detach().relu());
        }
        return reluDropout(h, 0.5, ctx.dropoutKey(2), ctx.training);
    }
};

struct ClassifierHead : Block {
    nn::Linear fc{nullptr};
    ClassifierHead(std::int64_t in, std::int64_t classes) {
        fc = register_module("fc", nn::Linear(in, classes));
    }
    Tensor forward(const Tensor& x, const StepContext&) override {
        return torch::log_softmax(fc->forward(x.flatten(1)), 1);
    }
};

// --- mlp ---

struct Dense : Block {
    nn::Linear fc{nullptr};
    Dense(std::int64_t in, std::int64_t out) { fc = register_module("fc", nn::Linear(in, out)); }
    Tensor forward(const Tensor& x, const StepContext& ctx) override {
        Tensor h = fc->forward(x.flatten(1));
        Tensor y = torch::relu(h);
        if (ctx.capture) {
            ctx.capture->add("relu_input", h);
            ctx.capture->add("relu_output", y);
        }
        return y;
    }
};

// --- resnet18 (CIFAR layout: 3x3 stem, no max-pool) ---

struct Stem : Block {
    nn::Conv2d conv{nullptr};
    nn::BatchNorm2d bn{nullptr};
    explicit Stem(std::int64_t in) {
        conv = register_module("conv",
                               nn::Conv2d(nn::Conv2dOptions(in, 64, 3).padding(1).bias(false)));
        bn = register_module("bn", nn::BatchNorm2d(64));
    }
    Tensor forward(const Tensor& x, const StepContext& ctx) override {
        Tensor h = bn->forward(conv->forward(x));
        Tensor y = torch::relu(h);
        if (ctx.capture) {
            ctx.capture->add("relu_input", h);
            ctx.capture->add("relu_output", y);
        }
        return y;
    }
};

struct BasicBlock : Block {
    nn::Conv2d conv1{nullptr}, conv2{nullptr}, shortcut{nullptr};
    nn::BatchNorm2d bn1{nullptr}, bn2{nullptr}, shortcutBn{nullptr};
    BasicBlock(std::int64_t in, std::int64_t out, std::int64_t stride) {
        conv1 = register_module(
            "conv1",
            nn::Conv2d(nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false)));
        bn1 = register_module("bn1", nn::BatchNorm2d(out));
        conv2 = register_module("conv2",
                                nn::Conv2d(nn::Conv2dOptions(out, out, 3).padding(1).bias(false)));
        bn2 = register_module("bn2", nn::BatchNorm2d(out));
        if (stride != 1 || in != out) {
            shortcut = register_module(
                "shortcut", nn::Conv2d(nn::Conv2dOptions(in, out, 1).stride(stride).bias(false)));
            shortcutBn = register_module("shortcut_bn", nn::BatchNorm2d(out));
        }
    }
    Tensor forward(const Tensor& x, const StepContext& ctx) override {
        Tensor y = torch::relu(bn1->forward(conv1->forward(x)));
        y = bn2->forward(conv2->forward(y));
        y = y + (shortcut ? shortcutBn->forward(shortcut->forward(x)) : x);
        // The block's last ReLU, after the residual sum, stands for the block.
        reluInPlace(y, ctx);
        return y;
    }
};

struct PoolHead : Block {
    nn::Linear fc{nullptr};
    PoolHead(std::int64_t in, std::int64_t classes) {
        fc = register_module("fc", nn::Linear(in, classes));
    }
    Tensor forward(const Tensor& x, const StepContext&) override {
        return torch::log_softmax(fc->forward(x.mean({2, 3})), 1);
    }
};

// --- transformer-lm (pre-LayerNorm GPT blocks over bytes) ---

struct Embedding : Block {
    nn::Embedding tokens{nullptr}, positions{nullptr};
    Embedding(std::int64_t vocab, std::int64_t seqLen, std::int64_t d) {
        tokens = register_module("tokens", nn::Embedding(vocab, d));
        positions = register_module("positions", nn::Embedding(seqLen, d));
        torch::NoGradGuard g;
        tokens->weight.normal_(0, 0.02);
        positions->weight.normal_(0, 0.02);
    }
    Tensor forward(const Tensor& x, const StepContext&) override {
        auto pos = torch::arange(x.size(1), x.options().dtype(torch::kLong));
        return tokens->forward(x) + positions->forward(pos).unsqueeze(0);
    }
};

struct DecoderBlock : Block {
    nn::LayerNorm ln1{nullptr}, ln2{nullptr};
    nn::Linear qkv{nullptr}, proj{nullptr}, up{nullptr}, down{nullptr};
    std::int64_t heads;
    Tensor causal;
    DecoderBlock(std::int64_t d, std::int64_t h, std::int64_t seqLen)
        : heads(h) {
        ln1 = register_module("ln1", nn::LayerNorm(nn::LayerNormOptions({d})));
        qkv = register_module("qkv", nn::Linear(d, 3 * d));
        proj = register_module("proj", nn::Linear(d, d));
        ln2 = register_module("ln2", nn::LayerNorm(nn::LayerNormOptions({d})));
        up = register_module("up", nn::Linear(d, 4 * d));
        down = register_module("down", nn::Linear(4 * d, d));
        causal = register_buffer("causal", torch::ones({seqLen, seqLen}, torch::kBool).triu(1));
    }
    Tensor forward(const Tensor& x, const StepContext&) override {
        const std::int64_t B = x.size(0), T = x.size(1), D = x.size(2), hd = D / heads;
        auto parts =
            qkv->forward(ln1->forward(x)).view({B, T, 3, heads, hd}).permute({2, 0, 3, 1, 4});
        Tensor q = parts[0], k = parts[1], v = parts[2];
        Tensor att = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(hd));
        att = att.masked_fill(causal.slice(0, 0, T).slice(1, 0, T), -INFINITY).softmax(-1);
        Tensor y = torch::matmul(att, v).transpose(1, 2).reshape({B, T, D});
        Tensor h = x + proj->forward(y);
        return h + down->forward(torch::gelu(up->forward(ln2->forward(h))));
    }
};

struct LmHead : Block {
    nn::LayerNorm ln{nullptr};
    nn::Linear out{nullptr};
    LmHead(std::int64_t d, std::int64_t vocab) {
        ln = register_module("ln", nn::LayerNorm(nn::LayerNormOptions({d})));
        out = register_module("out", nn::Linear(d, vocab));
    }
    Tensor forward(const Tensor& x, const StepContext&) override {
        return out->forward(ln->forward(x));
    }
};

} // namespace

std::shared_ptr<Model> buildModel(const TrainerConfig& c, const DataShape& shape) {
    auto m = std::make_shared<Model>();
    m->kind = c.model;
    if (c.model == "fmnist-cnn") {
        if (shape.sample.size() != 3 || shape.sample[0] != 1)
            throw std::invalid_argument("fmnist-cnn takes 1-channel images");
        const std::int64_t h = (shape.sample[1] - 4) / 2, w = (shape.sample[2] - 4) / 2;
        m->addBlock("conv1", std::make_shared<FmnistConv1>());
        m->addBlock("conv2", std::make_shared<FmnistConv2>());
        m->addBlock("fc1", std::make_shared<FmnistFc1>(64 * h * w));
        m->addBlock("fc2", std::make_shared<ClassifierHead>(128, shape.classes));
        m->channelsLast = true;
    } else if (c.model == "mlp") {
        std::int64_t in = 1;
        for (auto s : shape.sample)
            in *= s;
        for (int i = 0; i < c.depth; ++i) {
            m->addBlock("hidden" + std::to_string(i + 1), std::make_shared<Dense>(in, c.hidden));
            in = c.hidden;
        }
        m->addBlock("out", std::make_shared<ClassifierHead>(in, shape.classes));
    } else if (c.model == "resnet18") {
        m->addBlock("stem", std::make_shared<Stem>(shape.sample.at(0)));
        std::int64_t in = 64;
        const std::int64_t widths[] = {64, 128, 256, 512};
        for (int layer = 0; layer < 4; ++layer) {
            for (int b = 0; b < 2; ++b) {
                const std::int64_t stride = (layer > 0 && b == 0) ? 2 : 1;
                m->addBlock("layer" + std::to_string(layer + 1) + "_" + std::to_string(b),
                            std::make_shared<BasicBlock>(in, widths[layer], stride));
                in = widths[layer];
            }
        }
        m->addBlock("head", std::make_shared<PoolHead>(512, shape.classes));
        m->channelsLast = true;
    } else if (c.model == "transformer-lm") {
        m->languageModel = true;
        m->addBlock("embed", std::make_shared<Embedding>(shape.classes, c.seqLen, c.dModel));
        for (int i = 0; i < c.layers; ++i)
            m->addBlock("block" + std::to_string(i),
                        std::make_shared<DecoderBlock>(c.dModel, c.heads, c.seqLen));
        m->addBlock("head", std::make_shared<LmHead>(c.dModel, shape.classes));
    } else {
        throw std::invalid_argument("unknown built-in model " + c.model);
    }
    if (m->channelsLast)
        toChannelsLast(*m);
    return m;
}

std::shared_ptr<Model> buildSeededModel(const TrainerConfig& c, const DataShape& shape) {
    static std::mutex mutex;
    std::lock_guard lock(mutex);
    torch::manual_seed(c.seed);
    return buildModel(c, shape);
}

} // namespace studio::train
