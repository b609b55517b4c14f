// distribution.mpi as plain functions: which launcher a spec gets, custom_mpi_options split
// without a shell, mpirun's argv and host list, its tagged output put back into the ranks'
// lines, the rank shim's three messages, and the SSH configuration of mpirun's launch.
#include "engine/control/placement.h"
#include "engine/spec/mpi_launch.h"
#include "engine/spec/spec_parser.h"
#include "launcher/launch_config.h"
#include "launcher/mpi_wire.h"

#include "tests/support/plain_test.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <csignal>
#include <unistd.h>

using namespace studio;
using launcher::mpi::TaggedLine;
using launcher::mpi::TaggedOutput;

namespace {

spec::JobSpec parse(const nlohmann::json& doc) {
    auto r = spec::parseSpecText(doc.dump(), STUDIO_SOURCE_DIR);
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.errors.front().text()));
    return *r.spec;
}

nlohmann::json mpiSpec(const nlohmann::json& entry, const nlohmann::json& distribution) {
    return {{"entry_point", entry}, {"instance_count", 2}, {"distribution", distribution}};
}

std::string joined(const std::vector<TaggedLine>& lines) {
    std::string out;
    for (const auto& l : lines)
        out += std::to_string(l.rank) + (l.stream == wire::Stream::Stderr ? "e" : "o") + ":" +
               l.text + "|";
    return out;
}

} // namespace

TEST_CASE("rankLauncher: mpirun for a script with mpi and without torch_distributed") {
    const nlohmann::json mpi = {{"enabled", true}, {"processes_per_host", 2}};
    const auto script = parse(mpiSpec({"/usr/bin/python3", "x.py"}, {{"mpi", mpi}}));
    const auto l = spec::rankLauncher(script);
    CHECK(l.mpirun);
    CHECK(l.name == "mpirun");
    CHECK(l.reason.find("-np 4") != std::string::npos);
    const auto torch = parse(mpiSpec({"/usr/bin/python3", "x.py"},
                                     {{"mpi", mpi}, {"torch_distributed", {{"enabled", true}}}}));
    CHECK_FALSE(spec::rankLauncher(torch).mpirun);
    CHECK(spec::rankLauncher(torch).reason.find("torch_distributed") != std::string::npos);
    const auto builtin = parse({{"entry_point", "builtin:mlp"}, {"distribution", {{"mpi", mpi}}}});
    CHECK_FALSE(spec::rankLauncher(builtin).mpirun);
    CHECK(spec::rankLauncher(builtin).reason.find("built-in") != std::string::npos);
    const auto plain = parse({{"entry_point", {"/bin/true"}}});
    CHECK(spec::rankLauncher(plain).name == "torchrun");
}

TEST_CASE("splitMpiOptions: shell words without a shell") {
    using V = std::vector<std::string>;
    CHECK(*spec::splitMpiOptions("") == V{});
    CHECK(*spec::splitMpiOptions("  -x  NCCL_DEBUG=INFO ") == V{"-x", "NCCL_DEBUG=INFO"});
    CHECK(*spec::splitMpiOptions("--mca btl_vader_single_copy_mechanism none") ==
          V{"--mca", "btl_vader_single_copy_mechanism", "none"});
    CHECK(*spec::splitMpiOptions(R"(-x "A=b c" -x 'D=$(e)' f\ g "h\"i")") ==
          V{"-x", "A=b c", "-x", "D=$(e)", "f g", "h\"i"});
    CHECK(*spec::splitMpiOptions("a;touch /tmp/x `id` $(id)") ==
          V{"a;touch", "/tmp/x", "`id`", "$(id)"});
    CHECK(*spec::splitMpiOptions("''") == V{""});
    CHECK(*spec::splitMpiOptions(R"("\$x \a \\")") == V{"$x \\a \\"}); // as sh reads it
    std::string why;
    CHECK_FALSE(spec::splitMpiOptions("-x 'open", &why));
    CHECK(why.find("not closed") != std::string::npos);
    CHECK_FALSE(spec::splitMpiOptions("trailing\\", &why));
    CHECK(why.find("backslash") != std::string::npos);
    // The spec names the field when the text cannot be split.
    auto r = spec::parseSpecText(
        mpiSpec({"/bin/true"}, {{"mpi", {{"enabled", true}, {"custom_mpi_options", "-x \"A"}}}})
            .dump(),
        STUDIO_SOURCE_DIR);
    REQUIRE_FALSE(r.ok());
    CHECK(r.errors.front().text().find("distribution.mpi.custom_mpi_options") != std::string::npos);
}

