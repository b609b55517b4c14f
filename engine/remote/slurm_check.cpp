#include "engine/remote/slurm_check.h"

#include "engine/remote/shell_quote.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <thread>

#include <unistd.h>

namespace studio::remote {

namespace {

namespace fs = std::filesystem;

double wallClock() {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

std::string authText(const SlurmClient& client) {
    const SlurmSettings& s = client.cluster().slurm;
    if (!s.tokenFile.empty())
        return "JWT for user " + client.userName() + " (token file " + s.tokenFile + ")";
    if (!s.tokenEnv.empty())
        return "JWT for user " + client.userName() + " (variable " + s.tokenEnv + ")";
    return "local (unix socket: the jobs run as slurmrestd's user)";
}

std::string markerName() {
    std::random_device random;
    char name[64];
    std::snprintf(name, sizeof name, ".mlstudio-check-%d-%08x", static_cast<int>(::getpid()),
                  static_cast<unsigned>(random()));
    return name;
}

bool markerVisible(const std::string& path, std::int64_t jobId) {
    std::ifstream in(path);
    std::string id;
    return in && std::getline(in, id) && id == std::to_string(jobId);
}

class WorkdirProbe {
public:
    WorkdirProbe(SlurmClient& client, const SlurmCheckOptions& o, SlurmCheck& c)
        : m_client(client)
        , m_options(o)
        , m_check(c)
        , m_w(c.workdir) {}

    void run();

private:
    void say(const std::string& line, bool waiting) {
        if (m_options.progress)
            m_options.progress(line, waiting);
    }
    void fail(const std::string& message) {
        m_check.error = "cluster " + m_check.cluster + ": " + message;
        m_check.errorKind = "workdir";
    }
    void follow(const std::string& marker);
    void see();
    void explain(const std::string& marker);

    SlurmClient& m_client;
    const SlurmCheckOptions& m_options;
    SlurmCheck& m_check;
    SlurmWorkdirCheck& m_w;
    std::optional<SlurmJobInfo> m_last;
};

void WorkdirProbe::run() {
    const ClusterConfig& cluster = m_client.cluster();
    m_w.path = cluster.workdir;
    std::error_code ec;
    if (!fs::is_directory(m_w.path, ec)) {
        fail("the workdir " + m_w.path +
             " is not a folder on this machine: the studio follows its jobs there; mount the "
             "cluster's shared filesystem at that path here (or create the folder)");
        return;
    }
    const std::string marker = (fs::path(m_w.path) / markerName()).string();
    SlurmJobRequest job;
    job.name = "mlstudio-check";
    job.script = "#!/bin/sh\nprintf '%s\\n' \"$SLURM_JOB_ID\" > " + shellQuote(marker) + "\n";
    job.partition = cluster.slurm.partition;
    job.account = cluster.slurm.account;
    job.qos = cluster.slurm.qos;
    job.timeLimitMinutes = 1;
    job.requeue = false;
    job.workingDirectory = m_w.path;
    job.standardOutput = "/dev/null";
    job.standardError = "/dev/null";
    job.environment = {{"PATH", "/usr/local/bin:/usr/bin:/bin"}};
    const double begin = wallClock();
    m_w.jobId = m_client.submit(job);
    m_w.tried = true;
    say("test job " + std::to_string(m_w.jobId) + " submitted: it writes a marker into " + m_w.path,
        false);
    follow(marker);
    m_w.seconds = wallClock() - begin;
    std::error_code ignored;
    fs::remove(marker, ignored);
    if (!m_w.visible)
        explain(marker);
}

// The job as Slurm describes it now.
void WorkdirProbe::see() {
    m_last = m_client.job(m_w.jobId);
    if (!m_last)
        return;
    m_w.jobState = m_last->state;
    m_w.reason = m_last->reason;
    if (!m_last->nodeNames.empty())
        m_w.node = m_last->nodeNames.front();
    else if (!m_last->batchHost.empty())
        m_w.node = m_last->batchHost;
    if (!m_last->userName.empty())
        m_w.jobUser = m_last->userName;
}

// Polls the job until its marker shows here, it ends, or the time is up (then cancels it).
void WorkdirProbe::follow(const std::string& marker) {
    const double deadline = wallClock() + m_options.jobTimeoutSeconds;
    double endedAt = 0;
    std::string shown;
    double shownAt = 0;
    while (true) {
        if (markerVisible(marker, m_w.jobId)) {
            m_w.visible = true;
            if (endedAt == 0)
                see(); // where it ran, when the marker came back before the job was seen running
            return;
        }
        const double now = wallClock();
        if (now > deadline)
            break;
        if (endedAt == 0) {
            see();
            if (!m_last || m_last->ended())
                endedAt = now; // a shared filesystem may show the file a moment later
            const std::string line =
                "test job " + std::to_string(m_w.jobId) + ": " +
                (m_last ? m_w.jobState + (m_w.reason.empty() || m_w.reason == "None"
                                              ? std::string()
                                              : " (" + m_w.reason + ")")
                        : std::string("gone from Slurm")) +
                (m_w.node.empty() ? std::string() : " on " + m_w.node);
            char elapsed[32];
            std::snprintf(elapsed, sizeof elapsed, ", %.0f s",
                          m_options.jobTimeoutSeconds - (deadline - now));
            if (line != shown || now - shownAt >= 5) {
                say(line + elapsed, true);
                shownAt = now;
            }
            shown = line;
        } else if (now - endedAt > 3) {
            return;
        }
        std::this_thread::sleep_for(std::chrono::duration<double>(m_options.pollSeconds));
    }
    try {
        m_client.cancel(m_w.jobId);
    } catch (const SlurmError&) {
        // It may have ended in the meantime; the report says what was seen.
    }
    char limit[32];
    std::snprintf(limit, sizeof limit, "%.0f", m_options.jobTimeoutSeconds);
    fail("the test job " + std::to_string(m_w.jobId) + " did not write its marker within " + limit +
         " s (last seen " + (m_w.jobState.empty() ? "nowhere" : m_w.jobState) +
         (m_w.reason.empty() || m_w.reason == "None" ? "" : ", reason " + m_w.reason) +
         "), so it was cancelled: check that the partition's nodes are up and idle (sinfo)");
}

void WorkdirProbe::explain(const std::string& marker) {
    if (!m_check.error.empty())
        return;
    const std::string where = m_w.node.empty() ? std::string() : " on " + m_w.node;
    const std::string who = m_w.jobUser.empty() ? "the job's user" : m_w.jobUser;
    const std::optional<int> code = m_last ? m_last->exitCode() : std::nullopt;
    if (m_last && (m_last->state != "COMPLETED" || (code && *code != 0))) {
        fail("the test job " + std::to_string(m_w.jobId) + " ended " + m_last->state + where +
             (code ? " with exit code " + std::to_string(*code) : std::string()) + ": " + who +
             " must be able to write into " + m_w.path +
             " there (the workdir must exist on the nodes, on the filesystem they share with "
             "this machine)");
        return;
    }
    fail("the test job " + std::to_string(m_w.jobId) + " wrote " + marker + where +
         ", but this machine does not see it: the workdir must be on a filesystem that this "
         "machine and the nodes share, at the same path");
}

} // namespace

std::string slurmErrorKindName(SlurmError::Kind kind) {
    switch (kind) {
    case SlurmError::Kind::Unreachable:
        return "unreachable";
    case SlurmError::Kind::Auth:
        return "auth";
    case SlurmError::Kind::Version:
        return "version";
    case SlurmError::Kind::Rejected:
        return "rejected";
    case SlurmError::Kind::NotFound:
        return "not_found";
    case SlurmError::Kind::Protocol:
        return "protocol";
    }
    return "protocol";
}

SlurmCheck checkSlurmCluster(const ClusterConfig& cluster, const SlurmCheckOptions& o) {
    SlurmCheck c;
    c.cluster = cluster.name;
    c.time = wallClock();
    c.url = cluster.slurm.url;
    SlurmClient client(cluster, o.requestTimeoutSeconds);
    c.auth = authText(client);
    const auto say = [&o](const std::string& line) {
        if (o.progress)
            o.progress(line, false);
    };
    try {
        c.serverVersions = client.serverVersions();
        c.reachable = true;
        c.version = client.negotiate();
        say("slurmrestd at " + c.url + " serves " +
            [&] {
                std::string v;
                for (const auto& s : c.serverVersions)
                    v += (v.empty() ? "" : ", ") + s;
                return v;
            }() +
            "; using " + c.version);
        const std::string ping = client.ping();
        c.release = client.release();
        c.authenticated = true;
        c.ping = ping.empty() ? "UP" : ping;
        say("Slurm " + c.release + ", controller " + c.ping + ", " + c.auth + ": accepted");
        if (!ping.empty()) {
            c.error = "cluster " + c.cluster + ": " + ping + "; is slurmctld running?";
            c.errorKind = "unreachable";
        } else {
            c.partitions = client.partitions();
            c.nodes = client.nodes();
            WorkdirProbe(client, o, c).run();
        }
    } catch (const SlurmError& e) {
        c.error = e.what();
        c.errorKind = slurmErrorKindName(e.kind());
        c.reachable = c.reachable || e.kind() != SlurmError::Kind::Unreachable;
    }
    if (c.release.empty())
        c.release = client.release();
    c.seconds = wallClock() - c.time;
    return c;
}

std::string slurmCheckToJson(const SlurmCheck& c) {
    using nlohmann::ordered_json;
    ordered_json partitions = ordered_json::array();
    for (const auto& p : c.partitions)
        partitions.push_back({{"name", p.name},
                              {"state", p.state},
                              {"default", p.isDefault},
                              {"total_nodes", p.totalNodes},
                              {"total_cpus", p.totalCpus},
                              {"nodes", p.nodes},
                              {"max_time_minutes", p.maxTimeMinutes}});
    ordered_json nodes = ordered_json::array();
    for (const auto& n : c.nodes)
        nodes.push_back({{"name", n.name},
                         {"address", n.address},
                         {"state", n.state},
                         {"cpus", n.cpus},
                         {"alloc_cpus", n.allocCpus},
                         {"memory_mb", n.memoryMb},
                         {"gres", n.gres},
                         {"partitions", n.partitions}});
    const SlurmWorkdirCheck& w = c.workdir;
    ordered_json j{{"cluster", c.cluster},
                   {"kind", "slurm"},
                   {"time", c.time},
                   {"ok", c.ok()},
                   {"error", c.error},
                   {"error_kind", c.errorKind},
                   {"url", c.url},
                   {"auth", c.auth},
                   {"api_versions_served", c.serverVersions},
                   {"api_version", c.version},
                   {"slurm_release", c.release},
                   {"reachable", c.reachable},
                   {"authenticated", c.authenticated},
                   {"ping", c.ping},
                   {"partitions", partitions},
                   {"nodes", nodes},
                   {"workdir",
                    {{"path", w.path},
                     {"tried", w.tried},
                     {"visible", w.visible},
                     {"job_id", w.jobId},
                     {"job_state", w.jobState},
                     {"reason", w.reason},
                     {"node", w.node},
                     {"job_user", w.jobUser},
                     {"seconds", w.seconds}}},
                   {"seconds", c.seconds}};
    return j.dump();
}

SlurmCheck slurmCheckFromJson(const std::string& text) {
    SlurmCheck c;
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object() || j.value("kind", "") != "slurm")
        return c;
    try {
        c.cluster = j.value("cluster", "");
        c.time = j.value("time", 0.0);
        c.error = j.value("error", "");
        c.errorKind = j.value("error_kind", "");
        c.url = j.value("url", "");
        c.auth = j.value("auth", "");
        c.serverVersions = j.value("api_versions_served", std::vector<std::string>{});
        c.version = j.value("api_version", "");
        c.release = j.value("slurm_release", "");
        c.reachable = j.value("reachable", false);
        c.authenticated = j.value("authenticated", false);
        c.ping = j.value("ping", "");
        for (const auto& p : j.value("partitions", nlohmann::json::array()))
            c.partitions.push_back({p.value("name", ""), p.value("state", ""),
                                    p.value("default", false), p.value("total_nodes", 0),
                                    p.value("total_cpus", 0), p.value("nodes", ""),
                                    p.value("max_time_minutes", std::int64_t{-1})});
        for (const auto& n : j.value("nodes", nlohmann::json::array()))
            c.nodes.push_back({n.value("name", ""), n.value("address", ""), n.value("state", ""),
                               n.value("cpus", 0), n.value("alloc_cpus", 0),
                               n.value("memory_mb", std::int64_t{0}), n.value("gres", ""),
                               n.value("partitions", std::vector<std::string>{})});
        const auto w = j.value("workdir", nlohmann::json::object());
        c.workdir.path = w.value("path", "");
        c.workdir.tried = w.value("tried", false);
        c.workdir.visible = w.value("visible", false);
        c.workdir.jobId = w.value("job_id", std::int64_t{0});
        c.workdir.jobState = w.value("job_state", "");
        c.workdir.reason = w.value("reason", "");
        c.workdir.node = w.value("node", "");
        c.workdir.jobUser = w.value("job_user", "");
        c.workdir.seconds = w.value("seconds", 0.0);
        c.seconds = j.value("seconds", 0.0);
    } catch (const std::exception&) {
        return SlurmCheck{};
    }
    return c;
}

} // namespace studio::remote
