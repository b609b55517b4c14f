// The Slurm API's pure parts without a server: every reply shape slurmrestd 22.05 was seen to
// send (v0.0.37 and v0.0.38 jobs, partitions, nodes, ping; errors as error_number, error_code or
// errno; a 401 that is not JSON), what each error means to the user, the submit body and host
// lists.
#include "engine/remote/slurm_api.h"
#include "engine/remote/slurm_client.h"
#include "tests/unit/slurm_replies.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

using namespace studio;
using namespace studio::remote;
using namespace studio::remote::testing;
using nlohmann::json;

class TestSlurmApi : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void errorsInEveryShape() {
        // v0.0.38: error_number + description + source; submit: error_code; v0.0.37 lists:
        // errno.
        const auto errors = slurm::parseErrors(json::parse(errorsBody(
            R"([{"description": "Unable to find JobId=9", "error_number": 2017,
                 "error": "Invalid job id specified", "source": "slurm_load_job"},
                {"error_code": 2000, "error": "Invalid partition name specified"},
                {"error": "Unspecified error", "errno": -1},
                {"description": "Unknown key x", "source": "hsearch_r"}, "junk"])")));
        QCOMPARE(errors.size(), std::size_t(4));
        QCOMPARE(errors[0].number, 2017);
        QCOMPARE(errors[0].source, std::string("slurm_load_job"));
        QCOMPARE(errors[0].text(), std::string("Invalid job id specified: Unable to find JobId=9"));
        QCOMPARE(errors[1].number, 2000);
        QCOMPARE(errors[1].text(), std::string("Invalid partition name specified"));
        QCOMPARE(errors[2].number, -1);
        QCOMPARE(errors[3].number, 0);
        QCOMPARE(errors[3].text(), std::string("Unknown key x"));
        QVERIFY(slurm::parseErrors(json::parse("[1]")).empty());
    }

    void whatEachReplyMeans_data() {
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("body");
        QTest::addColumn<bool>("token");
        QTest::addColumn<double>("seconds");
        QTest::addColumn<int>("kind"); // -1: no error
        QTest::addColumn<QString>("needle");
        using K = SlurmError::Kind;
        const auto body = [](const char* errors) {
            return QString::fromStdString(errorsBody(errors));
        };
        QTest::newRow("200") << 200 << body("[]") << true << 0.05 << -1 << "";
        QTest::newRow("200 held job warns")
            << 200
            << body(
                   R"([{"error_code": 2042, "error": "Job is in held state, pending scheduler release"}])")
            << true << 0.05 << -1 << "";
        QTest::newRow("401 text, token")
            << 401 << "Authentication failure" << true << 0.05 << int(K::Auth)
            << "cluster hpc: slurmrestd at http://10.0.0.5:6820 rejected the token for user ana: "
               "check --token-file/--token-env, mint one with `scontrol token";
        QTest::newRow("401 socket, local auth")
            << 401 << "Authentication failure" << false << 0.05 << int(K::Auth)
            << "local authentication on its socket accepts only root";
        QTest::newRow("bad token: -1 at once")
            << 500
            << body(R"([{"description": "slurmctld config is unable to load", "error_number": -1,
                        "error": "Unspecified error", "source": "slurm_load_ctl_conf"}])")
            << true << 0.04 << int(K::Auth)
            << "Slurm rejected the token for user ana: check --token-file/--token-env";
        QTest::newRow("bad token on submit: 5005")
            << 500
            << body(R"([{"error_code": 5005, "error": "Zero Bytes were transmitted or received"}])")
            << true << 0.04 << int(K::Auth) << "Zero Bytes were transmitted or received";
        QTest::newRow("controller down: -1 after retries")
            << 500 << body(R"([{"error": "Unspecified error", "errno": -1}])") << true << 10.2
            << int(K::Unreachable) << "answers, but slurmctld did not";
        QTest::newRow("controller down, socket")
            << 500 << body(R"([{"error": "Unspecified error", "error_number": -1}])") << false
            << 0.04 << int(K::Unreachable) << "is slurmctld running?";
        QTest::newRow("unknown job")
            << 500 << body(R"([{"description": "Unable to find JobId=42", "error_number": 2017,
                        "error": "Invalid job id specified", "source": "slurm_load_job"}])")
            << true << 0.05 << int(K::NotFound)
            << "cluster hpc: Slurm does not know job 42 (Invalid job id specified: Unable to "
               "find JobId=42)";
        QTest::newRow("unknown partition")
            << 500 << body(R"([{"error_code": 2000, "error": "Invalid partition name specified"}])")
            << true << 0.05 << int(K::Rejected)
            << "cluster hpc: Slurm rejected job 42: Invalid partition name specified";
        QTest::newRow("no environment")
            << 400 << body(R"([{"error": "environment must be set", "error_code": 2127},
                        {"error_code": 9001, "error": "Failure during parsing"}])")
            << true << 0.05 << int(K::Rejected)
            << "environment must be set; Failure during parsing";
        QTest::newRow("refused field with -1 is not auth")
            << 400 << body(R"([{"error": "Invalid exclusive specification", "error_code": -1},
                        {"description": "Unable to process key exclusive", "error_number": -1,
                         "error": "Unspecified error", "source": "slurm_process_option_data"},
                        {"error_code": 9001, "error": "Failure during parsing"}])")
            << true << 0.05 << int(K::Rejected) << "Invalid exclusive specification";
        QTest::newRow("bad signal")
            << 400 << body(R"([{"description": "invalid signal: 0", "error_number": 9000,
                        "error": "Query empty or not RFC7320 compliant", "source": "HTTP request: signal"}])")
            << true << 0.05 << int(K::Rejected) << "invalid signal: 0";
        QTest::newRow("404 text") << 404 << "Not Found\n"
                                  << true << 0.05 << int(K::Protocol)
                                  << "answered HTTP 404 to job 42: Not Found";
        QTest::newRow("200 not JSON") << 200 << "<html>" << true << 0.05 << int(K::Protocol)
                                      << "answered HTTP 200 to job 42: <html>";
        QTest::newRow("500 without errors")
            << 500 << body("[]") << true << 0.05 << int(K::Protocol) << "without saying why";
    }
    void whatEachReplyMeans() {
        QFETCH(int, status);
        QFETCH(QString, body);
        QFETCH(bool, token);
        QFETCH(double, seconds);
        QFETCH(int, kind);
        QFETCH(QString, needle);
        const auto e = slurm::errorOf(reply(status, body.toStdString(), seconds), context(token));
        if (kind < 0) {
            QVERIFY2(!e, e ? e->what() : "");
            return;
        }
        QVERIFY(e);
        QCOMPARE(int(e->kind()), kind);
        QVERIFY2(std::string(e->what()).find(needle.toStdString()) != std::string::npos, e->what());
        QVERIFY2(std::string(e->what()).rfind("cluster hpc: ", 0) == 0, e->what());
    }

    void unreachableNamesTheUrl() {
        slurm::Exchange x;
        x.curlError = "Failed to connect to 10.0.0.5 port 6820: Connection refused";
        auto e = slurm::errorOf(x, context());
        QCOMPARE(e->kind(), SlurmError::Kind::Unreachable);
        QCOMPARE(std::string(e->what()),
                 std::string("cluster hpc: cannot reach slurmrestd at http://10.0.0.5:6820: "
                             "Failed to connect to 10.0.0.5 port 6820: Connection refused; is "
                             "slurmrestd running?"));
        x.timedOut = true;
        e = slurm::errorOf(x, context());
        QCOMPARE(e->kind(), SlurmError::Kind::Unreachable);
        QVERIFY(std::string(e->what()).find("did not answer within 10 s") != std::string::npos);
    }

    void versionsFromTheOpenApiPaths() {
        const auto v = slurm::versionsFromOpenApi(
            R"({"paths": {"/slurm/v0.0.100/ping": {}, "/slurm/v0.0.38/jobs": {},
                "/slurm/v0.0.9/ping": {}, "/slurmdb/v0.0.38/jobs": {}, "/slurm/v0.0.38/ping": {},
                "/openapi": {}}})");
        QCOMPARE(v, (std::vector<std::string>{"v0.0.9", "v0.0.38", "v0.0.100"}));
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, slurm::versionsFromOpenApi("{}"));
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, slurm::versionsFromOpenApi("<html>"));
        QCOMPARE(slurm::joinVersions(v), std::string("v0.0.9, v0.0.38, v0.0.100"));
        QCOMPARE(supportedSlurmApiVersions(), (std::vector<std::string>{"v0.0.37", "v0.0.38"}));
    }

    void submitBodySetsEveryField() {
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
        QCOMPARE(body["script"].get<std::string>(), r.script);
        const json& j = body["job"];
        QCOMPARE(j["name"], json("train"));
        QCOMPARE(j["partition"], json("gpu"));
        QCOMPARE(j["account"], json("lab"));
        QCOMPARE(j["qos"], json("high"));
        QVERIFY(j["nodes"].is_number_integer()); // [2, 2] would give one node
        QCOMPARE(j["nodes"], json(2));
        QCOMPARE(j["tasks"], json(8));
        QCOMPARE(j["tasks_per_node"], json(4));
        QCOMPARE(j["cpus_per_task"], json(8));
        QCOMPARE(j["time_limit"], json(90));
        QCOMPARE(j["gres"], json("gpu:a100:4"));
        QCOMPARE(j["constraints"], json("ib&fast"));
        QCOMPARE(j["exclusive"], json("exclusive"));
        QCOMPARE(j["requeue"], json(true));
        QVERIFY(!j.contains("no_requeue"));
        QCOMPARE(j["current_working_directory"], json("/shared/w"));
        QCOMPARE(j["standard_output"], json("/shared/w/%x-%j.out"));
        QCOMPARE(j["standard_error"], json("/shared/w/%x-%j.err"));
        QCOMPARE(j["environment"], json({{"FOO", "a b"}, {"PATH", "/usr/bin:/bin"}}));
        QCOMPARE(j["begin_time"], json(1795667475));
        QCOMPARE(j["argv"], json::parse(R"(["--x"])"));

        SlurmJobRequest plain;
        plain.script = "#!/bin/sh\n";
        plain.requeue = false;
        const json p = json::parse(slurm::submitBody(plain))["job"];
        QCOMPARE(p["no_requeue"], json(true)); // "requeue": false is ignored by Slurm 22.05
        QVERIFY(!p.contains("requeue") && !p.contains("exclusive") && !p.contains("gres") &&
                !p.contains("time_limit") && !p.contains("cpus_per_task") &&
                !p.contains("partition") && !p.contains("name"));
        QVERIFY(!p["environment"].empty()); // an empty one is refused

        for (const auto& field : slurm::studioJobFields()) {
            SlurmJobRequest bad;
            bad.extraJson = {{field, "1"}};
            try {
                slurm::submitBody(bad);
                QFAIL(("extra " + field + " accepted").c_str());
            } catch (const std::invalid_argument& e) {
                QVERIFY(std::string(e.what()).find("\"" + field + "\"") != std::string::npos);
            }
        }
        SlurmJobRequest notJson;
        notJson.extraJson = {{"comment", "not json"}};
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, slurm::submitBody(notJson));
    }

    void jobV38() {
        const SlurmJobInfo j = slurm::parseJob(json::parse(kJob38));
        QCOMPARE(j.jobId, std::int64_t(29));
        QCOMPARE(j.name, std::string("t38"));
        QCOMPARE(j.state, std::string("FAILED"));
        QCOMPARE(j.reason, std::string("NonZeroExitCode"));
        QCOMPARE(j.rawExitCode, 19200);
        QCOMPARE(j.exitCode(), std::optional<int>(75)); // exit 75 is wait status 75 << 8
        QCOMPARE(j.termSignal(), 0);
        QVERIFY(j.ended());
        QCOMPARE(j.restartCount, 2);
        QCOMPARE(j.submitTime, 1795667475.0);
        QCOMPARE(j.startTime, 1795667480.0);
        QCOMPARE(j.endTime, 1795667481.0);
        QCOMPARE(j.partition, std::string("debug"));
        QCOMPARE(j.nodes, std::string("n[1-2]"));
        QCOMPARE(j.nodeNames, (std::vector<std::string>{"n2", "n1"})); // as allocated
        QCOMPARE(j.batchHost, std::string("n1"));
        QCOMPARE(j.userName, std::string("nobody"));
    }

    void jobV37() {
        const SlurmJobInfo j = slurm::parseJob(json::parse(kJob37));
        QCOMPARE(j.state, std::string("CANCELLED"));
        QCOMPARE(j.restartCount, 1);                  // a string in the v0.0.37 schema
        QCOMPARE(j.submitTime, 1795667475.0);         // likewise
        QCOMPARE(j.exitCode(), std::optional<int>()); // killed by a signal
        QCOMPARE(j.termSignal(), 15);
        QCOMPARE(j.nodeNames, (std::vector<std::string>{"n1", "n2"})); // from "n[1-2]"
        const auto list = slurm::parseJobs(
            json::parse(std::string(R"({"jobs": [)") + kJob38 + "," + kJob37 + "]}"));
        QCOMPARE(list.size(), std::size_t(2));
        QCOMPARE(list[1].jobId, std::int64_t(28));
    }

    void jobStatesAndExitCodes_data() {
        QTest::addColumn<QString>("state");
        QTest::addColumn<int>("raw");
        QTest::addColumn<int>("code"); // -1: none
        QTest::addColumn<int>("signal");
        QTest::newRow("running") << "RUNNING" << 0 << -1 << 0;
        QTest::newRow("pending") << "PENDING" << 0 << -1 << 0;
        QTest::newRow("completed") << "COMPLETED" << 0 << 0 << 0;
        QTest::newRow("completing exit 3") << "COMPLETING" << (3 << 8) << 3 << 0;
        QTest::newRow("cancelled, trap exited 75") << "CANCELLED" << 19200 << 75 << 0;
        QTest::newRow("killed") << "CANCELLED" << 9 << -1 << 9;
        QTest::newRow("timeout") << "TIMEOUT" << 15 << -1 << 15;
        QTest::newRow("node fail") << "NODE_FAIL" << 0 << 0 << 0;
    }
    void jobStatesAndExitCodes() {
        QFETCH(QString, state);
        QFETCH(int, raw);
        QFETCH(int, code);
        QFETCH(int, signal);
        SlurmJobInfo j;
        j.state = state.toStdString();
        j.rawExitCode = raw;
        QCOMPARE(j.exitCode(), code < 0 ? std::optional<int>() : std::optional<int>(code));
        QCOMPARE(j.termSignal(), signal);
    }

    void partitions() {
        const auto p = slurm::parsePartitions(json::parse(kPartitions));
        QCOMPARE(p.size(), std::size_t(3));
        QCOMPARE(p[0].name, std::string("debug"));
        QCOMPARE(p[0].state, std::string("UP"));
        QVERIFY(p[0].isDefault);
        QCOMPARE(p[0].totalNodes, 2);
        QCOMPARE(p[0].totalCpus, 2);
        QCOMPARE(p[0].nodes, std::string("n[1-2]"));
        QCOMPARE(p[0].maxTimeMinutes, std::int64_t(-1));
        QCOMPARE(p[1].state, std::string("DOWN"));
        QVERIFY(!p[1].isDefault);
        QCOMPARE(p[1].maxTimeMinutes, std::int64_t(30));
        QCOMPARE(p[2].state, std::string());             // v0.0.36 had no state
        QCOMPARE(p[2].maxTimeMinutes, std::int64_t(-1)); // INFINITE
    }

    void nodes() {
        const auto n = slurm::parseNodes(json::parse(kNodes));
        QCOMPARE(n.size(), std::size_t(2));
        QCOMPARE(n[0].name, std::string("n1"));
        QCOMPARE(n[0].address, std::string("127.0.0.1"));
        QCOMPARE(n[0].state, std::string("idle+drain"));
        QCOMPARE(n[0].cpus, 1);
        QCOMPARE(n[0].memoryMb, std::int64_t(1000));
        QCOMPARE(n[0].gres, std::string());
        QCOMPARE(n[0].partitions, (std::vector<std::string>{"debug", "short"}));
        QCOMPARE(n[1].state, std::string("mixed"));
        QCOMPARE(n[1].allocCpus, 2);
        QCOMPARE(n[1].gres, std::string("gpu:tesla:2"));
    }

    void pingAndRelease() {
        const json up = json::parse(std::string("{") + kMeta +
                                    R"(, "errors": [], "pings": [{"hostname": "vm", "ping": "UP",
                                         "status": 0, "mode": "primary"}]})");
        QCOMPARE(slurm::parsePing(up), std::string());
        QCOMPARE(slurm::parseRelease(up), std::string("22.05.8"));
        QCOMPARE(
            slurm::parsePing(json::parse(R"({"pings": [{"hostname": "c1", "ping": "DOWN"}]})")),
            std::string("slurmctld on c1 is DOWN"));
        QVERIFY(!slurm::parsePing(json::parse("{}")).empty());
        QCOMPARE(slurm::parseRelease(json::parse("{}")), std::string());
    }

    void hostlists_data() {
        QTest::addColumn<QString>("list");
        QTest::addColumn<QStringList>("names"); // empty with error: throws
        QTest::addColumn<bool>("error");
        QTest::newRow("one") << "n1" << QStringList{"n1"} << false;
        QTest::newRow("range") << "n[1-3]" << QStringList{"n1", "n2", "n3"} << false;
        QTest::newRow("padded, list, plain")
            << "h[08-10,12],gpu5" << QStringList{"h08", "h09", "h10", "h12", "gpu5"} << false;
        QTest::newRow("suffix and two groups")
            << "r[1-2]n[1-2]-ib" << QStringList{"r1n1-ib", "r1n2-ib", "r2n1-ib", "r2n2-ib"}
            << false;
        QTest::newRow("empty") << "" << QStringList{} << false;
        QTest::newRow("open") << "n[1-2" << QStringList{} << true;
        QTest::newRow("backwards") << "n[3-1]" << QStringList{} << true;
        QTest::newRow("letters") << "n[a-b]" << QStringList{} << true;
        QTest::newRow("huge") << "n[1-999999999]" << QStringList{} << true;
    }
    void hostlists() {
        QFETCH(QString, list);
        QFETCH(QStringList, names);
        QFETCH(bool, error);
        if (error) {
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                     slurm::expandHostlist(list.toStdString()));
            return;
        }
        std::vector<std::string> want;
        for (const auto& n : names)
            want.push_back(n.toStdString());
        QCOMPARE(slurm::expandHostlist(list.toStdString()), want);
    }
};

QTEST_GUILESS_MAIN(TestSlurmApi)
#include "test_slurm_api.moc"
