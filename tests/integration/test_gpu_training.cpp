// The trainer on CUDA devices (ctest label gpu). Each case skips, naming the reason, where the
// probe finds no CUDA device (or too few): a CPU build, or a machine without a GPU.
//  - one rank on cuda:0 learns and says so; mixed precision (bf16, fp16 with its loss scale);
//  - two ranks on two GPUs over NCCL give the single-process losses (the gradients are equal);
//  - a two-stage pipeline sends activations and gradients between GPUs over NCCL.
#include "engine/process/process.h"
#include "engine/wire/codec.h"
#include "engine/wire/line_splitter.h"
#include "tests/support/process_check.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

using namespace studio;

namespace {

struct GpuRun {
    bool ok = false;
    std::vector<wire::Event> events;
    std::string err;

    std::vector<double> metric(const std::string& name) const {
        std::vector<double> out;
        for (const auto& e : events)
            if (const auto* m = e.as<wire::MetricEvent>(); m && m->name == name)
                out.push_back(m->value);
        return out;
    }
    std::vector<std::string> devices() const {
        std::vector<std::string> out;
        for (const auto& e : events)
            if (const auto* s = e.as<wire::StatusEvent>(); s && s->state == "device")
                out.push_back(s->message);
        return out;
    }
    std::string logText() const {
        std::string out;
        for (const auto& e : events)
            if (const auto* l = e.as<wire::LogEvent>())
                out += l->text + "\n";
        return out;
    }
};

nlohmann::json probe() {
    process::SpawnOptions o;
    o.argv = {std::string(STUDIO_BIN_DIR) + "/studio-train", "--probe", "--json"};
    o.env = process::currentEnvironment();
    process::Process p = process::Process::spawn(o);
    const std::string out = readToEnd(p.stdoutFd());
    p.wait();
    return nlohmann::json::parse(out, nullptr, false);
}

// ranks processes of studio-train under the launcher on this host; trainer: its arguments.
GpuRun launch(int ranks, const std::vector<std::string>& trainer) {
    process::SpawnOptions o;
    o.argv = {std::string(STUDIO_BIN_DIR) + "/studio-launcher",
              "--nproc-per-node",
              std::to_string(ranks),
              "--master-port",
              std::to_string(process::freeTcpPort()),
              "--monitor-interval-ms",
              "0",
              "--",
              std::string(STUDIO_BIN_DIR) + "/studio-train"};
    o.argv.insert(o.argv.end(), trainer.begin(), trainer.end());
    o.env = process::currentEnvironment();
    process::Process p = process::Process::spawn(o);
    const std::string out = readToEnd(p.stdoutFd());
    GpuRun run;
    run.err = readToEnd(p.stderrFd());
    wire::LineSplitter split;
    for (const auto& line : split.append(out))
        if (auto d = wire::decode(line.text); d.event)
            run.events.push_back(*d.event);
    run.ok = p.wait().success();
    return run;
}

std::vector<std::string> fmnist(int steps, const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"--model", "fmnist-cnn"};
    const std::vector<std::string> sets = {"hyperparameters.device=cuda",
                                           "hyperparameters.train-samples=6400",
                                           "hyperparameters.eval-samples=500",
                                           "hyperparameters.log-interval=5",
                                           "hyperparameters.lr-scaling=none",
                                           "hyperparameters.batch-size=64",
                                           "hyperparameters.max-steps=" + std::to_string(steps)};
    for (const auto& s : sets) {
        args.push_back("--set");
        args.push_back(s);
    }
    for (const auto& s : extra) {
        args.push_back("--set");
        args.push_back(s);
    }
    return args;
}

} // namespace

class TestGpuTraining : public QObject {
    Q_OBJECT
    nlohmann::json m_probe;
    QTemporaryDir m_dir;

