// The Slurm REST client without Slurm: every reply shape slurmrestd 22.05 was seen to send
// (v0.0.37 and v0.0.38 jobs, partitions, nodes, ping; errors as error_number, error_code or
// errno; a 401 that is not JSON), what each error means to the user, the submit body, host
// lists, the token's file and variable, Slurm cluster definitions, and the client itself
// against a loopback stand-in that speaks HTTP over TCP and over a unix socket.
#include "engine/remote/cluster.h"
#include "engine/remote/slurm_api.h"
#include "engine/remote/slurm_check.h"
#include "engine/remote/slurm_client.h"

#include <QElapsedTimer>
#include <QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

using namespace studio;
using namespace studio::remote;
using nlohmann::json;

namespace {

// Replies captured from slurmrestd 22.05.8 (Debian 12), trimmed to the fields the client reads
// and a few it does not. (No \" inside raw strings here: moc misreads them and skips the file.)
constexpr const char* kMeta =
    R"("meta":{"plugin":{"type":"openapi/v0.0.38","name":"Slurm OpenAPI v0.0.38"},)"
    R"("Slurm":{"version":{"major":22,"micro":8,"minor":5},"release":"22.05.8"}})";

const char* kJob38 = R"({"job_id": 29, "name": "t38", "partition": "debug",
 "job_state": "FAILED", "state_reason": "NonZeroExitCode", "state_description": "",
 "exit_code": 19200, "derived_exit_code": 0, "restart_cnt": 2, "submit_time": 1795667475,
 "start_time": 1795667480, "end_time": 1795667481, "time_limit": 2, "nodes": "n[1-2]",
 "node_count": 2, "batch_host": "n1", "user_name": "nobody", "user_id": 65534, "requeue": true,
 "standard_output": "/tmp/jobs/%x-%j.out", "current_working_directory": "/tmp/jobs",
 "job_resources": {"nodes": "n[1-2]", "allocated_cores": 2, "allocated_hosts": 2,
  "allocated_nodes": [
   {"sockets": {"0": {"cores": {"0": "allocated"}}}, "nodename": "n2", "cpus_used": 0},
   {"sockets": {"0": {"cores": {"0": "allocated"}}}, "nodename": "n1", "cpus_used": 0}]}})";

// v0.0.37 keys the allocated nodes "0", "1" without their names; older schemas type some
// numbers as strings.
const char* kJob37 = R"({"job_id": 28, "name": "t37", "partition": "debug",
 "job_state": "CANCELLED", "state_reason": "None", "exit_code": 15, "restart_cnt": "1",
 "submit_time": "1795667475", "start_time": 1795667478, "end_time": 1795667479,
 "nodes": "n[1-2]", "batch_host": "n1", "user_name": "nobody",
 "job_resources": {"nodes": "n[1-2]", "allocated_cpus": 2, "allocated_hosts": 2,
  "allocated_nodes": {"0": {"sockets": {"0": "unassigned"}, "memory": 0, "cpus": 1},
                      "1": {"sockets": {"0": "unassigned"}, "memory": 0, "cpus": 1}}}})";

const char* kPartitions = R"({"partitions": [
 {"flags": ["default"], "preemption_mode": ["disabled"], "default_time_limit": null,
  "maximum_nodes_per_job": -1, "max_time_limit": -1, "min nodes per job": 0, "name": "debug",
  "nodes": "n[1-2]", "state": "UP", "total_cpus": 2, "total_nodes": 2,
  "tres": "cpu=2,mem=2000M,node=2,billing=2"},
 {"flags": [], "max_time_limit": 30, "name": "short", "nodes": "n1", "state": "DOWN",
  "total_cpus": 1, "total_nodes": 1},
 {"flags": [], "max_time_limit": 4294967295, "name": "inf", "nodes": "", "total_cpus": 0,
  "total_nodes": 0}]})";

const char* kNodes = R"({"nodes": [
 {"name": "n1", "address": "127.0.0.1", "hostname": "vm", "state": "idle",
  "state_flags": ["DRAIN"], "cpus": 1, "alloc_cpus": 0, "idle_cpus": 1, "real_memory": 1000,
  "gres": "", "gres_used": "gpu:0", "partitions": ["debug", "short"], "reason": "testing"},
 {"name": "n2", "address": "127.0.0.1", "state": "mixed", "state_flags": [], "cpus": 4,
  "alloc_cpus": 2, "real_memory": 64000, "gres": "gpu:tesla:2", "partitions": ["debug"]}]})";

