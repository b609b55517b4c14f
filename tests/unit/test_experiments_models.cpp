// The Experiments browser's models over a real store: the experiment tree (structure, counts,
// Unassigned last, minimal updates on refresh) and the leaderboard (columns and summary values,
// numeric and natural sorting with NaN and missing last, filters, scope, CSV), each under
// QAbstractItemModelTester; and the leaderboard's text helpers.
#include "engine/store/store_reader.h"
#include "models/data/data_service.h"
#include "models/experiments/experiment_tree_model.h"
#include "models/experiments/leaderboard_format.h"
#include "models/experiments/leaderboard_model.h"
#include "tests/gui/experiments_fixture.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <limits>

using namespace studio;
using namespace studio::models;
using studio::testing::JobSeed;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Seven jobs: two experiments and Unassigned; NaN and missing metric values; text and number
// parameters; tags.
std::vector<JobSeed> seeds() {
    std::vector<JobSeed> s(7);
    s[0] = {"fm-1",
            "fashion-mnist",
            "baseline",
            "Completed",
            {{"lr", "0.01"}, {"optimizer", "sgd"}, {"batch_size", "64"}},
            {{"eval:accuracy", {0.80, 0.85}}, {"train:loss", {1.0, 0.5}}},
            {{"owner", "ana"}},
            "first try"};
    s[1] = {"fm-2",
            "fashion-mnist",
            "baseline",
            "Failed",
            {{"lr", "0.001"}, {"optimizer", "adam"}, {"batch_size", "64"}},
            {{"eval:accuracy", {0.50}}},
            {},
            ""};
    s[2] = {"fm-ddp-1",
            "fashion-mnist",
            "ddp",
            "Completed",
            {{"lr", "0.1"}, {"optimizer", "sgd"}, {"batch_size", "128"}},
            {{"eval:accuracy", {0.88, 0.91, 0.90}}},
            {},
            ""};
    s[2].instanceCount = 2;
    s[2].processesPerHost = 4;
    s[3] = {"rn-9",
            "resnet",
            "sweep",
            "InProgress",
            {{"lr", "0.05"}, {"optimizer", "adam"}},
            {{"eval:accuracy", {0.70}}},
            {},
            ""};
    s[4] = {"rn-10",
            "resnet",
            "sweep",
            "Completed",
            {{"lr", "1e-4"}, {"optimizer", "adam"}},
            {{"eval:accuracy", {0.93, kNaN}}},
            {{"owner", "bo"}, {"stage", "best"}},
            ""};
    s[5] = {"rn-11", "resnet", "sweep", "Stopped", {{"optimizer", "sgd"}}, {}, {}, ""};
    s[6] = {"solo-1", "", "", "Completed", {{"lr", "0.3"}}, {{"eval:accuracy", {kNaN}}}, {}, ""};
    return s;
}

QStringList names(const LeaderboardModel& m) {
    QStringList out;
    for (int r = 0; r < m.rowCount(); ++r)
        out.push_back(m.index(r, 0).data(LeaderboardModel::JobNameRole).toString());
    return out;
}

QStringList split(const char* s) {
    return s[0] ? QString::fromUtf8(s).split(QLatin1Char(' ')) : QStringList();
}

} // namespace

