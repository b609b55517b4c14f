#include "engine/remote/slurm_client.h"

#include "engine/remote/slurm_api.h"

#include <curl/curl.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <regex>
#include <sstream>
#include <string_view>

#include <pwd.h>
#include <sys/wait.h>
#include <unistd.h>

namespace studio::remote {

namespace {

constexpr const char* kUnixPrefix = "unix:";

std::string trimmed(const std::string& s) {
    const auto begin = s.find_first_not_of(" \t\r\n");
    if (begin == std::string::npos)
        return {};
    return s.substr(begin, s.find_last_not_of(" \t\r\n") - begin + 1);
}

std::string withoutJwtPrefix(std::string token) {
    token = trimmed(token);
    constexpr std::string_view prefix = "SLURM_JWT=";
    if (token.compare(0, prefix.size(), prefix) == 0)
        token = trimmed(token.substr(prefix.size()));
    return token;
}

std::string processUserName() {
    if (const passwd* pw = ::getpwuid(::geteuid()); pw && pw->pw_name)
        return pw->pw_name;
    return "uid " + std::to_string(::geteuid());
}

std::size_t appendBody(char* data, std::size_t size, std::size_t n, void* out) {
    static_cast<std::string*>(out)->append(data, size * n);
    return size * n;
}

struct CurlDeleter {
    void operator()(CURL* h) const { curl_easy_cleanup(h); }
};
struct HeaderListDeleter {
    void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

bool contains(const std::vector<std::string>& list, const std::string& v) {
    return std::find(list.begin(), list.end(), v) != list.end();
}

} // namespace

const std::vector<std::string>& supportedSlurmApiVersions() {
    // v0.0.36 is left out on purpose: its errors carry no Slurm error numbers (a rejected
    // token reads as "unknown job" or "Invalid partition name"), its partitions have no
    // state and its nodes no partitions, and Slurm 22.05's plugin crashes slurmrestd on
    // some invalid requests.
    static const std::vector<std::string> versions = {"v0.0.37", "v0.0.38"};
    return versions;
}

bool SlurmJobInfo::ended() const {
    static const std::vector<std::string> final = {"COMPLETED", "FAILED",    "CANCELLED",
                                                   "TIMEOUT",   "NODE_FAIL", "PREEMPTED",
                                                   "BOOT_FAIL", "DEADLINE",  "OUT_OF_MEMORY"};
    return contains(final, state);
}

std::optional<int> SlurmJobInfo::exitCode() const {
    if (!ended() && state != "COMPLETING")
        return std::nullopt;
    const int status = rawExitCode;
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return std::nullopt;
}

int SlurmJobInfo::termSignal() const {
    if (!ended() && state != "COMPLETING")
        return 0;
    const int status = rawExitCode;
    return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

std::string readSlurmToken(const SlurmSettings& s, const std::string& clusterName) {
    const std::string who = "cluster " + clusterName + ": ";
    if (!s.tokenFile.empty()) {
        std::ifstream in(s.tokenFile, std::ios::binary);
        if (!in)
            throw std::runtime_error(who + "cannot read the token file " + s.tokenFile +
                                     " (--token-file): " + std::strerror(errno));
        std::ostringstream text;
        text << in.rdbuf();
        std::string token = withoutJwtPrefix(text.str());
        if (token.empty())
            throw std::runtime_error(who + "the token file " + s.tokenFile +
                                     " (--token-file) is empty: put a token there "
                                     "(`scontrol token` prints one)");
        return token;
    }
    if (!s.tokenEnv.empty()) {
        const char* value = std::getenv(s.tokenEnv.c_str());
        std::string token = value ? withoutJwtPrefix(value) : std::string();
        if (token.empty())
            throw std::runtime_error(who + "the environment variable " + s.tokenEnv +
                                     " (--token-env) is not set: export it with a token "
                                     "(`scontrol token` prints one)");
        return token;
    }
    return {};
}

struct SlurmClient::Response {
    slurm::Exchange exchange;
    nlohmann::json reply; // discarded when the body is not JSON
    bool tokenSent = false;
};

SlurmClient::SlurmClient(ClusterConfig cluster, double timeoutSeconds)
    : m_cluster(std::move(cluster))
    , m_timeout(timeoutSeconds) {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

SlurmClient::~SlurmClient() = default;

std::string SlurmClient::userName() const {
    return m_cluster.slurm.user.empty() ? processUserName() : m_cluster.slurm.user;
}

SlurmClient::Response SlurmClient::request(const std::string& method, const std::string& path,
                                           const std::string& body) {
    Response r;
    const std::string token = [&] {
        try {
            return readSlurmToken(m_cluster.slurm, m_cluster.name);
        } catch (const std::runtime_error& e) {
            throw SlurmError(SlurmError::Kind::Auth, e.what());
        }
    }();
    const std::string& url = m_cluster.slurm.url;
    std::unique_ptr<CURL, CurlDeleter> h(curl_easy_init());
    if (!h)
        throw SlurmError(SlurmError::Kind::Protocol,
                         "cluster " + m_cluster.name + ": libcurl could not start a request");
    std::string target;
    if (url.rfind(kUnixPrefix, 0) == 0) {
        // The host part is not used for routing over a unix socket.
        curl_easy_setopt(h.get(), CURLOPT_UNIX_SOCKET_PATH,
                         url.substr(std::strlen(kUnixPrefix)).c_str());
        target = "http://localhost" + path;
    } else {
        target = url;
        while (!target.empty() && target.back() == '/')
            target.pop_back();
        target += path;
    }
    curl_slist* list = curl_slist_append(nullptr, "Accept: application/json");
    if (method == "POST")
        list = curl_slist_append(list, "Content-Type: application/json");
    if (!token.empty()) {
        list = curl_slist_append(list, ("X-SLURM-USER-NAME: " + userName()).c_str());
        list = curl_slist_append(list, ("X-SLURM-USER-TOKEN: " + token).c_str());
        r.tokenSent = true;
    }
    std::unique_ptr<curl_slist, HeaderListDeleter> headers(list);
    char errorText[CURL_ERROR_SIZE] = {};
    curl_easy_setopt(h.get(), CURLOPT_URL, target.c_str());
    curl_easy_setopt(h.get(), CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(h.get(), CURLOPT_NOSIGNAL, 1L);
    // slurmrestd is on the site's network: an http_proxy of the environment must not carry
    // the token elsewhere.
    curl_easy_setopt(h.get(), CURLOPT_NOPROXY, "*");
    const long timeoutMs = std::max(1L, static_cast<long>(m_timeout * 1000));
    curl_easy_setopt(h.get(), CURLOPT_CONNECTTIMEOUT_MS, std::min(timeoutMs, 10000L));
    curl_easy_setopt(h.get(), CURLOPT_TIMEOUT_MS, timeoutMs);
    curl_easy_setopt(h.get(), CURLOPT_ERRORBUFFER, errorText);
    curl_easy_setopt(h.get(), CURLOPT_WRITEFUNCTION, appendBody);
    curl_easy_setopt(h.get(), CURLOPT_WRITEDATA, &r.exchange.body);
    // No CURLOPT_FAILONERROR: slurmrestd explains its 400 and 500 answers in the body.
    if (method == "POST") {
        curl_easy_setopt(h.get(), CURLOPT_POSTFIELDS, body.c_str());
        curl_easy_setopt(h.get(), CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
    } else if (method != "GET") {
        curl_easy_setopt(h.get(), CURLOPT_CUSTOMREQUEST, method.c_str());
    }
    const auto begin = std::chrono::steady_clock::now();
    const CURLcode rc = curl_easy_perform(h.get());
    r.exchange.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    if (rc != CURLE_OK) {
        r.exchange.curlError = errorText[0] ? errorText : curl_easy_strerror(rc);
        r.exchange.timedOut = rc == CURLE_OPERATION_TIMEDOUT;
        return r;
    }
    r.exchange.reached = true;
    curl_easy_getinfo(h.get(), CURLINFO_RESPONSE_CODE, &r.exchange.status);
    r.reply = nlohmann::json::parse(r.exchange.body, nullptr, false);
    if (const std::string release = slurm::parseRelease(r.reply); !release.empty())
        m_release = release;
    return r;
}

void SlurmClient::check(const Response& r, const std::string& what) const {
    if (r.exchange.reached && r.exchange.status == 200 && r.reply.is_object())
        return; // what errorOf would say, without parsing the reply again
    slurm::ErrorContext c;
    c.cluster = m_cluster.name;
    c.url = m_cluster.slurm.url;
    c.tokenSent = r.tokenSent;
    c.user = userName();
    c.what = what;
    c.timeoutSeconds = m_timeout;
    if (auto e = slurm::errorOf(r.exchange, c))
        throw *e;
}

std::string SlurmClient::apiPath(const std::string& rest) {
    if (m_version.empty())
        negotiate();
    return "/slurm/" + m_version + rest;
}

std::vector<std::string> SlurmClient::serverVersions() {
    const Response r = request("GET", "/openapi/v3");
    check(r, "the request for its OpenAPI document (/openapi/v3)");
    try {
        m_served = slurm::versionsFromOpenApi(r.exchange.body);
        return m_served;
    } catch (const std::runtime_error& e) {
        throw SlurmError(SlurmError::Kind::Protocol,
                         "cluster " + m_cluster.name + ": slurmrestd at " + m_cluster.slurm.url +
                             " served no usable /openapi/v3: " + e.what());
    }
}

std::string SlurmClient::negotiate() {
    const std::vector<std::string> served = m_served.empty() ? serverVersions() : m_served;
    const auto& ours = supportedSlurmApiVersions();
    const std::string both = "slurmrestd serves " + slurm::joinVersions(served) +
                             "; this studio speaks " + slurm::joinVersions(ours);
    const std::string& wanted = m_cluster.slurm.apiVersion;
    if (!wanted.empty()) {
        if (!contains(served, wanted) || !contains(ours, wanted))
            throw SlurmError(SlurmError::Kind::Version,
                             "cluster " + m_cluster.name + ": api_version " + wanted +
                                 " cannot be used: " + both +
                                 " (--api-version picks one of both, or leave it out)");
        m_version = wanted;
        return m_version;
    }
    for (auto it = ours.rbegin(); it != ours.rend(); ++it)
        if (contains(served, *it)) {
            m_version = *it;
            return m_version;
        }
    throw SlurmError(SlurmError::Kind::Version, "cluster " + m_cluster.name + ": " + both);
}

std::string SlurmClient::ping() {
    const Response r = request("GET", apiPath("/ping"));
    check(r, "the ping");
    return slurm::parsePing(r.reply);
}

std::vector<SlurmPartitionInfo> SlurmClient::partitions() {
    const Response r = request("GET", apiPath("/partitions"));
    check(r, "the request for its partitions");
    return slurm::parsePartitions(r.reply);
}

std::vector<SlurmNodeInfo> SlurmClient::nodes() {
    const Response r = request("GET", apiPath("/nodes"));
    check(r, "the request for its nodes");
    return slurm::parseNodes(r.reply);
}

std::int64_t SlurmClient::submit(const SlurmJobRequest& job) {
    std::string body;
    try {
        body = slurm::submitBody(job);
    } catch (const std::invalid_argument& e) {
        throw SlurmError(SlurmError::Kind::Rejected, "cluster " + m_cluster.name + ": " + e.what());
    }
    const std::string what = "the job" + (job.name.empty() ? std::string() : " " + job.name);
    const Response r = request("POST", apiPath("/job/submit"), body);
    check(r, what);
    const auto id = r.reply.find("job_id");
    if (id == r.reply.end() || !id->is_number_integer() || id->get<std::int64_t>() <= 0) {
        const auto errors = slurm::parseErrors(r.reply);
        throw SlurmError(
            SlurmError::Kind::Rejected,
            "cluster " + m_cluster.name + ": Slurm rejected " + what + ": " +
                (errors.empty() ? std::string("no job id came back") : errors.front().text()));
    }
    return id->get<std::int64_t>();
}

std::optional<SlurmJobInfo> SlurmClient::job(std::int64_t jobId) {
    const Response r = request("GET", apiPath("/job/" + std::to_string(jobId)));
    try {
        check(r, "job " + std::to_string(jobId));
    } catch (const SlurmError& e) {
        if (e.kind() == SlurmError::Kind::NotFound)
            return std::nullopt;
        throw;
    }
    for (auto& j : slurm::parseJobs(r.reply))
        if (j.jobId == jobId)
            return j;
    return std::nullopt;
}

std::vector<SlurmJobInfo> SlurmClient::jobs() {
    const Response r = request("GET", apiPath("/jobs"));
    check(r, "the request for its jobs");
    return slurm::parseJobs(r.reply);
}

void SlurmClient::cancel(std::int64_t jobId, const std::string& signal) {
    static const std::regex signalName("^[A-Z][A-Z0-9+]*$");
    if (!signal.empty() && !std::regex_match(signal, signalName))
        throw SlurmError(SlurmError::Kind::Rejected,
                         "cluster " + m_cluster.name + ": \"" + signal +
                             "\" is not a signal name (USR1, TERM, ...)");
    std::string path = apiPath("/job/" + std::to_string(jobId));
    if (!signal.empty())
        path += "?signal=" + signal;
    const Response r = request("DELETE", path);
    check(r, "job " + std::to_string(jobId));
}

} // namespace studio::remote
