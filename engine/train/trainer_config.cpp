#include "engine/train/trainer_config.h"

#include "engine/train/builtin_models.h"

#include <cctype>
#include <cstdlib>
#include <stdexcept>

extern char** environ;

namespace studio::train {

TrainerConfig TrainerConfig::fromSpec(const spec::JobSpec& spec) {
    if (!spec.isBuiltin())
        throw std::invalid_argument("entry_point is not a built-in model");
    TrainerConfig c;
    c.model = spec.entryPoint.builtinModel;
    auto value = [&](const char* name) {
        const HyperparameterInfo* info = findBuiltinHyperparameter(name);
        auto it = spec.hyperparameters.find(name);
        std::string text =
            it != spec.hyperparameters.end() ? it->second.text : builtinDefault(*info, c.model);
        std::string problem = checkBuiltinValue(*info, text);
        if (!problem.empty())
            throw std::invalid_argument(std::string("hyperparameters.") + name + ": " + problem);
        return text;
    };
    auto integer = [&](const char* name) {
        return std::stoll(value(name));
    };
    auto number = [&](const char* name) {
        return std::stod(value(name));
    };
    auto boolean = [&](const char* name) {
        std::string v = value(name);
        return v == "true" || v == "True";
    };
    c.dataset = value("dataset");
    c.epochs = static_cast<int>(integer("epochs"));
    c.maxSteps = integer("max-steps");
    c.batchSize = integer("batch-size");
    c.lr = number("lr");
    c.lrScaling = value("lr-scaling") == "linear";
    c.optimizer = value("optimizer");
    c.momentum = number("momentum");
    c.weightDecay = number("weight-decay");
    c.seed = static_cast<std::uint64_t>(integer("seed"));
    c.evalInterval = integer("eval-interval");
    c.checkpointInterval = integer("checkpoint-interval");
    c.threads = static_cast<int>(integer("threads"));
    c.logInterval = integer("log-interval");
    c.trainSamples = integer("train-samples");
    c.evalSamples = integer("eval-samples");
    c.gradAccum = static_cast<int>(integer("grad-accum"));
    c.bucketCapMb = number("bucket-cap-mb");
    c.firstBucketMb = number("first-bucket-mb");
    c.deterministic = boolean("deterministic");
    c.gatherModel = boolean("gather-model");
    c.device = value("device");
    c.amp = value("amp");
    c.pinMemory = boolean("pin-memory");
    if (spec.distribution.strategy == spec::Strategy::SmModelParallel && c.gradAccum > 1)
        throw std::invalid_argument(
            "hyperparameters.grad-accum: pipelines accumulate over microbatches; "
            "use distribution...parameters.microbatches instead");
    if (c.model == "mlp") {
        c.hidden = static_cast<int>(integer("hidden"));
        c.depth = static_cast<int>(integer("depth"));
    }
    if (c.model == "transformer-lm") {
        c.seqLen = static_cast<int>(integer("seq-len"));
        c.dModel = static_cast<int>(integer("d-model"));
        c.layers = static_cast<int>(integer("layers"));
        c.heads = static_cast<int>(integer("heads"));
        if (c.dModel % c.heads != 0)
            throw std::invalid_argument("hyperparameters.heads: " + std::to_string(c.heads) +
                                        " must divide d-model " + std::to_string(c.dModel));
    }
    if (c.model == "transformer-lm" && c.dataset == "fashion-mnist")
        throw std::invalid_argument("hyperparameters.dataset: transformer-lm trains on \"text\" or "
                                    "\"synthetic\" data, not images");
    if (c.model != "transformer-lm" && c.dataset == "text")
        throw std::invalid_argument("hyperparameters.dataset: " + c.model +
                                    " trains on images (\"fashion-mnist\" or \"synthetic\")");
    c.hookPlan = debugger::planHook(spec);
    c.profiler = spec.profiler;
    if (spec.distribution.strategy == spec::Strategy::SmModelParallel)
        c.modelParallel = spec.distribution.modelParallel;
    return c;
}

RankEnvironment RankEnvironment::fromEnvironment() {
    RankEnvironment r;
    auto get = [](const char* name) -> std::string {
        const char* v = std::getenv(name);
        return v ? v : "";
    };
    auto getInt = [&](const char* name, int fallback) {
        std::string v = get(name);
        return v.empty() ? fallback : std::stoi(v);
    };
    r.rank = getInt("RANK", 0);
    r.world = getInt("WORLD_SIZE", 1);
    r.localRank = getInt("LOCAL_RANK", 0);
    r.localWorld = getInt("LOCAL_WORLD_SIZE", 1);
    if (!get("MASTER_ADDR").empty())
        r.masterAddr = get("MASTER_ADDR");
    r.masterPort = getInt("MASTER_PORT", 29500);
    r.storeFile = get("STUDIO_STORE_FILE");
    r.modelDir = get("SM_MODEL_DIR");
    r.checkpointDir = get("SM_CHECKPOINT_DIR");
    r.outputDir = get("SM_OUTPUT_DATA_DIR");
    r.debugOutputDir = get("STUDIO_DEBUG_OUTPUT_DIR");
    r.jobName = get("TORCHELASTIC_RUN_ID");
    for (char** e = environ; e && *e; ++e) {
        std::string kv(*e);
        if (kv.rfind("SM_CHANNEL_", 0) != 0 || kv.rfind("SM_CHANNELS=", 0) == 0)
            continue;
        auto eq = kv.find('=');
        std::string name = kv.substr(11, eq - 11);
        for (auto& ch : name)
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        r.channels[name] = kv.substr(eq + 1);
    }
    if (r.rank < 0 || r.world < 1 || r.rank >= r.world)
        throw std::invalid_argument("RANK " + std::to_string(r.rank) + " is outside WORLD_SIZE " +
                                    std::to_string(r.world));
    return r;
}

} // namespace studio::train
