// The Slurm REST client without Slurm: the token's file and variable, Slurm cluster definitions,
// the check's stored form, and the client itself against a loopback stand-in that speaks HTTP
// over TCP and over a unix socket. The replies' parsing is in test_slurm_api.
#include "engine/remote/cluster.h"
#include "engine/remote/slurm_api.h"
#include "engine/remote/slurm_check.h"
#include "engine/remote/slurm_client.h"
#include "tests/unit/slurm_replies.h"

#include "tests/support/plain_test.h"
#include "tests/support/temp_dir.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

using namespace studio;
using namespace studio::remote;
using namespace studio::remote::testing;
using nlohmann::json;
using studio::testing::nearly;

namespace {

std::string writeFile(const studio::testing::TempDir& dir, const std::string& name,
                      const std::string& text) {
    const std::string path = dir.filePath(name);
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

// A valid Slurm cluster with one field set to `value` (field names as in the table of
// slurmClusterValidation; "+notoken" drops the token file, "+only" keeps only the variable).
ClusterConfig clusterWith(const std::string& field, const std::string& v) {
    ClusterConfig c = slurmCluster("http://127.0.0.1:6820");
    c.slurm.tokenFile = "/home/ana/.slurm-token";
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
    return c;
}

} // namespace

TEST_CASE("tokenFromFileOrVariable") {
    studio::testing::TempDir dir;
    SlurmSettings s;
    s.tokenFile = writeFile(dir, "token", "SLURM_JWT=eyJ.secret.part\n");
    REQUIRE(readSlurmToken(s, "hpc") == std::string("eyJ.secret.part"));
    s.tokenFile = writeFile(dir, "bare", "  eyJ.bare  \n");
    REQUIRE(readSlurmToken(s, "hpc") == std::string("eyJ.bare"));
    s.tokenFile = writeFile(dir, "empty", "SLURM_JWT=\n");
    try {
        readSlurmToken(s, "hpc");
        FAIL("an empty token file was accepted");
    } catch (const std::runtime_error& e) {
        REQUIRE(std::string(e.what()).find("cluster hpc") != std::string::npos);
        REQUIRE(std::string(e.what()).find(s.tokenFile) != std::string::npos);
    }
    s.tokenFile = dir.path() + "/missing";
    try {
        readSlurmToken(s, "hpc");
        FAIL("a missing token file was accepted");
    } catch (const std::runtime_error& e) {
        REQUIRE(std::string(e.what()).find("cluster hpc: cannot read the token file " +
                                           s.tokenFile) != std::string::npos);
    }
    s.tokenFile.clear();
    s.tokenEnv = "STUDIO_TEST_SLURM_TOKEN";
    ::unsetenv("STUDIO_TEST_SLURM_TOKEN");
    try {
        readSlurmToken(s, "hpc");
        FAIL("an unset variable was accepted");
    } catch (const std::runtime_error& e) {
        REQUIRE(std::string(e.what()).find("cluster hpc: the environment variable "
                                           "STUDIO_TEST_SLURM_TOKEN") != std::string::npos);
    }
    ::setenv("STUDIO_TEST_SLURM_TOKEN", "SLURM_JWT=eyJ.env", 1);
    REQUIRE(readSlurmToken(s, "hpc") == std::string("eyJ.env"));
    ::unsetenv("STUDIO_TEST_SLURM_TOKEN");
    REQUIRE(readSlurmToken(SlurmSettings{}, "hpc") == std::string());
}

// Every problem of a Slurm cluster names its field.
TEST_CASE("slurmClusterValidation") {
    const struct {
        const char* row;
        std::string field, value;
        std::string error; // "" when valid
    } rows[] = {
        {"valid jwt", "", "", ""},
        {"https with prefix", "url", "https://rest.lab:443/api", ""},
        {"ipv6", "url", "http://[fd00::1]:6820", ""},
        {"socket, no token", "url+notoken", "unix:/run/slurmrestd.sock", ""},
        {"no url", "url", "", "url:"},
        {"ftp", "url", "ftp://x:1", "url:"},
        {"port", "url", "http://x:70000", "url: \"http://x:70000\": the port"},
        {"relative socket", "url", "unix:run/s.sock", "url:"},
        {"long socket", "url", "unix:/" + std::string(120, 'a'), "url:"},
        {"http without token", "url+notoken", "http://x:6820", "token:"},
        {"both tokens", "token_env", "SLURM_JWT", "token:"},
        {"relative token file", "token_file", "token", "token_file:"},
        {"bad variable", "token_env+only", "1X", "token_env:"},
        {"bad user", "user", "-u", "user:"},
        {"bad partition", "partition", "a b", "partition:"},
        {"bad account", "account", "a;b", "account:"},
        {"bad qos", "qos", "a\nb", "qos:"},
        {"api version", "api_version", "0.0.38", "api_version:"},
        {"no workdir", "workdir", "", "workdir:"},
        {"relative workdir", "workdir", ".mlstudio", "workdir:"},
        {"per-host workdir", "workdir", "/s/%h", "workdir:"},
        {"ssh hosts", "hosts", "a", "hosts:"},
        {"identity", "identity", "/k", "identity:"},
    };
    for (const auto& row : rows) {
        INFO("row: ", row.row);
        const auto errors = validateCluster(clusterWith(row.field, row.value));
        if (row.error.empty()) {
            REQUIRE_MESSAGE(errors.empty(), (errors.empty() ? "" : errors.front()));
            continue;
        }
        REQUIRE(errors.size() == std::size_t(1));
        REQUIRE_MESSAGE(errors.front().rfind(row.error, 0) == 0, errors.front());
    }
}

TEST_CASE("slurmSettingsOnlyOnSlurmClusters") {
    ClusterConfig c;
    c.name = "lab";
    c.hosts = {parseSshTarget("a")};
    c.slurm.url = "http://x:1";
    const auto errors = validateCluster(c);
    REQUIRE(errors.size() == std::size_t(1));
    REQUIRE(errors.front().rfind("slurm:", 0) == 0);
    c.kind = "pbs";
    REQUIRE(validateCluster(c).front().find("\"slurm\"") != std::string::npos);
}

// The stored form keeps where the token is, never a token.
TEST_CASE("slurmClusterJson") {
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
    REQUIRE(text.find("eyJ") == std::string::npos);
    const json j = json::parse(text);
    REQUIRE(j["slurm"]["token_env"] == json("LAB_JWT"));
    const ClusterConfig back = clusterFromJson("hpc", text);
    REQUIRE(back.kind == std::string("slurm"));
    REQUIRE(back.isSlurm());
    REQUIRE(back.slurm == c.slurm);
    REQUIRE(back.workdir == c.workdir);
    REQUIRE(back.installDir == c.installDir);
    REQUIRE(validateCluster(back).empty());
    // An SSH cluster's form has no slurm object.
    ClusterConfig ssh;
    ssh.name = "lab";
    ssh.hosts = {parseSshTarget("a")};
    REQUIRE(!json::parse(clusterToJson(ssh)).contains("slurm"));
}

TEST_CASE("checkJsonRoundTrip") {
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
    REQUIRE(c.ok());
    const SlurmCheck back = slurmCheckFromJson(slurmCheckToJson(c));
    REQUIRE(back.cluster == c.cluster);
    REQUIRE(back.time == nearly(c.time));
    REQUIRE(back.serverVersions == c.serverVersions);
    REQUIRE(back.version == c.version);
    REQUIRE(back.release == c.release);
    REQUIRE(back.partitions.size() == std::size_t(3));
    REQUIRE(back.partitions[0].maxTimeMinutes == std::int64_t(-1));
    REQUIRE(back.nodes[1].gres == std::string("gpu:tesla:2"));
    REQUIRE(back.nodes[0].partitions == c.nodes[0].partitions);
    REQUIRE(back.workdir.jobId == std::int64_t(42));
    REQUIRE(back.workdir.node == std::string("n1"));
    REQUIRE(back.ok());
    c.error = "cluster hpc: x";
    c.errorKind = "auth";
    REQUIRE(!slurmCheckFromJson(slurmCheckToJson(c)).ok());
    REQUIRE(slurmCheckFromJson(slurmCheckToJson(c)).errorKind == std::string("auth"));
    REQUIRE(slurmCheckFromJson(R"({"cluster": "x", "hosts": []})").time == nearly(0.0)); // SSH form
    REQUIRE(slurmCheckFromJson("not json").time == nearly(0.0));
}

// The client over TCP with a JWT: the version it negotiates, the headers on every request,
// the body of a submit, a cancel with a signal, and the errors of each kind.
TEST_CASE("clientOverTcp") {
    studio::testing::TempDir dir;
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
    REQUIRE(client.ping() == std::string()); // negotiates first
    REQUIRE(client.version() == std::string("v0.0.38"));
    REQUIRE(client.release() == std::string("22.05.8"));
    SlurmJobRequest job;
    job.script = "#!/bin/sh\ntrue\n";
    job.nodes = 2;
    REQUIRE(client.submit(job) == std::int64_t(77));
    const auto info = client.job(29);
    REQUIRE(info);
    REQUIRE(info->exitCode() == (std::optional<int>(75)));
    client.cancel(29, "USR1");
    REQUIRE(!client.job(30)); // unknown: nothing
    try {
        client.cancel(30);
        FAIL("cancel of an unknown job passed");
    } catch (const SlurmError& e) {
        REQUIRE(e.kind() == SlurmError::Kind::NotFound);
    }
    try {
        client.partitions();
        FAIL("a 401 passed");
    } catch (const SlurmError& e) {
        REQUIRE(e.kind() == SlurmError::Kind::Auth);
        REQUIRE(std::string(e.what()).find("user ana") != std::string::npos);
        REQUIRE(std::string(e.what()).find("eyJ") == std::string::npos);
    }
    const auto seen = server.requests();
    REQUIRE(seen.size() == std::size_t(8));
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
        REQUIRE(seen[i].method == want[i].first);
        REQUIRE(seen[i].target == want[i].second);
        REQUIRE(seen[i].headers.at("x-slurm-user-name") == std::string("ana"));
        REQUIRE(seen[i].headers.at("x-slurm-user-token") == std::string("eyJ.tcp.token"));
    }
    REQUIRE(seen[2].headers.at("content-type") == std::string("application/json"));
    REQUIRE(json::parse(seen[2].body)["job"]["nodes"] == json(2));
    REQUIRE_THROWS_AS(client.cancel(1, "USR1&x=1"), SlurmError);
}