    int devices() const {
        return m_probe.is_object() && m_probe["cuda_available"].get<bool>()
                   ? static_cast<int>(m_probe["devices"].size())
                   : 0;
    }
    bool needGpus(int n) {
        if (devices() >= n)
            return true;
        const std::string why =
            "needs " + std::to_string(n) + " CUDA device(s); studio-train " + "--probe finds " +
            std::to_string(devices()) + " (LibTorch " +
            m_probe.value("libtorch", std::string("?")) +
            (m_probe.value("cuda_compiled", false) ? ", CUDA build)" : ", CPU build)");
        QTest::qSkip(why.c_str(), __FILE__, __LINE__);
        return false;
    }

private Q_SLOTS:
    void initTestCase() { m_probe = probe(); }

    void oneGpuLearns() {
        if (!needGpus(1))
            return;
        GpuRun r = launch(1, fmnist(60, {}));
        QVERIFY2(r.ok, r.err.c_str());
        const auto devs = r.devices();
        QVERIFY(devs.size() == 1 && devs[0].rfind("cuda:0 (", 0) == 0);
        const auto loss = r.metric("train:loss");
        QVERIFY(loss.size() >= 3 && loss.back() < loss.front());
        qInfo("cuda:0: loss %.3f -> %.3f; throughput %.0f samples/s", loss.front(), loss.back(),
              r.metric("train:throughput").back());
    }

    void mixedPrecisionLearns_data() {
        QTest::addColumn<QString>("amp");
        QTest::newRow("bf16") << "bf16";
        QTest::newRow("fp16") << "fp16";
    }
    void mixedPrecisionLearns() {
        QFETCH(QString, amp);
        if (!needGpus(1))
            return;
        GpuRun r = launch(1, fmnist(60, {"hyperparameters.amp=" + amp.toStdString()}));
        QVERIFY2(r.ok, r.err.c_str());
        const auto loss = r.metric("train:loss");
        QVERIFY(loss.size() >= 3 && std::isfinite(loss.back()) && loss.back() < loss.front());
        if (amp == QStringLiteral("fp16")) // the loss scale skips a few steps at most
            QVERIFY(!r.metric("train:amp_skipped_steps").empty() &&
                    r.metric("train:amp_skipped_steps").back() < 10);
    }

    // Same global batch, same masks: two NCCL ranks follow the single process's losses.
    void ncclDataParallelEqualsOneProcess() {
        if (!needGpus(2))
            return;
        GpuRun one = launch(1, fmnist(20, {}));
        GpuRun two = launch(2, fmnist(20, {}));
        QVERIFY2(one.ok && two.ok, (one.err + two.err).c_str());
        QVERIFY2(two.logText().find("all-reduced through NCCL") != std::string::npos,
                 two.logText().c_str());
        const auto a = one.metric("train:loss"), b = two.metric("train:loss");
        QCOMPARE(a.size(), b.size());
        for (std::size_t i = 0; i < a.size(); ++i)
            QVERIFY2(std::abs(a[i] - b[i]) < 1e-3 * std::max(1.0, std::abs(a[i])),
                     (std::to_string(a[i]) + " vs " + std::to_string(b[i])).c_str());
    }

    // Two stages on two GPUs: activations forward and gradients back over NCCL send/recv.
    void pipelineOverNccl() {
        if (!needGpus(2))
            return;
        const QString spec = m_dir.filePath(QStringLiteral("pipeline.json"));
        std::ofstream(spec.toStdString()) << R"({
          "entry_point": "builtin:transformer-lm",
          "hyperparameters": {"dataset": "synthetic", "device": "cuda", "batch-size": 32,
                              "seq-len": 32, "d-model": 64, "layers": 4, "max-steps": 30,
                              "log-interval": 5, "train-samples": 2048, "eval-samples": 64},
          "distribution": {"smdistributed": {"modelparallel": {"enabled": true,
              "parameters": {"partitions": 2, "microbatches": 4, "pipeline": "interleaved"}}},
            "mpi": {"enabled": true, "processes_per_host": 2}}})";
        GpuRun r = launch(2, {"--spec", spec.toStdString()});
        QVERIFY2(r.ok, r.err.c_str());
        const auto devs = r.devices();
        QCOMPARE(devs.size(), std::size_t(2));
        const auto loss = r.metric("train:loss");
        QVERIFY(loss.size() >= 3 && loss.back() < loss.front());
    }
};

QTEST_GUILESS_MAIN(TestGpuTraining)
#include "test_gpu_training.moc"
