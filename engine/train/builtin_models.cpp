#include "engine/train/builtin_models.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace studio::train {
namespace {

constexpr auto Int = HyperType::Integer;
constexpr auto Num = HyperType::Number;
constexpr auto Bool = HyperType::Boolean;
constexpr auto Choice = HyperType::Choice;
constexpr double kBig = 1e18;

std::vector<HyperparameterInfo> buildHyperparameters() {
    const std::vector<std::string> lm = {"transformer-lm"};
    const std::vector<std::string> mlp = {"mlp"};
    // clang-format off
    return {
        {"epochs", Int, "1", 1, 1e6, false, {}, {}, "passes over the training data"},
        {"max-steps", Int, "0", 0, kBig, false, {}, {}, "stop after this many steps (0: no limit)"},
        {"batch-size", Int, "64", 1, 1e7, false, {}, {}, "global batch size, divided among data-parallel ranks"},
        {"lr", Num, "0.01", 0, 1e6, true, {}, {}, "learning rate before scaling"},
        {"lr-scaling", Choice, "linear", 0, 0, false, {"linear", "none"}, {},
         "multiply lr by the data-parallel world size (linear) or not (none)"},
        {"optimizer", Choice, "sgd", 0, 0, false, {"sgd", "adam", "adamw"}, {}, "optimizer"},
        {"momentum", Num, "0.9", 0, 1, false, {}, {}, "SGD momentum"},
        {"weight-decay", Num, "0", 0, 1e6, false, {}, {}, "L2 weight decay"},
        {"seed", Int, "1", 0, 4294967295.0, false, {}, {}, "random seed (data order, init)"},
        {"eval-interval", Int, "0", 0, kBig, false, {}, {}, "evaluate every N steps (0: at the end of each epoch only)"},
        {"checkpoint-interval", Int, "0", 0, kBig, false, {}, {}, "checkpoint every N steps (0: at the end only)"},
        {"threads", Int, "0", 0, 1024, false, {}, {}, "intra-op threads per rank (0: cores divided by local ranks)"},
        {"log-interval", Int, "10", 1, kBig, false, {}, {}, "emit train:loss and train:throughput every N steps"},
        {"dataset", Choice, "fashion-mnist", 0, 0, false, {"fashion-mnist", "synthetic", "text"}, {},
         "training data: Fashion-MNIST IDX files, synthetic, or a text file (LM)"},
        {"train-samples", Int, "0", 0, kBig, false, {}, {}, "use only the first N training samples (0: all)"},
        {"eval-samples", Int, "0", 0, kBig, false, {}, {}, "evaluate on the first N test samples (0: all)"},
        {"grad-accum", Int, "1", 1, 1024, false, {}, {}, "micro-steps accumulated locally before one gradient sync"},
        {"bucket-cap-mb", Num, "25", 0, 4096, true, {}, {}, "gradient bucket size cap (MiB)"},
        {"first-bucket-mb", Num, "1", 0, 4096, true, {}, {}, "first gradient bucket size (MiB)"},
        {"deterministic", Bool, "false", 0, 0, false, {}, {}, "deterministic kernels and data order (bitwise-reproducible resume)"},
        {"device", Choice, "auto", 0, 0, false, {"auto", "cpu", "cuda"}, {},
         "where each rank trains: cuda:LOCAL_RANK when CUDA is available (auto), or cpu / cuda"},
        {"amp", Choice, "none", 0, 0, false, {"none", "bf16", "fp16"}, {},
         "mixed precision: autocast to bfloat16, or float16 with a dynamic loss scale (CUDA)"},
        {"pin-memory", Bool, "true", 0, 0, false, {}, {}, "CUDA: batches go through pinned host memory, copied without blocking"},
        {"gather-model", Bool, "true", 0, 0, false, {}, {}, "pipelines: gather the stages into one model.pt (else one file per stage)"},
        {"hidden", Int, "256", 1, 1e6, false, {}, mlp, "hidden units per MLP layer"},
        {"depth", Int, "2", 1, 1024, false, {}, mlp, "hidden layers of the MLP"},
        {"seq-len", Int, "64", 2, 65536, false, {}, lm, "tokens per sequence"},
        {"d-model", Int, "128", 8, 65536, false, {}, lm, "transformer width"},
        {"layers", Int, "4", 1, 1024, false, {}, lm, "transformer blocks"},
        {"heads", Int, "4", 1, 256, false, {}, lm, "attention heads (must divide d-model)"},
    };
    // clang-format on
}

std::vector<BuiltinModelInfo> buildModels() {
    return {
        {"fmnist-cnn",
         "PyTorch's MNIST example network (conv 32, conv 64, max-pool, fc 128, fc 10)",
         "fashion-mnist", "0.01", "sgd"},
        {"resnet18", "ResNet-18 for 32x32 inputs (CIFAR layout)", "fashion-mnist", "0.05", "sgd"},
        {"mlp", "multi-layer perceptron on 28x28 images", "fashion-mnist", "0.05", "sgd"},
        {"transformer-lm", "small GPT-style decoder over bytes, uniform blocks", "text", "0.001",
         "adamw"},
    };
}

} // namespace

