#include "engine/train/datasets.h"

#include "engine/train/counter_rng.h"
#include "engine/train/idx_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace studio::train {

namespace fs = std::filesystem;
using torch::Tensor;

Dataset::Dataset(Tensor inputs, Tensor targets, std::string description)
    : m_inputs(std::move(inputs))
    , m_targets(std::move(targets))
    , m_description(std::move(description)) {
}

Batch Dataset::batch(const std::vector<std::int64_t>& indices, bool channelsLast) const {
    auto idx = torch::from_blob(const_cast<std::int64_t*>(indices.data()),
                                {static_cast<std::int64_t>(indices.size())}, torch::kLong);
    Tensor x = m_inputs.index_select(0, idx);
    if (channelsLast && x.dim() == 4) // explicit NHWC strides, also for 1-channel images
        x = torch::empty(x.sizes(), x.options().memory_format(at::MemoryFormat::ChannelsLast))
                .copy_(x);
    return {x, m_targets.index_select(0, idx)};
}

namespace {

constexpr double kMean = 0.2860, kStd = 0.3530; // Fashion-MNIST pixel statistics

std::unique_ptr<Dataset> fashionMnist(const std::string& folder, const std::string& prefix,
                                      std::int64_t limit, std::int64_t pad) {
    const std::string imagesPath = findIdx(folder, prefix + "-images-idx3-ubyte");
    const std::string labelsPath = findIdx(folder, prefix + "-labels-idx1-ubyte");
    IdxData images = readIdx(imagesPath, 3);
    IdxData labels = readIdx(labelsPath, 1);
    if (images.dims[0] != labels.dims[0])
        throw std::runtime_error(imagesPath + " has " + std::to_string(images.dims[0]) +
                                 " images but " + labelsPath + " has " +
                                 std::to_string(labels.dims[0]) + " labels");
    for (auto l : labels.bytes)
        if (l > 9)
            throw std::runtime_error(labelsPath + ": label " + std::to_string(l) + " outside 0..9");
    std::int64_t n = images.dims[0];
    if (limit > 0)
        n = std::min(n, limit);
    const std::int64_t h = images.dims[1], w = images.dims[2];
    Tensor x = torch::from_blob(images.bytes.data(), {images.dims[0], 1, h, w}, torch::kUInt8)
                   .slice(0, 0, n)
                   .to(torch::kFloat)
                   .div_(255.0)
                   .sub_(kMean)
                   .div_(kStd);
    if (pad > 0) // resnet18 takes 32x32: pad with the normalised value of black
        x = torch::constant_pad_nd(x, {pad, pad, pad, pad}, -kMean / kStd);
    Tensor y = torch::from_blob(labels.bytes.data(), {labels.dims[0]}, torch::kUInt8)
                   .slice(0, 0, n)
                   .to(torch::kLong);
    return std::make_unique<Dataset>(x.contiguous(), y.clone(),
                                     "Fashion-MNIST " + prefix + " (" + std::to_string(n) +
                                         " from " + folder + ")");
}

// Images: class prototypes plus noise, so the task is learnable and deterministic.
std::unique_ptr<Dataset> syntheticImages(std::int64_t n, std::vector<std::int64_t> shape,
                                         std::uint64_t seed, std::uint64_t split) {
    std::int64_t features = 1;
    for (auto s : shape)
        features *= s;
    std::vector<float> data(static_cast<std::size_t>(n * features));
    std::vector<std::int64_t> labels(static_cast<std::size_t>(n));
    const std::uint64_t protoKey = streamKey(seed, 0x70726f746f);
    const std::uint64_t key = streamKey(seed, 0x73796e, split);
    auto unit = [](std::uint64_t bits) {
        return static_cast<float>(bits >> 40) / 16777216.0f - 0.5f;
    };
    for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t label =
            static_cast<std::int64_t>(randomBelow(key, static_cast<std::uint64_t>(i), 10));
        labels[static_cast<std::size_t>(i)] = label;
        for (std::int64_t f = 0; f < features; ++f) {
            const float proto =
                2.0f * unit(randomBits(protoKey, static_cast<std::uint64_t>(label * features + f)));
            const float noise =
                unit(randomBits(key, static_cast<std::uint64_t>((i + 1) * features + f)));
            data[static_cast<std::size_t>(i * features + f)] = proto + noise;
        }
    }
    std::vector<std::int64_t> dims = {n};
    dims.insert(dims.end(), shape.begin(), shape.end());
    return std::make_unique<Dataset>(torch::from_blob(data.data(), dims, torch::kFloat).clone(),
                                     torch::from_blob(labels.data(), {n}, torch::kLong).clone(),
                                     "synthetic images (" + std::to_string(n) + ")");
}

