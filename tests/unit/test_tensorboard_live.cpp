// TensorBoard while a job runs: the launcher's watch over scripts' own event files (which files,
// which rank, corrupt and foreign files) and the controller's live writer (layout, sessions, the
// series it leaves out, a folder it cannot write). Real files, written and read by engine/tboard.
#include "engine/control/placement.h"
#include "engine/control/tensorboard_live.h"
#include "engine/spec/spec_parser.h"
#include "launcher/rank_environment.h"
#include "launcher/tensorboard_watch.h"

#include "tests/support/plain_test.h"
#include "tests/support/temp_dir.h"

#include <csignal>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace studio;
using launcher::TensorboardWatch;
using testing::nearly;
namespace fs = std::filesystem;

namespace {

// A file of scalars (tag, step, value) written by this process, renamed to `name` when given
// (a name without a pid, or with another process's).
fs::path writeEvents(const fs::path& folder, const std::vector<tboard::ScalarPoint>& points,
                     const std::string& name = {}) {
    fs::path path;
    {
        tboard::EventFileWriter w(folder);
        for (const auto& p : points)
            w.addScalar(p);
        path = w.path();
    }
    if (name.empty())
        return path;
    fs::rename(path, folder / name);
    return folder / name;
}

std::map<int, std::vector<std::pair<std::int64_t, double>>>
byRank(const std::vector<launcher::WatchedScalar>& scalars, const std::string& tag) {
    std::map<int, std::vector<std::pair<std::int64_t, double>>> out;
    for (const auto& s : scalars)
        if (s.point.tag == tag)
            out[s.rank].emplace_back(s.point.step, s.point.value);
    return out;
}

// A child that sleeps until it is killed: a "worker" of a rank.
struct SleepingChild {
    pid_t pid = ::fork();
    SleepingChild() {
        if (pid == 0) {
            ::pause();
            ::_exit(0);
        }
    }
    ~SleepingChild() {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
    }
};

tboard::EventFileReader::Batch readAll(const fs::path& file) {
    tboard::EventFileReader r(file);
    tboard::EventFileReader::Batch all = r.poll();
    REQUIRE_MESSAGE(!r.failed(), r.error());
    return all;
}

} // namespace

TEST_CASE("watchReadsTheRanksNewFilesWithTheirRank") {
    testing::TempDir d;
    const fs::path tb = fs::path(d.path()) / "tb";
    writeEvents(tb / "earlier-run", {{"loss", 1, 100, 9}}); // there before the ranks started
    TensorboardWatch watch({tb, fs::path(d.path()) / "not-yet"}, 4);
    watch.setRankPids({{static_cast<long>(::getpid()), 5}});

    writeEvents(tb / "run", {{"loss", 1, 101, 0.5}, {"loss", 2, 102, 0.25}});
    writeEvents(tb / "node1-rank7", {{"loss", 1, 103, 7}}, "events.out.tfevents.103.host");
    writeEvents(tb / "x", {{"loss", 1, 104, 4}}, "events.out.tfevents.104.host.v2");
    {
        tboard::EventFileWriter studio(tb / "job", "mlstudio"); // the studio's own: never read
        studio.addScalar({"loss", 1, 105, 1});
    }
    TensorboardWatch::Update u = watch.poll();
    REQUIRE_MESSAGE(u.warnings.empty(), u.warnings.front());
    const auto loss = byRank(u.scalars, "loss");
    REQUIRE(loss.size() == std::size_t(3));
    REQUIRE(loss.at(5) == (std::vector<std::pair<std::int64_t, double>>{{1, 0.5}, {2, 0.25}}));
    REQUIRE(loss.at(7) == (std::vector<std::pair<std::int64_t, double>>{{1, 7}}));
    REQUIRE(loss.at(4) == (std::vector<std::pair<std::int64_t, double>>{{1, 4}}));
    REQUIRE(watch.filesRead() == std::size_t(3));
    for (const auto& s : u.scalars)
        REQUIRE(s.firstOfTag == (s.point.step == 1));
    for (const auto& s : u.scalars) // each point's time is its wall time in the file
        REQUIRE(s.point.wallTime == nearly(s.rank == 5   ? 100 + static_cast<double>(s.point.step)
                                           : s.rank == 7 ? 103
                                                         : 104));

    // What a file gains is read on the next poll, and nothing twice.
    {
        tboard::EventFileWriter w(tb / "run2");
        w.addScalar({"acc", 3, 107, 0.75});
        w.flush();
        u = watch.poll();
        REQUIRE(u.scalars.size() == std::size_t(1));
        REQUIRE(u.scalars[0].rank == 5);
        REQUIRE(u.scalars[0].firstOfTag);
        w.addScalar({"acc", 4, 108, 0.875});
        w.flush();
        u = watch.poll();
        REQUIRE(u.scalars.size() == std::size_t(1));
        REQUIRE(u.scalars[0].point.step == std::int64_t(4));
        REQUIRE(!u.scalars[0].firstOfTag);
    }
    REQUIRE(watch.poll(true).scalars.empty());
}

