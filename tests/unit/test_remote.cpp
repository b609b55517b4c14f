// The remote-execution core without a network: the quoting function that builds every remote
// command line (checked against real shells), SSH targets and cluster definitions, the ssh
// argv, the follower stream's framing, run state, host facts, and the store's clusters,
// journals, ownership and grouped commits.
#include "engine/control/follow_stream.h"
#include "engine/control/run_state.h"
#include "engine/control/slurm_script.h"
#include "engine/process/process.h"
#include "engine/remote/cluster.h"
#include "engine/remote/cluster_check.h"
#include "engine/remote/host_executor.h"
#include "engine/remote/host_facts.h"
#include "engine/remote/shell_quote.h"
#include "engine/remote/staging.h"
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"
#include "tests/support/plain_test.h"
#include "tests/support/read_to_end.h"
#include "tests/support/temp_dir.h"

#include <sys/stat.h>

#include <SQLiteCpp/Database.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace studio;
using studio::testing::nearly;

namespace {

// The words of text in which each word ends with a NUL.
std::vector<std::string> nulSeparated(const std::string& text) {
    std::vector<std::string> words;
    std::size_t start = 0;
    for (auto nul = text.find('\0'); nul != std::string::npos; nul = text.find('\0', start)) {
        words.push_back(text.substr(start, nul - start));
        start = nul + 1;
    }
    return words;
}

// What a shell passes to a program when it runs the quoted command line: one word per line,
// NUL-separated so newlines inside words survive.
std::vector<std::string> throughShell(const std::string& shell,
                                      const std::vector<std::string>& words) {
    std::vector<std::string> argv = {"/usr/bin/printf", "%s\\0"};
    argv.insert(argv.end(), words.begin(), words.end());
    process::SpawnOptions o;
    o.argv = {shell, "-c", remote::shellCommand(argv)};
    o.env = process::currentEnvironment();
    o.workdir = "/tmp";
    process::Process p = process::Process::spawn(o);
    const std::string out = readToEnd(p.stdoutFd());
    p.wait();
    return nulSeparated(out);
}

} // namespace

// A folder of the test's own for its files.
struct RemoteFiles {
    studio::testing::TempDir dir;
    std::string path(const char* name) const { return dir.filePath(name); }
};

TEST_CASE_FIXTURE(RemoteFiles, "quotesForEveryShell") {
    const std::string canary = path("pwned");
    const std::vector<std::string> words = {"plain",
                                            "",
                                            "it's",
                                            "'",
                                            "''",
                                            "\"double\"",
                                            "a; touch " + canary,
                                            "$(touch " + canary + ")",
                                            "`touch " + canary + "`",
                                            "${HOME}",
                                            "$HOME",
                                            "line1\nline2",
                                            "\n",
                                            "tab\there",
                                            "back\\slash\\",
                                            "*",
                                            "?",
                                            "[a]",
                                            "~",
                                            "~root",
                                            "-n",
                                            "--",
                                            "a b  c",
                                            "#comment",
                                            "!",
                                            "&&",
                                            "|",
                                            ">x",
                                            "<y",
                                            "(",
                                            ")",
                                            "{",
                                            "}",
                                            "../../etc/passwd",
                                            "\xc3\xa9\xe2\x82\xac",
                                            "\x01\x1f\x7f"};
    for (const char* shell : {"/bin/sh", "/bin/bash", "/bin/dash"}) {
        if (!std::filesystem::exists(shell))
            continue;
        INFO("row: ", shell);
        REQUIRE(throughShell(shell, words) == words);
        REQUIRE_MESSAGE(!std::filesystem::exists(canary), "the shell ran a quoted word");
    }
}