slurm::Exchange reply(long status, const std::string& body, double seconds = 0.05) {
    slurm::Exchange x;
    x.reached = true;
    x.status = status;
    x.body = body;
    x.seconds = seconds;
    return x;
}

slurm::ErrorContext context(bool token = true) {
    slurm::ErrorContext c;
    c.cluster = "hpc";
    c.url = token ? "http://10.0.0.5:6820" : "unix:/run/slurmrestd.sock";
    c.user = "ana";
    c.tokenSent = token;
    c.what = "job 42";
    c.timeoutSeconds = 10;
    return c;
}

std::string errorsBody(const std::string& errors) {
    return std::string("{") + kMeta + R"(, "errors": )" + errors + "}";
}

std::string writeFile(const QTemporaryDir& dir, const std::string& name, const std::string& text) {
    const std::string path = dir.path().toStdString() + "/" + name;
    std::ofstream(path) << text;
    return path;
}

// One HTTP/1.1 server on loopback or a unix socket that answers each connection with the next
// queued reply (status 0: no answer, for timeouts) and records the requests.
class RestStandIn {
public:
    struct Request {
        std::string method, target, body;
        std::map<std::string, std::string> headers; // names in lower case
    };

    explicit RestStandIn(const std::string& socketPath = {}) {
        if (socketPath.empty()) {
            m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            sockaddr_in a{};
            a.sin_family = AF_INET;
            a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            ::bind(m_fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
            socklen_t len = sizeof a;
            ::getsockname(m_fd, reinterpret_cast<sockaddr*>(&a), &len);
            m_url = "http://127.0.0.1:" + std::to_string(ntohs(a.sin_port));
        } else {
            m_fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
            sockaddr_un a{};
            a.sun_family = AF_UNIX;
            std::snprintf(a.sun_path, sizeof a.sun_path, "%s", socketPath.c_str());
            ::bind(m_fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
            m_url = "unix:" + socketPath;
        }
        ::listen(m_fd, 8);
        m_thread = std::thread([this] { serve(); });
    }
    ~RestStandIn() {
        m_stop = true;
        m_thread.join();
        ::close(m_fd);
    }

    const std::string& url() const { return m_url; }
    void push(int status, std::string body, std::string type = "application/json") {
        std::lock_guard lock(m_mutex);
        m_replies.push_back({status, std::move(body), std::move(type)});
    }
    std::vector<Request> requests() {
        std::lock_guard lock(m_mutex);
        return m_requests;
    }

private:
    struct Reply {
        int status;
        std::string body, type;
    };

    void serve() {
        while (!m_stop) {
            pollfd p{m_fd, POLLIN, 0};
            if (::poll(&p, 1, 20) <= 0)
                continue;
            const int conn = ::accept4(m_fd, nullptr, nullptr, SOCK_CLOEXEC);
            if (conn < 0)
                continue;
            answer(conn);
            ::close(conn);
        }
    }

    void answer(int conn) {
        std::string in;
        char buf[4096];
        std::size_t headerEnd = std::string::npos;
        std::size_t need = 0;
        while (true) {
            if (headerEnd == std::string::npos && (headerEnd = in.find("\r\n\r\n")) != in.npos) {
                const auto cl = lower(in.substr(0, headerEnd)).find("content-length:");
                need = cl == std::string::npos ? 0 : std::stoul(in.substr(cl + 15));
            }
            if (headerEnd != std::string::npos && in.size() >= headerEnd + 4 + need)
                break;
            const ssize_t n = ::read(conn, buf, sizeof buf);
            if (n <= 0)
                return;
            in.append(buf, static_cast<std::size_t>(n));
        }
        Request r;
        std::istringstream head(in.substr(0, headerEnd));
        std::string line;
        std::getline(head, line);
        std::istringstream first(line);
        first >> r.method >> r.target;
        while (std::getline(head, line)) {
            const auto colon = line.find(':');
            if (colon == std::string::npos)
                continue;
            std::string value = line.substr(colon + 1);
            value.erase(0, value.find_first_not_of(' '));
            if (!value.empty() && value.back() == '\r')
                value.pop_back();
            r.headers[lower(line.substr(0, colon))] = value;
        }
        r.body = in.substr(headerEnd + 4, need);
        Reply reply{500, "{}", "application/json"};
        {
            std::lock_guard lock(m_mutex);
            m_requests.push_back(r);
            if (!m_replies.empty()) {
                reply = m_replies.front();
                m_replies.pop_front();
            }
        }
        if (reply.status == 0) { // hold the connection until the client gives up
            while (!m_stop && ::read(conn, buf, sizeof buf) > 0) {
            }
            return;
        }
        const std::string out = "HTTP/1.1 " + std::to_string(reply.status) +
                                " X\r\nContent-Type: " + reply.type +
                                "\r\nContent-Length: " + std::to_string(reply.body.size()) +
                                "\r\nConnection: close\r\n\r\n" + reply.body;
        [[maybe_unused]] const ssize_t w = ::write(conn, out.data(), out.size());
    }

    static std::string lower(std::string s) {
        for (auto& c : s)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return s;
    }

    int m_fd = -1;
    std::string m_url;
    std::thread m_thread;
    std::atomic<bool> m_stop{false};
    std::mutex m_mutex;
    std::deque<Reply> m_replies;
    std::vector<Request> m_requests;
};

const std::string kOpenApi = R"({"openapi": "3.0.2", "paths": {"/openapi/v3": {},
 "/slurm/v0.0.36/ping": {}, "/slurm/v0.0.38/job/{job_id}": {}, "/slurm/v0.0.37/ping": {},
 "/slurm/v0.0.38/ping": {}}})";

