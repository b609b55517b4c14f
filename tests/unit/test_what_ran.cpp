// What ran: the store's per-job documents, the line diff (checked against diff(1) itself), and
// the comparison of two jobs' code, runtime, packages, hyperparameters and environment names.
#include "engine/report/line_diff.h"
#include "engine/report/what_ran.h"
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"

#include "tests/support/plain_test.h"
#include "tests/support/temp_dir.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace studio;
using namespace studio::report;
namespace fs = std::filesystem;

namespace {

void writeText(const std::string& path, const std::string& text) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

std::string readText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// What diff(1) prints for the two texts, without its two header lines.
std::string systemDiff(const testing::TempDir& dir, const std::string& a, const std::string& b) {
    writeText(dir.filePath("a.txt"), a);
    writeText(dir.filePath("b.txt"), b);
    const std::string cmd = "diff -u " + dir.filePath("a.txt") + " " + dir.filePath("b.txt") +
                            " | tail -n +3 > " + dir.filePath("out.txt");
    REQUIRE(std::system(cmd.c_str()) == 0);
    return readText(dir.filePath("out.txt"));
}

std::string withoutHeader(const std::string& unified) {
    std::size_t at = unified.find('\n');
    at = unified.find('\n', at + 1);
    return unified.substr(at + 1);
}

} // namespace

TEST_CASE("unifiedDiffMatchesDiffU") {
    testing::TempDir dir;
    std::string many;
    for (int i = 1; i <= 40; ++i)
        many += "line " + std::to_string(i) + "\n";
    std::string edited = many;
    edited.replace(edited.find("line 12\n"), 8, "line twelve\n");
    edited.replace(edited.find("line 30\n"), 8, "");
    edited += "line 41\n";
    const struct {
        const char* row;
        std::string a, b;
    } rows[] = {
        {"one changed line", "a\nb\nc\n", "a\nB\nc\n"},
        {"added at the end", "a\nb\n", "a\nb\nc\nd\n"},
        {"removed at the start", "x\ny\na\nb\n", "a\nb\n"},
        {"from empty", "", "new\nfile\n"},
        {"to empty", "old\n", ""},
        {"hunks far apart and near", many, edited},
    };
    for (const auto& r : rows) {
        INFO("row: ", r.row);
        const std::string ours = unifiedDiff(r.a, r.b, "a", "b");
        REQUIRE(ours.rfind("--- a\n+++ b\n", 0) == 0);
        REQUIRE(withoutHeader(ours) == systemDiff(dir, r.a, r.b));
    }
    REQUIRE(unifiedDiff("same\n", "same\n", "a", "b").empty());
}

TEST_CASE("factsAreStoredPerTopicNodeAndRank") {
    testing::TempDir dir;
    const std::string db = dir.filePath("studio.db");
    store::ComponentId id = 0;
    {
        store::StoreWriter w(db);
        store::NewComponent c;
        c.name = "job-a";
        id = w.createComponent(c);
        w.setFacts(id, {"provenance", 0, 1, 10, R"({"python":"3.11.1"})"});
        w.setFacts(id, {"provenance", 0, 0, 10, R"({"python":"3.11.0"})"});
        w.setFacts(id, {"provenance", 0, 0, 11, R"({"python":"3.11.2"})"}); // replaces
        w.setFacts(id, {"source", -1, -1, 9, R"({"entry_point":"train.py"})"});
    }
    store::StoreReader r(db);
    const auto all = r.facts(id);
    REQUIRE(all.size() == std::size_t(3));
    const auto ranks = r.facts(id, "provenance");
    REQUIRE(ranks.size() == std::size_t(2));
    REQUIRE(ranks[0].rank == 0);
    REQUIRE(ranks[0].body == R"({"python":"3.11.2"})");
    REQUIRE(ranks[0].time == testing::nearly(11));
    REQUIRE(r.facts(id, "operators").empty());
}