TEST_CASE("watchFollowsAWorkersParentsToItsRank") {
    testing::TempDir d;
    const fs::path tb = fs::path(d.path()) / "tb";
    TensorboardWatch watch({tb}, 0);
    watch.setRankPids({{static_cast<long>(::getpid()), 2}});
    SleepingChild worker;
    REQUIRE(launcher::parentPid(worker.pid) == static_cast<long>(::getpid()));
    writeEvents(tb, {{"loss", 1, 100, 3}},
                "events.out.tfevents.100.some.host." + std::to_string(worker.pid) + ".0");
    const auto u = watch.poll();
    REQUIRE(u.scalars.size() == std::size_t(1));
    REQUIRE(u.scalars[0].rank == 2);
}

TEST_CASE("watchSkipsFilesOfLiveProcessesThatAreNotTheJobs") {
    testing::TempDir d;
    const fs::path tb = fs::path(d.path()) / "shared";
    TensorboardWatch watch({tb}, 0);
    watch.setRankPids({{999999999L, 0}}); // no such process: this test is no rank's
    const fs::path file = writeEvents(tb, {{"loss", 1, 100, 3}});
    auto u = watch.poll();
    REQUIRE(u.scalars.empty());
    REQUIRE(u.warnings.size() == std::size_t(1));
    REQUIRE(u.warnings[0].find(file.string()) != std::string::npos);
    REQUIRE(u.warnings[0].find("no process of this job's ranks") != std::string::npos);
    REQUIRE(watch.poll().warnings.empty()); // said once
}

TEST_CASE("watchReadsACorruptFileUpToTheBadRecord") {
    testing::TempDir d;
    const fs::path tb = fs::path(d.path()) / "tb";
    TensorboardWatch watch({tb}, 3);
    const fs::path file =
        writeEvents(tb, {{"loss", 1, 100, 3}, {"loss", 2, 101, 2}}, "events.out.tfevents.100.host");
    const auto good = fs::file_size(file);
    {
        std::ofstream out(file, std::ios::app | std::ios::binary);
        out << "not a record header";
    }
    auto u = watch.poll();
    REQUIRE(byRank(u.scalars, "loss").at(3).size() == std::size_t(2));
    REQUIRE(u.warnings.size() == std::size_t(1));
    REQUIRE_MESSAGE(u.warnings[0].find(file.string()) != std::string::npos, u.warnings[0]);
    REQUIRE_MESSAGE(u.warnings[0].find("at byte " + std::to_string(good)) != std::string::npos,
                    u.warnings[0]);
    REQUIRE(watch.poll(true).warnings.empty());
}

TEST_CASE("rankFromFolders") {
    const fs::path root = "/data/tb";
    REQUIRE(*launcher::rankFromFolders(root / "rank3" / "f", root) == 3);
    REQUIRE(*launcher::rankFromFolders(root / "node1-rank12" / "train" / "f", root) == 12);
    REQUIRE(!launcher::rankFromFolders(root / "train" / "f", root));
    REQUIRE(!launcher::rankFromFolders(root / "cranky3" / "f", root));
    REQUIRE(!launcher::rankFromFolders(root / "rank" / "f", root));
    REQUIRE(!launcher::rankFromFolders(fs::path("/rank2/tb") / "f", "/rank2/tb")); // above root
    REQUIRE(launcher::parentPid(::getpid()) == static_cast<long>(::getppid()));
    REQUIRE(launcher::parentPid(999999999L) == 0);
}

