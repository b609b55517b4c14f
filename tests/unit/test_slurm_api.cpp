// The Slurm API's pure parts without a server: every reply shape slurmrestd 22.05 was seen to
// send (v0.0.37 and v0.0.38 jobs, partitions, nodes, ping; errors as error_number, error_code or
// errno; a 401 that is not JSON), what each error means to the user, the submit body and host
// lists.
#include "engine/remote/slurm_api.h"
#include "engine/remote/slurm_client.h"
#include "tests/unit/slurm_replies.h"

#include "tests/support/plain_test.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

using namespace studio;
using namespace studio::remote;
using namespace studio::remote::testing;
using nlohmann::json;
using studio::testing::nearly;

TEST_CASE("errorsInEveryShape") {
    // v0.0.38: error_number + description + source; submit: error_code; v0.0.37 lists:
    // errno.
    const auto errors = slurm::parseErrors(json::parse(errorsBody(
        R"([{"description": "Unable to find JobId=9", "error_number": 2017,
             "error": "Invalid job id specified", "source": "slurm_load_job"},
            {"error_code": 2000, "error": "Invalid partition name specified"},
            {"error": "Unspecified error", "errno": -1},
            {"description": "Unknown key x", "source": "hsearch_r"}, "junk"])")));
    REQUIRE(errors.size() == std::size_t(4));
    REQUIRE(errors[0].number == 2017);
    REQUIRE(errors[0].source == std::string("slurm_load_job"));
    REQUIRE(errors[0].text() == std::string("Invalid job id specified: Unable to find JobId=9"));
    REQUIRE(errors[1].number == 2000);
    REQUIRE(errors[1].text() == std::string("Invalid partition name specified"));
    REQUIRE(errors[2].number == -1);
    REQUIRE(errors[3].number == 0);
    REQUIRE(errors[3].text() == std::string("Unknown key x"));
    REQUIRE(slurm::parseErrors(json::parse("[1]")).empty());
}

TEST_CASE("whatEachReplyMeans") {
    using K = SlurmError::Kind;
    const struct {
        const char* row;
        int status;
        std::string body;
        bool token;
        double seconds;
        std::optional<K> kind; // none: no error
        std::string needle;
    } rows[] = {
        {"200", 200, errorsBody("[]"), true, 0.05, std::nullopt, ""},
        {"200 held job warns", 200,
         errorsBody(
             R"([{"error_code": 2042, "error": "Job is in held state, pending scheduler release"}])"),
         true, 0.05, std::nullopt, ""},
        {"401 text, token", 401, "Authentication failure", true, 0.05, K::Auth,
         "cluster hpc: slurmrestd at http://10.0.0.5:6820 rejected the token for user ana: "
         "check --token-file/--token-env, mint one with `scontrol token"},
        {"401 socket, local auth", 401, "Authentication failure", false, 0.05, K::Auth,
         "local authentication on its socket accepts only root"},
        {"bad token: -1 at once", 500,
         errorsBody(R"([{"description": "slurmctld config is unable to load", "error_number": -1,
                    "error": "Unspecified error", "source": "slurm_load_ctl_conf"}])"),
         true, 0.04, K::Auth,
         "Slurm rejected the token for user ana: check --token-file/--token-env"},
        {"bad token on submit: 5005", 500,
         errorsBody(
             R"([{"error_code": 5005, "error": "Zero Bytes were transmitted or received"}])"),
         true, 0.04, K::Auth, "Zero Bytes were transmitted or received"},
        {"controller down: -1 after retries", 500,
         errorsBody(R"([{"error": "Unspecified error", "errno": -1}])"), true, 10.2, K::Unreachable,
         "answers, but slurmctld did not"},
        {"controller down, socket", 500,
         errorsBody(R"([{"error": "Unspecified error", "error_number": -1}])"), false, 0.04,
         K::Unreachable, "is slurmctld running?"},
        {"unknown job", 500,
         errorsBody(R"([{"description": "Unable to find JobId=42", "error_number": 2017,
                    "error": "Invalid job id specified", "source": "slurm_load_job"}])"),
         true, 0.05, K::NotFound,
         "cluster hpc: Slurm does not know job 42 (Invalid job id specified: Unable to "
         "find JobId=42)"},
        {"unknown partition", 500,
         errorsBody(R"([{"error_code": 2000, "error": "Invalid partition name specified"}])"), true,
         0.05, K::Rejected, "cluster hpc: Slurm rejected job 42: Invalid partition name specified"},
        {"no environment", 400,
         errorsBody(R"([{"error": "environment must be set", "error_code": 2127},
                    {"error_code": 9001, "error": "Failure during parsing"}])"),
         true, 0.05, K::Rejected, "environment must be set; Failure during parsing"},
        {"refused field with -1 is not auth", 400,
         errorsBody(R"([{"error": "Invalid exclusive specification", "error_code": -1},
                    {"description": "Unable to process key exclusive", "error_number": -1,
                     "error": "Unspecified error", "source": "slurm_process_option_data"},
                    {"error_code": 9001, "error": "Failure during parsing"}])"),
         true, 0.05, K::Rejected, "Invalid exclusive specification"},
        {"bad signal", 400,
         errorsBody(R"([{"description": "invalid signal: 0", "error_number": 9000,
                    "error": "Query empty or not RFC7320 compliant", "source": "HTTP request: signal"}])"),
         true, 0.05, K::Rejected, "invalid signal: 0"},
        {"404 text", 404, "Not Found\n", true, 0.05, K::Protocol,
         "answered HTTP 404 to job 42: Not Found"},
        {"200 not JSON", 200, "<html>", true, 0.05, K::Protocol,
         "answered HTTP 200 to job 42: <html>"},
        {"500 without errors", 500, errorsBody("[]"), true, 0.05, K::Protocol,
         "without saying why"},
    };
    for (const auto& row : rows) {
        INFO("row: ", row.row);
        const auto e = slurm::errorOf(reply(row.status, row.body, row.seconds), context(row.token));
        if (!row.kind) {
            REQUIRE_MESSAGE(!e, (e ? e->what() : ""));
            continue;
        }
        REQUIRE(e);
        REQUIRE(e->kind() == *row.kind);
        REQUIRE_MESSAGE(std::string(e->what()).find(row.needle) != std::string::npos, e->what());
        REQUIRE_MESSAGE(std::string(e->what()).rfind("cluster hpc: ", 0) == 0, e->what());
    }
}

