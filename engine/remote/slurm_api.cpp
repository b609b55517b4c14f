#include "engine/remote/slurm_api.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <regex>
#include <set>
#include <stdexcept>

namespace studio::remote::slurm {

namespace {

using nlohmann::json;

// slurmctld answers a request it cannot authenticate at once; a controller that is down
// costs slurmrestd its connect retries first (about 10 s measured). Both come back as the
// same "Unspecified error", so the time tells them apart.
constexpr double kControllerRetrySeconds = 3;

// Slurm's "no limit" in 32-bit fields (INFINITE, NO_VAL) and the API's -1.
bool unlimited(std::int64_t v) {
    return v < 0 || v >= 0xfffffffeLL;
}

// A number that the API writes as a number, a numeric string (older schemas), or an object
// {"set": true, "number": N} (v0.0.39 and later); `fallback` for anything else.
std::int64_t integer(const json& j, const char* key, std::int64_t fallback = 0) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null())
        return fallback;
    if (it->is_number())
        return it->get<std::int64_t>();
    if (it->is_string()) {
        const std::string& s = it->get_ref<const std::string&>();
        try {
            std::size_t used = 0;
            const long long v = std::stoll(s, &used);
            return used == s.size() ? v : fallback;
        } catch (const std::exception&) {
            return fallback;
        }
    }
    if (it->is_object() && it->value("set", true) && it->contains("number"))
        return integer(*it, "number", fallback);
    return fallback;
}

std::string text(const json& j, const char* key) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null())
        return {};
    if (it->is_string())
        return it->get<std::string>();
    if (it->is_number())
        return it->dump();
    if (it->is_array() && !it->empty() && it->front().is_string()) // job_state in v0.0.40+
        return it->front().get<std::string>();
    return {};
}

