// A full disk, on a small tmpfs of the test's own (root): the reserve beside the database gives
// room to record how jobs ended, the launcher's journal keeps room for its node's ending, and a
// job's log stops at its last whole line, saying why.
#include "engine/control/log_sink.h"
#include "engine/store/disk_reserve.h"
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"
#include "launcher/journal_space.h"
#include "tests/support/tmpfs_mount.h"

#include "tests/support/plain_test.h"
#include "tests/support/temp_dir.h"

#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sys/stat.h>
#include <unistd.h>

using namespace studio;

namespace {

std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), {});
}

} // namespace

// A folder of the test's own; a fresh tmpfs on it for the tests that fill a disk.
struct DiskFull {
    studio::testing::TempDir dir;
    std::unique_ptr<TmpfsMount> disk;

    // False (and the test skips) when the test cannot mount one.
    bool mountDisk(const char* size) {
        disk = std::make_unique<TmpfsMount>(dir.path(), size);
        return disk->mounted();
    }
};

TEST_CASE_FIXTURE(DiskFull, "reserveIsMadeOnlyWithRoom") {
    if (!mountDisk("32m")) {
        MESSAGE("skipped: needs root to mount a small tmpfs");
        return;
    }
    const std::string path = disk->dir() + "/studio.db.reserve";
    {
        store::DiskReserve r(path);
        REQUIRE(r.held());
        struct stat st {};
        REQUIRE(::stat(path.c_str(), &st) == 0);
        REQUIRE((st.st_mode & 0777) == 0600u);
        REQUIRE(st.st_blocks * 512 >= store::DiskReserve::kBytes); // allocated, not sparse
        REQUIRE(r.release());
        REQUIRE(!r.release()); // once
        REQUIRE(!std::filesystem::exists(path));
    }
    disk->fill(); // nearly full: a reserve would take the room it is meant to give
    store::DiskReserve none(path);
    REQUIRE(!none.held());
    REQUIRE(!std::filesystem::exists(path));
}

// The batch that meets the full disk is lost and reported; the reserve goes, and the status
// written after it is committed.
TEST_CASE_FIXTURE(DiskFull, "reserveRecordsTheEnding") {
    if (!mountDisk("32m")) {
        MESSAGE("skipped: needs root to mount a small tmpfs");
        return;
    }
    const std::string db = disk->dir() + "/studio.db";
    std::vector<store::WriteError> errors;
    std::mutex m;
    store::StoreWriter w(db);
    w.setErrorHandler([&](const store::WriteError& e) {
        std::lock_guard lock(m);
        errors.push_back(e);
    });
    store::NewComponent c;
    c.name = "fills-the-disk";
    const store::ComponentId id = w.createComponent(c);
    REQUIRE(std::filesystem::exists(db + ".reserve"));
    disk->fill();
    const std::string big(4000, 'x');
    for (int batch = 0; batch < 200; ++batch) {
        for (int i = 0; i < 50; ++i)
            w.setTag(id, "t" + std::to_string(batch * 50 + i), big);
        w.flush();
        std::lock_guard lock(m);
        if (!errors.empty())
            break;
    }
    {
        std::lock_guard lock(m);
        REQUIRE((!errors.empty() && errors.front().batchLost));
        REQUIRE_MESSAGE(errors.front().message.find("full") != std::string::npos,
                        errors.front().message.c_str());
        errors.clear();
    }
    REQUIRE(!std::filesystem::exists(db + ".reserve"));
    w.setStatus(id, "Failed", "Failed", "the disk is full", 1.0);
    w.setFailureReason(id, "the disk is full");
    w.flush();
    {
        std::lock_guard lock(m);
        REQUIRE_MESSAGE(errors.empty(), (errors.empty() ? "" : errors.front().message.c_str()));
    }
    store::StoreReader reader(db);
    const auto job = reader.component("fills-the-disk");
    REQUIRE(job.has_value());
    REQUIRE(job->status == std::string("Failed"));
    REQUIRE(job->failureReason == std::string("the disk is full"));
}

// Allocation ahead: once it cannot grow, make() says so, and the room kept for the ending
// still takes kKept bytes.
TEST_CASE_FIXTURE(DiskFull, "journalKeepsRoomForTheEnding") {
    if (!mountDisk("4m")) {
        MESSAGE("skipped: needs root to mount a small tmpfs");
        return;
    }
    const std::string path = disk->dir() + "/journal.jsonl";
    const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    REQUIRE(fd >= 0);
    launcher::JournalSpace space(fd);
    REQUIRE(space.protects());
    const std::string line(1000, 'a');
    REQUIRE(space.make(line.size()));
    REQUIRE(::write(fd, line.data(), line.size()) == (static_cast<ssize_t>(line.size())));
    space.wrote(line.size());
    disk->fill();
    // Grow until the allocation cannot: at most 300 KiB more fit in what was allocated.
    int writes = 0;
    while (space.make(line.size()) && writes < 1000) {
        REQUIRE(::write(fd, line.data(), line.size()) == (static_cast<ssize_t>(line.size())));
        space.wrote(line.size());
        ++writes;
    }
    REQUIRE(space.full());
    REQUIRE(writes < 1000);
    const std::string ending(launcher::JournalSpace::kKept, 'e');
    REQUIRE(::write(fd, ending.data(), ending.size()) == (static_cast<ssize_t>(ending.size())));
    ::close(fd);
}

// A log that cannot even be created is a failed write too, never a silent drop.
TEST_CASE_FIXTURE(DiskFull, "aLogThatCannotBeCreatedIsAnError") {
    control::LogSink sink(dir.filePath("no-such-folder"));
    sink.write(1.0, 0, 0, wire::Stream::Stdout, "lost");
    REQUIRE_MESSAGE(sink.error().find("rank-0.log: No such file or directory") != std::string::npos,
                    sink.error().c_str());
    REQUIRE(sink.droppedLines() == std::int64_t(1));
}

TEST_CASE_FIXTURE(DiskFull, "logStopsAtItsLastWholeLine") {
    if (!mountDisk("1m")) {
        MESSAGE("skipped: needs root to mount a small tmpfs");
        return;
    }
    control::LogSink sink(disk->dir());
    const std::string text(200, 'l');
    int written = 0;
    for (; written < 20000 && sink.error().empty(); ++written) {
        sink.write(1.0, 0, 0, wire::Stream::Stdout, text);
        if (written % 16 == 0)
            sink.flush();
    }
    sink.flush();
    REQUIRE_MESSAGE(sink.error().find("rank-0.log: No space left on device") != std::string::npos,
                    sink.error().c_str());
    sink.write(2.0, 0, 0, wire::Stream::Stdout, "after the disk filled");
    REQUIRE(sink.droppedLines() == std::int64_t(1));
    const std::string log = readAll(disk->dir() + "/rank-0.log");
    REQUIRE(!log.empty());
    REQUIRE(log.back() == '\n');
    REQUIRE((static_cast<std::int64_t>(log.size())) == sink.files().front().bytes);
    REQUIRE(log.find("after the disk filled") == std::string::npos);
}
