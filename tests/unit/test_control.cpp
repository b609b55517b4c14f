// Controller units: placement and launcher command lines, metric_definitions, log lines, names,
// control messages.
#include "engine/control/control_channel.h"
#include "engine/control/log_sink.h"
#include "engine/control/metric_extractor.h"
#include "engine/control/placement.h"
#include "engine/control/studio_home.h"
#include "engine/spec/spec_parser.h"

#include <nlohmann/json.hpp>

#include "tests/support/plain_test.h"
#include "tests/support/temp_dir.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdlib.h>

using namespace studio;
using namespace studio::control;
using studio::testing::nearly;

namespace {
spec::JobSpec parseOk(const std::string& text) {
    auto r = spec::parseSpecText(text, std::string(STUDIO_SOURCE_DIR) + "/resources/examples");
    if (!r.ok())
        throw std::runtime_error(r.errors.front().text());
    return *r.spec;
}

std::vector<std::string> valuesOf(const std::vector<std::string>& argv, const std::string& flag) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i + 1 < argv.size(); ++i)
        if (argv[i] == flag)
            out.push_back(argv[i + 1]);
    return out;
}
} // namespace

TEST_CASE("placesNodesAndRanks") {
    auto spec = parseOk(R"({"entry_point": ["/bin/true"], "instance_count": 3,
                            "distribution": {"mpi": {"enabled": true, "processes_per_host": 2}}})");
    Placement p = placeJob(spec, 4000);
    REQUIRE(p.nodes.size() == std::size_t(3));
    REQUIRE(p.worldSize == 6);
    REQUIRE(p.nodes[2].host == std::string("algo-3"));
    REQUIRE(p.nodes[2].ranks == (std::vector<int>{4, 5}));
}

TEST_CASE("launcherCommandLine") {
    auto spec = parseOk(R"({"entry_point": ["/usr/bin/python3", "scripts/ddp_train.py"],
        "hyperparameters": {"lr": 0.05, "flag": true, "name": "x"}, "instance_count": 2,
        "inputs": {"train": "/usr/share/datasets/fashion-mnist"}, "environment": {"A": "1"}})");
    Placement p = placeJob(spec, 4321);
    LaunchPaths lp{"/bin/studio-launcher", "", "/j/spec.json", "/j/model", "/j/output", "/j/ck",
                   "/j/debug-output"};
    auto argv = launcherArgv(spec, p, p.nodes[1], "job-x", lp, 200, 7);
    REQUIRE(argv.front() == std::string("/bin/studio-launcher"));
    REQUIRE(valuesOf(argv, "--node-rank") == (std::vector<std::string>{"1"}));
    REQUIRE(valuesOf(argv, "--nnodes") == (std::vector<std::string>{"2"}));
    REQUIRE(valuesOf(argv, "--master-port") == (std::vector<std::string>{"4321"}));
    REQUIRE(valuesOf(argv, "--host") == (std::vector<std::string>{"algo-1", "algo-2"}));
    REQUIRE(valuesOf(argv, "--channel") ==
            (std::vector<std::string>{"train=/usr/share/datasets/fashion-mnist"}));
    // The environment goes through the launcher's stdin, never on its command line.
    REQUIRE(valuesOf(argv, "--env").empty());
    REQUIRE(std::find(argv.begin(), argv.end(), "--env-stdin") != argv.end());
    REQUIRE(nlohmann::json::parse(launcherEnvironment(spec, lp, {})) ==
            (nlohmann::json{{"STUDIO_DEBUG_OUTPUT_DIR", "/j/debug-output"}, {"A", "1"}}));
    REQUIRE(valuesOf(argv, "--monitor-interval-ms") == (std::vector<std::string>{"200"}));
    REQUIRE(valuesOf(argv, "--hps") ==
            (std::vector<std::string>{R"({"flag":true,"lr":0.05,"name":"x"})"}));
    auto dashes = std::find(argv.begin(), argv.end(), "--");
    REQUIRE(dashes != argv.end());
    std::vector<std::string> cmd(dashes + 1, argv.end());
    REQUIRE(cmd == (std::vector<std::string>{"/usr/bin/python3", "scripts/ddp_train.py", "--flag",
                                             "true", "--lr", "0.05", "--name", "x"}));
}