std::vector<std::string> strings(const json& j, const char* key) {
    std::vector<std::string> out;
    const auto it = j.find(key);
    if (it == j.end() || !it->is_array())
        return out;
    for (const auto& v : *it)
        if (v.is_string())
            out.push_back(v.get<std::string>());
    return out;
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

const json& listIn(const json& reply, const char* key) {
    static const json empty = json::array();
    if (!reply.is_object())
        return empty;
    const auto it = reply.find(key);
    return it != reply.end() && it->is_array() ? *it : empty;
}

std::string joinTexts(const std::vector<ApiError>& errors) {
    std::vector<std::string> seen;
    std::string out;
    for (const auto& e : errors) {
        const std::string t = e.text();
        if (t.empty() || std::find(seen.begin(), seen.end(), t) != seen.end())
            continue;
        seen.push_back(t);
        out += (out.empty() ? "" : "; ") + t;
    }
    return out;
}

std::string oneLine(std::string s, std::size_t limit = 200) {
    std::replace_if(
        s.begin(), s.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
    while (!s.empty() && s.back() == ' ')
        s.pop_back();
    return s.size() > limit ? s.substr(0, limit) + "..." : s;
}

std::string tokenAdvice(const ErrorContext& c) {
    return "rejected the token for user " + c.user +
           ": check --token-file/--token-env, mint one with `scontrol token username=" + c.user +
           "`";
}

} // namespace

std::string ApiError::text() const {
    if (description.empty() || description == error)
        return error;
    if (error.empty())
        return description;
    return error + ": " + description;
}

std::vector<ApiError> parseErrors(const json& reply) {
    std::vector<ApiError> out;
    for (const auto& e : listIn(reply, "errors")) {
        if (!e.is_object())
            continue;
        ApiError a;
        for (const char* key : {"error_number", "error_code", "errno"})
            if (e.contains(key) && e[key].is_number()) {
                a.number = e[key].get<int>();
                break;
            }
        a.error = text(e, "error");
        a.description = text(e, "description");
        a.source = text(e, "source");
        out.push_back(std::move(a));
    }
    return out;
}

std::optional<SlurmError> errorOf(const Exchange& x, const ErrorContext& c) {
    using Kind = SlurmError::Kind;
    const std::string who = "cluster " + c.cluster + ": ";
    if (!x.reached) {
        if (x.timedOut) {
            char seconds[32];
            std::snprintf(seconds, sizeof seconds, "%g", c.timeoutSeconds);
            return SlurmError(Kind::Unreachable, who + "slurmrestd at " + c.url +
                                                     " did not answer within " + seconds + " s (" +
                                                     x.curlError +
                                                     "); is slurmrestd running, and slurmctld?");
        }
        return SlurmError(Kind::Unreachable, who + "cannot reach slurmrestd at " + c.url + ": " +
                                                 x.curlError + "; is slurmrestd running?");
    }
    if (x.status == 401) {
        if (c.tokenSent)
            return SlurmError(Kind::Auth, who + "slurmrestd at " + c.url + " " + tokenAdvice(c));
        if (c.url.rfind("unix:", 0) == 0)
            return SlurmError(Kind::Auth,
                              who + "slurmrestd at " + c.url +
                                  " refused this user: local authentication on its socket "
                                  "accepts only root and slurmrestd's own user; run as one of "
                                  "them, or give the cluster a JWT (--token-file/--token-env)");
        return SlurmError(Kind::Auth, who + "slurmrestd at " + c.url +
                                          " wants a JWT: give the cluster --token-file or "
                                          "--token-env (mint one with `scontrol token`)");
    }
    const json reply = json::parse(x.body, nullptr, false);
    const bool isJson = reply.is_object();
    if (x.status == 200 && isJson)
        return std::nullopt;
    if (!isJson)
        return SlurmError(
            Kind::Protocol,
            who + "slurmrestd at " + c.url + " answered HTTP " + std::to_string(x.status) + " to " +
                c.what + (x.body.empty() ? std::string(" with no body") : ": " + oneLine(x.body)));
    const std::vector<ApiError> errors = parseErrors(reply);
    const std::string said = joinTexts(errors);
    if (errors.empty())
        return SlurmError(Kind::Protocol, who + "slurmrestd at " + c.url + " answered HTTP " +
                                              std::to_string(x.status) + " to " + c.what +
                                              " without saying why");
    const auto has = [&](auto predicate) {
        return std::any_of(errors.begin(), errors.end(), predicate);
    };
    // slurmctld hangs up on a request whose token it rejects: "Zero Bytes were transmitted
    // or received" (5005), or -1 "Unspecified error" where slurmrestd lost the number.
    // (A refused request field is HTTP 400 and may carry -1 "Unspecified error" too.)
    if (x.status >= 500 &&
        (has([](const ApiError& e) { return e.number == 1800; }) || has([](const ApiError& e) {
             return e.number == 5005 || (e.number == -1 && e.error == "Unspecified error");
         }))) {
        if (c.tokenSent && x.seconds < kControllerRetrySeconds &&
            !has([](const ApiError& e) { return e.number == 1800; }))
            return SlurmError(Kind::Auth,
                              who + "Slurm " + tokenAdvice(c) + " (Slurm said: " + said + ")");
        return SlurmError(Kind::Unreachable, who + "slurmrestd at " + c.url +
                                                 " answers, but slurmctld did not (" + said +
                                                 "); is slurmctld running?");
    }
    if (has([](const ApiError& e) { return e.number == 2017; }))
        return SlurmError(Kind::NotFound,
                          who + "Slurm does not know " + c.what + " (" + said + ")");
    return SlurmError(Kind::Rejected, who + "Slurm rejected " + c.what + ": " + said);
}

std::vector<std::string> versionsFromOpenApi(const std::string& textIn) {
    const json doc = json::parse(textIn, nullptr, false);
    if (!doc.is_object() || !doc.contains("paths") || !doc["paths"].is_object())
        throw std::runtime_error("not an OpenAPI document (no \"paths\")");
    static const std::regex re("^/slurm/(v0\\.0\\.([0-9]+))/");
    std::set<std::pair<int, std::string>> found;
    for (const auto& [path, _] : doc["paths"].items()) {
        std::smatch m;
        if (std::regex_search(path, m, re))
            found.insert({std::stoi(m[2].str()), m[1].str()});
    }
    std::vector<std::string> out;
    for (const auto& [_, v] : found)
        out.push_back(v);
    return out;
}

std::string joinVersions(const std::vector<std::string>& versions) {
    std::string out;
    for (const auto& v : versions)
        out += (out.empty() ? "" : ", ") + v;
    return out.empty() ? "none" : out;
}

const std::vector<std::string>& studioJobFields() {
    static const std::vector<std::string> fields = {"name",
                                                    "nodes",
                                                    "tasks",
                                                    "tasks_per_node",
                                                    "cpus_per_task",
                                                    "time_limit",
                                                    "partition",
                                                    "account",
                                                    "qos",
                                                    "gres",
                                                    "constraints",
                                                    "exclusive",
                                                    "requeue",
                                                    "no_requeue",
                                                    "current_working_directory",
                                                    "standard_output",
                                                    "standard_error",
                                                    "environment"};
    return fields;
}

std::string submitBody(const SlurmJobRequest& r) {
    json job = json::object();
    const auto setText = [&job](const char* key, const std::string& v) {
        if (!v.empty())
            job[key] = v;
    };
    setText("name", r.name);
    setText("partition", r.partition);
    setText("account", r.account);
    setText("qos", r.qos);
    // An integer: the schema's [min, max] array was rejected ([n]) or silently gave 1 node.
    job["nodes"] = r.nodes;
    job["tasks"] = r.nodes * r.tasksPerNode;
    job["tasks_per_node"] = r.tasksPerNode;
    if (r.cpusPerTask > 0)
        job["cpus_per_task"] = r.cpusPerTask;
    if (r.timeLimitMinutes > 0)
        job["time_limit"] = r.timeLimitMinutes;
    setText("gres", r.gres); // per node; Slurm stores it as TresPerNode=gres:...
    setText("constraints", r.constraint);
    if (r.exclusive)
        job["exclusive"] = "exclusive"; // "true" is refused: "Invalid exclusive specification"
    // "requeue": false is accepted and ignored (Requeue stays 1); sbatch's --no-requeue works.
    if (r.requeue)
        job["requeue"] = true;
    else
        job["no_requeue"] = true;
    setText("current_working_directory", r.workingDirectory);
    setText("standard_output", r.standardOutput);
    setText("standard_error", r.standardError);
    // Required and an object; an empty one is refused ("environment must be set").
    json env = json::object();
    for (const auto& [k, v] : r.environment)
        env[k] = v;
    if (env.empty())
        env["PATH"] = "/usr/local/bin:/usr/bin:/bin";
    job["environment"] = env;
    const auto& own = studioJobFields();
    for (const auto& [key, value] : r.extraJson) {
        if (std::find(own.begin(), own.end(), key) != own.end())
            throw std::invalid_argument("extra job field \"" + key +
                                        "\": the studio sets it from the job's own settings");
        json v = json::parse(value, nullptr, false);
        if (v.is_discarded())
            throw std::invalid_argument("extra job field \"" + key + "\": not JSON: " + value);
        job[key] = std::move(v);
    }
    return json{{"script", r.script}, {"job", job}}.dump();
}

SlurmJobInfo parseJob(const json& j) {
    SlurmJobInfo s;
    s.jobId = integer(j, "job_id");
    s.name = text(j, "name");
    s.state = text(j, "job_state");
    s.reason = text(j, "state_reason");
    s.description = text(j, "state_description");
    s.rawExitCode = static_cast<int>(integer(j, "exit_code"));
    s.restartCount = static_cast<int>(integer(j, "restart_cnt"));
    s.submitTime = static_cast<double>(integer(j, "submit_time"));
    s.startTime = static_cast<double>(integer(j, "start_time"));
    s.endTime = static_cast<double>(integer(j, "end_time"));
    s.partition = text(j, "partition");
    s.nodes = text(j, "nodes");
    s.batchHost = text(j, "batch_host");
    s.userName = text(j, "user_name");
    // v0.0.38 names each allocated node; v0.0.37 keys them "0", "1", ... without names.
    if (const auto res = j.find("job_resources"); res != j.end() && res->is_object()) {
        const auto alloc = res->find("allocated_nodes");
        if (alloc != res->end() && alloc->is_array())
            for (const auto& n : *alloc)
                if (n.is_object() && n.contains("nodename"))
                    s.nodeNames.push_back(text(n, "nodename"));
    }
    if (s.nodeNames.empty() && !s.nodes.empty()) {
        try {
            s.nodeNames = expandHostlist(s.nodes);
        } catch (const std::invalid_argument&) {
            s.nodeNames = {s.nodes};
        }
    }
    return s;
}

std::vector<SlurmJobInfo> parseJobs(const json& reply) {
    std::vector<SlurmJobInfo> out;
    for (const auto& j : listIn(reply, "jobs"))
        if (j.is_object())
            out.push_back(parseJob(j));
    return out;
}

std::vector<SlurmPartitionInfo> parsePartitions(const json& reply) {
    std::vector<SlurmPartitionInfo> out;
    for (const auto& p : listIn(reply, "partitions")) {
        if (!p.is_object())
            continue;
        SlurmPartitionInfo s;
        s.name = text(p, "name");
        s.state = text(p, "state");
        for (const auto& f : strings(p, "flags"))
            if (lower(f) == "default")
                s.isDefault = true;
        s.totalNodes = static_cast<int>(integer(p, "total_nodes"));
        s.totalCpus = static_cast<int>(integer(p, "total_cpus"));
        s.nodes = text(p, "nodes");
        const std::int64_t max = integer(p, "max_time_limit", -1);
        s.maxTimeMinutes = unlimited(max) ? -1 : max;
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<SlurmNodeInfo> parseNodes(const json& reply) {
    std::vector<SlurmNodeInfo> out;
    for (const auto& n : listIn(reply, "nodes")) {
        if (!n.is_object())
            continue;
        SlurmNodeInfo s;
        s.name = text(n, "name");
        s.address = text(n, "address");
        s.state = lower(text(n, "state"));
        for (const auto& f : strings(n, "state_flags")) // "idle" + ["DRAIN"]: "idle+drain"
            s.state += "+" + lower(f);
        s.cpus = static_cast<int>(integer(n, "cpus"));
        s.allocCpus = static_cast<int>(integer(n, "alloc_cpus"));
        s.memoryMb = integer(n, "real_memory");
        s.gres = text(n, "gres");
        if (s.gres == "(null)")
            s.gres.clear();
        s.partitions = strings(n, "partitions");
        out.push_back(std::move(s));
    }
    return out;
}

std::string parsePing(const json& reply) {
    const json& pings = listIn(reply, "pings");
    if (pings.empty())
        return "no controller answered the ping";
    const std::string state = text(pings.front(), "ping");
    if (state == "UP")
        return {};
    return "slurmctld on " + text(pings.front(), "hostname") + " is " +
           (state.empty() ? std::string("not answering") : state);
}

std::string parseRelease(const json& reply) {
    if (!reply.is_object())
        return {};
    const auto meta = reply.find("meta");
    if (meta == reply.end() || !meta->is_object())
        return {};
    const auto slurm = meta->find("Slurm");
    if (slurm == meta->end() || !slurm->is_object())
        return {};
    return text(*slurm, "release");
}

namespace {

constexpr std::size_t kMaxHosts = 100000;

void expandInto(const std::string& item, std::vector<std::string>& out) {
    const auto open = item.find('[');
    if (open == std::string::npos) {
        if (item.find(']') != std::string::npos)
            throw std::invalid_argument("\"" + item + "\": ] without [");
        out.push_back(item);
        return;
    }
    const auto close = item.find(']', open);
    if (close == std::string::npos)
        throw std::invalid_argument("\"" + item + "\": [ without ]");
    const std::string prefix = item.substr(0, open);
    const std::string ranges = item.substr(open + 1, close - open - 1);
    std::vector<std::string> rests;
    expandInto(item.substr(close + 1), rests);
    std::size_t start = 0;
    while (start <= ranges.size()) {
        const auto comma = std::min(ranges.find(',', start), ranges.size());
        const std::string range = ranges.substr(start, comma - start);
        const auto dash = range.find('-');
        const std::string lo = range.substr(0, dash);
        const std::string hi = dash == std::string::npos ? lo : range.substr(dash + 1);
        const auto digits = [](const std::string& s) {
            return !s.empty() && s.size() < 10 &&
                   std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
        };
        if (!digits(lo) || !digits(hi) || std::stol(hi) < std::stol(lo))
            throw std::invalid_argument("\"" + item + "\": \"" + range + "\" is not a range");
        for (long i = std::stol(lo); i <= std::stol(hi); ++i) {
            std::string number = std::to_string(i);
            if (number.size() < lo.size()) // zero-padded to the width of the low end
                number.insert(0, lo.size() - number.size(), '0');
            for (const auto& rest : rests) {
                if (out.size() >= kMaxHosts)
                    throw std::invalid_argument("\"" + item + "\": too many hosts");
                out.push_back(prefix + number + rest);
            }
        }
        start = comma + 1;
    }
}

} // namespace

std::vector<std::string> expandHostlist(const std::string& list) {
    std::vector<std::string> out;
    std::size_t start = 0;
    int depth = 0;
    for (std::size_t i = 0; i <= list.size(); ++i) {
        if (i < list.size() && list[i] == '[')
            ++depth;
        else if (i < list.size() && list[i] == ']')
            --depth;
        if (i == list.size() || (list[i] == ',' && depth == 0)) {
            const std::string item = list.substr(start, i - start);
            if (!item.empty())
                expandInto(item, out);
            start = i + 1;
        }
    }
    return out;
}

} // namespace studio::remote::slurm