ClusterConfig slurmCluster(const std::string& url) {
    ClusterConfig c;
    c.name = "hpc";
    c.kind = "slurm";
    c.slurm.url = url;
    c.workdir = "/shared/mlstudio";
    return c;
}

} // namespace

class TestSlurmClient : public QObject {
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

    void tokenFromFileOrVariable() {
        QTemporaryDir dir;
        SlurmSettings s;
        s.tokenFile = writeFile(dir, "token", "SLURM_JWT=eyJ.secret.part\n");
        QCOMPARE(readSlurmToken(s, "hpc"), std::string("eyJ.secret.part"));
        s.tokenFile = writeFile(dir, "bare", "  eyJ.bare  \n");
        QCOMPARE(readSlurmToken(s, "hpc"), std::string("eyJ.bare"));
        s.tokenFile = writeFile(dir, "empty", "SLURM_JWT=\n");
        try {
            readSlurmToken(s, "hpc");
            QFAIL("an empty token file was accepted");
        } catch (const std::runtime_error& e) {
            QVERIFY(std::string(e.what()).find("cluster hpc") != std::string::npos);
            QVERIFY(std::string(e.what()).find(s.tokenFile) != std::string::npos);
        }
        s.tokenFile = dir.path().toStdString() + "/missing";
        try {
            readSlurmToken(s, "hpc");
            QFAIL("a missing token file was accepted");
        } catch (const std::runtime_error& e) {
            QVERIFY(std::string(e.what()).find("cluster hpc: cannot read the token file " +
                                               s.tokenFile) != std::string::npos);
        }
        s.tokenFile.clear();
        s.tokenEnv = "STUDIO_TEST_SLURM_TOKEN";
        ::unsetenv("STUDIO_TEST_SLURM_TOKEN");
        try {
            readSlurmToken(s, "hpc");
            QFAIL("an unset variable was accepted");
        } catch (const std::runtime_error& e) {
            QVERIFY(std::string(e.what()).find("cluster hpc: the environment variable "
                                               "STUDIO_TEST_SLURM_TOKEN") != std::string::npos);
        }
        ::setenv("STUDIO_TEST_SLURM_TOKEN", "SLURM_JWT=eyJ.env", 1);
        QCOMPARE(readSlurmToken(s, "hpc"), std::string("eyJ.env"));
        ::unsetenv("STUDIO_TEST_SLURM_TOKEN");
        QCOMPARE(readSlurmToken(SlurmSettings{}, "hpc"), std::string());
    }

