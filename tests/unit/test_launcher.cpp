// Launcher units: the ranks' environment (torchrun + SageMaker), argument parsing, /proc parsing.
#include "launcher/launch_config.h"
#include "launcher/rank_environment.h"
#include "launcher/system_sampler.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace studio::launcher;

class TestLauncher : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void rankEnvironment_data() {
        QTest::addColumn<int>("nnodes");
        QTest::addColumn<int>("nodeRank");
        QTest::addColumn<int>("nproc");
        QTest::addColumn<int>("localRank");
        QTest::addColumn<int>("rank");
        QTest::addColumn<QString>("host");
        QTest::newRow("single") << 1 << 0 << 1 << 0 << 0 << "algo-1";
        QTest::newRow("node0 local1") << 2 << 0 << 2 << 1 << 1 << "algo-1";
        QTest::newRow("node1 local0") << 2 << 1 << 2 << 0 << 2 << "algo-2";
        QTest::newRow("node3 local3") << 4 << 3 << 4 << 3 << 15 << "algo-4";
    }
    void rankEnvironment() {
        QFETCH(int, nnodes);
        QFETCH(int, nodeRank);
        QFETCH(int, nproc);
        QFETCH(int, localRank);
        QFETCH(int, rank);
        QFETCH(QString, host);
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
        QCOMPARE(env.at("RANK"), std::to_string(rank));
        QCOMPARE(env.at("LOCAL_RANK"), std::to_string(localRank));
        QCOMPARE(env.at("GROUP_RANK"), std::to_string(nodeRank));
        QCOMPARE(env.at("WORLD_SIZE"), std::to_string(nnodes * nproc));
        QCOMPARE(env.at("LOCAL_WORLD_SIZE"), std::to_string(nproc));
        QCOMPARE(env.at("GROUP_WORLD_SIZE"), std::to_string(nnodes));
        QCOMPARE(env.at("MASTER_ADDR"), std::string("10.0.0.1"));
        QCOMPARE(env.at("MASTER_PORT"), std::string("29511"));
        QCOMPARE(env.at("TORCHELASTIC_RUN_ID"), std::string("job-1"));
        QCOMPARE(env.count("OMP_NUM_THREADS"), std::size_t(nproc > 1 ? 1 : 0));
        QCOMPARE(env.at("SM_CURRENT_HOST"), host.toStdString());
        QCOMPARE(nlohmann::json::parse(env.at("SM_HOSTS")).size(), std::size_t(nnodes));
        QCOMPARE(env.at("SM_NUM_CPUS"), std::string("8"));
        QCOMPARE(env.at("SM_NUM_GPUS"), std::string("1"));
        QCOMPARE(env.at("SM_MODEL_DIR"), std::string("/jobs/j/model"));
        QCOMPARE(env.at("SM_CHECKPOINT_DIR"), std::string("/jobs/j/checkpoints"));
        QCOMPARE(env.at("SM_CHANNEL_TRAIN"), std::string("/data/train"));
        QCOMPARE(env.at("SM_CHANNEL_VAL_SET"), std::string("/data/val"));
        QCOMPARE(env.at("SM_CHANNELS"), std::string(R"(["train","val-set"])"));
        QCOMPARE(env.at("SM_HP_LR"), std::string("0.1"));
        QCOMPARE(env.at("SM_HP_OPTIMIZER"), std::string("sgd"));
        QCOMPARE(env.at("SM_HP_BATCH_SIZE"), std::string("64"));
        QCOMPARE(nlohmann::json::parse(env.at("SM_HPS"))["lr"].get<double>(), 0.1);
        QCOMPARE(env.at("STUDIO_EVENTS_FD"), std::string("3"));
        QCOMPARE(env.at("MY_VAR"), std::string("x"));
        QCOMPARE(env.at("PATH"), std::string("/bin"));
    }

    // One host's ranks meet through the launcher's store file, over loopback unless the job
    // names an interface; without a store file neither variable is set.
    void oneHostRendezvousEnvironment() {
        LaunchConfig c;
        c.nprocPerNode = 2;
        auto none = studio::launcher::rankEnvironment(c, 0, NodeResources{2, 0}, {});
        QCOMPARE(none.count("STUDIO_STORE_FILE"), std::size_t(0));
        QCOMPARE(none.count("GLOO_SOCKET_IFNAME"), std::size_t(0));
        c.storeFile = "/tmp/studio-rendezvous-x/store";
        auto env = studio::launcher::rankEnvironment(c, 1, NodeResources{2, 0}, {});
        QCOMPARE(env.at("STUDIO_STORE_FILE"), c.storeFile);
        QCOMPARE(env.at("GLOO_SOCKET_IFNAME"), std::string("lo"));
        c.env["GLOO_SOCKET_IFNAME"] = "eth1";
        QCOMPARE(studio::launcher::rankEnvironment(c, 1, NodeResources{2, 0}, {})
                     .at("GLOO_SOCKET_IFNAME"),
                 std::string("eth1"));
    }

    void ompThreadsRespectsTheUser() {
        LaunchConfig c;
        c.nprocPerNode = 2;
        auto env =
            studio::launcher::rankEnvironment(c, 0, NodeResources{}, {{"OMP_NUM_THREADS", "4"}});
        QCOMPARE(env.at("OMP_NUM_THREADS"), std::string("4"));
    }

    void parsesTorchrunFlags() {
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
        QCOMPARE(c.nnodes, 2);
        QCOMPARE(c.nodeRank, 1);
        QCOMPARE(c.nprocPerNode, 3);
        QCOMPARE(c.masterPort, 1234);
        QCOMPARE(c.channels.at("train"), std::string("/d"));
        QCOMPARE(c.env.at("A"), std::string("b=c"));
        QCOMPARE(c.currentHost(), std::string("h2"));
        QCOMPARE(c.command, (std::vector<std::string>{"python3", "train.py", "--lr", "0.1"}));
    }

    void rejectsBadArguments_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("no command") << QStringList{"--nnodes", "1"} << "no rank command";
        QTest::newRow("node rank")
            << QStringList{"--nnodes", "2", "--node-rank", "2", "--", "x"} << "--node-rank 2";
        QTest::newRow("channel") << QStringList{"--channel", "train", "--", "x"} << "NAME=VALUE";
        QTest::newRow("hosts") << QStringList{"--nnodes", "2", "--host", "a", "--", "x"}
                               << "--host given 1 times";
        QTest::newRow("hps") << QStringList{"--hps", "[1]", "--", "x"} << "--hps";
        QTest::newRow("port") << QStringList{"--master-port", "70000", "--", "x"} << "master-port";
    }
    void rejectsBadArguments() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        std::vector<std::string> v;
        for (const auto& a : args)
            v.push_back(a.toStdString());
        try {
            parseLaunchArgs(v);
            QFAIL("should be rejected");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(std::string(e.what()).find(message.toStdString()) != std::string::npos,
                     e.what());
        }
    }

    // One batch script starts every node's launcher: --slurm takes the node from SLURM_NODEID.
    void slurmTask() {
        LaunchConfig c =
            parseLaunchArgs({"--nnodes", "3", "--journal", "/j/node-%n/journal.jsonl", "--", "x"});
        applySlurmTask(c, "2");
        QCOMPARE(c.nodeRank, 2);
        QCOMPARE(c.journal, std::string("/j/node-2/journal.jsonl"));
        for (const char* bad : {"", "x", "-1", "1234567"}) {
            LaunchConfig b;
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, applySlurmTask(b, bad));
        }
        LaunchConfig none;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, applySlurmTask(none, nullptr));
    }

    void environmentFromStdin() {
        LaunchConfig c = parseLaunchArgs({"--env", "A=1", "--env-stdin", "--", "x"});
        QVERIFY(c.envFromStdin);
        addEnvironmentJson(R"({"TOKEN": "a b=c", "B": ""})", c);
        QCOMPARE(c.env.at("A"), std::string("1"));
        QCOMPARE(c.env.at("TOKEN"), std::string("a b=c"));
        QCOMPARE(c.env.at("B"), std::string());
        for (const char* bad : {"[]", "{\"X\": 1}", "{\"=X\": \"v\"}", "not json"}) {
            try {
                addEnvironmentJson(bad, c);
                QFAIL(bad);
            } catch (const std::invalid_argument& e) {
                QVERIFY2(std::string(e.what()).find("--env-stdin") == 0, e.what());
            }
        }
    }

    void parsesProcFiles() {
        const char* stat = "cpu  100 0 50 800 50 0 0 0 0 0\n"
                           "cpu0 60 0 20 400 20 0 0 0 0 0\n"
                           "cpu1 40 0 30 400 30 0 0 0 0 0\n"
                           "intr 12345\n";
        ProcStat s = parseProcStat(stat);
        QCOMPARE(s.cores.size(), std::size_t(2));
        QCOMPARE(s.all.busy, std::uint64_t(150));
        QCOMPARE(s.all.iowait, std::uint64_t(50));
        QCOMPARE(s.all.total, std::uint64_t(1000));
        QCOMPARE(
            *parseMeminfo("MemTotal:       1000 kB\nMemFree: 100 kB\nMemAvailable:    250 kB\n"),
            75.0);
        QVERIFY(!parseMeminfo("MemTotal: 1000 kB\n"));
        Counters c;
        parseNetDev("Inter-|   Receive\n face |bytes packets\n"
                    "    lo: 1000 10 0 0 0 0 0 0 2000 10 0 0 0 0 0 0\n"
                    "  eth0: 500 5 0 0 0 0 0 0 700 7 0 0 0 0 0 0\n",
                    c);
        QCOMPARE(c.netRx, std::uint64_t(1500));
        QCOMPARE(c.netTx, std::uint64_t(2700));
        parseDiskstats("   8       0 sda 10 0 100 0 20 0 200 0 0 0 0\n"
                       "   8       1 sda1 10 0 100 0 20 0 200 0 0 0 0\n"
                       " 259       0 nvme0n1 1 0 10 0 2 0 20 0 0 0 0\n"
                       " 259       1 nvme0n1p1 1 0 10 0 2 0 20 0 0 0 0\n"
                       "   7       0 loop0 5 0 50 0 0 0 0 0 0 0 0\n",
                       c);
        QCOMPARE(c.diskRead, std::uint64_t((100 + 10) * 512));
        QCOMPARE(c.diskWrite, std::uint64_t((200 + 20) * 512));
    }

    void samplesThisMachine() {
        SystemSampler sampler;
        QVERIFY(sampler.cores() >= 1);
        auto first = sampler.sample(1.0); // primes the counters: memory (and GPUs) only
        QVERIFY(std::any_of(first.begin(), first.end(),
                            [](const Sample& s) { return s.device == "mem"; }));
        QTest::qWait(100);
        auto second = sampler.sample(1.1);
        int cores = 0;
        for (const auto& s : second) {
            if (s.device.rfind("cpu", 0) == 0 && s.device != "cpu")
                ++cores;
            if (s.metric == "util") {
                QVERIFY(s.value >= 0 && s.value <= 100);
            }
        }
        QCOMPARE(cores, sampler.cores());
        QVERIFY(std::any_of(second.begin(), second.end(),
                            [](const Sample& s) { return s.device == "net"; }));
        // No GPU here without NVML: no GPU rows, no error.
        if (sampler.gpus() == 0)
            QVERIFY(std::none_of(second.begin(), second.end(),
                                 [](const Sample& s) { return s.device.rfind("gpu", 0) == 0; }));
    }
};

QTEST_GUILESS_MAIN(TestLauncher)
#include "test_launcher.moc"
