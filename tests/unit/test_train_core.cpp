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

#include "tests/support/plain_test.h"
#include "tests/support/temp_dir.h"

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdlib.h>

using namespace studio::train;
using studio::digest::sha256Hex;
using studio::testing::nearly;

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

TEST_CASE("samplerShardsAreDisjointAndCover") {
    const std::int64_t n = 103;
    for (int world : {1, 2, 3, 4}) {
        std::vector<std::int64_t> all;
        for (int r = 0; r < world; ++r) {
            DistributedSampler s(n, r, world, 7);
            auto idx = s.indices(3);
            REQUIRE((static_cast<std::int64_t>(idx.size())) == s.samplesPerRank());
            all.insert(all.end(), idx.begin(), idx.end());
        }
        std::set<std::int64_t> distinct(all.begin(), all.end());
        REQUIRE((static_cast<std::int64_t>(distinct.size())) ==
                n); // every sample, padding repeats a few
        REQUIRE((static_cast<std::int64_t>(all.size())) == (n + world - 1) / world * world);
    }
}

TEST_CASE("samplerReshufflesPerEpochDeterministically") {
    DistributedSampler a(1000, 0, 2, 1), b(1000, 0, 2, 1), other(1000, 0, 2, 2);
    REQUIRE(a.indices(0) == b.indices(0));
    REQUIRE(a.indices(0) != a.indices(1));
    REQUIRE(a.indices(0) != other.indices(0));
    auto p = a.permutation(5);
    std::set<std::int64_t> seen(p.begin(), p.end());
    REQUIRE(seen.size() == std::size_t(1000));
    REQUIRE(DistributedSampler(10, 0, 1, 1, false).indices(0) ==
            (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
    REQUIRE(a.batchesPerEpoch(64) == std::int64_t(7)); // 500 per rank, full batches only
    REQUIRE_THROWS_AS(DistributedSampler(10, 2, 2, 1), std::invalid_argument);
}

TEST_CASE("bucketsLikeDdp") {
    // Registration order: a (0.5 MiB), b (0.75 MiB), c (30 MiB), d (1 KiB), e (10 MiB).
    const std::size_t MiB = 1 << 20;
    std::vector<std::size_t> bytes = {MiB / 2, 3 * MiB / 4, 30 * MiB, 1024, 10 * MiB};
    BucketPlan p = planBuckets(bytes, MiB, 25 * MiB);
    // Reverse order: e closes the first bucket (>= 1 MiB); d and c reach 25 MiB; b and a rest.
    REQUIRE(p.buckets.size() == std::size_t(3));
    REQUIRE(p.buckets[0] == (std::vector<std::size_t>{4}));
    REQUIRE(p.buckets[1] == (std::vector<std::size_t>{3, 2}));
    REQUIRE(p.buckets[2] == (std::vector<std::size_t>{1, 0}));
    REQUIRE(planBuckets({100, 100}, MiB, 25 * MiB).buckets.size() == std::size_t(1));
}

TEST_CASE("sha256Vectors") {
    REQUIRE(sha256Hex("") ==
            std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    REQUIRE(sha256Hex("abc") ==
            std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    REQUIRE(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
            std::string("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
    std::string million(1000000, 'a');
    REQUIRE(sha256Hex(million) ==
            std::string("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
}

TEST_CASE("idxFiles") {
    studio::testing::TempDir dir;
    const std::string good = dir.filePath("good.gz");
    writeBytes(good, idxImages(2, 3, 4, 24), true);
    IdxData d = readIdx(good, 3);
    REQUIRE(d.dims == (std::vector<std::int64_t>{2, 3, 4}));
    REQUIRE(d.bytes.size() == std::size_t(24));
    REQUIRE(d.bytes[5] == std::uint8_t(5));
    const std::string raw = dir.filePath("raw");
    writeBytes(raw, idxImages(2, 3, 4, 24), false);
    REQUIRE(readIdx(raw, 3).bytes == d.bytes);

    auto expectError = [](const std::string& path, int rank, const std::string& what) {
        try {
            readIdx(path, rank);
            FAIL("should fail");
        } catch (const std::runtime_error& e) {
            const std::string msg = e.what();
            REQUIRE_MESSAGE(
                (msg.find(path) != std::string::npos && msg.find(what) != std::string::npos),
                e.what());
        }
    };
    const std::string truncated = dir.filePath("truncated.gz");
    writeBytes(truncated, idxImages(2, 3, 4, 20), true);
    expectError(truncated, 3, "truncated");
    const std::string magic = dir.filePath("magic");
    auto bad = idxImages(2, 3, 4, 24);
    bad[2] = 0x0d; // float data
    writeBytes(magic, bad, false);
    expectError(magic, 3, "not an unsigned-byte IDX file");
    expectError(raw, 1, "expected 1 dimension");
    // 2^22 * 2^22 * 2^20 wraps to 0 in 64 bits: before, an empty file passed as that shape.
    const std::string wraps = dir.filePath("wraps");
    writeBytes(wraps, idxImages(1u << 22, 1u << 22, 1u << 20, 0), false);
    expectError(wraps, 3, "overflow");
    const std::string corrupt = dir.filePath("corrupt.gz");
    {
        writeBytes(corrupt, idxImages(200, 28, 28, 200 * 784), true);
        std::fstream f(corrupt, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(40);
        f.write("garbage!garbage!garbage!", 24);
    }
    expectError(corrupt, 3, "corrupt");
    REQUIRE_THROWS_AS(findIdx(dir.path(), "train-images-idx3-ubyte"), std::runtime_error);
}

TEST_CASE("checkpointsFallBackFromACorruptNewest") {
    studio::testing::TempDir dir;
    CheckpointFiles files(dir.path(), 3);
    for (int step : {10, 20, 30, 40})
        files.write(step, 0, "model", "payload at " + std::to_string(step));
    auto listed = files.list("model");
    REQUIRE(listed.size() == std::size_t(3)); // keeps the newest three
    REQUIRE(listed.front().step == std::int64_t(40));
    std::vector<std::string> warnings;
    auto loaded = files.loadNewestValid("model", warnings);
    REQUIRE(loaded);
    REQUIRE(loaded->payload == std::string("payload at 40"));
    REQUIRE(warnings.empty());
    // Flip a byte of the newest payload: its SHA-256 no longer matches.
    {
        std::fstream f(listed.front().path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(0);
        f.write("P", 1);
    }
    loaded = files.loadNewestValid("model", warnings);
    REQUIRE(loaded->info.step == std::int64_t(30));
    REQUIRE(warnings.size() == std::size_t(1));
    REQUIRE(warnings[0].find("step 40 is corrupt") != std::string::npos);
    // A truncated one is skipped too; no temp files are left behind.
    std::filesystem::resize_file(listed[1].path, 3);
    warnings.clear();
    REQUIRE(files.loadNewestValid("model", warnings)->info.step == std::int64_t(20));
    REQUIRE(warnings[1].find("truncated") != std::string::npos);
    for (const auto& e : std::filesystem::directory_iterator(dir.path()))
        REQUIRE(e.path().string().find(".tmp-") == std::string::npos);
    REQUIRE(!CheckpointFiles(dir.path()).loadNewestValid("stage1", warnings));
}

// Before: pruning deleted the file a manifest named outside the folder, and a manifest with
// a wrong type threw out of the trainer instead of falling back.
TEST_CASE("hostileManifestsAreSkipped") {
    studio::testing::TempDir root;
    const std::string ckpt = root.filePath("ckpt");
    const std::string victim = root.filePath("victim");
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
    REQUIRE(loaded);
    REQUIRE(loaded->info.step == std::int64_t(10));
    REQUIRE(warnings.size() == std::size_t(3));
    REQUIRE(std::any_of(warnings.begin(), warnings.end(), [](const std::string& w) {
        return w.find("outside its folder") != std::string::npos;
    }));
    for (int step : {20, 30, 40})
        files.write(step, 0, "model", "payload");
    REQUIRE(std::filesystem::exists(victim));
    std::string why;
    REQUIRE(!manifestEntry(nlohmann::json::parse(R"({"step": 1, "file": "..", "sha256": "x"})"),
                           "model", why));
    REQUIRE(!manifestEntry(nlohmann::json::parse("[1,2]"), "model", why));
}

TEST_CASE("configDefaultsAndOverrides") {
    TrainerConfig c = configFrom(R"({"entry_point": "builtin:transformer-lm"})");
    REQUIRE(c.lr == nearly(0.001));
    REQUIRE(c.optimizer == std::string("adamw"));
    REQUIRE(c.dataset == std::string("text"));
    REQUIRE(c.seqLen == 64);
    c = configFrom(
        R"({"entry_point": "builtin:fmnist-cnn", "hyperparameters": {"lr": "0.1", "lr-scaling": "none",
                      "max-steps": 5, "deterministic": true, "grad-accum": 2}})");
    REQUIRE(c.lr == nearly(0.1));
    REQUIRE(!c.lrScaling);
    REQUIRE(c.maxSteps == std::int64_t(5));
    REQUIRE(c.deterministic);
    REQUIRE(c.gradAccum == 2);
    REQUIRE(c.device == std::string("auto"));
    REQUIRE(c.amp == std::string("none"));
    REQUIRE(c.pinMemory);
    c = configFrom(R"({"entry_point": "builtin:mlp", "hyperparameters": {"device": "cpu",
                      "amp": "bf16", "pin-memory": false}})");
    REQUIRE(c.device == std::string("cpu"));
    REQUIRE(c.amp == std::string("bf16"));
    REQUIRE(!c.pinMemory);
    REQUIRE_THROWS_AS(
        configFrom(R"({"entry_point": "builtin:mlp", "hyperparameters": {"amp": "fp8"}})"),
        std::exception);
    REQUIRE_THROWS_AS(
        configFrom(
            R"({"entry_point": "builtin:transformer-lm", "hyperparameters": {"d-model": 100, "heads": 3}})"),
        std::invalid_argument);
    REQUIRE_THROWS_AS(
        configFrom(R"({"entry_point": "builtin:mlp", "hyperparameters": {"dataset": "text"}})"),
        std::invalid_argument);
}

// auto: cuda:LOCAL_RANK when the host has a GPU per local rank, else cpu; errors name the
// hyperparameter and the rank.
TEST_CASE("deviceChoice") {
    REQUIRE(chooseDevice("auto", 0, 3, 1).device == std::string("cpu"));
    REQUIRE(chooseDevice("auto", 4, 3, 1).device == std::string("cuda:1"));
    REQUIRE(chooseDevice("cpu", 4, 0, 0).device == std::string("cpu"));
    REQUIRE(chooseDevice("cuda", 2, 5, 1).device == std::string("cuda:1"));
    const DeviceChoice none = chooseDevice("cuda", 0, 5, 1);
    REQUIRE(none.device.empty());
    REQUIRE_MESSAGE(none.error.find("hyperparameters.device is cuda, but rank 5 (local rank 1)") ==
                        0,
                    none.error.c_str());
    const DeviceChoice shared = chooseDevice("auto", 2, 6, 2);
    REQUIRE(shared.device.empty());
    REQUIRE_MESSAGE(
        (shared.error.find("rank 6 (local rank 2) has no GPU of its own") != std::string::npos &&
         shared.error.find("2 CUDA device(s)") != std::string::npos),
        shared.error.c_str());
    REQUIRE(!chooseDevice("tpu", 2, 0, 0).error.empty());
}

// GradScaler's rules: skip and halve on overflow, double after growthInterval clean steps.
TEST_CASE("lossScaler") {
    LossScaler s(LossScaler::Options{1024.0, 2.0, 0.5, 3});
    REQUIRE(s.scale() == nearly(1024.0));
    REQUIRE(s.update(false));
    REQUIRE(s.update(false));
    REQUIRE(s.scale() == nearly(1024.0));
    REQUIRE(s.update(false)); // the third clean step in a row
    REQUIRE(s.scale() == nearly(2048.0));
    REQUIRE(!s.update(true)); // overflow: skipped, halved, the count starts again
    REQUIRE(s.scale() == nearly(1024.0));
    REQUIRE(s.skippedSteps() == std::int64_t(1));
    REQUIRE(s.update(false));
    REQUIRE(!s.update(true));
    REQUIRE(s.scale() == nearly(512.0));
    REQUIRE(s.cleanSteps() == 0);
    s.restore(4096.0, 2);
    REQUIRE(s.update(false));
    REQUIRE(s.scale() == nearly(8192.0));
    REQUIRE(LossScaler().scale() == nearly(65536.0)); // torch.cuda.amp.GradScaler's init_scale
}

TEST_CASE("rankEnvironment") {
    ::setenv("RANK", "1", 1);
    ::setenv("WORLD_SIZE", "2", 1);
    ::setenv("SM_CHANNEL_TRAIN", "/data/t", 1);
    RankEnvironment e = RankEnvironment::fromEnvironment();
    REQUIRE(e.rank == 1);
    REQUIRE(e.channels.at("train") == std::string("/data/t"));
    ::setenv("RANK", "2", 1);
    REQUIRE_THROWS_AS(RankEnvironment::fromEnvironment(), std::invalid_argument);
    ::unsetenv("RANK");
    ::unsetenv("WORLD_SIZE");
}
