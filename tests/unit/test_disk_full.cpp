// A full disk, on a small tmpfs of the test's own (root): the reserve beside the database gives
// room to record how jobs ended, the launcher's journal keeps room for its node's ending, and a
// job's log stops at its last whole line, saying why.
#include "engine/control/log_sink.h"
#include "engine/store/disk_reserve.h"
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"
#include "launcher/journal_space.h"
#include "tests/support/tmpfs_mount.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <fstream>
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

class TestDiskFull : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::unique_ptr<TmpfsMount> m_disk;

    // A fresh tmpfs for each test; skips when the test cannot mount one.
    bool mountDisk(const char* size) {
        m_disk.reset();
        m_disk = std::make_unique<TmpfsMount>(m_dir.path().toStdString(), size);
        return m_disk->mounted();
    }

private Q_SLOTS:
    void cleanup() { m_disk.reset(); }

    void reserveIsMadeOnlyWithRoom() {
        if (!mountDisk("32m"))
            QSKIP("needs root to mount a small tmpfs");
        const std::string path = m_disk->dir() + "/studio.db.reserve";
        {
            store::DiskReserve r(path);
            QVERIFY(r.held());
            struct stat st {};
            QCOMPARE(::stat(path.c_str(), &st), 0);
            QCOMPARE(st.st_mode & 0777, 0600u);
            QVERIFY(st.st_blocks * 512 >= store::DiskReserve::kBytes); // allocated, not sparse
            QVERIFY(r.release());
            QVERIFY(!r.release()); // once
            QVERIFY(!QFileInfo::exists(QString::fromStdString(path)));
        }
        m_disk->fill(); // nearly full: a reserve would take the room it is meant to give
        store::DiskReserve none(path);
        QVERIFY(!none.held());
        QVERIFY(!QFileInfo::exists(QString::fromStdString(path)));
    }

    // The batch that meets the full disk is lost and reported; the reserve goes, and the status
    // written after it is committed.
    void reserveRecordsTheEnding() {
        if (!mountDisk("32m"))
            QSKIP("needs root to mount a small tmpfs");
        const std::string db = m_disk->dir() + "/studio.db";
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
        QVERIFY(QFileInfo::exists(QString::fromStdString(db + ".reserve")));
        m_disk->fill();
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
            QVERIFY(!errors.empty() && errors.front().batchLost);
            QVERIFY2(errors.front().message.find("full") != std::string::npos,
                     errors.front().message.c_str());
            errors.clear();
        }
        QVERIFY(!QFileInfo::exists(QString::fromStdString(db + ".reserve")));
        w.setStatus(id, "Failed", "Failed", "the disk is full", 1.0);
        w.setFailureReason(id, "the disk is full");
        w.flush();
        {
            std::lock_guard lock(m);
            QVERIFY2(errors.empty(), errors.empty() ? "" : errors.front().message.c_str());
        }
        store::StoreReader reader(db);
        const auto job = reader.component("fills-the-disk");
        QVERIFY(job.has_value());
        QCOMPARE(job->status, std::string("Failed"));
        QCOMPARE(job->failureReason, std::string("the disk is full"));
    }

    // Allocation ahead: once it cannot grow, make() says so, and the room kept for the ending
    // still takes kKept bytes.
    void journalKeepsRoomForTheEnding() {
        if (!mountDisk("4m"))
            QSKIP("needs root to mount a small tmpfs");
        const std::string path = m_disk->dir() + "/journal.jsonl";
        const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
        QVERIFY(fd >= 0);
        launcher::JournalSpace space(fd);
        QVERIFY(space.protects());
        const std::string line(1000, 'a');
        QVERIFY(space.make(line.size()));
        QCOMPARE(::write(fd, line.data(), line.size()), static_cast<ssize_t>(line.size()));
        space.wrote(line.size());
        m_disk->fill();
        // Grow until the allocation cannot: at most 300 KiB more fit in what was allocated.
        int writes = 0;
        while (space.make(line.size()) && writes < 1000) {
            QCOMPARE(::write(fd, line.data(), line.size()), static_cast<ssize_t>(line.size()));
            space.wrote(line.size());
            ++writes;
        }
        QVERIFY(space.full());
        QVERIFY(writes < 1000);
        const std::string ending(launcher::JournalSpace::kKept, 'e');
        QCOMPARE(::write(fd, ending.data(), ending.size()), static_cast<ssize_t>(ending.size()));
        ::close(fd);
    }

    // A log that cannot even be created is a failed write too, never a silent drop.
    void aLogThatCannotBeCreatedIsAnError() {
        control::LogSink sink(m_dir.filePath(QStringLiteral("no-such-folder")).toStdString());
        sink.write(1.0, 0, 0, wire::Stream::Stdout, "lost");
        QVERIFY2(sink.error().find("rank-0.log: No such file or directory") != std::string::npos,
                 sink.error().c_str());
        QCOMPARE(sink.droppedLines(), std::int64_t(1));
    }

    void logStopsAtItsLastWholeLine() {
        if (!mountDisk("1m"))
            QSKIP("needs root to mount a small tmpfs");
        control::LogSink sink(m_disk->dir());
        const std::string text(200, 'l');
        int written = 0;
        for (; written < 20000 && sink.error().empty(); ++written) {
            sink.write(1.0, 0, 0, wire::Stream::Stdout, text);
            if (written % 16 == 0)
                sink.flush();
        }
        sink.flush();
        QVERIFY2(sink.error().find("rank-0.log: No space left on device") != std::string::npos,
                 sink.error().c_str());
        sink.write(2.0, 0, 0, wire::Stream::Stdout, "after the disk filled");
        QCOMPARE(sink.droppedLines(), std::int64_t(1));
        const std::string log = readAll(m_disk->dir() + "/rank-0.log");
        QVERIFY(!log.empty());
        QCOMPARE(log.back(), '\n');
        QCOMPARE(static_cast<std::int64_t>(log.size()), sink.files().front().bytes);
        QVERIFY(log.find("after the disk filled") == std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestDiskFull)
#include "test_disk_full.moc"