    // Every problem of a Slurm cluster names its field.
    void slurmClusterValidation_data() {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("error"); // "" when valid
        QTest::newRow("valid jwt") << ""
                                   << ""
                                   << "";
        QTest::newRow("https with prefix") << "url"
                                           << "https://rest.lab:443/api"
                                           << "";
        QTest::newRow("ipv6") << "url"
                              << "http://[fd00::1]:6820"
                              << "";
        QTest::newRow("socket, no token") << "url+notoken"
                                          << "unix:/run/slurmrestd.sock"
                                          << "";
        QTest::newRow("no url") << "url"
                                << ""
                                << "url:";
        QTest::newRow("ftp") << "url"
                             << "ftp://x:1"
                             << "url:";
        QTest::newRow("port") << "url"
                              << "http://x:70000"
                              << "url: \"http://x:70000\": the port";
        QTest::newRow("relative socket") << "url"
                                         << "unix:run/s.sock"
                                         << "url:";
        QTest::newRow("long socket") << "url" << QString("unix:/") + QString(120, 'a') << "url:";
        QTest::newRow("http without token") << "url+notoken"
                                            << "http://x:6820"
                                            << "token:";
        QTest::newRow("both tokens") << "token_env"
                                     << "SLURM_JWT"
                                     << "token:";
        QTest::newRow("relative token file") << "token_file"
                                             << "token"
                                             << "token_file:";
        QTest::newRow("bad variable") << "token_env+only"
                                      << "1X"
                                      << "token_env:";
        QTest::newRow("bad user") << "user"
                                  << "-u"
                                  << "user:";
        QTest::newRow("bad partition") << "partition"
                                       << "a b"
                                       << "partition:";
        QTest::newRow("bad account") << "account"
                                     << "a;b"
                                     << "account:";
        QTest::newRow("bad qos") << "qos"
                                 << "a\nb"
                                 << "qos:";
        QTest::newRow("api version") << "api_version"
                                     << "0.0.38"
                                     << "api_version:";
        QTest::newRow("no workdir") << "workdir"
                                    << ""
                                    << "workdir:";
        QTest::newRow("relative workdir") << "workdir"
                                          << ".mlstudio"
                                          << "workdir:";
        QTest::newRow("per-host workdir") << "workdir"
                                          << "/s/%h"
                                          << "workdir:";
        QTest::newRow("ssh hosts") << "hosts"
                                   << "a"
                                   << "hosts:";
        QTest::newRow("identity") << "identity"
                                  << "/k"
                                  << "identity:";
    }
    void slurmClusterValidation() {
        QFETCH(QString, field);
        QFETCH(QString, value);
        QFETCH(QString, error);
        ClusterConfig c = slurmCluster("http://127.0.0.1:6820");
        c.slurm.tokenFile = "/home/ana/.slurm-token";
        const std::string v = value.toStdString();
        if (field == "url") {
            c.slurm.url = v;
        } else if (field == "url+notoken") {
            c.slurm.url = v;
            c.slurm.tokenFile.clear();
        } else if (field == "token_env") {
            c.slurm.tokenEnv = v;
        } else if (field == "token_env+only") {
            c.slurm.tokenFile.clear();
            c.slurm.tokenEnv = v;
        } else if (field == "token_file") {
            c.slurm.tokenFile = v;
        } else if (field == "user") {
            c.slurm.user = v;
        } else if (field == "partition") {
            c.slurm.partition = v;
        } else if (field == "account") {
            c.slurm.account = v;
        } else if (field == "qos") {
            c.slurm.qos = v;
        } else if (field == "api_version") {
            c.slurm.apiVersion = v;
        } else if (field == "workdir") {
            c.workdir = v;
        } else if (field == "hosts") {
            c.hosts = {parseSshTarget(v)};
        } else if (field == "identity") {
            c.identityFile = v;
        }
        const auto errors = validateCluster(c);
        if (error.isEmpty()) {
            QVERIFY2(errors.empty(), errors.empty() ? "" : errors.front().c_str());
            return;
        }
        QCOMPARE(errors.size(), std::size_t(1));
        QVERIFY2(errors.front().rfind(error.toStdString(), 0) == 0, errors.front().c_str());
    }

