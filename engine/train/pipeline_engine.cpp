// Pipeline model parallel (and pipeline x data-parallel hybrids): each rank holds a contiguous
// range of blocks; microbatches flow through the stages by c10d send/recv following a plan
// (GPipe or 1F1B); replicas of a stage reduce their gradients with the bucketed reducer.
#include "engine/train/memory_tracker.h"
#include "engine/train/models.h"
#include "engine/train/partition.h"
#include "engine/train/pipeline_schedule.h"
#include "engine/train/replica_engine.h"
#include "engine/train/sampler.h"
#include "engine/train/training_state.h"

#include <torch/csrc/jit/serialization/pickle.h>

#include <algorithm>
#include <climits>
#include <filesystem>

namespace studio::train {

namespace {

namespace fs = std::filesystem;

double heapBytes() {
    return static_cast<double>(trackedBytes());
}

enum Tag { kActivation = 0, kGradient = 1, kEvalActivation = 2 };
int tagFor(int microbatch, Tag kind) {
    return microbatch * 4 + kind;
}

// A module holding only this rank's blocks: what its optimizer, checkpoints and gradients see.
struct StageModule : torch::nn::Module {
    StageModule(Model& model, int first, int last) {
        for (int i = first; i < last; ++i)
            register_module(model.blockNames[static_cast<std::size_t>(i)],
                            model.blocks[static_cast<std::size_t>(i)]);
    }
};

// One training step's microbatches on this stage, as the plan's actions pass them along.
struct StageStep {
    StageStep(std::int64_t step, int microbatches, const torch::Device& device)
        : step(step)
        , inputs(static_cast<std::size_t>(microbatches))
        , outputs(inputs)
        , grads(inputs)
        , lossSum(torch::zeros({}, torch::TensorOptions(device))) {}

    std::int64_t step;
    StepOutcome out;
    Batch whole; // the global batch, on the first and the last stage
    std::vector<torch::Tensor> inputs, outputs, grads;
    std::vector<std::pair<Communicator::Handle, torch::Tensor>> sends;
    torch::Tensor lossSum;
    double scale = 1;  // of the loss before backward
    int backwards = 0; // microbatches gone backward so far
    double heapPeak = 0;
    FrameworkProfiler* profiler = nullptr;
    ActivationCapture* capture = nullptr;
};

class PipelineEngine : public ReplicaEngine {
public:
    explicit PipelineEngine(EngineContext& ctx)
        : ReplicaEngine(ctx)
        , m_mp(*ctx.config.modelParallel) {
        if (ctx.config.amp != "none") // stages exchange float32 activations of fixed shapes
            throw std::invalid_argument("hyperparameters.amp: pipelines (modelparallel) train in "
                                        "float32; use amp with data parallelism");
        installMemoryTracker(); // peak activation memory per step
        const int world = ctx.env.world;
        m_topo = makeTopology(ctx.env.rank, world, m_mp.partitions, m_mp.placementStrategy);
        m_stage = m_topo.pipelineRank;
        m_stages = m_topo.pipelineSize;
        trainerLog(true, "%s", m_topo.describe().c_str());
        if (m_stages > 1 && !ctx.comm)
            throw std::invalid_argument("a pipeline of " + std::to_string(m_stages) +
                                        " stages needs as many ranks");
        m_local = m_c.batchSize / m_topo.dataSize;
        m_microbatches = m_mp.microbatches;
        if (m_local % m_microbatches != 0)
            throw std::invalid_argument("the per-replica batch " + std::to_string(m_local) +
                                        " does not divide into " + std::to_string(m_microbatches) +
                                        " microbatches");
        m_micro = m_local / m_microbatches;

        m_model =
            buildSeededModel(m_c, ctx.data.shape); // same seed on every rank: identical weights
        const int blocks = static_cast<int>(m_model->blocks.size());
        if (blocks < m_stages)
            throw std::invalid_argument("partitions " + std::to_string(m_stages) + " exceeds the " +
                                        std::to_string(blocks) + " blocks of " + m_c.model);
        measureBlocks(); // boundary shapes on every rank; costs on rank 0
        choosePartition();
        m_first = m_bounds[static_cast<std::size_t>(m_stage)];
        m_last = m_bounds[static_cast<std::size_t>(m_stage) + 1];
        releaseOtherBlocks();
        auto stage = std::make_shared<StageModule>(*m_model, m_first, m_last);
        stage->to(m_device);

        // One data-parallel group per stage, created by every rank in the same order.
        std::shared_ptr<Communicator> replicas;
        for (int s = 0; s < m_stages; ++s) {
            std::vector<int> group;
            for (int r = 0; r < world; ++r)
                if (makeTopology(r, world, m_stages, m_mp.placementStrategy).pipelineRank == s)
                    group.push_back(r);
            auto sub = m_topo.dataSize > 1
                           ? ctx.comm->subgroup(group, "dp-stage-" + std::to_string(s))
                           : nullptr;
            if (s == m_stage)
                replicas = sub;
        }
        const double lr = m_c.lr * (m_c.lrScaling ? m_topo.dataSize : 1);
        adopt(stage, replicas, lr);
        m_plan = planPipeline(scheduleFromName(m_mp.pipeline), m_stages, m_microbatches);
        m_prev = m_stage > 0 ? m_topo.pipelineGroup[static_cast<std::size_t>(m_stage) - 1] : -1;
        m_next = m_stage + 1 < m_stages
                     ? m_topo.pipelineGroup[static_cast<std::size_t>(m_stage) + 1]
                     : -1;
        trainerLog(ctx.env.rank == 0,
                   "%s: %zu blocks in %d stages x %d replicas; %d microbatches of %lld (%s "
                   "schedule); lr %g",
                   m_c.model.c_str(), m_model->blocks.size(), m_stages, m_topo.dataSize,
                   m_microbatches, static_cast<long long>(m_micro), m_mp.pipeline.c_str(), lr);
    }

