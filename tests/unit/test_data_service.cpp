// The GUI's data service over a real store: its queries return what the store holds (read on
// worker threads through its pooled readers), one timer drives the refresh of watched jobs, a
// running job's change reaches its subscribers (from the store through the refresh, from the
// engine bridge's batches), and the leaderboard's one tag query returns the same tags as reading
// them job by job.
#include "engine/store/store_reader.h"
#include "models/data/data_service.h"
#include "models/experiments/leaderboard_table.h"
#include "tests/gui/experiments_fixture.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <optional>

using namespace studio;
using namespace studio::models;
using studio::testing::JobSeed;

namespace {

std::vector<JobSeed> seeds() {
    std::vector<JobSeed> s(4);
    s[0] = {"fm-1",
            "fashion-mnist",
            "baseline",
            "Completed",
            {{"lr", "0.01"}, {"max-steps", "200"}},
            {{"train:loss", {1.0, 0.5, 0.25}}, {"eval:accuracy", {0.8, 0.85}}},
            {{"owner", "ana"}, {"stage", "draft"}},
            ""};
    s[1] = {"fm-2",
            "fashion-mnist",
            "baseline",
            "Failed",
            {{"lr", "0.001"}},
            {{"train:loss", {2.0}}},
            {},
            ""};
    s[2] = {"rn-1",
            "resnet",
            "sweep",
            "InProgress",
            {{"lr", "0.1"}},
            {{"train:loss", {3.0}}},
            {{"owner", "bo"}},
            ""};
    s[3] = {"solo-1", "", "", "Completed", {}, {}, {{"note", "with spaces = and more"}}, ""};
    return s;
}

// Runs one query of the service and waits for its result on the test's thread.
template <typename T, typename Ask>
std::optional<T> await(Ask ask, QString* error = nullptr) {
    QObject receiver;
    BackgroundTask<T> task(&receiver);
    std::optional<T> out;
    bool failed = false;
    ask(
        task, [&](T value) { out = std::move(value); },
        [&](const QString& message) {
            failed = true;
            if (error)
                *error = message;
        });
    if (!QTest::qWaitFor([&] { return out.has_value() || failed; }, 10000))
        qWarning("the query did not answer");
    return out;
}

} // namespace

