// The built-in trainer's settings: the spec's hyperparameters with the documented defaults
// (engine/train/builtin_models), plus the rank's place in the job from the launcher's environment.
#pragma once

#include "engine/debugger/hook_plan.h"
#include "engine/spec/job_spec.h"

#include <cstdint>
#include <map>
#include <string>

namespace studio::train {

struct TrainerConfig {
    std::string model;
    std::string dataset;
    int epochs = 1;
    std::int64_t maxSteps = 0;
    std::int64_t batchSize = 64; // global
    double lr = 0.01;
    bool lrScaling = true;
    std::string optimizer = "sgd";
    double momentum = 0.9;
    double weightDecay = 0;
    std::uint64_t seed = 1;
    std::int64_t evalInterval = 0;
    std::int64_t checkpointInterval = 0;
    int threads = 0;
    std::int64_t logInterval = 10;
    std::int64_t trainSamples = 0;
    std::int64_t evalSamples = 0;
    int gradAccum = 1;
    double bucketCapMb = 25;
    double firstBucketMb = 1;
    bool deterministic = false;
    bool gatherModel = true;
    std::string device = "auto"; // auto, cpu or cuda
    std::string amp = "none";    // none, bf16 or fp16
    bool pinMemory = true;
    int hidden = 256;
    int depth = 2;
    int seqLen = 64;
    int dModel = 128;
    int layers = 4;
    int heads = 4;

    debugger::HookPlan hookPlan; // what the debugger hook saves (spec + rules)
    spec::ProfilerConfig profiler;
    std::optional<spec::ModelParallelParams> modelParallel;

    // Throws std::invalid_argument naming the hyperparameter when a value is invalid.
    static TrainerConfig fromSpec(const spec::JobSpec& spec);
};

// Where this rank sits, from RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_* and the
// SM_* paths; defaults make a single-process run.
struct RankEnvironment {
    int rank = 0;
    int world = 1;
    int localRank = 0;
    int localWorld = 1;
    std::string masterAddr = "127.0.0.1";
    int masterPort = 29500;
    std::string storeFile; // STUDIO_STORE_FILE: every rank on this host meets through this file
    std::string modelDir;
    std::string checkpointDir;
    std::string outputDir;
    std::string debugOutputDir; // STUDIO_DEBUG_OUTPUT_DIR: raw tensors of the debugger hook
    std::map<std::string, std::string> channels; // from SM_CHANNEL_<NAME>, lower-cased names
    std::string jobName;

    static RankEnvironment fromEnvironment();
};

} // namespace studio::train
