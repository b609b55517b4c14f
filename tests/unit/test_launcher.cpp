// Launcher units: the ranks' environment (torchrun + SageMaker), argument parsing, /proc parsing.
#include "engine/process/python_root.h"
#include "launcher/launch_config.h"
#include "launcher/rank_environment.h"
#include "launcher/rank_python.h"
#include "launcher/system_sampler.h"

#include "tests/support/plain_test.h"
#include "tests/support/temp_dir.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace studio::launcher;
using studio::testing::nearly;

TEST_CASE("rankEnvironment") {
    const struct {
        const char* row;
        int nnodes, nodeRank, nproc, localRank, rank;
        std::string host;
    } rows[] = {
        {"single", 1, 0, 1, 0, 0, "algo-1"},
        {"node0 local1", 2, 0, 2, 1, 1, "algo-1"},
        {"node1 local0", 2, 1, 2, 0, 2, "algo-2"},
        {"node3 local3", 4, 3, 4, 3, 15, "algo-4"},
    };
    for (const auto& r : rows) {
        INFO("row: ", r.row);
        const auto& [row, nnodes, nodeRank, nproc, localRank, rank, host] = r;
        LaunchConfig c;
        c.nnodes = nnodes;
        c.nodeRank = nodeRank;
        c.nprocPerNode = nproc;
        c.masterAddr = "10.0.0.1";
        c.masterPort = 29511;
        c.runId = "job-1";
        c.modelDir = "/jobs/j/model";
        c.checkpointDir = "/jobs/j/checkpoints";
        c.channels = {{"train", "/data/train"}, {"val-set", "/data/val"}};
        c.hyperparametersJson = R"({"lr": 0.1, "optimizer": "sgd", "batch-size": 64})";
        c.env = {{"MY_VAR", "x"}};
        auto env = studio::launcher::rankEnvironment(c, localRank, NodeResources{8, 1},
                                                     {{"PATH", "/bin"}});
        REQUIRE(env.at("RANK") == std::to_string(rank));
        REQUIRE(env.at("LOCAL_RANK") == std::to_string(localRank));
        REQUIRE(env.at("GROUP_RANK") == std::to_string(nodeRank));
        REQUIRE(env.at("WORLD_SIZE") == std::to_string(nnodes * nproc));
        REQUIRE(env.at("LOCAL_WORLD_SIZE") == std::to_string(nproc));
        REQUIRE(env.at("GROUP_WORLD_SIZE") == std::to_string(nnodes));
        REQUIRE(env.at("MASTER_ADDR") == std::string("10.0.0.1"));
        REQUIRE(env.at("MASTER_PORT") == std::string("29511"));
        REQUIRE(env.at("TORCHELASTIC_RUN_ID") == std::string("job-1"));
        REQUIRE(env.count("OMP_NUM_THREADS") == std::size_t(nproc > 1 ? 1 : 0));
        REQUIRE(env.at("SM_CURRENT_HOST") == host);
        REQUIRE(nlohmann::json::parse(env.at("SM_HOSTS")).size() == std::size_t(nnodes));
        REQUIRE(env.at("SM_NUM_CPUS") == std::string("8"));
        REQUIRE(env.at("SM_NUM_GPUS") == std::string("1"));
        REQUIRE(env.at("SM_MODEL_DIR") == std::string("/jobs/j/model"));
        REQUIRE(env.at("SM_CHECKPOINT_DIR") == std::string("/jobs/j/checkpoints"));
        REQUIRE(env.at("SM_CHANNEL_TRAIN") == std::string("/data/train"));
        REQUIRE(env.at("SM_CHANNEL_VAL_SET") == std::string("/data/val"));
        REQUIRE(env.at("SM_CHANNELS") == std::string(R"(["train","val-set"])"));
        REQUIRE(env.at("SM_HP_LR") == std::string("0.1"));
        REQUIRE(env.at("SM_HP_OPTIMIZER") == std::string("sgd"));
        REQUIRE(env.at("SM_HP_BATCH_SIZE") == std::string("64"));
        REQUIRE(nlohmann::json::parse(env.at("SM_HPS"))["lr"].get<double>() == nearly(0.1));
        REQUIRE(env.at("STUDIO_EVENTS_FD") == std::string("3"));
        REQUIRE(env.at("MY_VAR") == std::string("x"));
        REQUIRE(env.at("PATH") == std::string("/bin"));
    }
}