TEST_CASE("builtinRunsTheTrainer") {
    auto spec = parseOk(R"({"entry_point": "builtin:mlp"})");
    LaunchPaths lp{"/l", "/bin/studio-train", "/j/spec.json", "", "", "", ""};
    REQUIRE(rankCommand(spec, lp) ==
            (std::vector<std::string>{"/bin/studio-train", "--spec", "/j/spec.json"}));
}

TEST_CASE("metricDefinitions") {
    MetricExtractor x({{"train:loss", "loss=([0-9.eE+-]+)"}, {"acc", "Accuracy: ([0-9.]+)%"}});
    REQUIRE(x.scan("nothing here").size() == std::size_t(0));
    auto a = x.scan("epoch 1 loss=0.25 Accuracy: 91.5%");
    REQUIRE(a.size() == std::size_t(2));
    REQUIRE(a[0].name == std::string("train:loss"));
    REQUIRE(a[0].value == nearly(0.25));
    REQUIRE(a[1].value == nearly(91.5));
    auto b = x.scan("loss=1e-3");
    REQUIRE(b[0].step == std::int64_t(1)); // each match is the next step
    REQUIRE(b[0].value == nearly(0.001));
    REQUIRE(x.scan("loss=..").empty()); // a capture that is no number yields nothing
    REQUIRE(*parseMetricValue(" 42% ") == nearly(42.0));
    REQUIRE(std::isnan(*parseMetricValue("nan")));
    REQUIRE(!parseMetricValue("abc"));
}

// Before: std::regex recursed per character and a 100 KB line overflowed the stack.
TEST_CASE("metricDefinitionsOnHugeLines") {
    MetricExtractor x(std::vector<spec::MetricDefinition>{{"loss", ".*loss=([0-9.]+)"}});
    const std::string filler(100 * 1024, 'x');
    REQUIRE(x.scan(filler + " loss=0.5").empty()); // beyond kMetricScanBytes: not scanned
    auto near = x.scan(std::string(60 * 1024, 'y') + " loss=0.25");
    REQUIRE(near.size() == std::size_t(1));
    REQUIRE(near[0].value == nearly(0.25));
    REQUIRE(x.scan(std::string(4 << 20, 'a')).size() == std::size_t(0));
}

// The pieces of an over-long line are joined into one line of the log.
TEST_CASE("logSinkJoinsPiecesOfALongLine") {
    studio::testing::TempDir dir;
    {
        LogSink sink(dir.path());
        sink.write(1.0, 0, 0, wire::Stream::Stdout, "aaaa", wire::LinePart::Piece);
        sink.write(1.0, 0, 0, wire::Stream::Stdout, "bbbb", wire::LinePart::Piece);
        sink.write(1.0, 0, 0, wire::Stream::Stdout, "cc", wire::LinePart::Last);
        sink.write(2.0, 0, 0, wire::Stream::Stdout, "next");
        sink.write(3.0, 0, 0, wire::Stream::Stdout, "dd", wire::LinePart::Piece);
        sink.write(3.5, 0, 0, wire::Stream::Stderr, "between"); // ends the cut line
        sink.flush();
        REQUIRE(sink.files()[0].lines == std::int64_t(4));
    }
    std::ifstream in(dir.path() + "/rank-0.log");
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);)
        lines.push_back(l);
    REQUIRE(lines == (std::vector<std::string>{"1.000 stdout aaaabbbbcc", "2.000 stdout next",
                                               "3.000 stdout dd", "3.500 stderr between"}));
}