TEST_CASE("TaggedOutput: mpirun's pieces back into each rank's lines") {
    TaggedOutput t;
    // As Open MPI 4.1 relays a pty's output: text and its newline may come in separate pieces.
    CHECK(joined(t.line("[1,0]<stdout>:rank 0 says hi")) == "0o:rank 0 says hi|");
    CHECK(
        joined(t.line("[1,1]<stdout>:rank 1 world 4[1,3]<stdout>:rank 3 world 4[1,1]<stdout>:")) ==
        "1o:rank 1 world 4|");
    CHECK(joined(t.line("[1,3]<stdout>:")) == "3o:rank 3 world 4|");
    CHECK(joined(t.line("[12,2]<stderr>:boom: [not a tag] [1,x]<stdout>:")) ==
          "2e:boom: [not a tag] [1,x]<stdout>:|");
    CHECK(joined(t.line("[1,5]<stddiag>:diag")) == "5e:diag|");
    // mpirun's own words are nobody's rank.
    CHECK(joined(t.line("mpirun detected that one or more processes exited")) ==
          "-1o:mpirun detected that one or more processes exited|");
    CHECK(joined(t.line("")) == "-1o:|");
    CHECK(joined(t.line("[1,2]<stdout>:half")) == "2o:half|");
    CHECK(joined(t.line("[1,2]<stdout>:start[1,0]<stdout>:x")) == "0o:x|");
    CHECK(joined(t.finish()) == "2o:start|");
}

TEST_CASE("mpirunArgv: one mpirun for the job, custom options before the program") {
    launcher::LaunchConfig c;
    c.nnodes = 2;
    c.nprocPerNode = 2;
    c.runId = "job-1";
    c.journal = "/jobs/job-1/logs/node-0/journal.jsonl";
    c.mpiArgs = {"-x", "A=$(id); touch /tmp/x"};
    launcher::mpi::MpirunPlan plan;
    plan.hosts = {"10.0.0.1", "10.0.0.2"};
    plan.self = "/opt/studio/studio-launcher";
    plan.sshConfig = "/jobs/cfg";
    const auto argv = launcher::mpi::mpirunArgv(c, plan);
    const std::vector<std::string> want = {"mpirun",
                                           "--tag-output",
                                           "-np",
                                           "4",
                                           "--host",
                                           "10.0.0.1:2,10.0.0.2:2",
                                           "--map-by",
                                           "slot",
                                           "--bind-to",
                                           "none",
                                           "--mca",
                                           "plm_rsh_agent",
                                           "ssh -F /jobs/cfg",
                                           "-x",
                                           "A=$(id); touch /tmp/x",
                                           "/opt/studio/studio-launcher",
                                           "mpi-rank",
                                           "--socket",
                                           "mlstudio-mpi/job-1/journal.jsonl",
                                           "--ppn",
                                           "2"};
    CHECK(argv == want);
    CHECK(launcher::mpi::hostList({"localhost", "localhost", "localhost"}, 2) == "localhost:6");
    CHECK(launcher::mpi::hostList({"a", "b", "a"}, 1) == "a:2,b:1");
    plan.asRoot = true;
    plan.slurm = true;
    plan.sshConfig.clear();
    const auto root = launcher::mpi::mpirunArgv(c, plan);
    CHECK(std::find(root.begin(), root.end(), "--allow-run-as-root") != root.end());
    CHECK(std::find(root.begin(), root.end(), "plm_slurm_args") != root.end());
    CHECK(std::find(root.begin(), root.end(), "ppr:2:node") != root.end());
    CHECK(std::find(root.begin(), root.end(), "--host") == root.end());
    CHECK(std::find(root.begin(), root.end(), "plm_rsh_agent") == root.end());
}

TEST_CASE("the rank shim's messages round-trip") {
    using namespace launcher::mpi;
    CHECK(parseHello(helloLine(7)) == 7);
    CHECK_FALSE(parseHello("{\"kind\":\"log\"}"));
    CHECK_FALSE(parseHello("not json"));
    RankSetup s;
    s.env = {{"RANK", "3"}, {"SM_HPS", "{\"a\": \"b\\nc\"}"}};
    s.argv = {"/usr/bin/python3", "it's $(x).py"};
    s.workdir = "/w";
    s.cpus = {0, 1};
    const auto back = parseSetup(setupLine(s));
    REQUIRE(back);
    CHECK(back->env == s.env);
    CHECK(back->argv == s.argv);
    CHECK(back->cpus == s.cpus);
    CHECK(back->error.empty());
    const RankEnd end{process::ExitStatus{-1, SIGTERM}, {"Traceback", "ValueError: x"}};
    const auto e = parseExit(exitLine(end));
    REQUIRE(e);
    CHECK(e->status.signal == SIGTERM);
    CHECK(e->stderrTail == end.stderrTail);
    // A rank's own event is never taken for the shim's exit line.
    CHECK_FALSE(parseExit(R"({"v":1,"kind":"metric","name":"studio_mpi_exit"})"));
}

