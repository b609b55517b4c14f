// Trainer internals with LibTorch: fused kernels equal the unfused ops, every model runs, and
// 2-rank data-parallel gradients equal single-process gradients on the concatenated batch.
#include "engine/process/fd.h"
#include "engine/train/communicator.h"
#include "engine/train/datasets.h"
#include "engine/train/fused_ops.h"
#include "engine/train/models.h"
#include "engine/train/reducer.h"
#include "tests/support/process_check.h"

#include <QtTest>

#include <algorithm>
#include <thread>

using namespace studio::train;

namespace {

TrainerConfig config(const std::string& model) {
    TrainerConfig c;
    c.model = model;
    c.dataset = model == "transformer-lm" ? "synthetic" : "fashion-mnist";
    c.seqLen = 16;
    c.dModel = 32;
    c.heads = 4;
    c.layers = 2;
    return c;
}

double maxAbsDiff(const torch::Tensor& a, const torch::Tensor& b) {
    return (a - b).abs().max().item<double>();
}

// Samples first, first + 1, ..., first + count - 1.
std::vector<std::int64_t> sampleRange(std::int64_t first, std::int64_t count) {
    std::vector<std::int64_t> idx;
    for (std::int64_t i = 0; i < count; ++i)
        idx.push_back(first + i);
    return idx;
}

void copyWeights(const Model& from, Model& to) {
    torch::NoGradGuard g;
    auto src = from.parameters();
    auto dst = to.parameters();
    for (std::size_t i = 0; i < src.size(); ++i)
        dst[i].copy_(src[i]);
}

// `world` ranks of `local` samples each take `steps` SGD steps on consecutive batches.
struct DataParallelCase {
    const TrainerConfig& config;
    const DataSplits& data;
    std::int64_t local;
    std::int64_t world;
    int steps;
};

// One rank's steps from the weights of `start`; its gradients of the last step (not applied)
// go to `grads`. Returns the rank's model.
std::shared_ptr<Model> trainRank(const DataParallelCase& dp, const Model& start, int rank, int port,
                                 std::vector<torch::Tensor>& grads) {
    Communicator::Options o;
    o.rank = rank;
    o.world = static_cast<int>(dp.world);
    o.masterPort = port;
    auto comm = Communicator::connect(o);
    auto model = buildModel(dp.config, dp.data.shape);
    copyWeights(start, *model);
    GradientReducer reducer(model->parameters(), comm, 1 << 20, 25 << 20);
    torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));
    for (int step = 0; step < dp.steps; ++step) {
        reducer.zeroGrad();
        Batch b = dp.data.train->batch(
            sampleRange(step * dp.world * dp.local + rank * dp.local, dp.local),
            model->channelsLast);
        StepContext ctx{step, dp.config.seed, rank * dp.local, true};
        auto loss = model->loss(model->forward(b.input, ctx), b.target) * reducer.lossScale();
        loss.backward();
        reducer.finish();
        if (step + 1 == dp.steps) {
            for (auto& p : model->parameters())
                grads.push_back(p.grad().clone());
            break;
        }
        opt.step();
    }
    return model;
}

// The same steps in one process, on the concatenated batches: the gradients of the last step.
std::vector<torch::Tensor> singleProcessGradients(const DataParallelCase& dp, Model& single) {
    torch::optim::SGD opt(single.parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));
    std::vector<torch::Tensor> grads;
    for (int step = 0; step < dp.steps; ++step) {
        for (auto& p : single.parameters())
            if (p.grad().defined())
                p.mutable_grad().zero_();
        Batch b = dp.data.train->batch(sampleRange(step * dp.world * dp.local, dp.world * dp.local),
                                       single.channelsLast);
        StepContext ctx{step, dp.config.seed, 0, true};
        single.loss(single.forward(b.input, ctx), b.target).backward();
        if (step + 1 == dp.steps) {
            for (auto& p : single.parameters())
                grads.push_back(p.grad().clone());
            break;
        }
        opt.step();
    }
    return grads;
}

} // namespace