namespace {

void writeScript(const std::string& file, const std::string& text) {
    std::ofstream(file) << text;
    ::chmod(file.c_str(), 0755);
}

// Stand-ins in bin: scontrol names two nodes, the first at 10.9.0.1; srun writes its arguments,
// NUL-terminated, to argsFile.
void writeFakeSlurm(const std::string& bin, const std::string& argsFile) {
    writeScript(bin + "/scontrol", "#!/bin/sh\n"
                                   "case \"$2\" in hostnames) printf 'h1\\nh2\\n';;\n"
                                   "node) echo \"NodeName=$3 Arch=x86_64 NodeAddr=10.9.0.1 "
                                   "NodeHostName=x\";; esac\n");
    writeScript(bin + "/srun", "#!/bin/sh\nprintf '%s\\0' \"$@\" > " + argsFile + "\n");
}

// A two-node job whose folder, launcher path, hyperparameters and arguments are hostile words.
control::SlurmScriptInput hostileJob(const std::string& jobDir) {
    control::SlurmScriptInput in;
    in.jobName = "job-1";
    in.cluster = "hpc";
    in.jobDir = jobDir;
    in.nodes = 2;
    in.ranksPerNode = 2;
    in.firstAttempt = 1;
    in.launcherArgv = {"/opt/st dio/studio-launcher",
                       "--nnodes",
                       "2",
                       "--node-rank",
                       "0",
                       "--master-addr",
                       "slurm",
                       "--master-port",
                       "1",
                       "--hps",
                       R"x({"a":"$(touch /tmp/pwned)"})x",
                       "--journal",
                       "j",
                       "--detach",
                       "--env-stdin",
                       "--",
                       "python3",
                       "it's.py",
                       "--lr",
                       "`id`\n;"};
    return in;
}

// What srun gets for hostileJob in Slurm job 77, attempt 2: one launcher per node that meets
// the others at the first node's address.
std::vector<std::string> expectedSrunArgs(const control::SlurmScriptInput& in) {
    return {"--nodes=2",
            "--ntasks=2",
            "--ntasks-per-node=1",
            "--kill-on-bad-exit=1",
            "--output=" + in.jobDir + "/logs/node-%n/launcher.out",
            "--error=" + in.jobDir + "/logs/node-%n/launcher.err",
            "/opt/st dio/studio-launcher",
            "--slurm",
            "--nnodes",
            "2",
            "--master-addr",
            "10.9.0.1",
            "--master-port",
            std::to_string(control::slurmRendezvousPort(77, 1)),
            "--hps",
            R"x({"a":"$(touch /tmp/pwned)"})x",
            "--journal",
            in.jobDir + "/logs/node-%n/journal.2.jsonl",
            "--",
            "python3",
            "it's.py",
            "--lr",
            "`id`\n;"};
}

} // namespace