class TestExperimentsModels : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::string m_db;
    std::vector<store::ComponentId> m_ids;

    LeaderboardTable loadTable() { return loadLeaderboardTable(m_db, 1.7e9 + 1000); }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_db = QString(m_dir.path() + QStringLiteral("/studio.db")).toStdString();
        store::StoreWriter w(m_db);
        m_ids = testing::writeJobs(w, seeds());
        QVERIFY(w.lastError().empty());
    }

    // --- Experiment tree ------------------------------------------------------------------

    void treeShowsExperimentsTrialsAndJobs() {
        DataService data(QString::fromStdString(m_db));
        ExperimentTreeModel model(&data);
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy loaded(&model, &ExperimentTreeModel::loaded);
        model.refresh();
        QVERIFY(loaded.wait(10000));

        QCOMPARE(model.rowCount(), 3);
        QStringList experiments;
        for (int r = 0; r < 3; ++r)
            experiments << model.index(r, 0).data(ExperimentTreeModel::NameRole).toString();
        QCOMPARE(experiments,
                 (QStringList{QStringLiteral("fashion-mnist"), QStringLiteral("resnet"),
                              QStringLiteral("Unassigned")}));
        const QModelIndex fm = model.experimentIndex(QStringLiteral("fashion-mnist"));
        QCOMPARE(fm.data().toString(), QStringLiteral("fashion-mnist  (2 trials, 3 jobs)"));
        QCOMPARE(fm.data(ExperimentTreeModel::TrialCountRole).toInt(), 2);
        QCOMPARE(fm.data(ExperimentTreeModel::JobCountRole).toInt(), 3);
        QCOMPARE(fm.data(ExperimentTreeModel::KindRole).toInt(),
                 static_cast<int>(ExperimentTreeModel::NodeKind::Experiment));

        const QModelIndex baseline =
            model.trialIndex(QStringLiteral("fashion-mnist"), QStringLiteral("baseline"));
        QCOMPARE(baseline.parent(), fm);
        QCOMPARE(baseline.data().toString(), QStringLiteral("baseline  (2 jobs)"));
        QCOMPARE(baseline.data(ExperimentTreeModel::TrialRole).toString(),
                 QStringLiteral("baseline"));
        QCOMPARE(baseline.data(ExperimentTreeModel::StatusRole).toString(),
                 QStringLiteral("Failed")); // the newest job's

        const QModelIndex job = model.componentIndex(m_ids[1]);
        QCOMPARE(job.parent(), baseline);
        QCOMPARE(job.data().toString(), QStringLiteral("fm-2"));
        QCOMPARE(job.data(ExperimentTreeModel::ComponentIdRole).toLongLong(), m_ids[1]);
        QCOMPARE(job.data(ExperimentTreeModel::ExperimentRole).toString(),
                 QStringLiteral("fashion-mnist"));
        QCOMPARE(job.sibling(job.row(), ExperimentTreeModel::StatusColumn).data().toString(),
                 QStringLiteral("Failed"));
        QVERIFY(job.data(Qt::DecorationRole).canConvert<QIcon>());

        const QModelIndex sweep =
            model.trialIndex(QStringLiteral("resnet"), QStringLiteral("sweep"));
        QCOMPARE(sweep.data(ExperimentTreeModel::StatusRole).toString(),
                 QStringLiteral("InProgress")); // one job still runs
        QCOMPARE(model.experimentIndex(QStringLiteral("resnet"))
                     .sibling(1, ExperimentTreeModel::StatusColumn)
                     .data()
                     .toString(),
                 QStringLiteral("1 running"));

        // Jobs without an experiment land in Unassigned, in a trial named after the job.
        const QModelIndex solo = model.componentIndex(m_ids[6]);
        QCOMPARE(solo.parent().parent(), model.experimentIndex(QStringLiteral("Unassigned")));
        QCOMPARE(solo.parent().data(ExperimentTreeModel::NameRole).toString(),
                 QStringLiteral("solo-1"));
    }

    void treeRefreshAppliesMinimalChanges() {
        store::StoreReader reader(m_db);
        ExperimentTreeSnapshot snapshot = loadExperimentTree(reader);
        ExperimentTreeModel model(nullptr);
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSnapshot(snapshot);
        const QPersistentModelIndex kept = model.componentIndex(m_ids[2]); // fm-ddp-1
        QVERIFY(kept.isValid());
        const QPersistentModelIndex changed = model.componentIndex(m_ids[3]); // rn-9

        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        QSignalSpy updated(&model, &QAbstractItemModel::dataChanged);

        // A new job in baseline, a new experiment, rn-9 finishes, the ddp trial's job stays,
        // Unassigned disappears.
        auto& fm = snapshot.experiments[0];
        fm.trials[0].jobs.push_back({999, QStringLiteral("fm-3"), QStringLiteral("InProgress"),
                                     QStringLiteral("Training"), 1.8e9, 1.8e9, 0});
        snapshot.experiments[1].trials[0].jobs[0].status = QStringLiteral("Completed");
        snapshot.experiments.pop_back();
        snapshot.experiments.push_back({QStringLiteral("new-exp"), QString(), 1.9e9, {}});
        model.setSnapshot(snapshot);

        QCOMPARE(resets.size(), 0);
        QCOMPARE(removed.size(), 1);  // Unassigned
        QCOMPARE(inserted.size(), 2); // fm-3 and new-exp
        QVERIFY(updated.size() >= 3); // rn-9, its trial, baseline and fashion-mnist counts
        QVERIFY(kept.isValid());
        QCOMPARE(kept.data().toString(), QStringLiteral("fm-ddp-1"));
        QVERIFY(changed.isValid());
        QCOMPARE(changed.data(ExperimentTreeModel::StatusRole).toString(),
                 QStringLiteral("Completed"));
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.experimentIndex(QStringLiteral("fashion-mnist")).data().toString(),
                 QStringLiteral("fashion-mnist  (2 trials, 4 jobs)"));
        QVERIFY(model.componentIndex(999).isValid());
        QVERIFY(!model.experimentIndex(QStringLiteral("Unassigned")).isValid());

        // Surviving rows in a new order: a reset, and still a consistent tree.
        std::swap(snapshot.experiments[0], snapshot.experiments[1]);
        model.setSnapshot(snapshot);
        QCOMPARE(resets.size(), 1);
        QCOMPARE(model.index(0, 0).data(ExperimentTreeModel::NameRole).toString(),
                 QStringLiteral("resnet"));
    }

    // --- Leaderboard ----------------------------------------------------------------------

    void leaderboardColumnsAndValues() {
        const LeaderboardTable t = loadTable();
        QCOMPARE(t.rowCount(), 7);
        for (const char* title :
             {"Name", "Status", "Experiment", "Trial", "Created", "Duration", "Instance", "Tags",
              "batch_size", "lr", "optimizer", "eval:accuracy - Last", "eval:accuracy - Min",
              "eval:accuracy - Max", "eval:accuracy - Avg", "eval:accuracy - StdDev",
              "eval:accuracy - Count", "train:loss - Last"})
            QVERIFY2(t.columnOf(QString::fromUtf8(title)) >= 0, title);
        QCOMPARE(t.columns[static_cast<std::size_t>(t.columnOf(QStringLiteral("lr")))].group,
                 ColumnGroup::Parameters);
        QVERIFY(t.columns[static_cast<std::size_t>(t.columnOf(QStringLiteral("lr")))].numeric);
        QVERIFY(
            !t.columns[static_cast<std::size_t>(t.columnOf(QStringLiteral("optimizer")))].numeric);

        const int ddp = t.rowOf(m_ids[2]);
        auto num = [&](const char* column, int row) {
            return t.number(t.columnOf(QString::fromUtf8(column)), row);
        };
        QCOMPARE(num("eval:accuracy - Max", ddp), 0.91);
        QCOMPARE(num("eval:accuracy - Min", ddp), 0.88);
        QCOMPARE(num("eval:accuracy - Last", ddp), 0.90);
        QCOMPARE(num("eval:accuracy - Count", ddp), 3.0);
        QVERIFY(std::fabs(num("eval:accuracy - Avg", ddp) - (0.88 + 0.91 + 0.90) / 3) < 1e-12);
        QVERIFY(num("eval:accuracy - StdDev", ddp) > 0);
        QCOMPARE(num("Duration", ddp), 60.0);
        QCOMPARE(t.text(t.columnOf(QStringLiteral("Instance")), ddp),
                 QStringLiteral("local × 2 × 4"));

        const int rn10 = t.rowOf(m_ids[4]);
        QCOMPARE(t.cellClass(t.columnOf(QStringLiteral("eval:accuracy - Last")), rn10),
                 CellClass::NotANumber);
        QCOMPARE(num("eval:accuracy - Max", rn10), 0.93);
        QCOMPARE(t.text(t.columnOf(QStringLiteral("Tags")), rn10),
                 QStringLiteral("owner=bo, stage=best"));
        QCOMPARE(t.tagKeys, (QStringList{QStringLiteral("owner"), QStringLiteral("stage")}));
        const int solo = t.rowOf(m_ids[6]);
        QCOMPARE(t.cellClass(t.columnOf(QStringLiteral("eval:accuracy - Max")), solo),
                 CellClass::Missing); // no finite value
        QCOMPARE(t.rows[static_cast<std::size_t>(solo)].experiment, QStringLiteral("Unassigned"));
        QCOMPARE(t.rows[static_cast<std::size_t>(t.rowOf(m_ids[0]))].notes,
                 QStringLiteral("first try"));
        // A running job's duration runs to "now".
        QCOMPARE(num("Duration", t.rowOf(m_ids[3])), 1.7e9 + 1000 - (1.7e9 + 3 + 1));
    }

    void leaderboardUnderTester() {
        LeaderboardModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTable(loadTable());
        QCOMPARE(model.rowCount(), 7);
        QCOMPARE(model.columnCount(), model.table().columnCount());
        model.sort(model.table().columnOf(QStringLiteral("lr")), Qt::DescendingOrder);
        QVERIFY(!model.setFilter(QStringLiteral("status = Completed")));
        model.setScope(QStringLiteral("fashion-mnist"), {});
        QCOMPARE(names(model), (QStringList{QStringLiteral("fm-ddp-1"), QStringLiteral("fm-1")}));
        model.setTable(loadTable()); // same columns: rows replaced
        QCOMPARE(names(model), (QStringList{QStringLiteral("fm-ddp-1"), QStringLiteral("fm-1")}));
        model.setScope({}, {});
        QVERIFY(!model.setFilter({}));
        model.sort(-1);
        QCOMPARE(model.rowCount(), 7);
        QCOMPARE(names(model).front(), QStringLiteral("fm-1"));

        const QModelIndex status = model.index(0, 1);
        QCOMPARE(status.data().toString(), QStringLiteral("Completed"));
        QVERIFY(status.data(Qt::DecorationRole).canConvert<QIcon>());
        const QModelIndex lr = model.index(0, model.table().columnOf(QStringLiteral("lr")));
        QCOMPARE(lr.data().toString(), QStringLiteral("0.01"));
        QCOMPARE(lr.data(LeaderboardModel::ValueRole).toDouble(), 0.01);
        QCOMPARE(lr.data(Qt::TextAlignmentRole).value<Qt::Alignment>(),
                 Qt::AlignRight | Qt::AlignVCenter);
        QCOMPARE(model.headerData(lr.column(), Qt::Horizontal, LeaderboardModel::ColumnGroupRole)
                     .toInt(),
                 static_cast<int>(ColumnGroup::Parameters));
        const int max = model.table().columnOf(QStringLiteral("eval:accuracy - Max"));
        QCOMPARE(model.headerData(max, Qt::Horizontal).toString(),
                 QStringLiteral("eval:accuracy\nMax"));
        QCOMPARE(
            model.headerData(max, Qt::Horizontal, LeaderboardModel::ColumnTitleRole).toString(),
            QStringLiteral("eval:accuracy - Max"));
    }

    void sortsWithNaNAndMissingLast_data() {
        QTest::addColumn<QString>("column");
        QTest::addColumn<bool>("descending");
        QTest::addColumn<QStringList>("expected");
        auto row = [](const char* tag, const char* column, bool desc, const char* order) {
            QTest::newRow(tag) << QString::fromUtf8(column) << desc << split(order);
        };
        row("max desc", "eval:accuracy - Max", true, "rn-10 fm-ddp-1 fm-1 rn-9 fm-2 rn-11 solo-1");
        row("max asc", "eval:accuracy - Max", false, "fm-2 rn-9 fm-1 fm-ddp-1 rn-10 rn-11 solo-1");
        row("last asc: NaN then missing", "eval:accuracy - Last", false,
            "fm-2 rn-9 fm-1 fm-ddp-1 rn-10 solo-1 rn-11");
        row("last desc: NaN then missing", "eval:accuracy - Last", true,
            "fm-ddp-1 fm-1 rn-9 fm-2 rn-10 solo-1 rn-11");
        row("lr asc, exponent", "lr", false, "rn-10 fm-2 fm-1 rn-9 fm-ddp-1 solo-1 rn-11");
        row("lr desc", "lr", true, "solo-1 fm-ddp-1 rn-9 fm-1 fm-2 rn-10 rn-11");
        row("name natural", "Name", false, "fm-1 fm-2 fm-ddp-1 rn-9 rn-10 rn-11 solo-1");
        row("name natural desc", "Name", true, "solo-1 rn-11 rn-10 rn-9 fm-ddp-1 fm-2 fm-1");
        row("text parameter, ties in table order", "optimizer", false,
            "fm-2 rn-9 rn-10 fm-1 fm-ddp-1 rn-11 solo-1");
        row("count", "eval:accuracy - Count", true, "fm-ddp-1 fm-1 rn-10 fm-2 rn-9 solo-1 rn-11");
        row("tags, missing last", "Tags", false, "fm-1 rn-10 fm-2 fm-ddp-1 rn-9 rn-11 solo-1");
    }
    void sortsWithNaNAndMissingLast() {
        QFETCH(QString, column);
        QFETCH(bool, descending);
        QFETCH(QStringList, expected);
        LeaderboardModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTable(loadTable());
        const int c = model.table().columnOf(column);
        QVERIFY(c >= 0);
        model.sort(c, descending ? Qt::DescendingOrder : Qt::AscendingOrder);
        QCOMPARE(names(model), expected);
    }

    void sortKeepsSelectionRows() {
        LeaderboardModel model;
        model.setTable(loadTable());
        const QPersistentModelIndex p = model.index(model.rowOfComponent(m_ids[2]), 3);
        model.sort(model.table().columnOf(QStringLiteral("lr")), Qt::AscendingOrder);
        QVERIFY(p.isValid());
        QCOMPARE(p.data(LeaderboardModel::ComponentIdRole).toLongLong(), m_ids[2]);
        QCOMPARE(p.column(), 3);
        QCOMPARE(p.row(), 4);
    }

    void filters_data() {
        QTest::addColumn<QString>("filter");
        QTest::addColumn<QStringList>("expected");
        auto row = [](const char* f, const char* e) {
            QTest::newRow(f) << QString::fromUtf8(f) << split(e);
        };
        row("", "fm-1 fm-2 fm-ddp-1 rn-9 rn-10 rn-11 solo-1");
        row("status = Completed", "fm-1 fm-ddp-1 rn-10 solo-1");
        row("lr > 0.01", "fm-ddp-1 rn-9 solo-1");
        row("lr >= 1e-2 and optimizer = sgd", "fm-1 fm-ddp-1");
        row("name ~ ddp", "fm-ddp-1");
        row("\"eval:accuracy - Max\" >= 0.9", "fm-ddp-1 rn-10");
        row("\"eval:accuracy - Last\" = nan", "rn-10 solo-1");
        row("tag.owner = ana or tag.stage = best", "fm-1 rn-10");
        row("tag.nobody = x", "");
        row("experiment = Unassigned", "solo-1");
        row("trial = sweep and not status = InProgress", "rn-10 rn-11");
        row("instance ~ \"× 2 ×\"", "fm-ddp-1");
        row("notes ~ FIRST", "fm-1");
        row("duration >= 60 and status != InProgress", "fm-1 fm-2 fm-ddp-1 rn-10 rn-11 solo-1");
        row("created > 1700000003", "rn-10 rn-11 solo-1");
    }
    void filters() {
        QFETCH(QString, filter);
        QFETCH(QStringList, expected);
        LeaderboardModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTable(loadTable());
        QSignalSpy counts(&model, &LeaderboardModel::countsChanged);
        const auto error = model.setFilter(filter);
        QVERIFY2(!error, qPrintable(error ? error->text() : QString()));
        QCOMPARE(names(model), expected);
        QCOMPARE(model.scopedCount(), 7);
        QCOMPARE(counts.size(), 1);
        QCOMPARE(counts.front().at(0).toInt(), static_cast<int>(expected.size()));
    }

    void badFilterKeepsTheLastGoodOne() {
        LeaderboardModel model;
        model.setTable(loadTable());
        QVERIFY(!model.setFilter(QStringLiteral("status = Failed")));
        const auto error = model.setFilter(QStringLiteral("lrr > 1"));
        QVERIFY(error);
        QCOMPARE(error->text(),
                 QStringLiteral("at 1: unknown field \"lrr\" (did you mean \"lr\"?)"));
        QCOMPARE(model.filterText(), QStringLiteral("status = Failed"));
        QCOMPARE(names(model), QStringList{QStringLiteral("fm-2")});
    }

    void scopes() {
        LeaderboardModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTable(loadTable());
        model.setScope(QStringLiteral("resnet"), {});
        QCOMPARE(names(model), split("rn-9 rn-10 rn-11"));
        QCOMPARE(model.scopedCount(), 3);
        QVERIFY(!model.setFilter(QStringLiteral("status = Completed")));
        QCOMPARE(names(model), split("rn-10"));
        QCOMPARE(model.scopedCount(), 3);
        model.setScope(QStringLiteral("fashion-mnist"), QStringLiteral("baseline"));
        QCOMPARE(names(model), split("fm-1"));
        QCOMPARE(model.scopedCount(), 2);
        model.setScope(QStringLiteral("Unassigned"), {});
        QCOMPARE(names(model), split("solo-1"));
        model.setScope({}, {});
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.scopedCount(), 7);
    }

    void csvOfShownRowsAndColumns() {
        LeaderboardModel model;
        model.setTable(loadTable());
        QVERIFY(!model.setFilter(QStringLiteral("\"eval:accuracy - Max\" > 0.8")));
        model.sort(model.table().columnOf(QStringLiteral("eval:accuracy - Max")),
                   Qt::DescendingOrder);
        const auto& t = model.table();
        const QString csv = model.toCsv(
            {t.columnOf(QStringLiteral("Name")), t.columnOf(QStringLiteral("lr")),
             t.columnOf(QStringLiteral("eval:accuracy - Last")),
             t.columnOf(QStringLiteral("Instance")), t.columnOf(QStringLiteral("Tags"))});
        QCOMPARE(csv, QStringLiteral("Name,lr,eval:accuracy - Last,Instance,Tags\r\n"
                                     "rn-10,1e-04,NaN,local × 1 × 1,\"owner=bo, stage=best\"\r\n"
                                     "fm-ddp-1,0.1,0.9,local × 2 × 4,\r\n"
                                     "fm-1,0.01,0.85,local × 1 × 1,owner=ana\r\n"));
    }

    void annotationsUpdateInPlace() {
        LeaderboardModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTable(loadTable());
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QMap<QString, QString> tags;
        tags.insert(QStringLiteral("team"), QStringLiteral("vision"));
        model.setAnnotations(m_ids[5], tags, QStringLiteral("stopped early"));
        QCOMPARE(changed.size(), 1);
        QVERIFY(!model.setFilter(QStringLiteral("tag.team = vision and notes ~ early")));
        QCOMPARE(names(model), split("rn-11"));
        const int tagsColumn = model.table().columnOf(QStringLiteral("Tags"));
        QCOMPARE(model.index(0, tagsColumn).data().toString(), QStringLiteral("team=vision"));
    }

    // --- Text helpers ---------------------------------------------------------------------

    void compactNumbers_data() {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("expected");
        QTest::newRow("int") << 42.0 << QStringLiteral("42");
        QTest::newRow("negative int") << -3.0 << QStringLiteral("-3");
        QTest::newRow("fraction") << 0.912345 << QStringLiteral("0.9123");
        QTest::newRow("small") << 0.001 << QStringLiteral("0.001");
        QTest::newRow("tiny") << 1.2345e-5 << QStringLiteral("1.234e-5");
        QTest::newRow("hundreds") << 123.456 << QStringLiteral("123.5");
        QTest::newRow("thousands") << 1234.56 << QStringLiteral("1235");
        QTest::newRow("tens of thousands") << 12345.6 << QStringLiteral("12346");
        QTest::newRow("huge") << 1.5e9 << QStringLiteral("1.5e9");
        QTest::newRow("big int") << 12345678.0 << QStringLiteral("1.235e7");
        QTest::newRow("nan") << kNaN << QStringLiteral("NaN");
        QTest::newRow("inf") << std::numeric_limits<double>::infinity() << QStringLiteral("inf");
        QTest::newRow("zero") << 0.0 << QStringLiteral("0");
    }
    void compactNumbers() {
        QFETCH(double, value);
        QFETCH(QString, expected);
        QCOMPARE(formatCompactNumber(value), expected);
    }

    void naturalOrder_data() {
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::addColumn<int>("expected");
        QTest::newRow("digits by value")
            << QStringLiteral("job-9") << QStringLiteral("job-10") << -1;
        QTest::newRow("leading zeros") << QStringLiteral("run-007") << QStringLiteral("run-7") << 0;
        QTest::newRow("case") << QStringLiteral("Adam") << QStringLiteral("adam") << 0;
        QTest::newRow("prefix") << QStringLiteral("ab") << QStringLiteral("abc") << -1;
        QTest::newRow("letters") << QStringLiteral("sgd") << QStringLiteral("adam") << 1;
        QTest::newRow("digit before letter")
            << QStringLiteral("fm-2") << QStringLiteral("fm-ddp") << -1;
        QTest::newRow("dash before digit") << QStringLiteral("a-") << QStringLiteral("a1") << -1;
        QTest::newRow("long numbers")
            << QStringLiteral("x123456789012") << QStringLiteral("x99999999999") << 1;
    }
    void naturalOrder() {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QFETCH(int, expected);
        QCOMPARE(naturalCompare(a, b), expected);
        QCOMPARE(naturalCompare(b, a), -expected);
        // The precomputed key orders the same way.
        const auto ka = naturalSortKey(a), kb = naturalSortKey(b);
        QCOMPARE(ka < kb ? -1 : (kb < ka ? 1 : 0), expected);
    }

    void tagLists_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("formatted");
        QTest::addColumn<QString>("error");
        QTest::newRow("empty") << QString() << QString() << QString();
        QTest::newRow("two") << QStringLiteral(" b = 2 ,a=x y ") << QStringLiteral("a=x y, b=2")
                             << QString();
        QTest::newRow("trailing comma")
            << QStringLiteral("a=1,") << QStringLiteral("a=1") << QString();
        QTest::newRow("empty value") << QStringLiteral("a=") << QStringLiteral("a=") << QString();
        QTest::newRow("no value") << QStringLiteral("a=1, b") << QString()
                                  << QStringLiteral("tag \"b\" has no value: write key=value");
        QTest::newRow("no key") << QStringLiteral("=1") << QString()
                                << QStringLiteral("tag 1 (\"=1\") has no key: write key=value");
        QTest::newRow("twice") << QStringLiteral("a=1, a=2") << QString()
                               << QStringLiteral("tag \"a\" is given twice");
        QTest::newRow("extra comma") << QStringLiteral("a=1,,b=2") << QString()
                                     << QStringLiteral("tag 2 is empty (remove the extra comma)");
    }
    void tagLists() {
        QFETCH(QString, text);
        QFETCH(QString, formatted);
        QFETCH(QString, error);
        const TagListParse p = parseTagList(text);
        QCOMPARE(p.error, error);
        if (error.isEmpty())
            QCOMPARE(formatTagList(p.tags), formatted);
    }

    void csvFields() {
        QCOMPARE(csvField(QStringLiteral("plain")), QStringLiteral("plain"));
        QCOMPARE(csvField(QStringLiteral("a,b")), QStringLiteral("\"a,b\""));
        QCOMPARE(csvField(QStringLiteral("say \"hi\"")), QStringLiteral("\"say \"\"hi\"\"\""));
        QCOMPARE(csvField(QStringLiteral("two\nlines")), QStringLiteral("\"two\nlines\""));
    }
};

QTEST_MAIN(TestExperimentsModels)
#include "test_experiments_models.moc"