// Over a unix socket without a token: no JWT headers; the version is pinned.
TEST_CASE("clientOverUnixSocket") {
    studio::testing::TempDir dir;
    RestStandIn server(dir.path() + "/rest.sock");
    ClusterConfig c = slurmCluster(server.url());
    c.slurm.apiVersion = "v0.0.37";
    SlurmClient client(c, 5);
    server.push(200, kOpenApi);
    server.push(200, std::string("{") + kMeta + R"(, "errors": [], "partitions": )" +
                         json::parse(kPartitions)["partitions"].dump() + "}");
    server.push(200, std::string("{") + kMeta + R"(, "errors": [], "nodes": )" +
                         json::parse(kNodes)["nodes"].dump() + "}");
    REQUIRE(client.negotiate() == std::string("v0.0.37"));
    REQUIRE(client.partitions().size() == std::size_t(3));
    REQUIRE(client.nodes().size() == std::size_t(2));
    const auto seen = server.requests();
    REQUIRE(seen.size() == std::size_t(3));
    REQUIRE(seen[1].target == std::string("/slurm/v0.0.37/partitions"));
    REQUIRE(!seen[1].headers.count("x-slurm-user-token"));
    REQUIRE(!seen[1].headers.count("x-slurm-user-name"));
}

TEST_CASE("clientVersionErrors") {
    RestStandIn server;
    ClusterConfig c = slurmCluster(server.url());
    c.slurm.tokenEnv = "STUDIO_TEST_SLURM_TOKEN";
    ::setenv("STUDIO_TEST_SLURM_TOKEN", "eyJ.v", 1);
    server.push(200, R"({"paths": {"/slurm/v0.0.39/ping": {}, "/slurm/v0.0.40/ping": {}}})");
    try {
        SlurmClient(c, 5).negotiate();
        FAIL("no common version passed");
    } catch (const SlurmError& e) {
        REQUIRE(e.kind() == SlurmError::Kind::Version);
        REQUIRE(std::string(e.what()) ==
                std::string("cluster hpc: slurmrestd serves v0.0.39, v0.0.40; this studio "
                            "speaks v0.0.37, v0.0.38"));
    }
    c.slurm.apiVersion = "v0.0.99";
    server.push(200, kOpenApi);
    try {
        SlurmClient(c, 5).negotiate();
        FAIL("v0.0.99 passed");
    } catch (const SlurmError& e) {
        REQUIRE(e.kind() == SlurmError::Kind::Version);
        const std::string m = e.what();
        REQUIRE_MESSAGE(m.find("api_version v0.0.99") != std::string::npos, m.c_str());
        REQUIRE_MESSAGE(m.find("slurmrestd serves v0.0.36, v0.0.37, v0.0.38; this studio speaks "
                               "v0.0.37, v0.0.38") != std::string::npos,
                        m.c_str());
    }
    ::unsetenv("STUDIO_TEST_SLURM_TOKEN");
    try { // the variable is read at each request
        SlurmClient(c, 5).negotiate();
        FAIL("an unset token variable passed");
    } catch (const SlurmError& e) {
        REQUIRE(e.kind() == SlurmError::Kind::Auth);
        REQUIRE(std::string(e.what()).find("STUDIO_TEST_SLURM_TOKEN") != std::string::npos);
    }
}

TEST_CASE("clientUnreachableAndTimeout") {
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
        FAIL("a closed port answered");
    } catch (const SlurmError& e) {
        REQUIRE(e.kind() == SlurmError::Kind::Unreachable);
        REQUIRE_MESSAGE(std::string(e.what()).find("cluster hpc: cannot reach slurmrestd at " +
                                                   c.slurm.url) != std::string::npos,
                        e.what());
    }
    RestStandIn silent;
    silent.push(0, {});
    c.slurm.url = silent.url();
    const auto started = std::chrono::steady_clock::now();
    try {
        SlurmClient(c, 0.5).serverVersions();
        FAIL("a silent server answered");
    } catch (const SlurmError& e) {
        REQUIRE(e.kind() == SlurmError::Kind::Unreachable);
        REQUIRE_MESSAGE(std::string(e.what()).find("did not answer within 0.5 s") !=
                            std::string::npos,
                        e.what());
    }
    REQUIRE(std::chrono::steady_clock::now() - started < std::chrono::seconds(3));
    ::unsetenv("STUDIO_TEST_SLURM_TOKEN");
}