TEST_CASE("unreachableNamesTheUrl") {
    slurm::Exchange x;
    x.curlError = "Failed to connect to 10.0.0.5 port 6820: Connection refused";
    auto e = slurm::errorOf(x, context());
    REQUIRE(e->kind() == SlurmError::Kind::Unreachable);
    REQUIRE(std::string(e->what()) ==
            std::string("cluster hpc: cannot reach slurmrestd at http://10.0.0.5:6820: "
                        "Failed to connect to 10.0.0.5 port 6820: Connection refused; is "
                        "slurmrestd running?"));
    x.timedOut = true;
    e = slurm::errorOf(x, context());
    REQUIRE(e->kind() == SlurmError::Kind::Unreachable);
    REQUIRE(std::string(e->what()).find("did not answer within 10 s") != std::string::npos);
}

TEST_CASE("versionsFromTheOpenApiPaths") {
    const auto v = slurm::versionsFromOpenApi(
        R"({"paths": {"/slurm/v0.0.100/ping": {}, "/slurm/v0.0.38/jobs": {},
            "/slurm/v0.0.9/ping": {}, "/slurmdb/v0.0.38/jobs": {}, "/slurm/v0.0.38/ping": {},
            "/openapi": {}}})");
    REQUIRE(v == (std::vector<std::string>{"v0.0.9", "v0.0.38", "v0.0.100"}));
    REQUIRE_THROWS_AS(slurm::versionsFromOpenApi("{}"), std::runtime_error);
    REQUIRE_THROWS_AS(slurm::versionsFromOpenApi("<html>"), std::runtime_error);
    REQUIRE(slurm::joinVersions(v) == std::string("v0.0.9, v0.0.38, v0.0.100"));
    REQUIRE(supportedSlurmApiVersions() == (std::vector<std::string>{"v0.0.37", "v0.0.38"}));
}