    void slurmSettingsOnlyOnSlurmClusters() {
        ClusterConfig c;
        c.name = "lab";
        c.hosts = {parseSshTarget("a")};
        c.slurm.url = "http://x:1";
        const auto errors = validateCluster(c);
        QCOMPARE(errors.size(), std::size_t(1));
        QVERIFY(errors.front().rfind("slurm:", 0) == 0);
        c.kind = "pbs";
        QVERIFY(validateCluster(c).front().find("\"slurm\"") != std::string::npos);
    }

    // The stored form keeps where the token is, never a token.
    void slurmClusterJson() {
        ClusterConfig c = slurmCluster("https://rest.lab:6820");
        c.slurm.tokenEnv = "LAB_JWT";
        c.slurm.user = "ana";
        c.slurm.partition = "gpu";
        c.slurm.account = "ml";
        c.slurm.qos = "normal";
        c.slurm.apiVersion = "v0.0.38";
        c.installDir = "/opt/mlstudio/bin";
        ::setenv("LAB_JWT", "eyJ.never.stored", 1);
        const std::string text = clusterToJson(c);
        ::unsetenv("LAB_JWT");
        QVERIFY(text.find("eyJ") == std::string::npos);
        const json j = json::parse(text);
        QCOMPARE(j["slurm"]["token_env"], json("LAB_JWT"));
        const ClusterConfig back = clusterFromJson("hpc", text);
        QCOMPARE(back.kind, std::string("slurm"));
        QVERIFY(back.isSlurm());
        QVERIFY(back.slurm == c.slurm);
        QCOMPARE(back.workdir, c.workdir);
        QCOMPARE(back.installDir, c.installDir);
        QVERIFY(validateCluster(back).empty());
        // An SSH cluster's form has no slurm object.
        ClusterConfig ssh;
        ssh.name = "lab";
        ssh.hosts = {parseSshTarget("a")};
        QVERIFY(!json::parse(clusterToJson(ssh)).contains("slurm"));
    }

    void checkJsonRoundTrip() {
        SlurmCheck c;
        c.cluster = "hpc";
        c.time = 1795667475.5;
        c.url = "unix:/run/s.sock";
        c.auth = "local";
        c.serverVersions = {"v0.0.37", "v0.0.38"};
        c.version = "v0.0.38";
        c.release = "22.05.8";
        c.reachable = c.authenticated = true;
        c.ping = "UP";
        c.partitions = slurm::parsePartitions(json::parse(kPartitions));
        c.nodes = slurm::parseNodes(json::parse(kNodes));
        c.workdir = {"/shared", true, true, 42, "COMPLETED", "None", "n1", "nobody", 0.8};
        QVERIFY(c.ok());
        const SlurmCheck back = slurmCheckFromJson(slurmCheckToJson(c));
        QCOMPARE(back.cluster, c.cluster);
        QCOMPARE(back.time, c.time);
        QCOMPARE(back.serverVersions, c.serverVersions);
        QCOMPARE(back.version, c.version);
        QCOMPARE(back.release, c.release);
        QCOMPARE(back.partitions.size(), std::size_t(3));
        QCOMPARE(back.partitions[0].maxTimeMinutes, std::int64_t(-1));
        QCOMPARE(back.nodes[1].gres, std::string("gpu:tesla:2"));
        QCOMPARE(back.nodes[0].partitions, c.nodes[0].partitions);
        QCOMPARE(back.workdir.jobId, std::int64_t(42));
        QCOMPARE(back.workdir.node, std::string("n1"));
        QVERIFY(back.ok());
        c.error = "cluster hpc: x";
        c.errorKind = "auth";
        QVERIFY(!slurmCheckFromJson(slurmCheckToJson(c)).ok());
        QCOMPARE(slurmCheckFromJson(slurmCheckToJson(c)).errorKind, std::string("auth"));
        QCOMPARE(slurmCheckFromJson(R"({"cluster": "x", "hosts": []})").time, 0.0); // SSH form
        QCOMPARE(slurmCheckFromJson("not json").time, 0.0);
    }

