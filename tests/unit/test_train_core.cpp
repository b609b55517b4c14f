// Trainer parts without LibTorch: sampler, bucket plan, SHA-256, IDX files, checkpoint files,
// trainer configuration.
#include "engine/digest/sha256.h"
#include "engine/spec/spec_parser.h"
#include "engine/train/bucket_plan.h"
#include "engine/train/checkpoint_files.h"
#include "engine/train/device_choice.h"
#include "engine/train/idx_file.h"
#include "engine/train/loss_scaler.h"
#include "engine/train/sampler.h"
#include "engine/train/trainer_config.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

using namespace studio::train;
using studio::digest::sha256Hex;

namespace {

void writeBytes(const std::string& path, const std::vector<std::uint8_t>& bytes, bool gzip) {
    if (gzip) {
        gzFile f = gzopen(path.c_str(), "wb");
        gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
        gzclose(f);
    } else {
        std::ofstream(path, std::ios::binary)
            .write(reinterpret_cast<const char*>(bytes.data()),
                   static_cast<std::streamsize>(bytes.size()));
    }
}

std::vector<std::uint8_t> idxImages(std::uint32_t count, std::uint32_t rows, std::uint32_t cols,
                                    std::size_t dataBytes) {
    std::vector<std::uint8_t> b = {0, 0, 8, 3};
    for (std::uint32_t v : {count, rows, cols})
        for (int s = 24; s >= 0; s -= 8)
            b.push_back(static_cast<std::uint8_t>(v >> s));
    for (std::size_t i = 0; i < dataBytes; ++i)
        b.push_back(static_cast<std::uint8_t>(i));
    return b;
}

TrainerConfig configFrom(const std::string& json) {
    auto r = studio::spec::parseSpecText(json, ".", {}, {false});
    if (!r.ok())
        throw std::runtime_error(r.errors.front().text());
    return TrainerConfig::fromSpec(*r.spec);
}

} // namespace