TEST_CASE("submitBodySetsEveryField") {
    SlurmJobRequest r;
    r.name = "train";
    r.script = "#!/bin/bash\nsrun true\n";
    r.partition = "gpu";
    r.account = "lab";
    r.qos = "high";
    r.nodes = 2;
    r.tasksPerNode = 4;
    r.cpusPerTask = 8;
    r.timeLimitMinutes = 90;
    r.gres = "gpu:a100:4";
    r.constraint = "ib&fast";
    r.exclusive = true;
    r.workingDirectory = "/shared/w";
    r.standardOutput = "/shared/w/%x-%j.out";
    r.standardError = "/shared/w/%x-%j.err";
    r.environment = {{"PATH", "/usr/bin:/bin"}, {"FOO", "a b"}};
    r.extraJson = {{"begin_time", "1795667475"}, {"argv", R"(["--x"])"}};
    const json body = json::parse(slurm::submitBody(r));
    REQUIRE((body["script"].get<std::string>()) == r.script);
    const json& j = body["job"];
    REQUIRE(j["name"] == json("train"));
    REQUIRE(j["partition"] == json("gpu"));
    REQUIRE(j["account"] == json("lab"));
    REQUIRE(j["qos"] == json("high"));
    REQUIRE(j["nodes"].is_number_integer()); // [2, 2] would give one node
    REQUIRE(j["nodes"] == json(2));
    REQUIRE(j["tasks"] == json(8));
    REQUIRE(j["tasks_per_node"] == json(4));
    REQUIRE(j["cpus_per_task"] == json(8));
    REQUIRE(j["time_limit"] == json(90));
    REQUIRE(j["gres"] == json("gpu:a100:4"));
    REQUIRE(j["constraints"] == json("ib&fast"));
    REQUIRE(j["exclusive"] == json("exclusive"));
    REQUIRE(j["requeue"] == json(true));
    REQUIRE(!j.contains("no_requeue"));
    REQUIRE(j["current_working_directory"] == json("/shared/w"));
    REQUIRE(j["standard_output"] == json("/shared/w/%x-%j.out"));
    REQUIRE(j["standard_error"] == json("/shared/w/%x-%j.err"));
    REQUIRE(j["environment"] == json({{"FOO", "a b"}, {"PATH", "/usr/bin:/bin"}}));
    REQUIRE(j["begin_time"] == json(1795667475));
    REQUIRE(j["argv"] == json::parse(R"(["--x"])"));

    SlurmJobRequest plain;
    plain.script = "#!/bin/sh\n";
    plain.requeue = false;
    const json p = json::parse(slurm::submitBody(plain))["job"];
    REQUIRE(p["no_requeue"] == json(true)); // "requeue": false is ignored by Slurm 22.05
    REQUIRE((!p.contains("requeue") && !p.contains("exclusive") && !p.contains("gres") &&
             !p.contains("time_limit") && !p.contains("cpus_per_task") &&
             !p.contains("partition") && !p.contains("name")));
    REQUIRE(!p["environment"].empty()); // an empty one is refused

    for (const auto& field : slurm::studioJobFields()) {
        SlurmJobRequest bad;
        bad.extraJson = {{field, "1"}};
        try {
            slurm::submitBody(bad);
            FAIL(("extra " + field + " accepted").c_str());
        } catch (const std::invalid_argument& e) {
            REQUIRE(std::string(e.what()).find("\"" + field + "\"") != std::string::npos);
        }
    }
    SlurmJobRequest notJson;
    notJson.extraJson = {{"comment", "not json"}};
    REQUIRE_THROWS_AS(slurm::submitBody(notJson), std::invalid_argument);
}

TEST_CASE("jobV38") {
    const SlurmJobInfo j = slurm::parseJob(json::parse(kJob38));
    REQUIRE(j.jobId == std::int64_t(29));
    REQUIRE(j.name == std::string("t38"));
    REQUIRE(j.state == std::string("FAILED"));
    REQUIRE(j.reason == std::string("NonZeroExitCode"));
    REQUIRE(j.rawExitCode == 19200);
    REQUIRE(j.exitCode() == (std::optional<int>(75))); // exit 75 is wait status 75 << 8
    REQUIRE(j.termSignal() == 0);
    REQUIRE(j.ended());
    REQUIRE(j.restartCount == 2);
    REQUIRE(j.submitTime == nearly(1795667475.0));
    REQUIRE(j.startTime == nearly(1795667480.0));
    REQUIRE(j.endTime == nearly(1795667481.0));
    REQUIRE(j.partition == std::string("debug"));
    REQUIRE(j.nodes == std::string("n[1-2]"));
    REQUIRE(j.nodeNames == (std::vector<std::string>{"n2", "n1"})); // as allocated
    REQUIRE(j.batchHost == std::string("n1"));
    REQUIRE(j.userName == std::string("nobody"));
}

TEST_CASE("jobV37") {
    const SlurmJobInfo j = slurm::parseJob(json::parse(kJob37));
    REQUIRE(j.state == std::string("CANCELLED"));
    REQUIRE(j.restartCount == 1);                    // a string in the v0.0.37 schema
    REQUIRE(j.submitTime == nearly(1795667475.0));   // likewise
    REQUIRE(j.exitCode() == (std::optional<int>())); // killed by a signal
    REQUIRE(j.termSignal() == 15);
    REQUIRE(j.nodeNames == (std::vector<std::string>{"n1", "n2"})); // from "n[1-2]"
    const auto list =
        slurm::parseJobs(json::parse(std::string(R"({"jobs": [)") + kJob38 + "," + kJob37 + "]}"));
    REQUIRE(list.size() == std::size_t(2));
    REQUIRE(list[1].jobId == std::int64_t(28));
}

