// What the CLI and notebooks show: the progress line, durations, tagged log lines and the
// `show --json` contract.
#include "app/present/json_views.h"
#include "app/present/progress_bar.h"
#include "app/present/tagged_line.h"
#include "app/present/terminal.h"

#include "tests/support/plain_test.h"

using namespace studio;
using studio::testing::nearly;

TEST_CASE("taggedLines") {
    REQUIRE(present::taggedLine(1, 3, "stdout", "hi") == std::string("[1,3]<stdout>:hi"));
}

TEST_CASE("progressLine") {
    present::ProgressState s;
    s.secondary = "Training";
    s.elapsedSeconds = 83;
    s.step = 50;
    s.total = 200;
    s.metricName = "train:loss";
    s.metricValue = 0.2341;
    s.width = 100;
    const std::string line = present::renderProgress(s);
    REQUIRE_MESSAGE(line.find("Training") == 0, line.c_str());
    REQUIRE_MESSAGE(line.find(" 25%") != std::string::npos, line.c_str());
    REQUIRE_MESSAGE(line.find("01:23") != std::string::npos, line.c_str());
    REQUIRE_MESSAGE(line.find("step 50/200") != std::string::npos, line.c_str());
    REQUIRE_MESSAGE(line.find("train:loss=0.2341") != std::string::npos, line.c_str());
    REQUIRE(static_cast<int>(line.size()) <= 100);
    s.total = -1;
    s.step = -1;
    REQUIRE(present::renderProgress(s).find('%') == std::string::npos);
    REQUIRE(present::formatDuration(3723) == std::string("1:02:03"));
    REQUIRE(present::formatDuration(5) == std::string("5s"));
}

TEST_CASE("showJsonContract") {
    store::ComponentDetail d;
    d.row.name = "j";
    d.row.status = "Failed";
    d.row.created = 10;
    d.ranks = {{0, 0, 0, 11, 1, 2, 0, 0, "cuda:0 (NVIDIA H100 80GB HBM3, 79.6 GiB)"},
               {1, 0, 1, 12, 1, 2, std::nullopt, 15, ""}};
    store::MetricSummary s;
    s.add(1, 0, 1);
    s.add(3, 1, 2);
    d.metrics["loss"] = s;
    auto j = present::jobJson(d);
    for (const char* key : {"name", "status", "secondary_status", "status_transitions",
                            "experiment", "trial", "parameters", "metrics", "nodes", "ranks",
                            "exit_codes", "failure_reason", "created", "started", "ended"})
        REQUIRE_MESSAGE(j.contains(key), key);
    for (const char* key :
         {"rank", "node", "local_rank", "pid", "device", "started", "ended", "exit_code", "signal"})
        REQUIRE_MESSAGE(j["ranks"][1].contains(key), key);
    REQUIRE(j["ranks"][0]["device"] == "cuda:0 (NVIDIA H100 80GB HBM3, 79.6 GiB)");
    REQUIRE(j["ranks"][1]["device"] == ""); // a rank that reported none
    REQUIRE(j["exit_codes"]["0"].get<int>() == 0);
    REQUIRE(j["exit_codes"]["1"].get<int>() == -15);
    REQUIRE(j["metrics"]["loss"]["avg"].get<double>() == nearly(2.0));
    REQUIRE(j["metrics"]["loss"]["count"].get<int>() == 2);
    REQUIRE(j["started"].is_null());
}

TEST_CASE("terminalMode") {
    // A terminal: progress in place and colours.
    auto m = present::terminalMode(true, "xterm-256color", nullptr);
    REQUIRE(m.interactive);
    REQUIRE(m.color);
    // NO_COLOR set to anything but "": no colours, progress lines stay.
    m = present::terminalMode(true, "xterm", "1");
    REQUIRE(m.interactive);
    REQUIRE(!m.color);
    REQUIRE(present::terminalMode(true, "xterm", "").color);
    // A pipe or file: neither, whatever NO_COLOR says.
    m = present::terminalMode(false, "xterm", nullptr);
    REQUIRE(!m.interactive);
    REQUIRE(!m.color);
    // TERM=dumb (an editor's shell): neither.
    m = present::terminalMode(true, "dumb", nullptr);
    REQUIRE(!m.interactive);
    REQUIRE(!m.color);
}

TEST_CASE("statusCell") {
    REQUIRE(present::statusCell("Failed", 10, false) == std::string("Failed    "));
    REQUIRE(present::statusCell("Failed", 10, true) == std::string("\033[31mFailed\033[0m    "));
    REQUIRE(present::statusCell("Imported", 4, true) == std::string("\033[34mImported\033[0m"));
    // A status without a colour stays plain.
    REQUIRE(present::statusCell("Pending", 8, true) == std::string("Pending "));
}