// One host's ranks meet through the launcher's store file, over loopback unless the job
// names an interface; without a store file neither variable is set.
TEST_CASE("oneHostRendezvousEnvironment") {
    LaunchConfig c;
    c.nprocPerNode = 2;
    auto none = studio::launcher::rankEnvironment(c, 0, NodeResources{2, 0}, {});
    REQUIRE(none.count("STUDIO_STORE_FILE") == std::size_t(0));
    REQUIRE(none.count("GLOO_SOCKET_IFNAME") == std::size_t(0));
    c.storeFile = "/tmp/studio-rendezvous-x/store";
    auto env = studio::launcher::rankEnvironment(c, 1, NodeResources{2, 0}, {});
    REQUIRE(env.at("STUDIO_STORE_FILE") == c.storeFile);
    REQUIRE(env.at("GLOO_SOCKET_IFNAME") == std::string("lo"));
    c.env["GLOO_SOCKET_IFNAME"] = "eth1";
    REQUIRE(
        studio::launcher::rankEnvironment(c, 1, NodeResources{2, 0}, {}).at("GLOO_SOCKET_IFNAME") ==
        std::string("eth1"));
}

TEST_CASE("ompThreadsRespectsTheUser") {
    LaunchConfig c;
    c.nprocPerNode = 2;
    auto env = studio::launcher::rankEnvironment(c, 0, NodeResources{}, {{"OMP_NUM_THREADS", "4"}});
    REQUIRE(env.at("OMP_NUM_THREADS") == std::string("4"));
}

TEST_CASE("parsesTorchrunFlags") {
    LaunchConfig c = parseLaunchArgs({"--nnodes",
                                      "2",
                                      "--node_rank",
                                      "1",
                                      "--nproc-per-node",
                                      "3",
                                      "--master-port",
                                      "1234",
                                      "--channel",
                                      "train=/d",
                                      "--env",
                                      "A=b=c",
                                      "--host",
                                      "h1",
                                      "--host",
                                      "h2",
                                      "--",
                                      "python3",
                                      "train.py",
                                      "--lr",
                                      "0.1"});
    REQUIRE(c.nnodes == 2);
    REQUIRE(c.nodeRank == 1);
    REQUIRE(c.nprocPerNode == 3);
    REQUIRE(c.masterPort == 1234);
    REQUIRE(c.channels.at("train") == std::string("/d"));
    REQUIRE(c.env.at("A") == std::string("b=c"));
    REQUIRE(c.currentHost() == std::string("h2"));
    REQUIRE(c.command == (std::vector<std::string>{"python3", "train.py", "--lr", "0.1"}));
}

TEST_CASE("rejectsBadArguments") {
    const struct {
        const char* row;
        std::vector<std::string> args;
        std::string message;
    } rows[] = {
        {"no command", {"--nnodes", "1"}, "no rank command"},
        {"node rank", {"--nnodes", "2", "--node-rank", "2", "--", "x"}, "--node-rank 2"},
        {"channel", {"--channel", "train", "--", "x"}, "NAME=VALUE"},
        {"hosts", {"--nnodes", "2", "--host", "a", "--", "x"}, "--host given 1 times"},
        {"hps", {"--hps", "[1]", "--", "x"}, "--hps"},
        {"port", {"--master-port", "70000", "--", "x"}, "master-port"},
    };
    for (const auto& row : rows) {
        INFO("row: ", row.row);
        try {
            parseLaunchArgs(row.args);
            FAIL("should be rejected");
        } catch (const std::invalid_argument& e) {
            REQUIRE_MESSAGE(std::string(e.what()).find(row.message) != std::string::npos, e.what());
        }
    }
}