class TestTrainCore : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void samplerShardsAreDisjointAndCover() {
        const std::int64_t n = 103;
        for (int world : {1, 2, 3, 4}) {
            std::vector<std::int64_t> all;
            for (int r = 0; r < world; ++r) {
                DistributedSampler s(n, r, world, 7);
                auto idx = s.indices(3);
                QCOMPARE(static_cast<std::int64_t>(idx.size()), s.samplesPerRank());
                all.insert(all.end(), idx.begin(), idx.end());
            }
            std::set<std::int64_t> distinct(all.begin(), all.end());
            QCOMPARE(static_cast<std::int64_t>(distinct.size()),
                     n); // every sample, padding repeats a few
            QCOMPARE(static_cast<std::int64_t>(all.size()), (n + world - 1) / world * world);
        }
    }

    void samplerReshufflesPerEpochDeterministically() {
        DistributedSampler a(1000, 0, 2, 1), b(1000, 0, 2, 1), other(1000, 0, 2, 2);
        QCOMPARE(a.indices(0), b.indices(0));
        QVERIFY(a.indices(0) != a.indices(1));
        QVERIFY(a.indices(0) != other.indices(0));
        auto p = a.permutation(5);
        std::set<std::int64_t> seen(p.begin(), p.end());
        QCOMPARE(seen.size(), std::size_t(1000));
        QCOMPARE(DistributedSampler(10, 0, 1, 1, false).indices(0),
                 (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
        QCOMPARE(a.batchesPerEpoch(64), std::int64_t(7)); // 500 per rank, full batches only
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, DistributedSampler(10, 2, 2, 1));
    }

    void bucketsLikeDdp() {
        // Registration order: a (0.5 MiB), b (0.75 MiB), c (30 MiB), d (1 KiB), e (10 MiB).
        const std::size_t MiB = 1 << 20;
        std::vector<std::size_t> bytes = {MiB / 2, 3 * MiB / 4, 30 * MiB, 1024, 10 * MiB};
        BucketPlan p = planBuckets(bytes, MiB, 25 * MiB);
        // Reverse order: e closes the first bucket (>= 1 MiB); d and c reach 25 MiB; b and a rest.
        QCOMPARE(p.buckets.size(), std::size_t(3));
        QCOMPARE(p.buckets[0], std::vector<std::size_t>{4});
        QCOMPARE(p.buckets[1], (std::vector<std::size_t>{3, 2}));
        QCOMPARE(p.buckets[2], (std::vector<std::size_t>{1, 0}));
        QCOMPARE(planBuckets({100, 100}, MiB, 25 * MiB).buckets.size(), std::size_t(1));
    }

    void sha256Vectors() {
        QCOMPARE(sha256Hex(""),
                 std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
        QCOMPARE(sha256Hex("abc"),
                 std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
        QCOMPARE(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
                 std::string("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
        std::string million(1000000, 'a');
        QCOMPARE(sha256Hex(million),
                 std::string("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
    }

    void idxFiles() {
        QTemporaryDir dir;
        const std::string good = dir.filePath(QStringLiteral("good.gz")).toStdString();
        writeBytes(good, idxImages(2, 3, 4, 24), true);
        IdxData d = readIdx(good, 3);
        QCOMPARE(d.dims, (std::vector<std::int64_t>{2, 3, 4}));
        QCOMPARE(d.bytes.size(), std::size_t(24));
        QCOMPARE(d.bytes[5], std::uint8_t(5));
        const std::string raw = dir.filePath(QStringLiteral("raw")).toStdString();
        writeBytes(raw, idxImages(2, 3, 4, 24), false);
        QCOMPARE(readIdx(raw, 3).bytes, d.bytes);

        auto expectError = [](const std::string& path, int rank, const std::string& what) {
            try {
                readIdx(path, rank);
                QFAIL("should fail");
            } catch (const std::runtime_error& e) {
                const std::string msg = e.what();
                QVERIFY2(msg.find(path) != std::string::npos && msg.find(what) != std::string::npos,
                         e.what());
            }
        };
        const std::string truncated = dir.filePath(QStringLiteral("truncated.gz")).toStdString();
        writeBytes(truncated, idxImages(2, 3, 4, 20), true);
        expectError(truncated, 3, "truncated");
        const std::string magic = dir.filePath(QStringLiteral("magic")).toStdString();
        auto bad = idxImages(2, 3, 4, 24);
        bad[2] = 0x0d; // float data
        writeBytes(magic, bad, false);
        expectError(magic, 3, "not an unsigned-byte IDX file");
        expectError(raw, 1, "expected 1 dimension");
        // 2^22 * 2^22 * 2^20 wraps to 0 in 64 bits: before, an empty file passed as that shape.
        const std::string wraps = dir.filePath(QStringLiteral("wraps")).toStdString();
        writeBytes(wraps, idxImages(1u << 22, 1u << 22, 1u << 20, 0), false);
        expectError(wraps, 3, "overflow");
        const std::string corrupt = dir.filePath(QStringLiteral("corrupt.gz")).toStdString();
        {
            writeBytes(corrupt, idxImages(200, 28, 28, 200 * 784), true);
            std::fstream f(corrupt, std::ios::in | std::ios::out | std::ios::binary);
            f.seekp(40);
            f.write("garbage!garbage!garbage!", 24);
        }
        expectError(corrupt, 3, "corrupt");
        QVERIFY_THROWS_EXCEPTION(std::runtime_error,
                                 findIdx(dir.path().toStdString(), "train-images-idx3-ubyte"));
    }

    void checkpointsFallBackFromACorruptNewest() {
        QTemporaryDir dir;
        CheckpointFiles files(dir.path().toStdString(), 3);
        for (int step : {10, 20, 30, 40})
            files.write(step, 0, "model", "payload at " + std::to_string(step));
        auto listed = files.list("model");
        QCOMPARE(listed.size(), std::size_t(3)); // keeps the newest three
        QCOMPARE(listed.front().step, std::int64_t(40));
        std::vector<std::string> warnings;
        auto loaded = files.loadNewestValid("model", warnings);
        QVERIFY(loaded);
        QCOMPARE(loaded->payload, std::string("payload at 40"));
        QVERIFY(warnings.empty());
        // Flip a byte of the newest payload: its SHA-256 no longer matches.
        {
            std::fstream f(listed.front().path, std::ios::in | std::ios::out | std::ios::binary);
            f.seekp(0);
            f.write("P", 1);
        }
        loaded = files.loadNewestValid("model", warnings);
        QCOMPARE(loaded->info.step, std::int64_t(30));
        QCOMPARE(warnings.size(), std::size_t(1));
        QVERIFY(warnings[0].find("step 40 is corrupt") != std::string::npos);
        // A truncated one is skipped too; no temp files are left behind.
        std::filesystem::resize_file(listed[1].path, 3);
        warnings.clear();
        QCOMPARE(files.loadNewestValid("model", warnings)->info.step, std::int64_t(20));
        QVERIFY(warnings[1].find("truncated") != std::string::npos);
        for (const auto& e : std::filesystem::directory_iterator(dir.path().toStdString()))
            QVERIFY(e.path().string().find(".tmp-") == std::string::npos);
        QVERIFY(!CheckpointFiles(dir.path().toStdString()).loadNewestValid("stage1", warnings));
    }

    // Before: pruning deleted the file a manifest named outside the folder, and a manifest with
    // a wrong type threw out of the trainer instead of falling back.
    void hostileManifestsAreSkipped() {
        QTemporaryDir root;
        const std::string ckpt = root.filePath(QStringLiteral("ckpt")).toStdString();
        const std::string victim = root.filePath(QStringLiteral("victim")).toStdString();
        std::ofstream(victim) << "keep me";
        CheckpointFiles files(ckpt, 2);
        files.write(10, 0, "model", "payload at 10");
        std::ofstream(ckpt + "/ckpt-000000050-model.json")
            << R"({"step": 50, "file": "../victim", "sha256": "x", "bytes": 7})";
        std::ofstream(ckpt + "/ckpt-000000060-model.json")
            << R"({"step": "sixty", "file": "a.pt", "sha256": "x"})";
        std::ofstream(ckpt + "/ckpt-000000070-model.json")
            << R"({"step": 70, "file": "a.pt", "sha256": "x", "bytes": "many"})";
        std::vector<std::string> warnings;
        auto loaded = files.loadNewestValid("model", warnings);
        QVERIFY(loaded);
        QCOMPARE(loaded->info.step, std::int64_t(10));
        QCOMPARE(warnings.size(), std::size_t(3));
        QVERIFY(std::any_of(warnings.begin(), warnings.end(), [](const std::string& w) {
            return w.find("outside its folder") != std::string::npos;
        }));
        for (int step : {20, 30, 40})
            files.write(step, 0, "model", "payload");
        QVERIFY(std::filesystem::exists(victim));
        std::string why;
        QVERIFY(!manifestEntry(nlohmann::json::parse(R"({"step": 1, "file": "..", "sha256": "x"})"),
                               "model", why));
        QVERIFY(!manifestEntry(nlohmann::json::parse("[1,2]"), "model", why));
    }

    void configDefaultsAndOverrides() {
        TrainerConfig c = configFrom(R"({"entry_point": "builtin:transformer-lm"})");
        QCOMPARE(c.lr, 0.001);
        QCOMPARE(c.optimizer, std::string("adamw"));
        QCOMPARE(c.dataset, std::string("text"));
        QCOMPARE(c.seqLen, 64);
        c = configFrom(
            R"({"entry_point": "builtin:fmnist-cnn", "hyperparameters": {"lr": "0.1", "lr-scaling": "none",
                          "max-steps": 5, "deterministic": true, "grad-accum": 2}})");
        QCOMPARE(c.lr, 0.1);
        QVERIFY(!c.lrScaling);
        QCOMPARE(c.maxSteps, std::int64_t(5));
        QVERIFY(c.deterministic);
        QCOMPARE(c.gradAccum, 2);
        QCOMPARE(c.device, std::string("auto"));
        QCOMPARE(c.amp, std::string("none"));
        QVERIFY(c.pinMemory);
        c = configFrom(R"({"entry_point": "builtin:mlp", "hyperparameters": {"device": "cpu",
                          "amp": "bf16", "pin-memory": false}})");
        QCOMPARE(c.device, std::string("cpu"));
        QCOMPARE(c.amp, std::string("bf16"));
        QVERIFY(!c.pinMemory);
        QVERIFY_THROWS_EXCEPTION(
            std::exception,
            configFrom(R"({"entry_point": "builtin:mlp", "hyperparameters": {"amp": "fp8"}})"));
        QVERIFY_THROWS_EXCEPTION(
            std::invalid_argument,
            configFrom(
                R"({"entry_point": "builtin:transformer-lm", "hyperparameters": {"d-model": 100, "heads": 3}})"));
        QVERIFY_THROWS_EXCEPTION(
            std::invalid_argument,
            configFrom(
                R"({"entry_point": "builtin:mlp", "hyperparameters": {"dataset": "text"}})"));
    }

    // auto: cuda:LOCAL_RANK when the host has a GPU per local rank, else cpu; errors name the
    // hyperparameter and the rank.
    void deviceChoice() {
        QCOMPARE(chooseDevice("auto", 0, 3, 1).device, std::string("cpu"));
        QCOMPARE(chooseDevice("auto", 4, 3, 1).device, std::string("cuda:1"));
        QCOMPARE(chooseDevice("cpu", 4, 0, 0).device, std::string("cpu"));
        QCOMPARE(chooseDevice("cuda", 2, 5, 1).device, std::string("cuda:1"));
        const DeviceChoice none = chooseDevice("cuda", 0, 5, 1);
        QVERIFY(none.device.empty());
        QVERIFY2(none.error.find("hyperparameters.device is cuda, but rank 5 (local rank 1)") == 0,
                 none.error.c_str());
        const DeviceChoice shared = chooseDevice("auto", 2, 6, 2);
        QVERIFY(shared.device.empty());
        QVERIFY2(shared.error.find("rank 6 (local rank 2) has no GPU of its own") !=
                         std::string::npos &&
                     shared.error.find("2 CUDA device(s)") != std::string::npos,
                 shared.error.c_str());
        QVERIFY(!chooseDevice("tpu", 2, 0, 0).error.empty());
    }

    // GradScaler's rules: skip and halve on overflow, double after growthInterval clean steps.
    void lossScaler() {
        LossScaler s(LossScaler::Options{1024.0, 2.0, 0.5, 3});
        QCOMPARE(s.scale(), 1024.0);
        QVERIFY(s.update(false));
        QVERIFY(s.update(false));
        QCOMPARE(s.scale(), 1024.0);
        QVERIFY(s.update(false)); // the third clean step in a row
        QCOMPARE(s.scale(), 2048.0);
        QVERIFY(!s.update(true)); // overflow: skipped, halved, the count starts again
        QCOMPARE(s.scale(), 1024.0);
        QCOMPARE(s.skippedSteps(), std::int64_t(1));
        QVERIFY(s.update(false));
        QVERIFY(!s.update(true));
        QCOMPARE(s.scale(), 512.0);
        QCOMPARE(s.cleanSteps(), 0);
        s.restore(4096.0, 2);
        QVERIFY(s.update(false));
        QCOMPARE(s.scale(), 8192.0);
        QCOMPARE(LossScaler().scale(), 65536.0); // torch.cuda.amp.GradScaler's init_scale
    }

    void rankEnvironment() {
        qputenv("RANK", "1");
        qputenv("WORLD_SIZE", "2");
        qputenv("SM_CHANNEL_TRAIN", "/data/t");
        RankEnvironment e = RankEnvironment::fromEnvironment();
        QCOMPARE(e.rank, 1);
        QCOMPARE(e.channels.at("train"), std::string("/data/t"));
        qputenv("RANK", "2");
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, RankEnvironment::fromEnvironment());
        qunsetenv("RANK");
        qunsetenv("WORLD_SIZE");
    }
};

QTEST_GUILESS_MAIN(TestTrainCore)
#include "test_train_core.moc"