TEST_CASE("ranksAreToldWhereToWrite") {
    launcher::LaunchConfig c;
    c.outputDataDir = "/jobs/j/output";
    auto env = launcher::rankEnvironment(c, 0, {}, {});
    REQUIRE(env.at("SM_TENSORBOARD_DIR") == std::string("/jobs/j/output/tensorboard"));
    c.tensorboardDir = "/home/u/tb";
    env = launcher::rankEnvironment(c, 0, {}, {});
    REQUIRE(env.at("SM_TENSORBOARD_DIR") == std::string("/home/u/tb"));

    auto parsed = spec::parseSpecText(
        R"({"entry_point": ["/bin/true"], "tensorboard_output_config": {"local_path": "/tb"}})",
        "/");
    REQUIRE(parsed.ok());
    const auto placement = control::placeJob(*parsed.spec, 29500);
    control::LaunchPaths paths;
    const auto argv =
        control::launcherArgv(*parsed.spec, placement, placement.nodes[0], "job-x", paths, 500, 10);
    const auto at = std::find(argv.begin(), argv.end(), "--tensorboard-dir");
    REQUIRE(at != argv.end());
    REQUIRE(*(at + 1) == std::string("/tb"));
}

TEST_CASE("liveWriterLayoutSessionsAndLeftOutSeries") {
    testing::TempDir d;
    const fs::path root = fs::path(d.path()) / "tb";
    auto parsed = spec::parseSpecText(
        R"({"entry_point": ["/bin/true"], "hyperparameters": {"lr": 0.5, "opt": "adam",
            "amp": true}})",
        "/");
    REQUIRE(parsed.ok());
    std::vector<std::string> reports;
    {
        control::TensorboardLive live(root, "job-1",
                                      control::hparamSession(*parsed.spec, "job-1", 1000),
                                      [&](const std::string& l) { reports.push_back(l); });
        REQUIRE(tboard::eventFilesIn(root / "job-1").size() == std::size_t(1)); // at once
        const auto metric = [&](int node, int rank, const std::string& tag, std::int64_t step,
                                double t, double v) {
            live.onEvent(wire::Event{t, node, rank, wire::MetricEvent{tag, step, v}});
        };
        wire::StatusEvent fromFiles;
        fromFiles.state = "tensorboard_tag";
        fromFiles.message = "script/loss";
        live.onEvent(wire::Event{1000, 0, 1, fromFiles});
        metric(0, 1, "loss", 1, 1001, 0.5);      // the first to report: job-1/
        metric(1, 2, "loss", 1, 1002, 0.25);     // a second (node, rank): its own folder
        metric(0, 1, "script/loss", 1, 1003, 9); // from the rank's own files: left out
        metric(1, 2, "script/loss", 1, 1004, 8); // another rank's series of that name: kept
        live.flush();
        const auto mid = readAll(tboard::eventFilesIn(root / "job-1").at(0));
        REQUIRE(mid.scalars.size() == std::size_t(1));
        REQUIRE(!mid.sessionEndStatus);
        live.finish("Completed", 1010);
    }
    REQUIRE(reports.empty());
    const auto files = tboard::eventFilesIn(root / "job-1");
    REQUIRE(files.size() == std::size_t(1));
    REQUIRE(files[0].filename().string().size() > 9);
    REQUIRE(files[0].extension() == ".mlstudio");
    const auto first = readAll(files[0]);
    REQUIRE(first.scalars.size() == std::size_t(1));
    REQUIRE(first.scalars[0].tag == std::string("loss"));
    REQUIRE(first.scalars[0].wallTime == nearly(1001));
    REQUIRE(first.session->groupName == std::string("job-1"));
    REQUIRE(std::get<double>(first.session->hparams.at("lr")) == nearly(0.5));
    REQUIRE(std::get<std::string>(first.session->hparams.at("opt")) == std::string("adam"));
    REQUIRE(std::get<bool>(first.session->hparams.at("amp")));
    REQUIRE(*first.sessionEndStatus == 1);
    const auto other = readAll(tboard::eventFilesIn(root / "job-1" / "node1-rank2").at(0));
    REQUIRE(other.scalars.size() == std::size_t(2));
    REQUIRE(other.scalars[1].tag == std::string("script/loss"));
    REQUIRE(*other.sessionEndStatus == 1);
}

TEST_CASE("liveWriterReportsAFolderItCannotWriteOnce") {
    testing::TempDir d;
    const fs::path root = fs::path(d.path()) / "a-file";
    std::ofstream(root) << "not a folder";
    std::vector<std::string> reports;
    control::TensorboardLive live(root, "job-2", {},
                                  [&](const std::string& l) { reports.push_back(l); });
    live.onEvent(wire::Event{1, 0, 0, wire::MetricEvent{"loss", 1, 0.5}});
    live.flush();
    live.finish("Failed", 2);
    REQUIRE(live.failed());
    REQUIRE(reports.size() == std::size_t(1));
    REQUIRE_MESSAGE(reports[0].find((root / "job-2").string()) != std::string::npos, reports[0]);
    REQUIRE(reports[0].find("the job goes on") != std::string::npos);
}