// Before: a 100,000-character channel or variable name overflowed the stack in validate.
TEST_CASE("hugeNamesAreRefusedNotFatal") {
    const std::string big(100000, 'a');
    for (const char* key : {"inputs", "environment"}) {
        nlohmann::json doc = {{"entry_point", {"/bin/true"}}, {key, {{big + "!", "x"}}}};
        auto r = spec::parseSpecText(doc.dump(), STUDIO_SOURCE_DIR);
        REQUIRE(!r.ok());
        REQUIRE(r.errors.front().text().find(key) == 0);
    }
    nlohmann::json bad = {{"entry_point", {"/bin/true"}},
                          {"metric_definitions", {{{"Name", "x"}, {"Regex", "(a"}}}}};
    auto r = spec::parseSpecText(bad.dump(), STUDIO_SOURCE_DIR);
    REQUIRE(!r.ok());
    REQUIRE_MESSAGE(r.errors.front().text().find("metric_definitions[0].Regex") == 0,
                    r.errors.front().text().c_str());
    nlohmann::json name = {{"entry_point", {"/bin/true"}},
                           {"experiment_config", {{"ExperimentName", big}}}};
    r = spec::parseSpecText(name.dump(), STUDIO_SOURCE_DIR);
    REQUIRE(!r.ok());
    REQUIRE(r.errors.front().text().size() < 400);
}

TEST_CASE("logFilesRoundTrip") {
    studio::testing::TempDir dir;
    {
        LogSink sink(dir.path());
        sink.write(12.5, 0, 1, wire::Stream::Stderr, "Traceback: x y");
        sink.write(13.0, 0, -1, wire::Stream::Stdout, "launcher line");
        sink.flush();
        auto files = sink.files();
        REQUIRE(files.size() == std::size_t(2));
        REQUIRE(files[0].lines == std::int64_t(1));
    }
    std::ifstream in(dir.path() + "/rank-1.log");
    std::string line;
    std::getline(in, line);
    LogLine l;
    REQUIRE(parseLogLine(line, l));
    REQUIRE(l.time == nearly(12.5));
    REQUIRE(l.stream == std::string("stderr"));
    REQUIRE(l.text == std::string("Traceback: x y"));
    REQUIRE(std::filesystem::exists(dir.path() + "/launcher-0.log"));
}

TEST_CASE("namesAndHome") {
    REQUIRE(timestampedJobName("fmnist", 1732218900.123) ==
            std::string("fmnist-2024-11-21-19-55-00-123"));
    ::setenv("MLSTUDIO_HOME", "/tmp/some-home", 1);
    REQUIRE(studioHome() == std::string("/tmp/some-home"));
    ::unsetenv("MLSTUDIO_HOME");
    ::setenv("XDG_DATA_HOME", "/tmp/xdg", 1);
    REQUIRE(studioHome() == std::string("/tmp/xdg/mlstudio"));
    auto p = JobPaths::of("/h", "j");
    REQUIRE(p.debugOutput == std::string("/h/jobs/j/debug-output"));
    REQUIRE(ownerAlive(processOwnerId()));
    REQUIRE(!ownerAlive(processOwnerId() + "9"));
}

TEST_CASE("settingsLiveInTheConfigHome") {
    studio::testing::TempDir dir;
    const std::string data = dir.path() + "/data", config = dir.path() + "/config";
    ::unsetenv("MLSTUDIO_HOME");
    ::setenv("XDG_DATA_HOME", data.c_str(), 1);
    ::setenv("XDG_CONFIG_HOME", config.c_str(), 1);
    // The default data folder: settings go to $XDG_CONFIG_HOME/mlstudio, and a studio.ini an
    // earlier version left in the data folder moves there.
    std::filesystem::create_directories(data + "/mlstudio");
    std::ofstream(data + "/mlstudio/studio.ini") << "[General]\ntheme=2\n";
    REQUIRE(configHome(studioHome()) == config + "/mlstudio");
    REQUIRE(settingsPath(studioHome()) == config + "/mlstudio/studio.ini");
    REQUIRE(std::filesystem::exists(config + "/mlstudio/studio.ini"));
    REQUIRE(!std::filesystem::exists(data + "/mlstudio/studio.ini"));
    // Any other home (MLSTUDIO_HOME, a controller's own) keeps its settings inside.
    REQUIRE(configHome(dir.path() + "/elsewhere") == dir.path() + "/elsewhere");
    ::setenv("MLSTUDIO_HOME", (dir.path() + "/portable").c_str(), 1);
    REQUIRE(settingsPath(studioHome()) == dir.path() + "/portable/studio.ini");
    ::unsetenv("MLSTUDIO_HOME");
    ::unsetenv("XDG_DATA_HOME");
    ::unsetenv("XDG_CONFIG_HOME");
}