    int dataRank() const override { return m_topo.dataRank; }
    int dataSize() const override { return m_topo.dataSize; }
    bool reporter() const override { return m_stage == m_stages - 1 && m_topo.dataRank == 0; }
    bool writesCheckpoints() const override { return m_topo.dataRank == 0; }
    std::string checkpointTag() const override { return "stage" + std::to_string(m_stage); }

    StepOutcome step(std::int64_t step, const std::vector<std::int64_t>& batch,
                     bool stopRequested) override {
        const double heapStart = heapBytes();
        StageStep s(step, m_microbatches, m_device);
        s.heapPeak = heapStart;
        s.out.stop = beginStep(stopRequested);
        s.profiler = activeProfiler();
        s.capture = m_ctx.hook ? m_ctx.hook->capture() : nullptr;
        s.scale = (m_reducer ? m_reducer->lossScale() : 1.0) / m_microbatches;
        loadBatch(s, batch);
        for (const PipeAction& a : m_plan.perStage[static_cast<std::size_t>(m_stage)])
            runAction(s, a);
        finishStep(s);
        m_peakActivationBytes = std::max(0.0, s.heapPeak - heapStart);
        return s.out;
    }

    void reportExtras(std::int64_t step, EventWriter& events) override {
        if (m_topo.dataRank != 0)
            return;
        events.metric("pipeline:peak_activation_mb", step, m_peakActivationBytes / 1048576.0);
        events.metric("pipeline:busy_fraction", step, m_busyFraction);
    }