// The batch script runs under a real bash with stand-ins for scontrol and srun: srun gets
// every hostile word back byte for byte, the first node's address and the job's port.
TEST_CASE_FIXTURE(RemoteFiles, "slurmScriptThroughBash") {
    const std::string bin = path("fake-bin");
    std::filesystem::create_directories(bin);
    const std::string got = path("srun-args");
    writeFakeSlurm(bin, got);
    const control::SlurmScriptInput in = hostileJob(path("it's a $(dir)"));
    const std::string text = control::slurmBatchScript(in);
    REQUIRE(text.rfind("#!/bin/bash\n", 0) == 0);
    writeScript(path("job.sh"), text);
    process::SpawnOptions o;
    o.argv = {"/bin/bash", path("job.sh")};
    o.env = {{"PATH", bin + ":/usr/bin:/bin"},
             {"SLURM_JOB_NODELIST", "h[1-2]"},
             {"SLURM_JOB_ID", "77"},
             {"SLURM_RESTART_COUNT", "1"}};
    o.workdir = "/tmp";
    process::Process p = process::Process::spawn(o);
    const std::string out = readToEnd(p.stdoutFd());
    REQUIRE(p.wait().code == 0);
    REQUIRE_MESSAGE(out.find("rendezvous 10.9.0.1:" + std::to_string(control::slurmRendezvousPort(
                                                          77, 1))) != std::string::npos,
                    out.c_str());
    std::ifstream f(got);
    const std::string raw((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    REQUIRE(nulSeparated(raw) == expectedSrunArgs(in));
}

TEST_CASE("slurmJournalPaths") {
    REQUIRE(control::slurmJournalPath("/w", 1, 2) == std::string("/w/logs/node-1/journal.2.jsonl"));
    REQUIRE(control::slurmJournalPath("/w", 0, 1) == std::string("/w/logs/node-0/journal.jsonl"));
}

TEST_CASE("quotingIsSingleQuotes") {
    REQUIRE(remote::shellQuote("a'b") == std::string("'a'\\''b'"));
    REQUIRE(remote::shellQuote("") == std::string("''"));
    REQUIRE(remote::shellCommand({"prog", "x y"}) == std::string("exec 'prog' 'x y'"));
    REQUIRE_THROWS_AS(remote::shellCommand({"a", std::string("b\0c", 3)}), std::invalid_argument);
    REQUIRE_THROWS_AS(remote::shellCommand({}), std::invalid_argument);
}

TEST_CASE("sshTargets") {
    const struct {
        const char* row;
        std::string text, user, host;
        int port;
        std::string error; // a part of the message; "" when valid
    } rows[] = {
        {"host", "gpu1", "", "gpu1", 22, ""},
        {"user@host:port", "ana@10.0.0.2:2222", "ana", "10.0.0.2", 2222, ""},
        {"fqdn", "node-3.lab.example.org", "", "node-3.lab.example.org", 22, ""},
        {"ipv6", "[fd00::1]:2200", "", "fd00::1", 2200, ""},
        {"ipv6 no port", "u@[::1]", "u", "::1", 22, ""},
        {"option", "-oProxyCommand=x", "", "", 0, "not a host"},
        {"bad port", "h:99999", "", "", 0, "port"},
        {"empty port", "h:", "", "", 0, "port"},
        {"space", "a b", "", "", 0, "not a host"},
        {"bad user", "-x@h", "", "", 0, "user name"},
        {"semicolon", "h;id", "", "", 0, "not a host"},
        {"open bracket", "[::1", "", "", 0, "closing ]"},
    };
    for (const auto& row : rows) {
        INFO("row: ", row.row);
        if (!row.error.empty()) {
            try {
                remote::parseSshTarget(row.text);
                FAIL("accepted");
            } catch (const std::invalid_argument& e) {
                REQUIRE_MESSAGE(std::string(e.what()).find(row.error) != std::string::npos,
                                e.what());
                REQUIRE(std::string(e.what()).find(row.text) != std::string::npos);
            }
            continue;
        }
        const auto t = remote::parseSshTarget(row.text);
        REQUIRE(t.user == row.user);
        REQUIRE(t.host == row.host);
        REQUIRE(t.port == row.port);
        REQUIRE(remote::parseSshTarget(t.text()) == t); // text() round-trips
    }
}

TEST_CASE("clusterValidationNamesTheField") {
    remote::ClusterConfig c;
    c.name = "lab";
    REQUIRE(remote::validateCluster(c).front().rfind("hosts:", 0) == std::size_t(0));
    c.hosts = {remote::parseSshTarget("a"), remote::parseSshTarget("a")};
    c.socketIfname = "much-too-long-interface";
    c.hostTimeoutSeconds = 0;
    const auto errors = remote::validateCluster(c);
    REQUIRE(errors.size() == std::size_t(3));
    REQUIRE(errors[0].rfind("hosts: a is listed twice", 0) == 0);
    REQUIRE(errors[1].rfind("socket_ifname:", 0) == 0);
    REQUIRE(errors[2].rfind("host_timeout:", 0) == 0);
    c = remote::ClusterConfig{};
    c.name = "local";
    c.hosts = {remote::parseSshTarget("x")};
    REQUIRE(remote::validateCluster(c).front().find("built-in") != std::string::npos);
    c.name = "bad name";
    REQUIRE(remote::validateCluster(c).front().rfind("name:", 0) == 0);
}

TEST_CASE("clusterJsonAndWorkdirs") {
    remote::ClusterConfig c;
    c.name = "lab";
    c.hosts = {remote::parseSshTarget("ana@10.0.0.1"), remote::parseSshTarget("ana@10.0.0.2:2222")};
    c.identityFile = "/home/ana/.ssh/id_ed25519";
    c.workdir = "/scratch/%h/job-%n";
    c.installDir = "/opt/mlstudio/bin/";
    c.hostTimeoutSeconds = 90;
    const auto back = remote::clusterFromJson("lab", remote::clusterToJson(c));
    REQUIRE(back.hosts == c.hosts);
    REQUIRE(back.identityFile == c.identityFile);
    REQUIRE(back.hostTimeoutSeconds == nearly(90.0));
    REQUIRE(back.workdirFor(0) == std::string("/scratch/10.0.0.1/job-1"));
    REQUIRE(back.workdirFor(1) == std::string("/scratch/10.0.0.2/job-2"));
    REQUIRE(back.program("studio-train") == std::string("/opt/mlstudio/bin/studio-train"));
    REQUIRE(remote::localCluster().program("studio-launcher") == std::string("studio-launcher"));
    REQUIRE_THROWS_AS(remote::clusterFromJson("x", "not json"), std::runtime_error);
}

// Never a prompt, always a verified key, one multiplexed master, the command quoted once.
TEST_CASE("sshArgv") {
    remote::SshOptions o;
    o.identityFile = "/k";
    o.knownHostsFile = "/kh";
    o.controlDir = "/tmp/cm";
    remote::SshExecutor ssh(remote::parseSshTarget("ana@10.0.0.1:2222"), o);
    const auto argv = ssh.wrap({"studio-launcher", "a b", "it's"});
    const auto has = [&](const std::string& s) {
        return std::find(argv.begin(), argv.end(), s) != argv.end();
    };
    REQUIRE(has("BatchMode=yes"));
    REQUIRE(has("StrictHostKeyChecking=yes"));
    REQUIRE(has("UserKnownHostsFile=/kh"));
    REQUIRE(has("ControlMaster=auto"));
    REQUIRE(std::any_of(argv.begin(), argv.end(), [](const std::string& a) {
        return a.rfind("ControlPath=/tmp/cm/", 0) == 0 && a.size() == 20 + 8 + 3;
    }));
    REQUIRE(has("IdentitiesOnly=yes"));
    REQUIRE(argv[argv.size() - 3] == std::string("--"));
    REQUIRE(argv[argv.size() - 2] == std::string("10.0.0.1"));
    REQUIRE(argv.back() == std::string("exec 'studio-launcher' 'a b' 'it'\\''s'"));
    o.acceptNewHostKeys = true;
    const auto accept = remote::SshExecutor(remote::parseSshTarget("h"), o).wrap({"x"});
    REQUIRE(std::find(accept.begin(), accept.end(), "StrictHostKeyChecking=accept-new") !=
            accept.end());
    // Long homes get a short control folder: sun_path holds 108 bytes.
    const std::string longHome = "/tmp/" + std::string(120, 'h');
    const std::string shared = remote::controlDirectory(longHome);
    REQUIRE(shared.size() + 50 + 17 < 108);
    // Before: a name pre-made in /tmp by someone else (here a link) was used as it was.
    studio::testing::TempDir elsewhere;
    std::filesystem::remove_all(shared);
    std::filesystem::create_directory_symlink(elsewhere.path(), shared);
    const std::string fresh = remote::controlDirectory(longHome);
    std::filesystem::remove(shared);
    REQUIRE(fresh != shared);
    struct stat st {};
    REQUIRE(::lstat(fresh.c_str(), &st) == 0);
    REQUIRE((S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700 && st.st_uid == ::geteuid()));
    std::filesystem::remove_all(fresh);
}

TEST_CASE("followStreamFraming") {
    control::FollowStream s;
    using K = control::FollowItem::Kind;
    auto items = s.append("Welcome to the host!\n@@studio-follow 1 120\n{\"v\":1,\"ki");
    REQUIRE(items.size() == std::size_t(2));
    REQUIRE(items[0].kind == K::Noise); // a login shell's greeting
    REQUIRE(items[1].kind == K::Marker);
    REQUIRE(items[1].text == std::string("120"));
    items = s.append("nd\":\"log\"}\n#hb 17.5\n#gone\n#end\n#error no journal\nstray\n");
    REQUIRE(items.size() == std::size_t(6));
    REQUIRE(items[0].kind == K::Line);
    REQUIRE(items[0].text == std::string("{\"v\":1,\"kind\":\"log\"}"));
    REQUIRE(items[1].kind == K::Heartbeat);
    REQUIRE(items[2].kind == K::Gone);
    REQUIRE(items[3].kind == K::End);
    REQUIRE(items[4].kind == K::Error);
    REQUIRE(items[4].text == std::string("no journal"));
    REQUIRE(items[5].kind == K::Noise);
}

TEST_CASE("runStateRoundTrip") {
    control::RunState r;
    r.baseDir = "/specs";
    r.attempt = 3;
    r.jobStart = 100.5;
    r.trainingStarted = true;
    r.lastCheckpointStep = 400;
    r.secondary = "Training";
    const auto back = control::runStateFromJson(control::runStateToJson(r));
    REQUIRE(back.baseDir == r.baseDir);
    REQUIRE(back.attempt == 3);
    REQUIRE(back.jobStart == nearly(100.5));
    REQUIRE(back.trainingStarted);
    REQUIRE(back.lastCheckpointStep == std::int64_t(400));
    REQUIRE(back.secondary == std::string("Training"));
    REQUIRE(control::runStateFromJson("garbage").attempt == 1);
}

TEST_CASE("hostFactsAfterLoginNoise") {
    remote::HostFacts f;
    f.version = remote::launcherVersionLine();
    f.cores = 16;
    f.memoryBytes = 1 << 30;
    f.gpus = {{0, "NVIDIA H100", 80LL << 30}};
    f.sshServerAddress = "10.0.0.1";
    const auto back = remote::parseHostFacts("motd line\n" + remote::encodeHostFacts(f));
    REQUIRE(back);
    REQUIRE(back->cores == 16);
    REQUIRE(back->gpus.at(0).name == std::string("NVIDIA H100"));
    REQUIRE(back->sshServerAddress == std::string("10.0.0.1"));
    REQUIRE(!remote::parseHostFacts("no marker here"));
    REQUIRE(remote::findVersionLine("hello\n" + remote::launcherVersionLine() + "\n") ==
            remote::launcherVersionLine());
}

// The content hash changes with a byte, a name or a mode, never with the order of reading.
TEST_CASE_FIXTURE(RemoteFiles, "treeHashes") {
    const std::string dir = path("tree");
    std::filesystem::create_directories(dir + "/sub");
    std::ofstream(dir + "/a.py") << "print(1)\n";
    std::ofstream(dir + "/sub/b.txt") << "b";
    const std::string h1 = remote::treeHash(dir);
    REQUIRE(remote::treeHash(dir) == h1);
    std::ofstream(dir + "/sub/b.txt") << "c";
    const std::string h2 = remote::treeHash(dir);
    REQUIRE(h2 != h1);
    std::filesystem::permissions(dir + "/a.py", std::filesystem::perms(0755));
    REQUIRE(remote::treeHash(dir) != h2);
    const auto item = remote::planStage(dir + "/a.py", "/w/cache");
    REQUIRE(item.isFile);
    REQUIRE(item.remotePath() == item.remote + "/a.py");
    REQUIRE_THROWS_AS(remote::treeHash(path("missing")), std::runtime_error);
}

TEST_CASE("checkJsonRoundTrip") {
    remote::ClusterCheck c;
    c.cluster = "lab";
    c.time = 5;
    remote::HostCheck ok;
    ok.host = "a";
    ok.reachable = true;
    ok.version = "v";
    ok.facts.cores = 4;
    remote::HostCheck bad;
    bad.host = "b";
    bad.error = "host b: Connection refused";
    c.hosts = {ok, bad};
    const auto back = remote::clusterCheckFromJson(remote::clusterCheckToJson(c));
    REQUIRE(back.hosts.size() == std::size_t(2));
    REQUIRE(back.hosts[0].ok());
    REQUIRE(!back.hosts[1].ok());
    REQUIRE(back.hosts[1].error == bad.error);
    REQUIRE(!back.ok());
}

TEST_CASE_FIXTURE(RemoteFiles, "storeKeepsClustersAndJournals") {
    const std::string db = path("remote.db");
    store::StoreWriter w(db);
    w.saveCluster({"lab", "ssh", "{\"hosts\":[\"a\"]}", 10, 10, ""});
    w.saveCluster({"lab", "ssh", "{\"hosts\":[\"b\"]}", 20, 20, ""}); // replaces, keeps created
    w.setClusterCheck("lab", "{\"ok\":true}");
    store::NewComponent c;
    c.name = "job";
    c.created = 1;
    c.cluster = "lab";
    c.owner = "me";
    const auto id = w.createComponent(c);
    store::JournalRow j;
    j.node = 1;
    j.host = "ana@b";
    j.path = "/w/jobs/job/logs/node-1/journal.jsonl";
    j.launcherPid = 42;
    j.launcherStart = "999";
    w.upsertJournal(id, j);
    w.setJournalOffset(id, 1, 1234);
    w.setJournalState(id, 1, "reconnecting", 50, "host ana@b: lost");
    REQUIRE(!w.claimOwner(id, "someone-else", "thief"));
    REQUIRE(w.claimOwner(id, "me", "you"));
    w.flush();
    store::StoreReader r(db);
    const auto row = r.cluster("lab");
    REQUIRE(row);
    REQUIRE(row->created == nearly(10.0));
    REQUIRE(row->updated == nearly(20.0));
    REQUIRE(row->config == std::string("{\"hosts\":[\"b\"]}"));
    REQUIRE(row->lastCheck == std::string("{\"ok\":true}"));
    const auto comp = r.component("job");
    REQUIRE(comp->cluster == std::string("lab"));
    REQUIRE(comp->owner == std::string("you"));
    const auto journals = r.journals(id);
    REQUIRE(journals.size() == std::size_t(1));
    REQUIRE(journals[0].offset == std::int64_t(1234));
    REQUIRE(journals[0].state == std::string("reconnecting"));
    REQUIRE(journals[0].launcherStart == std::string("999"));
    REQUIRE(w.removeCluster("lab"));
    REQUIRE(!w.removeCluster("lab"));
    REQUIRE(r.clusters().empty());
}

// A group's writes commit in one transaction: a reader sees all of them or none.
TEST_CASE_FIXTURE(RemoteFiles, "groupsCommitTogether") {
    const std::string db = path("groups.db");
    store::StoreWriter w(db);
    store::NewComponent c;
    c.name = "g";
    c.created = 1;
    const auto id = w.createComponent(c);
    w.upsertJournal(id, store::JournalRow{});
    std::atomic<bool> done{false};
    std::atomic<int> torn{0};
    std::thread reader([&] {
        SQLite::Database rdb(db, SQLite::OPEN_READONLY);
        rdb.setBusyTimeout(5000);
        while (!done) {
            SQLite::Statement q(rdb, "SELECT (SELECT COUNT(*) FROM metric_points), "
                                     "(SELECT byte_offset FROM journals)");
            if (q.executeStep() && q.getColumn(0).getInt64() * 10 != q.getColumn(1).getInt64())
                ++torn;
        }
    });
    for (int chunk = 1; chunk <= 300; ++chunk) {
        w.beginGroup();
        for (int i = 0; i < 10; ++i)
            w.addMetric(id, "m", store::MetricPoint{chunk * 10 + i, 1.0, 0.5, 0, 0});
        w.setJournalOffset(id, 0, chunk * 100);
        w.endGroup();
    }
    w.flush();
    done = true;
    reader.join();
    REQUIRE(torn.load() == 0);
    // A waiting call inside a group queues the group first instead of waiting forever.
    w.beginGroup();
    w.addMetric(id, "m", store::MetricPoint{9999, 1.0, 0.5, 0, 0});
    w.flush();
    w.endGroup();
    store::StoreReader r(db);
    REQUIRE(r.metricPoints(id, "m").size() == std::size_t(3001));
}
