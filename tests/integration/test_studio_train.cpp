// studio-train as a process: a run killed at step ~120 and restarted ends like an uninterrupted
// one; SIGTERM checkpoints and exits 75; a corrupt newest checkpoint falls back with a warning;
// the model file loads in Python; a corrupt dataset is an error naming the file; the probe, the
// rank's device and mixed precision.
#include "engine/process/process.h"
#include "engine/wire/codec.h"
#include "engine/wire/line_splitter.h"
#include "tests/support/process_check.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace studio;
namespace fs = std::filesystem;

namespace {

struct Run {
    process::ExitStatus status;
    std::vector<wire::Event> events;
    std::string out;
    std::string err;
    double lastLoss = std::nan("");
    std::int64_t lastStep = 0;
};

// Runs studio-train; killAtStep > 0 sends `signal` once a step event reaches that step.
Run train(const std::vector<std::string>& sets, const std::string& checkpoints,
          const std::string& modelDir, std::int64_t killAtStep = 0, int signal = SIGKILL,
          const std::string& data = {}) {
    process::Pipe events = process::makePipe();
    process::SpawnOptions o;
    o.argv = {std::string(STUDIO_BIN_DIR) + "/studio-train", "--model", "fmnist-cnn"};
    for (const auto& s : sets) {
        o.argv.push_back("--set");
        o.argv.push_back(s);
    }
    o.env = process::currentEnvironment();
    o.env["STUDIO_EVENTS_FD"] = "3";
    o.env["SM_CHECKPOINT_DIR"] = checkpoints;
    o.env["SM_MODEL_DIR"] = modelDir;
    if (!data.empty())
        o.env["SM_CHANNEL_TRAIN"] = data;
    o.passFds = {{events.write.get(), 3}};
    process::Process p = process::Process::spawn(o);
    events.write.reset();
    Run run;
    wire::LineSplitter split;
    char buf[65536];
    bool signalled = false;
    ssize_t n;
    while ((n = ::read(events.read.get(), buf, sizeof buf)) > 0) {
        for (const auto& line : split.append(std::string_view(buf, static_cast<std::size_t>(n)))) {
            auto d = wire::decode(line.text);
            if (!d.event)
                continue;
            run.events.push_back(*d.event);
            if (const auto* s = d.event->as<wire::StepEvent>()) {
                run.lastStep = s->step;
                if (killAtStep > 0 && s->step >= killAtStep && !signalled) {
                    p.signal(signal);
                    signalled = true;
                }
            }
            if (const auto* m = d.event->as<wire::MetricEvent>(); m && m->name == "train:loss")
                run.lastLoss = m->value;
        }
    }
    run.out = readToEnd(p.stdoutFd());
    run.err = readToEnd(p.stderrFd());
    run.status = p.wait();
    return run;
}

const std::vector<std::string> kDeterministic = {
    "hyperparameters.max-steps=200",      "hyperparameters.batch-size=32",
    "hyperparameters.train-samples=3200", "hyperparameters.checkpoint-interval=50",
    "hyperparameters.deterministic=true", "hyperparameters.log-interval=10",
    "hyperparameters.threads=1",          "hyperparameters.epochs=5",
    "hyperparameters.eval-samples=1000"};

std::string runProbe(bool json) {
    process::SpawnOptions o;
    o.argv = {std::string(STUDIO_BIN_DIR) + "/studio-train", "--probe"};
    if (json)
        o.argv.push_back("--json");
    o.env = process::currentEnvironment();
    process::Process p = process::Process::spawn(o);
    std::string out = readToEnd(p.stdoutFd());
    if (!p.wait().success())
        return {};
    return out;
}

nlohmann::json probe() {
    return nlohmann::json::parse(runProbe(true), nullptr, false);
}

} // namespace

class TestStudioTrain : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::string path(const char* name) { return m_dir.filePath(QLatin1String(name)).toStdString(); }