    EvalSums evaluate(std::int64_t limit) override {
        torch::NoGradGuard noGrad;
        m_model->eval();
        const Dataset& test = *m_ctx.data.test;
        const std::int64_t size = evalSize(limit);
        std::vector<std::int64_t> shard =
            DistributedSampler(size, m_topo.dataRank, m_topo.dataSize, 0, false).indices(0);
        const std::int64_t valid = (size - m_topo.dataRank + m_topo.dataSize - 1) / m_topo.dataSize;
        EvalTally tally;
        StepContext sc;
        sc.training = false;
        const auto chunks =
            static_cast<int>((shard.size() + static_cast<std::size_t>(m_micro) - 1) /
                             static_cast<std::size_t>(m_micro));
        for (int chunk = 0; chunk < chunks; ++chunk) {
            // Shapes are static: a short last chunk is filled up and its extra rows ignored.
            std::vector<std::int64_t> idx;
            for (std::int64_t i = 0; i < m_micro; ++i)
                idx.push_back(shard[static_cast<std::size_t>(chunk * m_micro + i) % shard.size()]);
            const std::int64_t rows = std::min<std::int64_t>(m_micro, valid - chunk * m_micro);
            Batch b;
            if (m_stage == 0 || m_stage == m_stages - 1)
                b = batchOn(m_device, m_c.pinMemory, test.batch(idx, m_model->channelsLast));
            const torch::Tensor x =
                m_stage == 0 ? b.input : receiveActivation(tagFor(chunk, kEvalActivation));
            torch::Tensor y = m_model->forward(x, sc, m_first, m_last);
            if (m_stage + 1 < m_stages) {
                torch::Tensor t = y.contiguous();
                m_ctx.comm->sendAsync(t, m_next, tagFor(chunk, kEvalActivation)).wait();
            } else if (rows > 0) {
                tally.add(*m_model, y.narrow(0, 0, rows), b.target.narrow(0, 0, rows));
            }
        }
        const EvalSums sums = tally.mean(m_ctx.comm.get()); // stages other than the last add 0
        m_model->train();
        return sums;
    }

    std::int64_t resume(CheckpointFiles* files) override {
        // Stages resume together from the newest step every stage has a valid checkpoint of.
        if (!files) // the same on every rank: no checkpoint folder, nothing to resume
            return 0;
        std::int64_t mine = LLONG_MAX; // replicas other than the first do not vote
        if (m_topo.dataRank == 0) {
            std::vector<std::string> warnings;
            mine = files->newestValidStep(checkpointTag(), warnings);
            warnAboutCheckpoints(warnings);
        }
        auto steps = torch::tensor({static_cast<double>(mine)}, torch::kDouble);
        auto newest = torch::tensor({m_topo.dataRank == 0 ? static_cast<double>(mine) : -1.0},
                                    torch::kDouble);
        m_ctx.comm->allreduce(steps, Communicator::Reduce::Min);
        m_ctx.comm->allreduce(newest, Communicator::Reduce::Max);
        const double step = steps.item<double>();
        if (step < 1) {
            if (newest.item<double>() > 0)
                trainerLog(m_ctx.env.rank == 0, "not every stage has a checkpoint: starting over");
            return 0;
        }
        std::string payload;
        if (m_topo.dataRank == 0)
            payload = files->load(checkpointTag(), static_cast<std::int64_t>(step)).payload;
        return restore(std::move(payload));
    }

    void saveModel(const std::string& dir, nlohmann::json& info) override {
        info["blocks"] = m_model->blockNames;
        info["pipeline_partition"] = m_bounds;
        if (!m_c.gatherModel) {
            if (m_topo.dataRank == 0)
                saveModuleForPython(dir, "model-stage" + std::to_string(m_stage) + ".pt");
            info["format"] = "one state dict per stage: model-stage<S>.pt";
            return;
        }
        // Every stage's first replica sends its tensors to rank 0, which writes one state dict.
        c10::Dict<std::string, torch::Tensor> all;
        for (int s = 0; s < m_stages; ++s) {
            const int root = makeRootOf(s);
            std::string bytes;
            if (m_ctx.env.rank == root) {
                std::vector<char> pickled = pickleStateDict(*m_module);
                bytes.assign(pickled.begin(), pickled.end());
            }
            bytes = broadcastBytes(*m_ctx.comm, bytes, root);
            if (m_ctx.env.rank == 0) {
                auto dict = torch::jit::pickle_load(std::vector<char>(bytes.begin(), bytes.end()))
                                .toGenericDict();
                for (const auto& item : dict)
                    all.insert(item.key().toStringRef(), item.value().toTensor());
            }
        }
        if (m_ctx.env.rank == 0) {
            fs::create_directories(dir);
            std::vector<char> pickled = pickleTensors(all);
            writeFileAtomically((fs::path(dir) / "model.pt").string(),
                                std::string(pickled.begin(), pickled.end()));
        }
    }