TEST_CASE("jobStatesAndExitCodes") {
    const struct {
        const char* row;
        std::string state;
        int raw;
        int code; // -1: none
        int signal;
    } rows[] = {
        {"running", "RUNNING", 0, -1, 0},
        {"pending", "PENDING", 0, -1, 0},
        {"completed", "COMPLETED", 0, 0, 0},
        {"completing exit 3", "COMPLETING", (3 << 8), 3, 0},
        {"cancelled, trap exited 75", "CANCELLED", 19200, 75, 0},
        {"killed", "CANCELLED", 9, -1, 9},
        {"timeout", "TIMEOUT", 15, -1, 15},
        {"node fail", "NODE_FAIL", 0, 0, 0},
    };
    for (const auto& row : rows) {
        INFO("row: ", row.row);
        SlurmJobInfo j;
        j.state = row.state;
        j.rawExitCode = row.raw;
        REQUIRE(j.exitCode() ==
                (row.code < 0 ? std::optional<int>() : std::optional<int>(row.code)));
        REQUIRE(j.termSignal() == row.signal);
    }
}

TEST_CASE("partitions") {
    const auto p = slurm::parsePartitions(json::parse(kPartitions));
    REQUIRE(p.size() == std::size_t(3));
    REQUIRE(p[0].name == std::string("debug"));
    REQUIRE(p[0].state == std::string("UP"));
    REQUIRE(p[0].isDefault);
    REQUIRE(p[0].totalNodes == 2);
    REQUIRE(p[0].totalCpus == 2);
    REQUIRE(p[0].nodes == std::string("n[1-2]"));
    REQUIRE(p[0].maxTimeMinutes == std::int64_t(-1));
    REQUIRE(p[1].state == std::string("DOWN"));
    REQUIRE(!p[1].isDefault);
    REQUIRE(p[1].maxTimeMinutes == std::int64_t(30));
    REQUIRE(p[2].state == std::string());             // v0.0.36 had no state
    REQUIRE(p[2].maxTimeMinutes == std::int64_t(-1)); // INFINITE
}

TEST_CASE("nodes") {
    const auto n = slurm::parseNodes(json::parse(kNodes));
    REQUIRE(n.size() == std::size_t(2));
    REQUIRE(n[0].name == std::string("n1"));
    REQUIRE(n[0].address == std::string("127.0.0.1"));
    REQUIRE(n[0].state == std::string("idle+drain"));
    REQUIRE(n[0].cpus == 1);
    REQUIRE(n[0].memoryMb == std::int64_t(1000));
    REQUIRE(n[0].gres == std::string());
    REQUIRE(n[0].partitions == (std::vector<std::string>{"debug", "short"}));
    REQUIRE(n[1].state == std::string("mixed"));
    REQUIRE(n[1].allocCpus == 2);
    REQUIRE(n[1].gres == std::string("gpu:tesla:2"));
}

TEST_CASE("pingAndRelease") {
    const json up = json::parse(std::string("{") + kMeta +
                                R"(, "errors": [], "pings": [{"hostname": "vm", "ping": "UP",
                                     "status": 0, "mode": "primary"}]})");
    REQUIRE(slurm::parsePing(up) == std::string());
    REQUIRE(slurm::parseRelease(up) == std::string("22.05.8"));
    REQUIRE(slurm::parsePing(json::parse(R"({"pings": [{"hostname": "c1", "ping": "DOWN"}]})")) ==
            std::string("slurmctld on c1 is DOWN"));
    REQUIRE(!slurm::parsePing(json::parse("{}")).empty());
    REQUIRE(slurm::parseRelease(json::parse("{}")) == std::string());
}

TEST_CASE("hostlists") {
    const struct {
        const char* row;
        std::string list;
        std::vector<std::string> names; // empty with error: throws
        bool error;
    } rows[] = {
        {"one", "n1", {"n1"}, false},
        {"range", "n[1-3]", {"n1", "n2", "n3"}, false},
        {"padded, list, plain", "h[08-10,12],gpu5", {"h08", "h09", "h10", "h12", "gpu5"}, false},
        {"suffix and two groups",
         "r[1-2]n[1-2]-ib",
         {"r1n1-ib", "r1n2-ib", "r2n1-ib", "r2n2-ib"},
         false},
        {"empty", "", {}, false},
        {"open", "n[1-2", {}, true},
        {"backwards", "n[3-1]", {}, true},
        {"letters", "n[a-b]", {}, true},
        {"huge", "n[1-999999999]", {}, true},
    };
    for (const auto& row : rows) {
        INFO("row: ", row.row);
        if (row.error)
            REQUIRE_THROWS_AS(slurm::expandHostlist(row.list), std::invalid_argument);
        else
            REQUIRE(slurm::expandHostlist(row.list) == row.names);
    }
}
