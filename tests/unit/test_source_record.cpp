// The controller's record of a job's code: per-file hashes and the copy of the source folder
// (git's own folder left out, large files hashed but not copied), and the git commit, branch and
// uncommitted diff of a real work tree made by the test with git(1).
#include "engine/control/source_record.h"
#include "engine/spec/spec_parser.h"

#include "tests/support/plain_test.h"
#include "tests/support/temp_dir.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace studio;
namespace fs = std::filesystem;

namespace {

void writeText(const std::string& path, const std::string& text) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

int git(const std::string& dir, const std::string& args) {
    const std::string cmd = "git -C '" + dir + "' -c user.name=t -c user.email=t@localhost " +
                            args + " >/dev/null 2>&1";
    return std::system(cmd.c_str());
}

spec::JobSpec scriptSpec(const std::string& dir) {
    nlohmann::json doc = {{"entry_point", "train.py"},
                          {"source_dir", dir},
                          {"environment", {{"WANDB_MODE", "offline"}}}};
    spec::ParseResult r = spec::parseSpecText(doc.dump(), dir);
    if (!r.ok())
        throw std::runtime_error(r.errors.front().path + ": " + r.errors.front().message);
    return *r.spec;
}

} // namespace

TEST_CASE("recordsFilesSnapshotAndGit") {
    testing::TempDir dir;
    const std::string src = dir.filePath("src");
    writeText(src + "/train.py", "lr = 0.1\nprint(lr)\n");
    writeText(src + "/data/big.bin", std::string(4096, 'x'));
    writeText(src + "/.venv-train/pyvenv.cfg", "home = /usr/bin\n"); // a virtual environment
    writeText(src + "/.venv-train/lib/site.py", "x = 1\n");
    REQUIRE(git(src, "init -q -b main") == 0);
    REQUIRE(git(src, "add -A") == 0);
    REQUIRE(git(src, "commit -q -m first") == 0);
    writeText(src + "/train.py", "lr = 0.2\nprint(lr)\n");
    writeText(src + "/notes.txt", "untracked\n");

    control::SourceLimits limits;
    limits.maxFileBytes = 1024; // big.bin is recorded by size and time, and not copied
    limits.maxCopyFileBytes = 1024;
    const auto r = control::recordSource(scriptSpec(src), dir.filePath("job/source"), limits);
    REQUIRE(r["entry_point"] == "train.py");
    REQUIRE(r["tree_hash"].get<std::string>().size() == std::size_t(64));
    REQUIRE(r["files"].contains("train.py"));
    REQUIRE(r["files"]["data/big.bin"].get<std::string>().rfind("size 4096, modified ", 0) == 0);
    REQUIRE(r["files"]["train.py"].get<std::string>().size() == std::size_t(64));
    REQUIRE(!r["files"].contains(".venv-train/lib/site.py"));
    REQUIRE(r["source_notes"].dump().find("left out .venv-train/") != std::string::npos);
    for (const auto& [name, sha] : r["files"].items())
        REQUIRE(name.rfind(".git", 0) != 0);
    REQUIRE(fs::exists(dir.filePath("job/source/train.py")));
    REQUIRE(!fs::exists(dir.filePath("job/source/data/big.bin")));
    REQUIRE(!fs::exists(dir.filePath("job/source/.git")));
    REQUIRE(r["snapshot_complete"] == false);
    REQUIRE(r["environment_names"] == nlohmann::json::array({"WANDB_MODE"}));
    REQUIRE(r.dump().find("offline") == std::string::npos); // names, never values
    const auto& g = r["git"];
    REQUIRE(g["branch"] == "main");
    REQUIRE(g["commit"].get<std::string>().size() == std::size_t(40));
    REQUIRE(g["dirty"] == true);
    REQUIRE(g["diff"].get<std::string>().find("+lr = 0.2") != std::string::npos);
    REQUIRE(g["untracked"] == "notes.txt");
}

TEST_CASE("noGitWorkTree") {
    testing::TempDir dir;
    writeText(dir.filePath("src/train.py"), "print(1)\n");
    const auto r = control::recordSource(scriptSpec(dir.filePath("src")), "");
    REQUIRE(r["git"].is_null());
    REQUIRE(!r.contains("snapshot"));
    REQUIRE(!r.contains("snapshot_complete"));
}

TEST_CASE("withoutCredentials") {
    REQUIRE(control::withoutCredentials("https://tok:x@github.com/a/b.git") ==
            "https://github.com/a/b.git");
    REQUIRE(control::withoutCredentials("https://github.com/a/b@c") == "https://github.com/a/b@c");
    REQUIRE(control::withoutCredentials("git@github.com:a/b.git") == "git@github.com:a/b.git");
}

// A command that names no file of its folder (the folder only holds the spec) leaves the folder
// alone; one that runs a script of it records it.
TEST_CASE("commandsRecordTheirFolderOnlyWhenTheyUseIt") {
    testing::TempDir dir;
    writeText(dir.filePath("src/scripts/train.py"), "print(1)\n");
    auto command = [&dir](nlohmann::json argv) {
        nlohmann::json doc = {{"entry_point", argv}, {"source_dir", dir.filePath("src")}};
        spec::ParseResult r = spec::parseSpecText(doc.dump(), dir.path());
        REQUIRE(r.ok());
        return control::recordSource(*r.spec, dir.filePath("job/source"));
    };
    const auto shell = command({"/bin/sh", "-c", "echo hi"});
    REQUIRE(!shell.contains("files"));
    REQUIRE(shell["source_note"].get<std::string>().find("not recorded") != std::string::npos);
    REQUIRE(!fs::exists(dir.filePath("job/source")));
    const auto python = command({"/usr/bin/python3", "scripts/train.py"});
    REQUIRE(python["files"].contains("scripts/train.py"));
    REQUIRE(fs::exists(dir.filePath("job/source/scripts/train.py")));
}