    void barrier() override { m_ctx.comm->barrier(); }

private:
    // Zeroes the gradients and agrees with every rank on whether to stop after this step.
    bool beginStep(bool stopRequested) {
        const auto zeroStart = Clock::now();
        zeroGradients();
        const double zeroMs = msSince(zeroStart);
        // Every rank must stop after the same step: agree on the request first.
        auto flag = torch::tensor({stopRequested ? 1.0f : 0.0f});
        m_ctx.comm->allreduce(flag); // a sum: positive when any rank asks
        // That all-reduce lines the stages up: from one such point to the next, every stage sees
        // the same window, and what it does not spend computing (or on its own optimizer and
        // data) is pipeline bubble.
        const auto synced = Clock::now();
        if (m_lastSync) { // the previous step's window ends here; zeroing fell inside it
            const double window =
                std::chrono::duration<double, std::milli>(synced - *m_lastSync).count() -
                m_lastOtherMs - zeroMs;
            m_busyFraction = window > 0 ? m_lastBusyMs / window : 0;
        }
        m_lastSync = synced;
        return flag.item<float>() > 0;
    }

    // The first stage needs the inputs, the last one the targets.
    void loadBatch(StageStep& s, const std::vector<std::int64_t>& batch) {
        const auto t0 = Clock::now();
        if (m_stage == 0 || m_stage == m_stages - 1)
            s.whole = batchOn(m_device, m_c.pinMemory,
                              m_ctx.data.train->batch(batch, m_model->channelsLast));
        s.out.times.dataMs = msSince(t0);
        if (s.profiler && s.whole.input.defined())
            s.profiler->span("dataloader", "dataloader", t0, Clock::now());
    }

    // A tensor of this shape from rank `from`, once it has arrived.
    torch::Tensor receive(const std::vector<std::int64_t>& shape, int from, int tag) {
        torch::Tensor t = torch::empty(shape, torch::TensorOptions(m_device));
        m_ctx.comm->recvAsync(t, from, tag).wait();
        return t;
    }

    // The previous stage's output: this stage's input.
    torch::Tensor receiveActivation(int tag) {
        return receive(m_shapes[static_cast<std::size_t>(m_first) - 1], m_prev, tag);
    }

    // An action that took from start to now: its time into the phase's total, and one span in
    // the profile ("forward mb 3", "recv activation mb 3", ...).
    static void account(StageStep& s, double& phaseMs, const char* what, const char* category,
                        int microbatch, Clock::time_point start) {
        phaseMs += msSince(start);
        if (s.profiler)
            s.profiler->span(std::string(what) + " mb " + std::to_string(microbatch), category,
                             start, Clock::now());
    }

    // Sends go out asynchronously; the step waits for all of them at its end.
    void send(StageStep& s, torch::Tensor t, int to, int tag) {
        s.sends.emplace_back(m_ctx.comm->sendAsync(t, to, tag), t);
    }

    void runAction(StageStep& s, const PipeAction& a) {
        const auto t0 = Clock::now();
        const auto mb = static_cast<std::size_t>(a.microbatch);
        StepTimes& times = s.out.times;
        switch (a.op) {
        case PipeOp::RecvActivation:
            s.inputs[mb] = receiveActivation(tagFor(a.microbatch, kActivation)).requires_grad_();
            account(s, times.commMs, "recv activation", "comm", a.microbatch, t0);
            break;
        case PipeOp::Forward:
            forward(s, a.microbatch);
            account(s, times.forwardMs, "forward", "forward", a.microbatch, t0);
            s.heapPeak = std::max(s.heapPeak, heapBytes());
            break;
        case PipeOp::SendActivation:
            send(s, s.outputs[mb].detach().contiguous(), m_next, tagFor(a.microbatch, kActivation));
            break;
        case PipeOp::RecvGradient:
            s.grads[mb] = receive(m_shapes[static_cast<std::size_t>(m_last) - 1], m_next,
                                  tagFor(a.microbatch, kGradient));
            account(s, times.commMs, "recv gradient", "comm", a.microbatch, t0);
            break;
        case PipeOp::Backward:
            backward(s, a.microbatch);
            account(s, times.backwardMs, "backward", "backward", a.microbatch, t0);
            break;
        case PipeOp::SendGradient:
            send(s, s.inputs[mb].grad().contiguous(), m_prev, tagFor(a.microbatch, kGradient));
            s.inputs[mb] = torch::Tensor();
            break;
        }
    }