// One batch script starts every node's launcher: --slurm takes the node from SLURM_NODEID.
TEST_CASE("slurmTask") {
    LaunchConfig c =
        parseLaunchArgs({"--nnodes", "3", "--journal", "/j/node-%n/journal.jsonl", "--", "x"});
    applySlurmTask(c, "2");
    REQUIRE(c.nodeRank == 2);
    REQUIRE(c.journal == std::string("/j/node-2/journal.jsonl"));
    for (const char* bad : {"", "x", "-1", "1234567"}) {
        LaunchConfig b;
        REQUIRE_THROWS_AS(applySlurmTask(b, bad), std::invalid_argument);
    }
    LaunchConfig none;
    REQUIRE_THROWS_AS(applySlurmTask(none, nullptr), std::invalid_argument);
}

TEST_CASE("environmentFromStdin") {
    LaunchConfig c = parseLaunchArgs({"--env", "A=1", "--env-stdin", "--", "x"});
    REQUIRE(c.envFromStdin);
    addEnvironmentJson(R"({"TOKEN": "a b=c", "B": ""})", c);
    REQUIRE(c.env.at("A") == std::string("1"));
    REQUIRE(c.env.at("TOKEN") == std::string("a b=c"));
    REQUIRE(c.env.at("B") == std::string());
    for (const char* bad : {"[]", "{\"X\": 1}", "{\"=X\": \"v\"}", "not json"}) {
        try {
            addEnvironmentJson(bad, c);
            FAIL(bad);
        } catch (const std::invalid_argument& e) {
            REQUIRE_MESSAGE(std::string(e.what()).find("--env-stdin") == 0, e.what());
        }
    }
}

TEST_CASE("parsesProcFiles") {
    const char* stat = "cpu  100 0 50 800 50 0 0 0 0 0\n"
                       "cpu0 60 0 20 400 20 0 0 0 0 0\n"
                       "cpu1 40 0 30 400 30 0 0 0 0 0\n"
                       "intr 12345\n";
    ProcStat s = parseProcStat(stat);
    REQUIRE(s.cores.size() == std::size_t(2));
    REQUIRE(s.all.busy == std::uint64_t(150));
    REQUIRE(s.all.iowait == std::uint64_t(50));
    REQUIRE(s.all.total == std::uint64_t(1000));
    REQUIRE(*parseMeminfo("MemTotal:       1000 kB\nMemFree: 100 kB\nMemAvailable:    250 kB\n") ==
            nearly(75.0));
    REQUIRE(!parseMeminfo("MemTotal: 1000 kB\n"));
    Counters c;
    parseNetDev("Inter-|   Receive\n face |bytes packets\n"
                "    lo: 1000 10 0 0 0 0 0 0 2000 10 0 0 0 0 0 0\n"
                "  eth0: 500 5 0 0 0 0 0 0 700 7 0 0 0 0 0 0\n",
                c);
    REQUIRE(c.netRx == std::uint64_t(1500));
    REQUIRE(c.netTx == std::uint64_t(2700));
    parseDiskstats("   8       0 sda 10 0 100 0 20 0 200 0 0 0 0\n"
                   "   8       1 sda1 10 0 100 0 20 0 200 0 0 0 0\n"
                   " 259       0 nvme0n1 1 0 10 0 2 0 20 0 0 0 0\n"
                   " 259       1 nvme0n1p1 1 0 10 0 2 0 20 0 0 0 0\n"
                   "   7       0 loop0 5 0 50 0 0 0 0 0 0 0 0\n",
                   c);
    REQUIRE(c.diskRead == std::uint64_t((100 + 10) * 512));
    REQUIRE(c.diskWrite == std::uint64_t((200 + 20) * 512));
}

