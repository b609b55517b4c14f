// Pipeline engines, one thread per rank: a 2-stage pipeline over 4 microbatches and a 2 x 2
// pipeline/data-parallel hybrid compute the same loss and gradients as one process on the same
// batch, step after step, for both schedules.
#include "engine/process/fd.h"
#include "engine/spec/spec_parser.h"
#include "engine/train/communicator.h"
#include "engine/train/datasets.h"
#include "engine/train/step_engine.h"

#include <QtTest>

#include <map>
#include <thread>

using namespace studio;
using namespace studio::train;

namespace {

TrainerConfig lmConfig(const std::string& distribution, int processes) {
    const std::string spec =
        R"({"entry_point": "builtin:transformer-lm", "hyperparameters": {"dataset": "synthetic",
        "batch-size": 16, "seq-len": 16, "d-model": 32, "heads": 4, "layers": 4, "train-samples": 256,
        "optimizer": "sgd", "lr": 0.05, "lr-scaling": "none"}, "distribution": )" +
        distribution + "}";
    auto r = spec::parseSpecText(
        spec, ".", {"distribution.mpi.processes_per_host=" + std::to_string(processes)}, {false});
    if (!r.ok())
        throw std::runtime_error(r.errors.front().text());
    return TrainerConfig::fromSpec(*r.spec);
}

std::string pipeline(const char* schedule, bool ddp) {
    return std::string(
               R"({"smdistributed": {"modelparallel": {"enabled": true, "parameters": {"partitions": 2,
        "microbatches": 4, "pipeline": ")") +
           schedule + R"(", "optimize": "speed", "ddp": )" + (ddp ? "true" : "false") +
           R"(}}}, "mpi": {"enabled": true, "processes_per_host": 2}})";
}

struct StepRecord {
    double loss = std::nan("");
    std::map<std::string, torch::Tensor> grads;
};

// Runs `steps` steps on every rank (a thread each); batch b of step s are samples
// [s * 16, s * 16 + 16), each replica taking its contiguous share. Returns per step the loss (from
// the reporting rank) and every parameter's gradient (from whichever rank holds it).
std::vector<StepRecord> run(const TrainerConfig& c, int world, int steps, DataSplits& data) {
    std::vector<StepRecord> records(static_cast<std::size_t>(steps));
    std::mutex mutex;
    std::vector<std::string> errors(static_cast<std::size_t>(world));
    const int port = process::freeTcpPort();
    auto rankMain = [&](int rank) {
        try {
            RankEnvironment env;
            env.rank = rank;
            env.world = world;
            env.localWorld = world;
            env.masterPort = port;
            std::shared_ptr<Communicator> comm;
            if (world > 1) {
                Communicator::Options o;
                o.rank = rank;
                o.world = world;
                o.masterPort = port;
                comm = Communicator::connect(o);
            }
            EventWriter events;
            EngineContext ctx{c, env, comm, data, events, RankDevice{}};
            auto engine = c.modelParallel ? makePipelineEngine(ctx) : makeDataParallelEngine(ctx);
            const std::int64_t local = c.batchSize / engine->dataSize();
            for (int s = 0; s < steps; ++s) {
                std::vector<std::int64_t> batch;
                for (std::int64_t i = 0; i < local; ++i)
                    batch.push_back(s * c.batchSize + engine->dataRank() * local + i);
                engine->step(s, batch, false);
                std::lock_guard lock(mutex);
                if (engine->reporter())
                    records[static_cast<std::size_t>(s)].loss = engine->lastLoss();
                if (engine->dataRank() == 0)
                    for (auto& [name, p] : engine->namedParameters())
                        records[static_cast<std::size_t>(s)].grads[name] = p.grad().clone();
            }
        } catch (const std::exception& e) {
            errors[static_cast<std::size_t>(rank)] = e.what();
        }
    };
    std::vector<std::thread> threads;
    for (int r = 0; r < world; ++r)
        threads.emplace_back(rankMain, r);
    for (auto& t : threads)
        t.join();
    for (const auto& e : errors)
        if (!e.empty())
            throw std::runtime_error(e);
    return records;
}

} // namespace

class TestPipeline : public QObject {
    Q_OBJECT
    std::unique_ptr<DataSplits> m_data;
    std::vector<StepRecord> m_reference;
    const int kSteps = 3;

    void compare(const std::vector<StepRecord>& got, const char* what) {
        for (int s = 0; s < kSteps; ++s) {
            const auto& ref = m_reference[static_cast<std::size_t>(s)];
            const auto& rec = got[static_cast<std::size_t>(s)];
            qInfo("%s step %d: loss %.6f reference %.6f", what, s, rec.loss, ref.loss);
            QVERIFY2(std::abs(rec.loss - ref.loss) < 1e-5,
                     (std::string(what) + ": loss " + std::to_string(rec.loss) + " vs " +
                      std::to_string(ref.loss))
                         .c_str());
            QCOMPARE(rec.grads.size(), ref.grads.size());
            for (const auto& [name, g] : ref.grads) {
                auto it = rec.grads.find(name);
                QVERIFY2(it != rec.grads.end(), name.c_str());
                const double scale = std::max(1.0, g.abs().max().item<double>());
                const double diff = (it->second - g).abs().max().item<double>() / scale;
                QVERIFY2(diff < 1e-5, (std::string(what) + " step " + std::to_string(s) + " " +
                                       name + " differs by " + std::to_string(diff))
                                          .c_str());
            }
        }
    }

private Q_SLOTS:
    void initTestCase() {
        torch::set_num_threads(1);
        TrainerConfig single =
            lmConfig(R"({"mpi": {"enabled": true, "processes_per_host": 1}})", 1);
        m_data = std::make_unique<DataSplits>(loadData(single, {}));
        m_reference = run(single, 1, kSteps, *m_data);
        QCOMPARE(m_reference[0].grads.size(), std::size_t(4 * 12 + 2 + 4)); // every parameter
    }

    void twoStagesFourMicrobatches_data() {
        QTest::addColumn<QString>("schedule");
        QTest::newRow("interleaved") << "interleaved";
        QTest::newRow("simple") << "simple";
    }
    void twoStagesFourMicrobatches() {
        QFETCH(QString, schedule);
        auto got =
            run(lmConfig(pipeline(schedule.toUtf8().constData(), false), 2), 2, kSteps, *m_data);
        compare(got, "pipeline");
    }

    void hybridTwoByTwo() {
        auto got = run(lmConfig(pipeline("interleaved", true), 4), 4, kSteps, *m_data);
        compare(got, "hybrid");
    }
};

QTEST_GUILESS_MAIN(TestPipeline)
#include "test_pipeline.moc"