    // A microbatch through this stage's blocks; on the last stage, into the scaled loss.
    void forward(StageStep& s, int microbatch) {
        const auto mb = static_cast<std::size_t>(microbatch);
        torch::Tensor x =
            m_stage == 0 ? s.whole.input.narrow(0, microbatch * m_micro, m_micro) : s.inputs[mb];
        StepContext sc{s.step, m_c.seed, m_topo.dataRank * m_local + microbatch * m_micro, true};
        sc.capture = microbatch == 0 ? s.capture : nullptr; // one microbatch is enough
        torch::Tensor y = m_model->forward(x, sc, m_first, m_last);
        if (m_stage == m_stages - 1) {
            torch::Tensor target = s.whole.target.narrow(0, microbatch * m_micro, m_micro);
            if (s.capture)
                m_ctx.hook->observeBatch(y, target);
            torch::Tensor loss = m_model->loss(y, target);
            s.lossSum += loss.detach() / m_microbatches;
            y = loss * s.scale;
        }
        s.outputs[mb] = y;
    }

    void backward(StageStep& s, int microbatch) {
        const auto mb = static_cast<std::size_t>(microbatch);
        if (m_reducer) { // gradients accumulate over microbatches; the last one syncs
            const bool sync = ++s.backwards == m_microbatches;
            m_reducer->setSync(sync);
            if (sync && m_stage == m_stages - 1)
                sendLossWithGradients(s.lossSum);
        }
        if (m_stage == m_stages - 1)
            s.outputs[mb].backward();
        else
            torch::autograd::backward({s.outputs[mb]}, {s.grads[mb]});
        s.outputs[mb] = torch::Tensor();
        s.grads[mb] = torch::Tensor();
    }

    // Waits for the sends and the replicas' gradients, then steps the optimizer.
    void finishStep(StageStep& s) {
        auto t0 = Clock::now();
        for (auto& [handle, tensor] : s.sends)
            handle.wait();
        s.out.times.commMs += msSince(t0);
        if (s.profiler)
            s.profiler->span("send wait", "comm", t0, Clock::now());
        const double reduceMs = finishReduction(s.profiler);
        s.out.times.commMs += reduceMs;
        t0 = Clock::now();
        m_optimizer->step();
        s.out.times.optimizerMs = msSince(t0);
        if (s.profiler)
            s.profiler->span(m_c.optimizer, "optimizer", t0, Clock::now());
        keepLoss(s.lossSum);
        m_lastBusyMs = s.out.times.forwardMs + s.out.times.backwardMs;
        m_lastOtherMs = s.out.times.dataMs + s.out.times.optimizerMs + reduceMs;
    }

    int makeRootOf(int stage) const {
        for (int r = 0; r < m_ctx.env.world; ++r) {
            Topology t = makeTopology(r, m_ctx.env.world, m_stages, m_mp.placementStrategy);
            if (t.pipelineRank == stage && t.dataRank == 0)
                return r;
        }
        return 0;
    }

    // Output shapes of every block for one microbatch (all ranks), and each block's cost in
    // memory (parameters + output) and time (forward + backward), measured by rank 0.
    void measureBlocks() {
        std::vector<std::int64_t> idx;
        for (std::int64_t i = 0; i < m_micro; ++i)
            idx.push_back(i % m_ctx.data.train->size());
        Batch b = m_ctx.data.train->batch(idx, m_model->channelsLast);
        StepContext sc;
        const bool measure = m_ctx.env.rank == 0 && m_mp.autoPartition;
        const int passes = measure ? 4 : 1; // the first pass warms up kernels and allocations
        std::vector<std::vector<double>> times(m_model->blocks.size());
        for (int pass = 0; pass < passes; ++pass) {
            torch::Tensor x = b.input;
            m_shapes.clear();
            m_memory.clear();
            for (std::size_t i = 0; i < m_model->blocks.size(); ++i) {
                torch::Tensor in = x.detach();
                if (in.is_floating_point())
                    in.requires_grad_();
                auto t0 = Clock::now();
                torch::Tensor y = m_model->blocks[i]->forward(in, sc);
                if (measure) {
                    y.backward(torch::ones_like(y));
                    times[i].push_back(std::chrono::duration<double>(Clock::now() - t0).count());
                }
                double bytes = static_cast<double>(y.numel() * y.element_size());
                for (const auto& p : m_model->blocks[i]->parameters())
                    bytes += static_cast<double>(p.numel() * p.element_size());
                m_memory.push_back(bytes);
                m_shapes.push_back(y.sizes().vec());
                x = y.detach();
            }
        }
        m_seconds.clear();
        for (auto& t : times) { // the median of the warm passes
            if (t.empty()) {
                m_seconds.push_back(0);
                continue;
            }
            std::vector<double> warm(t.begin() + 1, t.end());
            std::sort(warm.begin(), warm.end());
            m_seconds.push_back(warm[warm.size() / 2]);
        }
        for (auto& p : m_model->parameters()) // the measurement's gradients are not training's
            if (p.grad().defined())
                p.mutable_grad() = torch::Tensor();
    }