const std::vector<BuiltinModelInfo>& builtinModels() {
    static const std::vector<BuiltinModelInfo> models = buildModels();
    return models;
}

const BuiltinModelInfo* findBuiltinModel(std::string_view name) {
    for (const auto& m : builtinModels())
        if (m.name == name)
            return &m;
    return nullptr;
}

std::vector<std::string> builtinModelNames() {
    std::vector<std::string> names;
    for (const auto& m : builtinModels())
        names.push_back(m.name);
    return names;
}

const std::vector<HyperparameterInfo>& builtinHyperparameters() {
    static const std::vector<HyperparameterInfo> infos = buildHyperparameters();
    return infos;
}

const HyperparameterInfo* findBuiltinHyperparameter(std::string_view name) {
    for (const auto& h : builtinHyperparameters())
        if (h.name == name)
            return &h;
    return nullptr;
}

std::vector<std::string> builtinHyperparameterNames(std::string_view model) {
    std::vector<std::string> names;
    for (const auto& h : builtinHyperparameters())
        if (h.models.empty() ||
            std::find(h.models.begin(), h.models.end(), model) != h.models.end())
            names.push_back(h.name);
    return names;
}

std::string builtinDefault(const HyperparameterInfo& info, std::string_view model) {
    if (const BuiltinModelInfo* m = findBuiltinModel(model)) {
        if (info.name == "lr")
            return m->defaultLr;
        if (info.name == "optimizer")
            return m->defaultOptimizer;
        if (info.name == "dataset")
            return m->defaultDataset;
    }
    return info.defaultValue;
}

int builtinBlockCount(std::string_view model, const std::map<std::string, std::string>& hp) {
    auto value = [&](const char* name) {
        auto it = hp.find(name);
        return std::atoi(
            (it != hp.end() ? it->second : findBuiltinHyperparameter(name)->defaultValue).c_str());
    };
    if (model == "fmnist-cnn")
        return 4;
    if (model == "resnet18")
        return 10; // stem, eight basic blocks, head
    if (model == "mlp")
        return value("depth") + 1;
    if (model == "transformer-lm")
        return value("layers") + 2; // embedding, blocks, head
    return 0;
}

std::string checkBuiltinValue(const HyperparameterInfo& info, const std::string& text) {
    auto range = [&info]() {
        auto fmt = [](double v) {
            if (std::floor(v) == v && std::fabs(v) < 1e15)
                return std::to_string(static_cast<long long>(v));
            std::string s = std::to_string(v);
            s.erase(s.find_last_not_of('0') + 1);
            return s;
        };
        std::string lo = (info.minExclusive ? "> " : ">= ") + fmt(info.min);
        return info.max >= kBig ? lo : lo + " and <= " + fmt(info.max);
    };
    switch (info.type) {
    case HyperType::Integer: {
        long long v = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || end != text.data() + text.size() || text.empty())
            return "must be an integer " + range() + ", got \"" + text + "\"";
        if (v < info.min || static_cast<double>(v) > info.max ||
            (info.minExclusive && v == info.min))
            return "must be an integer " + range() + ", got " + text;
        return {};
    }
    case HyperType::Number: {
        double v = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
            return "must be a number " + range() + ", got \"" + text + "\"";
        if (v < info.min || v > info.max || (info.minExclusive && v == info.min))
            return "must be a number " + range() + ", got " + text;
        return {};
    }
    case HyperType::Boolean:
        if (text == "true" || text == "false" || text == "True" || text == "False")
            return {};
        return "must be true or false, got \"" + text + "\"";
    case HyperType::Choice:
        if (std::find(info.choices.begin(), info.choices.end(), text) != info.choices.end())
            return {};
        {
            std::string allowed;
            for (std::size_t i = 0; i < info.choices.size(); ++i)
                allowed += (i ? ", \"" : "\"") + info.choices[i] + "\"";
            return "must be one of " + allowed + ", got \"" + text + "\"";
        }
    }
    return {};
}

} // namespace studio::train