// Token windows over a byte string: input bytes [s, s+T), targets [s+1, s+T+1).
std::unique_ptr<Dataset> tokenWindows(const std::string& bytes, std::int64_t seqLen,
                                      const std::string& description) {
    const std::int64_t windows = (static_cast<std::int64_t>(bytes.size()) - 1) / seqLen;
    if (windows < 1)
        throw std::runtime_error(description + " is shorter than one sequence (" +
                                 std::to_string(seqLen + 1) + " bytes)");
    Tensor all = torch::from_blob(const_cast<char*>(bytes.data()),
                                  {static_cast<std::int64_t>(bytes.size())}, torch::kUInt8)
                     .to(torch::kLong);
    Tensor x = all.slice(0, 0, windows * seqLen).view({windows, seqLen});
    Tensor y = all.slice(0, 1, windows * seqLen + 1).view({windows, seqLen});
    return std::make_unique<Dataset>(x.clone(), y.clone(),
                                     description + " (" + std::to_string(windows) + " sequences)");
}

// Deterministic text: words from a small vocabulary with a few repeating phrases.
std::string syntheticText(std::size_t bytes, std::uint64_t seed, std::uint64_t split) {
    static const char* words[] = {"the",       "model",    "trains",  "on",    "data",  "and",
                                  "learns",    "to",       "predict", "next",  "byte",  "of",
                                  "a",         "sequence", "while",   "ranks", "share", "their",
                                  "gradients", "every",    "step"};
    const std::uint64_t key = streamKey(seed, 0x74657874, split);
    std::string out;
    std::uint64_t i = 0;
    while (out.size() < bytes) {
        const auto w = randomBelow(key, i++, sizeof words / sizeof *words);
        out += words[w];
        out += (randomBelow(key, i++, 12) == 0) ? ".\n" : " ";
    }
    out.resize(bytes);
    return out;
}

std::string readText(const std::string& path) {
    fs::path p(path);
    if (fs::is_directory(p)) { // a channel folder: its first .txt file
        for (const auto& e : fs::directory_iterator(p))
            if (e.path().extension() == ".txt")
                return readText(e.path().string());
        throw std::runtime_error("no .txt file in " + path);
    }
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot read text file " + path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace

DataSplits loadData(const TrainerConfig& c, const std::map<std::string, std::string>& channels) {
    DataSplits d;
    auto channel = [&](const char* name) -> std::string {
        auto it = channels.find(name);
        return it == channels.end() ? std::string() : it->second;
    };
    if (c.model == "transformer-lm") {
        d.shape = DataShape{{c.seqLen}, 256, true};
        if (c.dataset == "synthetic") {
            d.train = tokenWindows(
                syntheticText(static_cast<std::size_t>(c.trainSamples > 0 ? c.trainSamples : 4096) *
                                      c.seqLen +
                                  1,
                              c.seed, 0),
                c.seqLen, "synthetic text");
            d.test =
                tokenWindows(syntheticText(256 * static_cast<std::size_t>(c.seqLen) + 1, c.seed, 1),
                             c.seqLen, "synthetic text");
            return d;
        }
        const std::string path = channel("train");
        if (path.empty())
            throw std::runtime_error(
                "dataset \"text\" needs inputs.train: a text file or a folder with one");
        std::string text = readText(path);
        const std::size_t split = text.size() * 9 / 10; // the last tenth evaluates
        d.train = tokenWindows(text.substr(0, split), c.seqLen, path);
        d.test = tokenWindows(text.substr(split), c.seqLen, path + " (held-out tenth)");
        return d;
    }
    const bool resnet = c.model == "resnet18";
    if (c.dataset == "synthetic") {
        std::vector<std::int64_t> shape =
            resnet ? std::vector<std::int64_t>{3, 32, 32} : std::vector<std::int64_t>{1, 28, 28};
        d.shape = DataShape{shape, 10, false};
        d.train = syntheticImages(c.trainSamples > 0 ? c.trainSamples : 8192, shape, c.seed, 0);
        d.test = syntheticImages(2048, shape, c.seed, 1);
        return d;
    }
    std::string trainDir = channel("train");
    if (trainDir.empty())
        trainDir = kDefaultFashionMnist;
    std::string testDir = channel("test");
    if (testDir.empty())
        testDir = trainDir;
    const std::int64_t pad = resnet ? 2 : 0;
    d.train = fashionMnist(trainDir, "train", c.trainSamples, pad);
    d.test = fashionMnist(testDir, "t10k", 0, pad);
    d.shape = DataShape{{1, 28 + 2 * pad, 28 + 2 * pad}, 10, false};
    return d;
}

} // namespace studio::train