namespace {

// Two ranks (threads) connect, all-reduce, and stay connected while this process's listening
// sockets are read. storeFile empty: the TCP store on 127.0.0.1.
std::vector<std::string> listeningWhileConnected(const std::string& storeFile) {
    std::vector<std::shared_ptr<Communicator>> comms(2);
    std::vector<std::string> errors(2);
    const int port = studio::process::freeTcpPort();
    auto rankMain = [&](int rank) {
        try {
            Communicator::Options o;
            o.rank = rank;
            o.world = 2;
            o.masterPort = port;
            o.storeFile = storeFile;
            o.sharedMemory = false;
            auto comm = Communicator::connect(o);
            auto t = torch::full({4}, static_cast<float>(rank + 1));
            comm->allreduce(t);
            if (t.sum().item<float>() != 12.0f)
                throw std::runtime_error("all-reduce gave " +
                                         std::to_string(t.sum().item<float>()));
            comms[static_cast<std::size_t>(rank)] = comm;
        } catch (const std::exception& e) {
            errors[static_cast<std::size_t>(rank)] = e.what();
        }
    };
    std::thread a(rankMain, 0), b(rankMain, 1);
    a.join();
    b.join();
    if (!errors[0].empty() || !errors[1].empty())
        throw std::runtime_error(errors[0] + errors[1]);
    return listeningAddresses(::getpid());
}

} // namespace