TEST_CASE("samplesThisMachine") {
    SystemSampler sampler;
    REQUIRE(sampler.cores() >= 1);
    auto first = sampler.sample(1.0); // primes the counters: memory (and GPUs) only
    REQUIRE(
        std::any_of(first.begin(), first.end(), [](const Sample& s) { return s.device == "mem"; }));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto second = sampler.sample(1.1);
    int cores = 0;
    for (const auto& s : second) {
        if (s.device.rfind("cpu", 0) == 0 && s.device != "cpu")
            ++cores;
        if (s.metric == "util") {
            REQUIRE((s.value >= 0 && s.value <= 100));
        }
    }
    REQUIRE(cores == sampler.cores());
    REQUIRE(std::any_of(second.begin(), second.end(),
                        [](const Sample& s) { return s.device == "net"; }));
    // No GPU here without NVML: no GPU rows, no error.
    if (sampler.gpus() == 0)
        REQUIRE(std::none_of(second.begin(), second.end(),
                             [](const Sample& s) { return s.device.rfind("gpu", 0) == 0; }));
}

// Script ranks get the studio's Python package (its start-up folder first) ahead of the job's
// own PYTHONPATH, and the hook configuration as a file the launcher writes, never as text.
TEST_CASE("rankPythonAndHookConfig") {
    studio::testing::TempDir dir;
    LaunchConfig c;
    c.modelDir = dir.path() + "/job/model";
    c.pythonRoot = "/opt/studio/python";
    c.env = {{"PYTHONPATH", "/mine"}, {kHookConfigJsonVariable, R"({"enabled":true})"}};
    REQUIRE(prepareRankPython(c).empty());
    REQUIRE(c.hookConfigFile == dir.path() + "/job/config/debughookconfig.json");
    REQUIRE(c.env.count(kHookConfigJsonVariable) == 0);
    const auto env = rankEnvironment(c, 0, NodeResources{}, {});
    REQUIRE(env.at("PYTHONPATH") == "/opt/studio/python/mlstudio/_boot:/opt/studio/python:/mine");
    REQUIRE(env.at(kHookConfigFileVariable) == c.hookConfigFile);
    std::ifstream in(c.hookConfigFile);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    REQUIRE(text == R"({"enabled":true})");

    LaunchConfig none; // no package beside the program, no plan: the environment is untouched
    none.pythonRoot.clear();
    none.env = {{"PYTHONPATH", "/mine"}};
    const auto plain = rankEnvironment(none, 0, NodeResources{}, {});
    REQUIRE(plain.at("PYTHONPATH") == "/mine");
    REQUIRE(plain.count(kHookConfigFileVariable) == 0);

    LaunchConfig unwritable; // a folder that cannot be made: a note, and no file for the ranks
    unwritable.modelDir = "/proc/studio-no-such/model";
    unwritable.pythonRoot = "/opt/studio/python";
    unwritable.env = {{kHookConfigJsonVariable, "{}"}};
    REQUIRE(prepareRankPython(unwritable).find("cannot be written") != std::string::npos);
    REQUIRE(unwritable.hookConfigFile.empty());
}

TEST_CASE("findPythonRoot") {
    studio::testing::TempDir dir;
    const std::string root = dir.path() + "/lib/python3/dist-packages";
    std::filesystem::create_directories(root + "/mlstudio/_boot");
    std::ofstream(root + "/mlstudio/_boot/sitecustomize.py") << "\n";
    REQUIRE(studio::process::findPythonRoot(dir.path() + "/bin/studio-launcher") == root);
    // An installed studio: /usr/lib/mlstudio/studio-launcher, /usr/lib/python3/dist-packages.
    REQUIRE(studio::process::findPythonRoot(dir.path() + "/lib/mlstudio/studio-launcher") == root);
    REQUIRE(studio::process::findPythonRoot(dir.path() + "/elsewhere/x/studio-launcher").empty());
}