TEST_CASE("diffNamesTheFileTheLineAndTheRest") {
    testing::TempDir dir;
    const std::string db = dir.filePath("studio.db");
    auto source = [](const std::string& trainHash, bool dirty) {
        return nlohmann::json{
            {"entry_point", "train.py"},
            {"files", {{"train.py", trainHash}, {"util.py", std::string(64, 'c')}}},
            {"snapshot", "source"},
            {"environment_names", {"WANDB_MODE"}},
            {"git", {{"commit", "0123456789abcdef"}, {"branch", "main"}, {"dirty", dirty}}}};
    };
    auto provenance = [](const std::string& numpy, const std::string& torch) {
        return nlohmann::json{{"python", "3.11.2"},
                              {"torch", torch},
                              {"packages", {{"numpy", numpy}, {"torch", torch}}},
                              {"env_names", {"PATH", "RANK"}}};
    };
    store::ComponentId a = 0, b = 0;
    {
        store::StoreWriter w(db);
        store::NewComponent c;
        c.name = "job-a";
        c.parameters = {{"lr", "0.1", 0.1}, {"epochs", "2", 2.0}};
        a = w.createComponent(c);
        c.name = "job-b";
        c.parameters = {{"lr", "0.2", 0.2}, {"epochs", "2", 2.0}};
        b = w.createComponent(c);
        w.setFacts(a, {"source", -1, -1, 1, source(std::string(64, 'a'), false).dump()});
        w.setFacts(b, {"source", -1, -1, 1, source(std::string(64, 'b'), true).dump()});
        w.setFacts(a, {"provenance", 0, 0, 1, provenance("1.24.2", "1.13.1").dump()});
        w.setFacts(b, {"provenance", 0, 0, 1, provenance("1.26.0", "1.13.1").dump()});
        w.setFacts(a, {"operators", 0, 0, 1, R"({"start_step":5,"ops":[]})"});
        w.setFacts(a, {"logging", 0, 1, 1, R"({"sent":10,"dropped":2})"});
    }
    const std::string code = "import torch\nlr = 0.1\nfor step in range(10):\n    pass\n";
    std::string edited = code;
    edited.replace(edited.find("0.1"), 3, "0.2");
    writeText(dir.filePath("jobs/job-a/source/train.py"), code);
    writeText(dir.filePath("jobs/job-b/source/train.py"), edited);
    store::StoreReader r(db);
    const WhatRan wa = loadWhatRan(r, r.resolveJob("job-a"), dir.filePath("jobs/job-a"));
    const WhatRan wb = loadWhatRan(r, r.resolveJob("job-b"), dir.filePath("jobs/job-b"));
    REQUIRE(!wa.snapshotDir.empty());
    const WhatRanDiff d = diffWhatRan(wa, wb);
    REQUIRE(!d.same());
    const std::string text = d.toText("job-a", "job-b");
    INFO(text);
    REQUIRE(text.find("train.py") != std::string::npos);
    REQUIRE(text.find("-lr = 0.1") != std::string::npos);
    REQUIRE(text.find("+lr = 0.2") != std::string::npos);
    REQUIRE(text.find("@@ -1,4 +1,4 @@") != std::string::npos);
    REQUIRE(text.find("util.py") == std::string::npos); // unchanged
    REQUIRE(text.find("numpy: 1.24.2 -> 1.26.0") != std::string::npos);
    REQUIRE(text.find("lr: 0.1 -> 0.2") != std::string::npos);
    REQUIRE(text.find("epochs") == std::string::npos);
    REQUIRE(text.find("(uncommitted changes)") != std::string::npos);
    const auto json = d.toJson();
    REQUIRE(json["same"] == false);
    REQUIRE(diffWhatRan(wa, wa).same());
    const auto shown = whatRanJson(wa);
    REQUIRE(shown["source"]["entry_point"] == "train.py");
    REQUIRE(!shown["source"].contains("files"));
    REQUIRE(shown["ranks"][0]["python"] == "3.11.2");
    REQUIRE(shown["operators"]["start_step"] == 5);
    REQUIRE(shown["logging"][0]["rank"] == 1);
    REQUIRE(shown["logging"][0]["dropped"] == 2);
    REQUIRE(whatRanJson(wb)["operators"].is_null());
}