class TestTrainer : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { torch::set_num_threads(1); }

    void poolReluDropoutEqualsReference() {
        for (bool channelsLast : {false, true}) {
            torch::manual_seed(3);
            auto base = torch::randn({3, 5, 8, 6});
            auto x = channelsLast ? base.contiguous(at::MemoryFormat::ChannelsLast) : base.clone();
            x.requires_grad_();
            auto ref = base.clone().requires_grad_();
            auto y = poolReluDropout(x, 0.0, {1, 0}, true);
            auto yr = torch::relu(torch::max_pool2d(ref, 2));
            QVERIFY(maxAbsDiff(y, yr) == 0);
            auto g = torch::randn_like(yr);
            y.backward(g);
            yr.backward(g);
            QVERIFY(maxAbsDiff(x.grad(), ref.grad()) == 0);
            QCOMPARE(x.grad().is_contiguous(at::MemoryFormat::ChannelsLast), channelsLast);
        }
    }

    void dropoutRateAndReplay() {
        auto x = torch::ones({64, 4096});
        auto y = dropout(x, 0.25, {42, 0}, true);
        const double kept = (y > 0).to(torch::kFloat).mean().item<double>();
        QVERIFY2(std::abs(kept - 0.75) < 0.01, std::to_string(kept).c_str());
        QVERIFY(std::abs(y.sum().item<double>() / x.numel() - 1.0) < 0.02); // scaled by 1/(1-p)
        QVERIFY(torch::equal(y, dropout(x, 0.25, {42, 0}, true)));          // same key, same mask
        QVERIFY(!torch::equal(y, dropout(x, 0.25, {43, 0}, true)));
        // Rows 32.. of a batch equal rows 0.. of a batch whose first sample is global sample 32.
        auto tail = dropout(torch::ones({32, 4096}), 0.25, {42, 32}, true);
        QVERIFY(torch::equal(y.slice(0, 32), tail));
        QVERIFY(torch::equal(dropout(x, 0.25, {42, 0}, false), x));
        auto h = torch::randn({8, 16});
        QVERIFY(torch::equal(reluDropout(h, 0.0, {1, 0}, true), torch::relu(h)));
    }

    // Inputs the fused CPU kernels do not take (CUDA tensors, bfloat16 under autocast) go through
    // plain ops with the same counter-drawn masks: the same outputs and gradients. A double input
    // takes that path here.
    void unfusedPathDrawsTheSameMasks() {
        torch::manual_seed(4);
        for (bool channelsLast : {false, true}) {
            auto base = torch::randn({6, 5, 8, 6});
            auto x = channelsLast ? base.contiguous(at::MemoryFormat::ChannelsLast) : base.clone();
            x.requires_grad_();
            auto d = base.to(torch::kDouble).requires_grad_();
            auto y = poolReluDropout(x, 0.25, {9, 12}, true);
            auto yd = poolReluDropout(d, 0.25, {9, 12}, true);
            QVERIFY(maxAbsDiff(y, yd.to(torch::kFloat)) < 1e-6);
            auto g = torch::randn_like(y);
            y.backward(g);
            yd.backward(g.to(torch::kDouble));
            QVERIFY(maxAbsDiff(x.grad(), d.grad().to(torch::kFloat)) < 1e-6);
        }
        auto h = torch::randn({16, 40});
        for (bool relu : {false, true}) {
            auto a = relu ? reluDropout(h, 0.5, {7, 3}, true) : dropout(h, 0.5, {7, 3}, true);
            auto hd = h.to(torch::kDouble);
            auto b = relu ? reluDropout(hd, 0.5, {7, 3}, true) : dropout(hd, 0.5, {7, 3}, true);
            QVERIFY(maxAbsDiff(a, b.to(torch::kFloat)) < 1e-6);
        }
        // bfloat16, as autocast hands it over: the same mask at reduced precision.
        auto hb = reluDropout(h.to(torch::kBFloat16), 0.5, {7, 3}, true);
        QCOMPARE(hb.scalar_type(), torch::kBFloat16);
        QVERIFY(torch::equal(hb.to(torch::kFloat) != 0, reluDropout(h, 0.5, {7, 3}, true) != 0));
    }

    void everyModelRuns_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("blocks");
        QTest::newRow("fmnist-cnn") << "fmnist-cnn" << 4;
        QTest::newRow("mlp") << "mlp" << 3;
        QTest::newRow("resnet18") << "resnet18" << 10;
        QTest::newRow("transformer-lm") << "transformer-lm" << 4;
    }
    void everyModelRuns() {
        QFETCH(QString, model);
        QFETCH(int, blocks);
        TrainerConfig c = config(model.toStdString());
        if (c.model == "resnet18")
            c.dataset = "synthetic";
        c.trainSamples = 64;
        DataSplits data = loadData(c, {});
        auto m = buildModel(c, data.shape);
        QCOMPARE(static_cast<int>(m->blocks.size()), blocks);
        Batch b = data.train->batch({0, 1, 2, 3}, m->channelsLast);
        StepContext ctx;
        torch::Tensor out = m->forward(b.input, ctx);
        torch::Tensor loss = m->loss(out, b.target);
        QVERIFY(std::isfinite(loss.item<double>()));
        loss.backward();
        for (const auto& p : m->parameters())
            QVERIFY(p.grad().defined());
        // Blocks compose: running them in two ranges equals running all at once.
        ctx.training = false;
        const int half = blocks / 2;
        auto whole = m->forward(b.input, ctx);
        auto split = m->forward(m->forward(b.input, ctx, 0, half), ctx, half, blocks);
        QVERIFY(maxAbsDiff(whole, split) < 1e-6);
    }

    // Ranks of one host meet through a store file: nothing of the process listens beyond
    // loopback while they run. The TCP store, for contrast, listens on every interface.
    void fileRendezvousListensOnlyOnLoopback() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto withFile = listeningWhileConnected(dir.filePath("store").toStdString());
        for (const auto& address : withFile)
            QVERIFY2(address.rfind("127.", 0) == 0 || address == "::1", address.c_str());
        const auto withTcp = listeningWhileConnected("");
        QVERIFY(std::any_of(withTcp.begin(), withTcp.end(),
                            [](const auto& a) { return a == "::" || a == "0.0.0.0"; }));
    }

    void dataParallelGradientsEqualSingleProcess() {
        TrainerConfig c = config("fmnist-cnn");
        c.trainSamples = 256;
        DataSplits data = loadData(c, {});
        const DataParallelCase dp{c, data, 16, 2, 4};
        torch::manual_seed(5);
        auto single = buildModel(c, data.shape);

        const int port = studio::process::freeTcpPort();
        std::vector<std::shared_ptr<Model>> replicas(dp.world);
        std::vector<std::vector<torch::Tensor>> grads(dp.world);
        std::vector<std::string> errors(dp.world);
        auto rankMain = [&](int rank) {
            const auto r = static_cast<std::size_t>(rank);
            try {
                replicas[r] = trainRank(dp, *single, rank, port, grads[r]);
            } catch (const std::exception& e) {
                errors[r] = e.what();
            }
        };
        std::thread r0(rankMain, 0), r1(rankMain, 1);
        r0.join();
        r1.join();
        QVERIFY2(errors[0].empty() && errors[1].empty(), (errors[0] + errors[1]).c_str());

        const std::vector<torch::Tensor> singleGrads = singleProcessGradients(dp, *single);
        for (std::size_t i = 0; i < singleGrads.size(); ++i) {
            const double scale = std::max(1.0, singleGrads[i].abs().max().item<double>());
            for (int rank = 0; rank < dp.world; ++rank) {
                const double diff =
                    maxAbsDiff(grads[static_cast<std::size_t>(rank)][i], singleGrads[i]) / scale;
                QVERIFY2(diff < 1e-5, ("parameter " + std::to_string(i) + " rank " +
                                       std::to_string(rank) + " differs by " + std::to_string(diff))
                                          .c_str());
            }
        }
        // Ranks hold identical weights after their steps.
        auto p0 = replicas[0]->parameters(), p1 = replicas[1]->parameters();
        for (std::size_t i = 0; i < p0.size(); ++i)
            QVERIFY(torch::equal(p0[i], p1[i]));
    }

    // Two micro-steps, the first without sync: after the second, each rank holds the average
    // over ranks of its summed micro-step gradients, and nothing crossed ranks in between.
    void gradientAccumulationSyncsOnce() {
        TrainerConfig c = config("mlp");
        c.hidden = 16;
        c.depth = 1;
        c.trainSamples = 64;
        DataSplits data = loadData(c, {});
        const int port = studio::process::freeTcpPort();
        std::vector<torch::Tensor> afterFirst(2), afterSync(2), localSum(2);
        std::vector<std::string> errors(2);
        torch::manual_seed(9);
        auto reference = buildModel(c, data.shape);
        auto rankMain = [&](int rank) {
            try {
                Communicator::Options o;
                o.rank = rank;
                o.world = 2;
                o.masterPort = port;
                auto comm = Communicator::connect(o);
                auto model = buildModel(c, data.shape);
                copyWeights(*reference, *model);
                GradientReducer reducer(model->parameters(), comm, 1 << 20, 25 << 20);
                reducer.zeroGrad();
                for (int micro = 0; micro < 2; ++micro) {
                    std::vector<std::int64_t> idx;
                    for (int i = 0; i < 8; ++i)
                        idx.push_back(rank * 16 + micro * 8 + i);
                    Batch b = data.train->batch(idx, false);
                    reducer.setSync(micro == 1);
                    StepContext ctx{0, 1, rank * 8, true};
                    (model->loss(model->forward(b.input, ctx), b.target) *
                     (reducer.lossScale() / 2))
                        .backward();
                    reducer.finish();
                    if (micro == 0)
                        afterFirst[static_cast<std::size_t>(rank)] =
                            model->parameters()[0].grad().clone();
                }
                afterSync[static_cast<std::size_t>(rank)] = model->parameters()[0].grad().clone();
            } catch (const std::exception& e) {
                errors[static_cast<std::size_t>(rank)] = e.what();
            }
        };
        std::thread a(rankMain, 0), b(rankMain, 1);
        a.join();
        b.join();
        QVERIFY2(errors[0].empty() && errors[1].empty(), (errors[0] + errors[1]).c_str());
        QVERIFY(!torch::allclose(afterFirst[0], afterFirst[1])); // still local after micro-step 1
        QVERIFY(torch::equal(afterSync[0], afterSync[1]));       // identical after the sync
        // The reference: mean loss over all 32 samples in one process.
        std::vector<std::int64_t> all;
        for (int i = 0; i < 32; ++i)
            all.push_back(i);
        Batch whole = data.train->batch(all, false);
        reference->loss(reference->forward(whole.input, StepContext{}), whole.target).backward();
        QVERIFY(maxAbsDiff(afterSync[0], reference->parameters()[0].grad()) < 1e-6);
    }
};

QTEST_GUILESS_MAIN(TestTrainer)
#include "test_trainer.moc"