    void choosePartition() {
        std::vector<std::int64_t> bounds;
        const int blocks = static_cast<int>(m_model->blocks.size());
        if (m_ctx.env.rank == 0) {
            std::vector<int> b =
                m_mp.autoPartition
                    ? balancedPartition(blendCosts(m_memory, m_seconds, m_mp.memoryWeight),
                                        m_stages)
                    : evenPartition(blocks, m_stages, m_mp.defaultPartition);
            bounds.assign(b.begin(), b.end());
        } else {
            bounds.assign(static_cast<std::size_t>(m_stages) + 1, 0);
        }
        // Timings differ between ranks: rank 0 decides for everyone.
        torch::Tensor t = torch::tensor(bounds, torch::kLong);
        if (m_ctx.comm)
            m_ctx.comm->broadcast(t, 0);
        m_bounds.clear();
        for (std::int64_t i = 0; i < t.numel(); ++i)
            m_bounds.push_back(static_cast<int>(t[i].item<std::int64_t>()));
        std::string cut;
        for (int s = 0; s < m_stages; ++s) {
            cut += s ? " | " : "";
            cut += "stage " + std::to_string(s) + ": ";
            for (int i = m_bounds[static_cast<std::size_t>(s)];
                 i < m_bounds[static_cast<std::size_t>(s) + 1]; ++i)
                cut += (i > m_bounds[static_cast<std::size_t>(s)] ? "," : "") +
                       m_model->blockNames[static_cast<std::size_t>(i)];
        }
        const std::string how = m_mp.autoPartition ? "auto, optimize " + m_mp.optimize
                                                   : "manual, default_partition " +
                                                         std::to_string(m_mp.defaultPartition);
        trainerLog(m_ctx.env.rank == 0, "pipeline partition (%s): %s", how.c_str(), cut.c_str());
        if (m_ctx.env.rank == 0) {
            wire::StatusEvent e;
            e.state = "partition";
            e.message = cut;
            m_ctx.events.send(e);
        }
    }

    // Blocks of other stages keep their structure but give their memory back.
    void releaseOtherBlocks() {
        torch::NoGradGuard noGrad;
        for (int i = 0; i < static_cast<int>(m_model->blocks.size()); ++i) {
            if (i >= m_first && i < m_last)
                continue;
            for (auto& p : m_model->blocks[static_cast<std::size_t>(i)]->parameters())
                p.set_data(torch::empty({0}));
        }
    }

    spec::ModelParallelParams m_mp;
    Topology m_topo;
    int m_stage = 0, m_stages = 1, m_first = 0, m_last = 0, m_prev = -1, m_next = -1;
    int m_microbatches = 1;
    std::int64_t m_local = 0, m_micro = 0;
    std::vector<int> m_bounds;
    std::vector<double> m_memory, m_seconds;
    std::vector<std::vector<std::int64_t>> m_shapes;
    PipelinePlan m_plan;
    double m_peakActivationBytes = 0;
    double m_busyFraction = 0; // of the previous step's window
    std::optional<Clock::time_point> m_lastSync;
    double m_lastBusyMs = 0, m_lastOtherMs = 0;
};

} // namespace

std::unique_ptr<StepEngine> makePipelineEngine(EngineContext& ctx) {
    return std::make_unique<PipelineEngine>(ctx);
}

} // namespace studio::train