class TestDataService : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_db;
    std::unique_ptr<store::StoreWriter> m_writer;
    std::vector<store::ComponentId> m_ids;

    // The job list, experiment tree and leaderboard queries.
    void checkListQueries(DataService& data) {
        const auto jobs = await<JobListData>([&](auto& t, auto done, auto failed) {
            data.jobList(t, std::move(done), std::move(failed));
        });
        QVERIFY(jobs);
        QCOMPARE(jobs->rows.size(), std::size_t(4));
        QCOMPARE(jobs->rows.front().name, std::string("solo-1")); // newest first

        const auto tree = await<ExperimentTreeSnapshot>([&](auto& t, auto done, auto failed) {
            data.experimentTree(t, std::move(done), std::move(failed));
        });
        QVERIFY(tree);
        QCOMPARE(tree->experiments.size(), std::size_t(3));
        QCOMPARE(tree->experiments.front().name, QStringLiteral("fashion-mnist"));
        QCOMPARE(tree->experiments.front().trials.front().jobs.size(), std::size_t(2));

        const auto table = await<LeaderboardTable>([&](auto& t, auto done, auto failed) {
            data.leaderboard(t, std::move(done), std::move(failed));
        });
        QVERIFY(table);
        QCOMPARE(table->rowCount(), 4);
        const int fm1 = table->rowOf(m_ids[0]);
        QCOMPARE(table->rows[std::size_t(fm1)].tags.value(QStringLiteral("stage")),
                 QStringLiteral("draft"));
        QVERIFY(table->columnOf(QStringLiteral("train:loss - Last")) >= 0);
    }

    // The queries behind one job's views: detail, notebook card, comparison, curves, insights.
    void checkJobQueries(DataService& data) {
        const auto job = await<JobData>([&](auto& t, auto done, auto failed) {
            data.job(t, QStringLiteral("fm-1"), false, std::move(done), std::move(failed));
        });
        QVERIFY(job);
        QCOMPARE(job->detail.row.name, std::string("fm-1"));
        QCOMPARE(job->metrics.at("train:loss").size(), std::size_t(3));
        QCOMPARE(job->detail.tags.at("owner"), std::string("ana"));

        const auto card = await<JobCardSnapshot>([&](auto& t, auto done, auto failed) {
            data.jobCard(t, QStringLiteral("fm-1"), std::move(done), std::move(failed));
        });
        QVERIFY(card && card->found);
        QCOMPARE(card->lossMetric, QStringLiteral("train:loss"));
        QCOMPARE(card->loss.size(), 3);
        QCOMPARE(card->total, qint64(200));

        const auto compared = await<CompareData>([&](auto& t, auto done, auto failed) {
            data.compare(t, {m_ids[0], m_ids[1]}, std::move(done), std::move(failed));
        });
        QVERIFY(compared);
        QCOMPARE(compared->jobs.size(), 2);
        QVERIFY(compared->metricNames.contains(QStringLiteral("eval:accuracy")));
        const auto curves = await<QList<CurveSeries>>([&](auto& t, auto done, auto failed) {
            data.metricCurves(t, compared->jobs, QStringLiteral("train:loss"), std::move(done),
                              std::move(failed));
        });
        QVERIFY(curves);
        QCOMPARE(curves->size(), 2);

        const auto insights = await<InsightsData>([&](auto& t, auto done, auto failed) {
            data.insights(t, QStringLiteral("rn-1"), nullptr, std::move(done), std::move(failed));
        });
        QVERIFY(insights);
        QVERIFY(insights->running());
    }

    // The cluster list, the jobs running on a cluster and the tuning jobs.
    void checkClusterAndTuningQueries(DataService& data) {
        const auto clusters = await<std::vector<ClusterEntry>>(
            [&](auto& t, auto d, auto f) { data.clusters(t, std::move(d), std::move(f)); });
        QVERIFY(clusters);
        QCOMPARE(clusters->front().config.name, std::string("local"));
        const auto busy = await<QStringList>([&](auto& t, auto d, auto f) {
            data.jobsRunningOn(t, QStringLiteral("local"), std::move(d), std::move(f));
        });
        QVERIFY(busy);
        QCOMPARE(*busy, QStringList{QStringLiteral("rn-1")});

        const auto tuning = await<std::vector<store::TuningJobRow>>(
            [&](auto& t, auto d, auto f) { data.tuningJobs(t, std::move(d), std::move(f)); });
        QVERIFY(tuning);
        QVERIFY(tuning->empty());
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.path() + QStringLiteral("/studio.db");
        m_writer = std::make_unique<store::StoreWriter>(m_db.toStdString());
        m_ids = testing::writeJobs(*m_writer, seeds());
        QVERIFY(m_writer->lastError().empty());
    }

    void queriesReturnWhatTheStoreHolds() {
        DataService data(m_db);
        QCOMPARE(data.databasePath(), m_db);
        checkListQueries(data);
        if (QTest::currentTestFailed())
            return;
        checkJobQueries(data);
        if (QTest::currentTestFailed())
            return;
        checkClusterAndTuningQueries(data);
        if (QTest::currentTestFailed())
            return;

        // The readers stay open for the next query, and few.
        QVERIFY(data.openReaders() >= 1);
        QVERIFY(data.openReaders() <= 4);

        // A query that fails says why (its reader is closed).
        QString error;
        const auto missing = await<JobData>(
            [&](auto& t, auto done, auto failed) {
                data.job(t, QStringLiteral("no-such-job"), false, std::move(done),
                         std::move(failed));
            },
            &error);
        QVERIFY(!missing);
        QVERIFY2(error.contains(QStringLiteral("no-such-job")), qPrintable(error));
    }

    // Every watched job and tuning job is refreshed on each tick of the service's one timer.
    void oneTimerDrivesRefresh() {
        DataService data(m_db);
        QVERIFY(data.refreshTimer().isActive());
        QCOMPARE(data.refreshTimer().interval(), DataService::kRefreshMs);
        data.setRefreshInterval(30);
        QCOMPARE(data.refreshTimer().interval(), 30);

        QSignalSpy ticks(&data, &DataService::refreshed);
        QSignalSpy jobs(&data, &DataService::jobChanged);
        QSignalSpy tuning(&data, &DataService::tuningChanged);
        auto insights = std::make_unique<QObject>();
        QObject tuningTab;
        QObject card;
        data.watchJob(QStringLiteral("rn-1"), insights.get());
        data.watchJob(QStringLiteral("rn-1"), &card);
        data.watchJob(QStringLiteral("fm-2"), &card);
        data.watchTuningJob(QStringLiteral("tune-1"), &tuningTab);
        QCOMPARE(data.watchedJobs(), (QStringList{QStringLiteral("fm-2"), QStringLiteral("rn-1")}));

        QTRY_VERIFY(ticks.count() >= 3);
        // One notification per watched job and tick, whoever watches it.
        QCOMPARE(jobs.count(), 2 * ticks.count());
        QCOMPARE(tuning.count(), ticks.count());
        QCOMPARE(tuning.first().first().toString(), QStringLiteral("tune-1"));

        // Watching ends with unwatch or with the subscriber.
        data.unwatchJob(QStringLiteral("fm-2"), &card);
        insights.reset();
        QCOMPARE(data.watchedJobs(), QStringList{QStringLiteral("rn-1")});
        data.unwatchJob(QStringLiteral("rn-1"), &card);
        data.unwatchTuningJob(QStringLiteral("tune-1"), &tuningTab);
        QVERIFY(data.watchedJobs().isEmpty());
        QVERIFY(data.watchedTuningJobs().isEmpty());
        ticks.clear();
        jobs.clear();
        tuning.clear();
        QTRY_VERIFY(ticks.count() >= 2);
        QCOMPARE(jobs.count(), 0);
        QCOMPARE(tuning.count(), 0);
    }

    // A view watching a running job reads it again on the refresh and sees the store change.
    void runningJobChangeNotifiesSubscribers() {
        DataService data(m_db);
        data.setRefreshInterval(50);
        QObject view;
        BackgroundTask<JobData> task(&view);
        QString status;
        int reads = 0;
        connect(&data, &DataService::jobChanged, &view, [&](const QString& job) {
            if (job != QLatin1String("rn-1"))
                return;
            data.job(task, job, false, [&, job](JobData d) {
                ++reads;
                status = QString::fromStdString(d.detail.row.status);
                if (!store::isLiveStatus(d.detail.row.status))
                    data.unwatchJob(job, &view); // it ended: no more refresh
            });
        });
        data.watchJob(QStringLiteral("rn-1"), &view);
        QTRY_VERIFY(reads >= 1);
        QCOMPARE(status, QStringLiteral("InProgress"));

        m_writer->setStatus(m_ids[2], "Completed", "Completed", "", 1.7e9 + 100);
        m_writer->setEnded(m_ids[2], 1.7e9 + 100);
        m_writer->flush();
        QTRY_COMPARE(status, QStringLiteral("Completed"));
        QTRY_VERIFY(data.watchedJobs().isEmpty());
    }

    // The engine bridge's batches: statuses and notifications become change notifications.
    void batchesNotifySubscribers() {
        DataService data(m_db);
        QSignalSpy jobs(&data, &DataService::jobsChanged);
        QSignalSpy job(&data, &DataService::jobChanged);
        QSignalSpy experiments(&data, &DataService::experimentsChanged);

        LiveBatch running;
        running.statuses.append({QStringLiteral("rn-1"),
                                 m_ids[2],
                                 QStringLiteral("InProgress"),
                                 QStringLiteral("Training"),
                                 {},
                                 1.7e9});
        running.statuses.append({QStringLiteral("rn-1"),
                                 m_ids[2],
                                 QStringLiteral("InProgress"),
                                 QStringLiteral("Uploading"),
                                 {},
                                 1.7e9 + 1});
        data.applyBatch(running);
        QCOMPARE(jobs.count(), 1);
        QCOMPARE(job.count(), 1); // once per job and batch
        QCOMPARE(job.first().first().toString(), QStringLiteral("rn-1"));
        QCOMPARE(experiments.count(), 0);

        LiveBatch ended;
        ended.statuses.append({QStringLiteral("rn-1"),
                               m_ids[2],
                               QStringLiteral("Completed"),
                               QStringLiteral("Completed"),
                               {},
                               1.7e9 + 2});
        ended.notifications.append({QStringLiteral("fm-2"), QStringLiteral("LossNotDecreasing"),
                                    QStringLiteral("loss is flat"), 1.7e9 + 2});
        data.applyBatch(ended);
        QCOMPARE(jobs.count(), 2);
        QCOMPARE(job.count(), 3);
        QCOMPARE(job.last().first().toString(), QStringLiteral("fm-2"));
        QCOMPARE(experiments.count(), 1);

        LiveBatch logsOnly;
        logsOnly.logs.append({QStringLiteral("rn-1"), 0, 0, QStringLiteral("stdout"),
                              QStringLiteral("step 1"), 1.7e9});
        data.applyBatch(logsOnly);
        QCOMPARE(jobs.count(), 2);
        QCOMPARE(job.count(), 3);
    }

    // One query for every job's tags returns what reading them job by job returns.
    void tagBatchingMatchesPerJobReads() {
        store::StoreReader reader(m_db.toStdString());
        const auto batched = reader.tags(m_ids);
        for (const store::ComponentId id : m_ids) {
            const auto one = reader.tags(id);
            if (one.empty())
                QVERIFY(!batched.count(id));
            else
                QCOMPARE(batched.at(id), one);
        }
        QCOMPARE(batched.size(), std::size_t(3));
        QVERIFY(reader.tags(std::vector<store::ComponentId>{}).empty());

        const LeaderboardTable table = loadLeaderboardTable(m_db.toStdString(), 1.7e9 + 1000);
        for (const store::ComponentId id : m_ids) {
            QMap<QString, QString> expected;
            for (const auto& [k, v] : reader.tags(id))
                expected.insert(QString::fromStdString(k), QString::fromStdString(v));
            QCOMPARE(table.rows[std::size_t(table.rowOf(id))].tags, expected);
        }
        QCOMPARE(table.tagKeys, (QStringList{QStringLiteral("note"), QStringLiteral("owner"),
                                             QStringLiteral("stage")}));
    }
};

QTEST_GUILESS_MAIN(TestDataService)
#include "test_data_service.moc"
