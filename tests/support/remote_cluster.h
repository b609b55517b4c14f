// Helpers for the remote-run tests: a cluster of the netns fixture's SSH hosts saved in a
// studio home, bounded waits for jobs, and the processes left on a test host.
#pragma once

#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/process/process.h"
#include "engine/remote/cluster.h"
#include "engine/spec/spec_parser.h"
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"
#include "engine/wire/event.h"
#include "tests/support/netns_hosts.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <thread>

// Each host gets its own workdir (the namespaces share this machine's files): <root>/<address>.
inline studio::remote::ClusterConfig fixtureCluster(const studio::testing::NetnsHosts& hosts,
                                                    const std::string& name,
                                                    const std::string& workRoot) {
    studio::remote::ClusterConfig c;
    c.name = name;
    for (const auto& h : hosts.hosts())
        c.hosts.push_back(studio::remote::SshTarget{hosts.user(), h.address, 22});
    c.identityFile = hosts.identityFile();
    c.knownHostsFile = hosts.knownHostsFile();
    c.workdir = workRoot + "/%h";
    c.installDir = STUDIO_BIN_DIR;
    c.hostTimeoutSeconds = 120;
    return c;
}

inline void saveCluster(const std::string& dbPath, const studio::remote::ClusterConfig& c) {
    studio::store::StoreWriter w(dbPath);
    const double now = studio::wire::nowSeconds();
    w.saveCluster({c.name, c.kind, studio::remote::clusterToJson(c), now, now, ""});
}

// A folder every test user may write into, removed by the destructor.
struct SharedWorkRoot {
    std::string path;
    SharedWorkRoot() {
        path = "/tmp/mlstudio-rw-" + std::to_string(::getpid());
        std::filesystem::create_directories(path);
        std::filesystem::permissions(path, std::filesystem::perms(01777));
    }
    ~SharedWorkRoot() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
};

// Waits for the job to end; stops it (and fails) when it takes longer than `seconds`.
inline std::string waitForJob(studio::control::Controller& c, const std::string& job,
                              double seconds) {
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(static_cast<long>(seconds * 1000));
    while (true) {
        const auto running = c.runningJobs();
        if (std::find(running.begin(), running.end(), job) == running.end()) {
            const std::string status = c.wait(job);
            if (status != "Completed") { // the reason, for the test's log
                c.writer().flush();
                studio::store::StoreReader r(c.writer().path());
                if (auto row = r.component(job))
                    std::fprintf(stderr, "%s %s: %s\n", job.c_str(), status.c_str(),
                                 row->failureReason.c_str());
            }
            return status;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            c.stop(job, "the test's time limit");
            c.wait(job);
            return "TimedOut";
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

// Polls the store until pred(reader, row) holds; false after `seconds`.
template <typename Pred>
bool waitInStore(const std::string& dbPath, const std::string& job, double seconds, Pred pred) {
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(static_cast<long>(seconds * 1000));
    while (std::chrono::steady_clock::now() < deadline) {
        studio::store::StoreReader r(dbPath);
        if (auto row = r.component(job); row && pred(r, *row))
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
}

// A studio killed mid-run: `mlstudio run` of the spec (its script's folder as source_dir) with
// this home, SIGKILLed once a job whose name starts with `prefix` has stored `points` train:loss
// points. Returns that job's name ("" when none got there within `seconds`).
inline std::string runStudioThenKill(const std::string& home, std::string specText,
                                     const std::string& sourceDir, const std::string& prefix,
                                     std::size_t points, double seconds) {
    const std::string specPath = home + "/killed.json";
    specText.insert(1, "\"source_dir\": \"" + sourceDir + "\", ");
    std::ofstream(specPath) << specText;
    studio::process::SpawnOptions o;
    o.argv = {STUDIO_BIN_DIR "/mlstudio", "run", specPath, "-q"};
    o.env = studio::process::currentEnvironment();
    o.env["MLSTUDIO_HOME"] = home;
    studio::process::Process studio = studio::process::Process::spawn(o);
    const std::string db = studio::control::databasePath(home);
    std::string job;
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(static_cast<long>(seconds * 1000));
    while (job.empty() && std::chrono::steady_clock::now() < deadline) {
        studio::store::StoreReader r(db);
        studio::store::ComponentFilter f;
        f.status = "InProgress";
        for (const auto& row : r.components(f))
            if (row.name.rfind(prefix, 0) == 0 &&
                r.metricPoints(row.id, "train:loss").size() >= points)
                job = row.name;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    studio.signal(SIGKILL);
    studio.wait();
    return job;
}

inline std::string commandOf(int pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
    std::string comm;
    std::getline(in, comm);
    return comm;
}

// What runs on a test host besides sshd's own processes (a multiplexed SSH connection keeps
// its session process there while the studio's master connection lives).
inline std::vector<std::string> leftOnHost(const studio::testing::NetnsHosts& hosts, int host) {
    std::vector<std::string> left;
    for (int pid : hosts.processesIn(host))
        if (const std::string comm = commandOf(pid); !comm.empty() && comm != "sshd")
            left.push_back(std::to_string(pid) + " " + comm);
    return left;
}

// A whole file ("" when it cannot be read).
inline std::string readText(const std::string& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), {});
}

// The mpi4py example (resources/examples/mpi4py-allreduce.json, 2 nodes x 2 ranks) as job `name`
// on `cluster`; throws when it does not parse.
inline studio::spec::JobSpec mpiExampleOn(const std::string& cluster, const std::string& name) {
    const std::string dir = STUDIO_SOURCE_DIR "/resources/examples";
    std::ifstream in(dir + "/mpi4py-allreduce.json");
    nlohmann::json doc = nlohmann::json::parse(in);
    doc["name"] = name;
    doc["cluster"] = cluster;
    auto parsed = studio::spec::parseSpecText(doc.dump(), dir);
    if (!parsed.ok())
        throw std::runtime_error("mpi4py-allreduce.json: " + parsed.errors.front().text());
    return *parsed.spec;
}

// What is wrong with that example's finished job in jobDir ("" when nothing): every rank's log
// has its first round's sum over a world of 4, and every rank ran on its node's host, in that
// host's network namespace.
inline std::string mpiExampleProblems(const std::string& jobDir,
                                      const studio::testing::NetnsHosts& hosts) {
    for (int rank = 0; rank < 4; ++rank) {
        const std::string r = std::to_string(rank);
        const std::string text = readText(jobDir + "/logs/rank-" + r + ".log");
        if (text.find("rank " + r + " of 4: round=0 sum=6") == std::string::npos)
            return "rank " + r + "'s log lacks its first round:\n" + text;
        std::ifstream out(jobDir + "/output/rank-" + r + ".json");
        const auto seen = nlohmann::json::parse(out, nullptr, false);
        struct stat ns {};
        const std::string nsPath = "/run/netns/" + hosts.hosts()[rank / 2].ns;
        if (!seen.is_object() || ::stat(nsPath.c_str(), &ns) != 0 ||
            seen.value("netns", "") != "net:[" + std::to_string(ns.st_ino) + "]")
            return "rank " + r + " did not run in " + nsPath + ": " + seen.dump();
    }
    return {};
}