TEST_CASE("the launcher's mpi flags") {
    auto c = launcher::parseLaunchArgs({"--nnodes", "2", "--mpi", "--mpi-host", "a", "--mpi-host",
                                        "b", "--mpi-arg=--mca", "--mpi-arg=x", "--", "/bin/true"});
    CHECK(c.mpi);
    CHECK(c.mpiHosts == std::vector<std::string>{"a", "b"});
    CHECK(c.mpiArgs == std::vector<std::string>{"--mca", "x"});
    CHECK_THROWS_WITH_AS(launcher::parseLaunchArgs({"--mpi-host", "a", "--", "/bin/true"}),
                         doctest::Contains("need --mpi"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(
        launcher::parseLaunchArgs({"--nnodes", "2", "--mpi", "--mpi-host", "a", "--", "x"}),
        doctest::Contains("--mpi-host given 1 times for 2 nodes"), std::invalid_argument);
}

TEST_CASE("abstract sockets: a second listener is refused, peers are known") {
    using namespace launcher::mpi;
    const std::string name = "mlstudio-test/" + std::to_string(::getpid());
    auto a = listenAbstract(name);
    CHECK_THROWS_WITH_AS(listenAbstract(name), doctest::Contains("another launcher"),
                         std::runtime_error);
    auto client = connectAbstract(name);
    REQUIRE(client.valid());
    const auto peer = peerOf(client.get());
    REQUIRE(peer);
    CHECK(peer->uid == ::geteuid());
    CHECK_FALSE(connectAbstract(name + "-nobody").valid());
}

TEST_CASE("mpiSshConfig: the cluster's hosts, ports, users, identity and known hosts") {
    remote::ClusterConfig c;
    c.name = "lab";
    c.hosts = {{"alice", "10.0.0.1", 22}, {"", "gpu-2", 2222}};
    c.identityFile = "/home/a/.ssh/id lab";
    c.knownHostsFile = "/home/a/known";
    const std::string cfg = control::mpiSshConfig(c);
    CHECK(cfg.find("Host 10.0.0.1\n  Port 22\n  User alice\n") != std::string::npos);
    CHECK(cfg.find("Host gpu-2\n  Port 2222\n") != std::string::npos);
    CHECK(cfg.find("IdentityFile \"/home/a/.ssh/id lab\"\n") != std::string::npos);
    CHECK(cfg.find("UserKnownHostsFile /home/a/known\n") != std::string::npos);
    CHECK(cfg.find("BatchMode yes") != std::string::npos);
    c.identityFile = "/x\"y";
    CHECK_THROWS_WITH_AS(control::mpiSshConfig(c), doctest::Contains("cluster lab: identity"),
                         std::runtime_error);
}

TEST_CASE("launcherArgv: the mpi flags of a script job") {
    auto spec = parse(mpiSpec({"/usr/bin/python3", "x.py"},
                              {{"mpi",
                                {{"enabled", true},
                                 {"processes_per_host", 2},
                                 {"custom_mpi_options", "-x 'A=1; rm -rf /' --mca b c"}}}}));
    const control::Placement p = control::placeJob(spec, 29500);
    control::LaunchPaths paths;
    paths.launcher = "studio-launcher";
    control::NodeLaunch l = control::localLaunch(spec, paths);
    CHECK(l.mpi);
    const auto argv = control::launcherArgv(spec, p, p.nodes[0], "j", l, 0, 5);
    const auto has = [&](const std::string& a) {
        return std::find(argv.begin(), argv.end(), a) != argv.end();
    };
    CHECK(has("--mpi"));
    CHECK(has("--mpi-arg=-x"));
    CHECK(has("--mpi-arg=A=1; rm -rf /"));
    CHECK(has("--mpi-arg=--mca"));
    // What the launcher parses back is the same words.
    std::vector<std::string> args(argv.begin() + 1, argv.end());
    const auto c = launcher::parseLaunchArgs(args);
    CHECK(c.mpiArgs == std::vector<std::string>{"-x", "A=1; rm -rf /", "--mca", "b", "c"});
}