TEST_CASE("controlMessages") {
    auto req = parseControlRequest(R"({"action":"stop","reason":"Stopped by rule X"})");
    REQUIRE(req);
    REQUIRE(req->reason == std::string("Stopped by rule X"));
    REQUIRE(!parseControlRequest("stop"));
    const std::vector<std::string> bad = {"{\"action\":\"stop\",\"reason\":5}",
                                          "{\"action\":null}",
                                          "[1]",
                                          "{\"action\":{}}",
                                          "{\"action\":\"stop\"",
                                          ""};
    for (const auto& b : bad)
        REQUIRE_MESSAGE(!parseControlRequest(b), b.c_str());
    REQUIRE(!parseControlRequest("{\"action\":\"stop\",\"reason\":\"" +
                                 std::string(kMaxControlRequest, 'x') + "\"}"));
    REQUIRE(encodeControlReply({false, "bad \xff byte"}).find("bad") != std::string::npos);
    REQUIRE(encodeControlReply({true, "ok"}).back() == '\n');
    REQUIRE(!sendControl("/nonexistent-home", "no-job", "stop")); // nobody listens
}

// The installed package keeps mlstudio in usr/bin and the helpers in usr/lib/mlstudio; the build
// tree keeps them all in bin/. Both layouts must find the helpers, before anything on PATH.
TEST_CASE("programsOfTheInstalledLayout") {
    studio::testing::TempDir dir;
    namespace fs = std::filesystem;
    const auto makeProgram = [](const fs::path& p) {
        fs::create_directories(p.parent_path());
        std::ofstream(p) << "#!/bin/sh\n";
        fs::permissions(p, fs::perms::owner_all);
    };
    const fs::path root = dir.path();
    const std::string self = (root / "usr/bin/mlstudio").string();
    makeProgram(self);
    makeProgram(root / "usr/lib/mlstudio/studio-launcher");
    makeProgram(root / "elsewhere/studio-launcher");
    makeProgram(root / "elsewhere/studio-train");
    fs::create_directories(root / "usr/lib/mlstudio/studio-train"); // a folder is no program

    REQUIRE(programDirectories(self) ==
            std::vector<std::string>{(root / "usr/bin").string(),
                                     (root / "usr/lib/mlstudio").string()});
    const std::string path = "/nonexistent::" + (root / "elsewhere").string();
    REQUIRE(fs::equivalent(findProgramFrom(self, "studio-launcher", path),
                           root / "usr/lib/mlstudio/studio-launcher"));
    REQUIRE(findProgramFrom(self, "studio-train", path) ==
            (root / "elsewhere/studio-train").string());
    REQUIRE(findProgramFrom(self, "studio-nothing", path).empty());

    // A program beside the executable (the build tree) comes first.
    makeProgram(root / "usr/bin/studio-launcher");
    REQUIRE(findProgramFrom(self, "studio-launcher", path) ==
            (root / "usr/bin/studio-launcher").string());
    // A file without the execute bit is not a program.
    fs::permissions(root / "usr/bin/studio-launcher", fs::perms::owner_read);
    REQUIRE(fs::equivalent(findProgramFrom(self, "studio-launcher", ""),
                           root / "usr/lib/mlstudio/studio-launcher"));
    REQUIRE(findProgramFrom("", "studio-launcher", "").empty());
}