    // The client over TCP with a JWT: the version it negotiates, the headers on every request,
    // the body of a submit, a cancel with a signal, and the errors of each kind.
    void clientOverTcp() {
        QTemporaryDir dir;
        RestStandIn server;
        ClusterConfig c = slurmCluster(server.url());
        c.slurm.tokenFile = writeFile(dir, "token", "SLURM_JWT=eyJ.tcp.token\n");
        c.slurm.user = "ana";
        SlurmClient client(c, 5);
        const std::string ok = std::string("{") + kMeta + R"(, "errors": [])";
        server.push(200, kOpenApi);
        server.push(200, ok + R"(, "pings": [{"hostname": "c", "ping": "UP"}]})");
        server.push(200, ok + R"(, "job_id": 77, "step_id": "BATCH"})");
        server.push(200, ok + R"(, "jobs": [)" + kJob38 + "]}");
        server.push(200, ok + "}");
        server.push(500,
                    errorsBody(R"([{"error_number": 2017, "error": "Invalid job id specified"}])"));
        server.push(500,
                    errorsBody(R"([{"error_number": 2017, "error": "Invalid job id specified"}])"));
        server.push(401, "Authentication failure", "text/plain");
        QCOMPARE(client.ping(), std::string()); // negotiates first
        QCOMPARE(client.version(), std::string("v0.0.38"));
        QCOMPARE(client.release(), std::string("22.05.8"));
        SlurmJobRequest job;
        job.script = "#!/bin/sh\ntrue\n";
        job.nodes = 2;
        QCOMPARE(client.submit(job), std::int64_t(77));
        const auto info = client.job(29);
        QVERIFY(info);
        QCOMPARE(info->exitCode(), std::optional<int>(75));
        client.cancel(29, "USR1");
        QVERIFY(!client.job(30)); // unknown: nothing
        try {
            client.cancel(30);
            QFAIL("cancel of an unknown job passed");
        } catch (const SlurmError& e) {
            QCOMPARE(e.kind(), SlurmError::Kind::NotFound);
        }
        try {
            client.partitions();
            QFAIL("a 401 passed");
        } catch (const SlurmError& e) {
            QCOMPARE(e.kind(), SlurmError::Kind::Auth);
            QVERIFY(std::string(e.what()).find("user ana") != std::string::npos);
            QVERIFY(std::string(e.what()).find("eyJ") == std::string::npos);
        }
        const auto seen = server.requests();
        QCOMPARE(seen.size(), std::size_t(8));
        const std::vector<std::pair<std::string, std::string>> want = {
            {"GET", "/openapi/v3"},
            {"GET", "/slurm/v0.0.38/ping"},
            {"POST", "/slurm/v0.0.38/job/submit"},
            {"GET", "/slurm/v0.0.38/job/29"},
            {"DELETE", "/slurm/v0.0.38/job/29?signal=USR1"},
            {"GET", "/slurm/v0.0.38/job/30"},
            {"DELETE", "/slurm/v0.0.38/job/30"},
            {"GET", "/slurm/v0.0.38/partitions"}};
        for (std::size_t i = 0; i < want.size(); ++i) {
            QCOMPARE(seen[i].method, want[i].first);
            QCOMPARE(seen[i].target, want[i].second);
            QCOMPARE(seen[i].headers.at("x-slurm-user-name"), std::string("ana"));
            QCOMPARE(seen[i].headers.at("x-slurm-user-token"), std::string("eyJ.tcp.token"));
        }
        QCOMPARE(seen[2].headers.at("content-type"), std::string("application/json"));
        QCOMPARE(json::parse(seen[2].body)["job"]["nodes"], json(2));
        QVERIFY_THROWS_EXCEPTION(SlurmError, client.cancel(1, "USR1&x=1"));
    }

    // Over a unix socket without a token: no JWT headers; the version is pinned.
    void clientOverUnixSocket() {
        QTemporaryDir dir;
        RestStandIn server(dir.path().toStdString() + "/rest.sock");
        ClusterConfig c = slurmCluster(server.url());
        c.slurm.apiVersion = "v0.0.37";
        SlurmClient client(c, 5);
        server.push(200, kOpenApi);
        server.push(200, std::string("{") + kMeta + R"(, "errors": [], "partitions": )" +
                             json::parse(kPartitions)["partitions"].dump() + "}");
        server.push(200, std::string("{") + kMeta + R"(, "errors": [], "nodes": )" +
                             json::parse(kNodes)["nodes"].dump() + "}");
        QCOMPARE(client.negotiate(), std::string("v0.0.37"));
        QCOMPARE(client.partitions().size(), std::size_t(3));
        QCOMPARE(client.nodes().size(), std::size_t(2));
        const auto seen = server.requests();
        QCOMPARE(seen.size(), std::size_t(3));
        QCOMPARE(seen[1].target, std::string("/slurm/v0.0.37/partitions"));
        QVERIFY(!seen[1].headers.count("x-slurm-user-token"));
        QVERIFY(!seen[1].headers.count("x-slurm-user-name"));
    }

