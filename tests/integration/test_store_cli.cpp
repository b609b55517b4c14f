// mlstudio store compact as users run it: the system samples of jobs that ended long enough ago
// become one mean per series and window; recent and running jobs keep theirs; VACUUM waits for
// running jobs; --older-than 0 takes every ended job; --window 0 is a usage error.
#include "engine/control/studio_home.h"
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"
#include "tests/support/mlstudio_cli.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <chrono>

namespace {

constexpr int kTicks = 1200; // 10 minutes at 500 ms: 10 windows of 60 s

double nowSeconds() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

} // namespace

class TestStoreCli : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    MlstudioCli m_cli{m_home.path()};

    std::string dbPath() const {
        return studio::control::databasePath(m_home.path().toStdString());
    }

    // A job with two GPU series of kTicks samples from a whole minute on; ended at `ended`, or
    // running (followed by this test's process, so no CLI settles it) when `ended` is 0.
    studio::store::ComponentId writeJob(studio::store::StoreWriter& w, const char* name,
                                        double start, double ended) {
        studio::store::NewComponent c;
        c.name = name;
        c.created = start;
        c.owner = studio::control::processOwnerId();
        const auto id = w.createComponent(c);
        for (int k = 0; k < kTicks; ++k)
            for (const char* gpu : {"gpu0", "gpu1"})
                w.addSystemSample(id, 0, gpu, "util", start + 0.5 * k, k % 101);
        if (ended > 0) {
            w.setEnded(id, ended);
            w.setStatus(id, "Completed", "Completed", "", ended);
        }
        return id;
    }

    nlohmann::json compact(const QStringList& extra) {
        QStringList args{QStringLiteral("store"), QStringLiteral("compact"),
                         QStringLiteral("--json")};
        args += extra;
        const CliResult r = m_cli.run(args);
        if (r.code != 0)
            qWarning() << r.err;
        return nlohmann::json::parse(r.out.toStdString());
    }

    std::size_t samples(studio::store::ComponentId id) {
        studio::store::StoreReader reader(dbPath());
        std::size_t n = 0;
        for (const auto& s : reader.systemSeries(id))
            n += s.samples.size();
        return n;
    }

private slots:
    void compactsOldJobsOnly() {
        const double day = 86400;
        const double old = std::floor((nowSeconds() - 30 * day) / 60) * 60;
        const double recent = std::floor((nowSeconds() - day) / 60) * 60;
        studio::store::ComponentId oldJob = 0, recentJob = 0, running = 0;
        {
            studio::store::StoreWriter w(dbPath());
            oldJob = writeJob(w, "old-job", old, old + 700);
            recentJob = writeJob(w, "recent-job", recent, recent + 700);
            running = writeJob(w, "running-job", recent, 0);
        }

        auto r = compact({}); // ended more than 7 days ago
        QCOMPARE(r["jobs"], 1);
        QCOMPARE(r["samples_before"], 2 * kTicks);
        QCOMPARE(r["samples_after"], 2 * 10);
        QCOMPARE(r["vacuumed"], false);
        QVERIFY(r["vacuum_skipped"].get<std::string>().find("1 job(s) running") !=
                std::string::npos);
        QCOMPARE(samples(oldJob), std::size_t(20));
        QCOMPARE(samples(recentJob), std::size_t(2 * kTicks));
        QCOMPARE(samples(running), std::size_t(2 * kTicks));

        r = compact({QStringLiteral("--older-than"), QStringLiteral("0")});
        QCOMPARE(r["jobs"], 1); // the old job is already at one sample per minute
        QCOMPARE(r["samples_before"], 20 + 2 * kTicks);
        QCOMPARE(r["samples_after"], 20 + 20);
        QCOMPARE(samples(running), std::size_t(2 * kTicks));

        const CliResult text = m_cli.run({QStringLiteral("store"), QStringLiteral("compact")});
        QCOMPARE(text.code, 0);
        QVERIFY(text.out.contains(QStringLiteral("Compacted the system samples of 0 job(s)")));
        QVERIFY(text.out.contains(QStringLiteral("Not vacuumed: 1 job(s) running")));
    }

    void aWindowOfZeroIsAUsageError() {
        const CliResult r = m_cli.run({QStringLiteral("store"), QStringLiteral("compact"),
                                       QStringLiteral("--window"), QStringLiteral("0")});
        QCOMPARE(r.code, 2);
    }
};

QTEST_GUILESS_MAIN(TestStoreCli)
#include "test_store_cli.moc"
