// distribution: the SageMaker SDK's dicts, the model-parallel parameters, and the checks that tie
// the parallel layout to instance_count, processes_per_host and the built-in batch size.
#include "engine/spec/mpi_launch.h"
#include "engine/spec/spec_sections.h"
#include "engine/spec/suggest.h"
#include "engine/train/builtin_models.h"

#include <algorithm>

namespace studio::spec {

namespace {
constexpr std::int64_t kMaxProcessesPerHost = 256;
} // namespace

const char* strategyName(Strategy s) {
    switch (s) {
    case Strategy::None:
        return "none";
    case Strategy::TorchDistributed:
        return "torch_distributed";
    case Strategy::PyTorchDdp:
        return "pytorchddp";
    case Strategy::SmDataParallel:
        return "smdistributed.dataparallel";
    case Strategy::SmModelParallel:
        return "smdistributed.modelparallel";
    case Strategy::Mpi:
        return "mpi";
    }
    return "none";
}

namespace {

// Reads {"enabled": bool, ...}; "enabled" is required so a dict is never silently inactive.
bool readEnabled(SpecReader& r, const json& obj, const std::string& path) {
    if (!obj.contains("enabled")) {
        r.error(childPath(path, "enabled"), "required (true or false)");
        return false;
    }
    return r.boolean(obj, "enabled", path).value_or(false);
}

void parseModelParallel(SpecReader& r, const json& mp, const std::string& path, JobSpec& spec) {
    ModelParallelParams params;
    auto it = mp.find("parameters");
    const std::string p = childPath(path, "parameters");
    if (it == mp.end()) {
        r.error(p, "required: at least {\"partitions\": N}");
        spec.distribution.modelParallel = params;
        return;
    }
    if (!r.isObject(*it, p))
        return;
    const json& o = *it;
    r.checkKeys(o, p,
                {"partitions", "pipeline_parallel_degree", "microbatches", "pipeline", "optimize",
                 "auto_partition", "default_partition", "ddp", "placement_strategy",
                 "active_microbatches", "memory_weight", "tensor_parallel_degree",
                 "prescaled_batch", "fp16_params", "shard_optimizer_state", "skip_tracing",
                 "offload_activations", "activation_loading_horizon"});
    auto partitions = r.integer(o, "partitions", p, 1, 4096);
    auto degree = r.integer(o, "pipeline_parallel_degree", p, 1, 4096);
    if (partitions && degree && *partitions != *degree)
        r.error(childPath(p, "pipeline_parallel_degree"),
                "conflicts with partitions (" + std::to_string(*partitions) + "); set only one");
    if (!o.contains("partitions") && !o.contains("pipeline_parallel_degree"))
        r.error(childPath(p, "partitions"), "required (or pipeline_parallel_degree)");
    params.partitions = static_cast<int>(partitions.value_or(degree.value_or(1)));
    params.microbatches = static_cast<int>(r.integer(o, "microbatches", p, 1, 65536).value_or(1));
    params.pipeline = r.oneOf(o, "pipeline", p, {"interleaved", "simple"}).value_or("interleaved");
    params.optimize = r.oneOf(o, "optimize", p, {"memory", "speed"}).value_or("memory");
    params.autoPartition = r.boolean(o, "auto_partition", p).value_or(true);
    params.defaultPartition =
        static_cast<int>(r.integer(o, "default_partition", p, 0, 4095).value_or(0));
    if (params.defaultPartition >= params.partitions)
        r.error(childPath(p, "default_partition"),
                "must be < partitions (" + std::to_string(params.partitions) + ")");
    if (o.contains("default_partition") && params.autoPartition)
        r.error(childPath(p, "default_partition"), "only used when auto_partition is false");
    params.ddp = r.boolean(o, "ddp", p).value_or(false);
    if (auto ps = r.string(o, "placement_strategy", p)) {
        std::string sorted = *ps;
        std::sort(sorted.begin(), sorted.end());
        if (*ps == "cluster" || *ps == "spread" || sorted == "DP" || sorted == "DPT")
            params.placementStrategy = *ps;
        else
            r.error(childPath(p, "placement_strategy"),
                    "must be \"cluster\", \"spread\" or an order of the letters D, P (and T) such "
                    "as \"DP\" or \"PD\", got \"" +
                        *ps + "\"");
    }
    params.activeMicrobatches = static_cast<int>(
        r.integer(o, "active_microbatches", p, 1, 65536).value_or(params.partitions + 2));
    params.memoryWeight =
        r.number(o, "memory_weight", p, 0, 1).value_or(params.optimize == "speed" ? 0.2 : 0.8);
    params.tensorParallelDegree =
        static_cast<int>(r.integer(o, "tensor_parallel_degree", p, 1, 4096).value_or(1));
    if (params.tensorParallelDegree > 1 && !params.ddp)
        r.error(childPath(p, "tensor_parallel_degree"), "> 1 requires ddp: true");
    if (params.tensorParallelDegree > 1 && spec.isBuiltin())
        r.error(childPath(p, "tensor_parallel_degree"),
                "the built-in trainer has no tensor parallelism; use 1");
    params.prescaledBatch = r.boolean(o, "prescaled_batch", p).value_or(false);
    params.fp16Params = r.boolean(o, "fp16_params", p).value_or(false);
    params.shardOptimizerState = r.boolean(o, "shard_optimizer_state", p).value_or(false);
    params.skipTracing = r.boolean(o, "skip_tracing", p).value_or(false);
    params.offloadActivations = r.boolean(o, "offload_activations", p).value_or(false);
    params.activationLoadingHorizon =
        static_cast<int>(r.integer(o, "activation_loading_horizon", p, 1, 1024).value_or(4));
    spec.distribution.modelParallel = params;
}

// A strategy dict of the distribution section: parent[key] when present and an object.
struct StrategyDict {
    const json* obj = nullptr;
    std::string path;
};

StrategyDict findDict(SpecReader& r, const json& parent, const char* key,
                      const std::string& parentPath) {
    auto it = parent.find(key);
    if (it == parent.end())
        return {};
    std::string path = childPath(parentPath, key);
    if (!r.isObject(*it, path))
        return {};
    return {&*it, path};
}

// {"enabled": bool, "custom_mpi_options": "..."}: pytorchddp and smdistributed.dataparallel.
void parseDataParallelDict(SpecReader& r, const StrategyDict& dict, Strategy strategy,
                           std::vector<Strategy>& enabled, Distribution& dist) {
    r.checkKeys(*dict.obj, dict.path, {"enabled", "custom_mpi_options"});
    if (auto o = r.string(*dict.obj, "custom_mpi_options", dict.path, true))
        dist.customMpiOptions = *o;
    if (readEnabled(r, *dict.obj, dict.path))
        enabled.push_back(strategy);
}

void parseSmDistributed(SpecReader& r, const StrategyDict& sd, std::vector<Strategy>& enabled,
                        JobSpec& spec) {
    r.checkKeys(*sd.obj, sd.path, {"dataparallel", "modelparallel"});
    if (auto dp = findDict(r, *sd.obj, "dataparallel", sd.path); dp.obj)
        parseDataParallelDict(r, dp, Strategy::SmDataParallel, enabled, spec.distribution);
    if (auto mp = findDict(r, *sd.obj, "modelparallel", sd.path); mp.obj) {
        r.checkKeys(*mp.obj, mp.path, {"enabled", "parameters"});
        if (readEnabled(r, *mp.obj, mp.path)) {
            enabled.push_back(Strategy::SmModelParallel);
            parseModelParallel(r, *mp.obj, mp.path, spec);
        }
    }
}

// Returns whether mpi is enabled.
bool parseMpi(SpecReader& r, const StrategyDict& mpi, Distribution& dist) {
    r.checkKeys(*mpi.obj, mpi.path, {"enabled", "processes_per_host", "custom_mpi_options"});
    const bool mpiEnabled = readEnabled(r, *mpi.obj, mpi.path);
    if (auto ppn = r.integer(*mpi.obj, "processes_per_host", mpi.path, 1)) {
        if (*ppn > kMaxProcessesPerHost)
            r.error(childPath(mpi.path, "processes_per_host"),
                    "at most " + std::to_string(kMaxProcessesPerHost) +
                        " processes per host, got " + std::to_string(*ppn));
        else
            dist.processesPerHost = static_cast<int>(*ppn);
    }
    if (auto o = r.string(*mpi.obj, "custom_mpi_options", mpi.path, true)) {
        dist.customMpiOptions = *o;
        std::string why;
        if (!splitMpiOptions(*o, &why))
            r.error(childPath(mpi.path, "custom_mpi_options"),
                    "cannot be split into mpirun arguments: " + why);
    }
    dist.mpiEnabled = mpiEnabled;
    if (mpi.obj->contains("processes_per_host") && !mpiEnabled)
        r.error(childPath(mpi.path, "processes_per_host"), "set, but mpi.enabled is not true");
    return mpiEnabled;
}

// At most one strategy; mpi alone means plain MPI, and model parallelism needs mpi.
void chooseStrategy(SpecReader& r, const std::vector<Strategy>& enabled, bool mpiEnabled,
                    const std::string& p, Distribution& dist) {
    if (enabled.size() > 1) {
        std::string names;
        for (auto s : enabled)
            names += (names.empty() ? "" : ", ") + std::string(strategyName(s));
        r.error(p, "only one strategy may be enabled, got " + names);
    }
    if (!enabled.empty())
        dist.strategy = enabled.front();
    else if (mpiEnabled)
        dist.strategy = Strategy::Mpi;
    if (dist.strategy == Strategy::SmModelParallel && !mpiEnabled)
        r.error(childPath(p, "mpi"), "smdistributed.modelparallel runs under mpi: add "
                                     "\"mpi\": {\"enabled\": true, \"processes_per_host\": N}");
}

} // namespace

void parseDistribution(SpecReader& r, const json& root, JobSpec& spec) {
    auto it = root.find("distribution");
    if (it == root.end() || !r.isObject(*it, "distribution"))
        return;
    const json& d = *it;
    const std::string p = "distribution";
    for (const char* tf : {"parameter_server", "multi_worker_mirrored_strategy"}) {
        if (d.contains(tf))
            r.error(childPath(p, tf), "a TensorFlow strategy; this studio runs PyTorch jobs (use "
                                      "torch_distributed, pytorchddp or smdistributed)");
    }
    r.checkKeys(d, p,
                {"torch_distributed", "pytorchddp", "smdistributed", "mpi", "parameter_server",
                 "multi_worker_mirrored_strategy"});
    std::vector<Strategy> enabled;
    if (auto td = findDict(r, d, "torch_distributed", p); td.obj) {
        r.checkKeys(*td.obj, td.path, {"enabled"});
        if (readEnabled(r, *td.obj, td.path))
            enabled.push_back(Strategy::TorchDistributed);
    }
    if (auto pd = findDict(r, d, "pytorchddp", p); pd.obj)
        parseDataParallelDict(r, pd, Strategy::PyTorchDdp, enabled, spec.distribution);
    if (auto sd = findDict(r, d, "smdistributed", p); sd.obj)
        parseSmDistributed(r, sd, enabled, spec);
    bool mpiEnabled = false;
    if (auto mpi = findDict(r, d, "mpi", p); mpi.obj)
        mpiEnabled = parseMpi(r, mpi, spec.distribution);
    chooseStrategy(r, enabled, mpiEnabled, p, spec.distribution);
}

void checkParallelLayout(SpecReader& r, const JobSpec& spec) {
    const int world = spec.worldSize();
    int dataParallel = world;
    const std::string layout = "world size " + std::to_string(world) + " (instance_count " +
                               std::to_string(spec.instanceCount) + " x processes_per_host " +
                               std::to_string(spec.distribution.processesPerHost) + ")";
    const std::string mpPath = "distribution.smdistributed.modelparallel.parameters";
    if (const auto& mp = spec.distribution.modelParallel;
        mp && spec.distribution.strategy == Strategy::SmModelParallel) {
        const int cell = mp->partitions * mp->tensorParallelDegree;
        if (world % cell != 0) {
            r.error(childPath(mpPath, "partitions"),
                    layout + " must be a multiple of partitions (" +
                        std::to_string(mp->partitions) + ")" +
                        (mp->tensorParallelDegree > 1 ? " x tensor_parallel_degree" : ""));
            return;
        }
        dataParallel = world / cell;
        if (dataParallel > 1 && !mp->ddp) {
            r.error(childPath(mpPath, "ddp"),
                    layout + " must equal partitions (" + std::to_string(mp->partitions) +
                        ") when ddp is false; set ddp to true for " + std::to_string(dataParallel) +
                        " data-parallel replicas, or use " + std::to_string(cell) + " processes");
            return;
        }
    }
    if (!spec.isBuiltin())
        return;
    auto bs = spec.hyperparameters.find("batch-size");
    long long batch = bs != spec.hyperparameters.end() && bs->second.number
                          ? static_cast<long long>(*bs->second.number)
                          : 64;
    if (batch % dataParallel != 0) {
        r.error("hyperparameters.batch-size",
                "the global batch (" + std::to_string(batch) + ") must divide evenly among " +
                    std::to_string(dataParallel) + " data-parallel ranks");
        return;
    }
    if (const auto& mp = spec.distribution.modelParallel;
        mp && spec.distribution.strategy == Strategy::SmModelParallel) {
        std::map<std::string, std::string> hp;
        for (const auto& [k, v] : spec.hyperparameters)
            hp[k] = v.text;
        const int blocks = train::builtinBlockCount(spec.entryPoint.builtinModel, hp);
        if (blocks > 0 && mp->partitions > blocks)
            r.error(childPath(mpPath, "partitions"),
                    std::to_string(mp->partitions) +
                        " partitions, but builtin:" + spec.entryPoint.builtinModel + " has " +
                        std::to_string(blocks) + " blocks to cut");
        long long perRank = batch / dataParallel;
        if (perRank % mp->microbatches != 0)
            r.error(childPath(mpPath, "microbatches"),
                    "the per-rank batch (" + std::to_string(perRank) + " = batch-size " +
                        std::to_string(batch) + " / " + std::to_string(dataParallel) +
                        " data-parallel ranks) must divide evenly into " +
                        std::to_string(mp->microbatches) + " microbatches");
    }
}

void checkBuiltinHyperparameters(SpecReader& r, const JobSpec& spec) {
    const std::string& model = spec.entryPoint.builtinModel;
    const std::vector<std::string> valid = train::builtinHyperparameterNames(model);
    for (const auto& [name, value] : spec.hyperparameters) {
        const std::string p = childPath("hyperparameters", name);
        if (std::find(valid.begin(), valid.end(), name) == valid.end()) {
            std::string hint = didYouMean(name, valid);
            const train::HyperparameterInfo* other = train::findBuiltinHyperparameter(name);
            if (other)
                r.error(p, "not a hyperparameter of builtin:" + model + " (only of " +
                               quoteList(other->models) + ")");
            else
                r.error(p, "unknown hyperparameter of the built-in trainer" +
                               (hint.empty() ? "; see resources/specs/SPEC.md" : hint));
            continue;
        }
        std::string problem =
            train::checkBuiltinValue(*train::findBuiltinHyperparameter(name), value.text);
        if (!problem.empty())
            r.error(p, problem);
    }
}

} // namespace studio::spec