    void clientVersionErrors() {
        RestStandIn server;
        ClusterConfig c = slurmCluster(server.url());
        c.slurm.tokenEnv = "STUDIO_TEST_SLURM_TOKEN";
        ::setenv("STUDIO_TEST_SLURM_TOKEN", "eyJ.v", 1);
        server.push(200, R"({"paths": {"/slurm/v0.0.39/ping": {}, "/slurm/v0.0.40/ping": {}}})");
        try {
            SlurmClient(c, 5).negotiate();
            QFAIL("no common version passed");
        } catch (const SlurmError& e) {
            QCOMPARE(e.kind(), SlurmError::Kind::Version);
            QCOMPARE(std::string(e.what()),
                     std::string("cluster hpc: slurmrestd serves v0.0.39, v0.0.40; this studio "
                                 "speaks v0.0.37, v0.0.38"));
        }
        c.slurm.apiVersion = "v0.0.99";
        server.push(200, kOpenApi);
        try {
            SlurmClient(c, 5).negotiate();
            QFAIL("v0.0.99 passed");
        } catch (const SlurmError& e) {
            QCOMPARE(e.kind(), SlurmError::Kind::Version);
            const std::string m = e.what();
            QVERIFY2(m.find("api_version v0.0.99") != std::string::npos, m.c_str());
            QVERIFY2(m.find("slurmrestd serves v0.0.36, v0.0.37, v0.0.38; this studio speaks "
                            "v0.0.37, v0.0.38") != std::string::npos,
                     m.c_str());
        }
        ::unsetenv("STUDIO_TEST_SLURM_TOKEN");
        try { // the variable is read at each request
            SlurmClient(c, 5).negotiate();
            QFAIL("an unset token variable passed");
        } catch (const SlurmError& e) {
            QCOMPARE(e.kind(), SlurmError::Kind::Auth);
            QVERIFY(std::string(e.what()).find("STUDIO_TEST_SLURM_TOKEN") != std::string::npos);
        }
    }

    void clientUnreachableAndTimeout() {
        int freePort = 0;
        {
            RestStandIn probe; // a port that was just free, now closed again
            freePort = std::stoi(probe.url().substr(probe.url().rfind(':') + 1));
        }
        ClusterConfig c = slurmCluster("http://127.0.0.1:" + std::to_string(freePort));
        c.slurm.tokenEnv = "STUDIO_TEST_SLURM_TOKEN";
        ::setenv("STUDIO_TEST_SLURM_TOKEN", "eyJ.unreachable", 1);
        try {
            SlurmClient(c, 5).serverVersions();
            QFAIL("a closed port answered");
        } catch (const SlurmError& e) {
            QCOMPARE(e.kind(), SlurmError::Kind::Unreachable);
            QVERIFY2(std::string(e.what()).find("cluster hpc: cannot reach slurmrestd at " +
                                                c.slurm.url) != std::string::npos,
                     e.what());
        }
        RestStandIn silent;
        silent.push(0, {});
        c.slurm.url = silent.url();
        QElapsedTimer t;
        t.start();
        try {
            SlurmClient(c, 0.5).serverVersions();
            QFAIL("a silent server answered");
        } catch (const SlurmError& e) {
            QCOMPARE(e.kind(), SlurmError::Kind::Unreachable);
            QVERIFY2(std::string(e.what()).find("did not answer within 0.5 s") != std::string::npos,
                     e.what());
        }
        QVERIFY(t.elapsed() < 3000);
        ::unsetenv("STUDIO_TEST_SLURM_TOKEN");
    }
};

QTEST_GUILESS_MAIN(TestSlurmClient)
#include "test_slurm_client.moc"
