// studio-train as a process: a run killed at step ~120 and restarted ends like an uninterrupted
// one; SIGTERM checkpoints and exits 75; a corrupt newest checkpoint falls back with a warning;
// the model file loads in Python; a corrupt dataset is an error naming the file.
#include "engine/process/process.h"
#include "engine/wire/codec.h"
#include "engine/wire/line_splitter.h"
#include "tests/support/process_check.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

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
        o.argv = {"/usr/bin/python3",
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

    void unknownHyperparameterFailsFast() {
        Run r = train({"hyperparameters.learning_rate=0.1"}, path("ck-x"), path("model-x"));
        QCOMPARE(r.status.code, 2);
        QVERIFY2(r.err.find("hyperparameters.learning_rate") != std::string::npos, r.err.c_str());
    }
};

QTEST_GUILESS_MAIN(TestStudioTrain)
#include "test_studio_train.moc"