private Q_SLOTS:
    void killedRunResumesToTheSameResult() {
        Run whole = train(kDeterministic, path("ck-whole"), path("model-whole"));
        QVERIFY2(whole.status.success(), whole.err.c_str());
        QCOMPARE(whole.lastStep, std::int64_t(200));

        Run killed = train(kDeterministic, path("ck-killed"), path("model-killed"), 120, SIGKILL);
        QCOMPARE(killed.status.signal, SIGKILL);
        QVERIFY(killed.lastStep >= 120 && killed.lastStep < 200);
        Run resumed = train(kDeterministic, path("ck-killed"), path("model-killed"));
        QVERIFY2(resumed.status.success(), resumed.err.c_str());
        QVERIFY2(resumed.out.find("resumed from the checkpoint at step 100") != std::string::npos,
                 resumed.out.c_str());
        QCOMPARE(resumed.lastStep, std::int64_t(200));
        QVERIFY2(
            std::abs(resumed.lastLoss - whole.lastLoss) <= 1e-6,
            (std::to_string(resumed.lastLoss) + " vs " + std::to_string(whole.lastLoss)).c_str());
        // The checkpoints the studio records: step, path, SHA-256, size.
        bool sawCheckpoint = false;
        for (const auto& e : whole.events)
            if (const auto* c = e.as<wire::CheckpointEvent>()) {
                sawCheckpoint = true;
                QCOMPARE(c->sha256.size(), std::size_t(64));
                QVERIFY(fs::file_size(c->path) == static_cast<std::uintmax_t>(c->bytes) ||
                        c->step < 200);
            }
        QVERIFY(sawCheckpoint);
    }

    void sigtermCheckpointsAndExits75() {
        std::vector<std::string> sets = kDeterministic;
        sets[0] = "hyperparameters.max-steps=60";
        Run stopped = train(sets, path("ck-term"), path("model-term"), 30, SIGTERM);
        QCOMPARE(stopped.status.code, 75);
        QVERIFY2(stopped.out.find("stopped at step") != std::string::npos, stopped.out.c_str());
        const std::int64_t at = stopped.lastStep;
        bool checkpointed = false;
        for (const auto& e : stopped.events)
            if (const auto* c = e.as<wire::CheckpointEvent>(); c && c->step == at)
                checkpointed = true;
        QVERIFY2(checkpointed, "the step in flight is finished and checkpointed");
        Run resumed = train(sets, path("ck-term"), path("model-term"));
        QVERIFY(resumed.status.success());
        QVERIFY(resumed.out.find("resumed from the checkpoint at step " + std::to_string(at)) !=
                std::string::npos);
    }

    void corruptNewestCheckpointFallsBack() {
        std::vector<std::string> sets = {
            "hyperparameters.max-steps=40",      "hyperparameters.batch-size=32",
            "hyperparameters.train-samples=640", "hyperparameters.checkpoint-interval=10",
            "hyperparameters.epochs=5",          "hyperparameters.eval-samples=500"};
        Run first = train(sets, path("ck-corrupt"), path("model-corrupt"));
        QVERIFY(first.status.success());
        // Damage the newest checkpoint (step 40), then ask for more steps.
        std::string newest;
        for (const auto& e : fs::directory_iterator(path("ck-corrupt")))
            if (e.path().extension() == ".pt" && e.path().string() > newest)
                newest = e.path().string();
        {
            std::fstream f(newest, std::ios::in | std::ios::out | std::ios::binary);
            f.seekp(100);
            f.write("XXXX", 4);
        }
        sets[0] = "hyperparameters.max-steps=50";
        Run second = train(sets, path("ck-corrupt"), path("model-corrupt"));
        QVERIFY(second.status.success());
        QVERIFY2(second.err.find("checkpoint at step 40 is corrupt") != std::string::npos,
                 second.err.c_str());
        QVERIFY(second.out.find("resumed from the checkpoint at step 30") != std::string::npos);
    }

    void modelLoadsInPython() {
        Run r = train({"hyperparameters.max-steps=80", "hyperparameters.batch-size=64",
                       "hyperparameters.eval-samples=2000"},
                      path("ck-py"), path("model-py"));
        QVERIFY(r.status.success());
        std::ifstream in(path("model-py") + "/model.json");
        auto info = nlohmann::json::parse(in);
        process::SpawnOptions o;
        o.argv = {STUDIO_PYTHON,
                  std::string(STUDIO_SOURCE_DIR) + "/tests/integration/python/check_model.py",
                  path("model-py"), "/usr/share/datasets/fashion-mnist", "2000"};
        o.env = process::currentEnvironment();
        process::Process p = process::Process::spawn(o);
        const std::string out = readToEnd(p.stdoutFd());
        const std::string err = readToEnd(p.stderrFd());
        QVERIFY2(p.wait().success(), err.c_str());
        auto j = nlohmann::json::parse(out);
        const double python = j["accuracy"].get<double>();
        const double ours = info["eval_accuracy"].get<double>();
        QVERIFY2(std::abs(python - ours) < 1e-3,
                 (std::to_string(python) + " vs " + std::to_string(ours)).c_str());
        QVERIFY(ours > 0.6);
    }

    void corruptDatasetNamesTheFile() {
        const std::string data = path("bad-data");
        fs::create_directories(data);
        for (const char* f : {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                              "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"})
            fs::copy_file(std::string("/usr/share/datasets/fashion-mnist/") + f, data + "/" + f);
        fs::resize_file(data + "/train-images-idx3-ubyte.gz", 5000); // truncated
        Run r =
            train({"hyperparameters.max-steps=5"}, path("ck-bad"), path("model-bad"), 0, 0, data);
        QCOMPARE(r.status.code, 1);
        QVERIFY2(r.err.find(data + "/train-images-idx3-ubyte.gz") != std::string::npos,
                 r.err.c_str());
    }

    // What the trainer can train with; on a CUDA build the NCCL entry points are linked and
    // called: a process group without a device fails cleanly, saying why.
    void probeReportsTheBuild() {
        const nlohmann::json p = probe();
        QVERIFY2(!p["libtorch"].get<std::string>().empty(), p.dump().c_str());
        QVERIFY(p["gloo"].get<bool>());
        QVERIFY(!p["blas"].get<std::string>().empty());
        QVERIFY(p["threads"]["intra_op"].get<int>() >= 1);
        QVERIFY(p["amp"].is_array() && p["amp"][0] == "bf16");
        const auto& nccl = p["nccl"];
        const std::string group = nccl["process_group"].get<std::string>();
        if (!p["cuda_compiled"].get<bool>()) {
            QCOMPARE(nccl["compiled"].get<bool>(), false);
            QVERIFY2(group.find("without CUDA") != std::string::npos, group.c_str());
            return;
        }
        QVERIFY(nccl["compiled"].get<bool>());
        const std::string version = nccl["version"].get<std::string>();
        QVERIFY2(std::count(version.begin(), version.end(), '.') == 2 && version[0] >= '2',
                 version.c_str());
        QVERIFY(!p["cuda_runtime"].get<std::string>().empty());
        if (p["cuda_available"].get<bool>()) {
            QVERIFY(!p["devices"].empty());
            QCOMPARE(group, std::string("ok"));
        } else {
            QVERIFY(p["devices"].empty());
            QVERIFY2(group.rfind("unavailable: ", 0) == 0 && group.find("GPU") != std::string::npos,
                     group.c_str());
        }
        // The text form says the same.
        const std::string text = runProbe(false);
        QVERIFY2(text.find("NCCL            " + version) != std::string::npos, text.c_str());
    }

    // Every rank says where it trains: a "device" status event and a line in its log.
    void rankReportsItsDevice() {
        Run r = train({"hyperparameters.max-steps=2", "hyperparameters.train-samples=256",
                       "hyperparameters.eval-samples=64"},
                      path("ck-dev"), path("model-dev"));
        QVERIFY2(r.status.success(), r.err.c_str());
        std::string device;
        for (const auto& e : r.events)
            if (const auto* s = e.as<wire::StatusEvent>(); s && s->state == "device")
                device = s->message;
        const bool cuda = probe()["cuda_available"].get<bool>();
        QVERIFY2(cuda ? device.rfind("cuda:0 (", 0) == 0 : device == "cpu", device.c_str());
        QVERIFY2(r.out.find("rank 0 trains on " + device) != std::string::npos, r.out.c_str());
    }

    // amp=bf16 autocasts the forward pass and still learns.
    void bf16MixedPrecisionTrains() {
        Run r = train({"hyperparameters.max-steps=40", "hyperparameters.train-samples=2560",
                       "hyperparameters.eval-samples=200", "hyperparameters.log-interval=10",
                       "hyperparameters.amp=bf16", "hyperparameters.lr=0.05"},
                      path("ck-bf16"), path("model-bf16"));
        QVERIFY2(r.status.success(), r.err.c_str());
        std::vector<double> losses;
        for (const auto& e : r.events)
            if (const auto* m = e.as<wire::MetricEvent>(); m && m->name == "train:loss")
                losses.push_back(m->value);
        QVERIFY(losses.size() >= 4);
        QVERIFY2(std::isfinite(losses.back()) && losses.back() < losses.front() * 0.8,
                 (std::to_string(losses.front()) + " -> " + std::to_string(losses.back())).c_str());
    }

    // A device or precision this host cannot give is a config error naming the hyperparameter.
    void unavailableDeviceOrPrecisionIsNamed() {
        if (probe()["cuda_available"].get<bool>())
            QSKIP("this host has a CUDA device: cuda and fp16 are available");
        Run cuda = train({"hyperparameters.device=cuda"}, path("ck-cuda"), path("model-cuda"));
        QCOMPARE(cuda.status.code, 2);
        QVERIFY2(cuda.err.find("hyperparameters.device is cuda, but rank 0") != std::string::npos,
                 cuda.err.c_str());
        Run fp16 = train({"hyperparameters.amp=fp16"}, path("ck-fp16"), path("model-fp16"));
        QCOMPARE(fp16.status.code, 2);
        QVERIFY2(fp16.err.find("hyperparameters.amp: fp16 needs a CUDA device") !=
                     std::string::npos,
                 fp16.err.c_str());
    }

    void unknownHyperparameterFailsFast() {
        Run r = train({"hyperparameters.learning_rate=0.1"}, path("ck-x"), path("model-x"));
        QCOMPARE(r.status.code, 2);
        QVERIFY2(r.err.find("hyperparameters.learning_rate") != std::string::npos, r.err.c_str());
    }
};

QTEST_GUILESS_MAIN(TestStudioTrain)
#include "test_studio_train.moc"
