// The Experiments browser on screen (offscreen platform): twelve jobs in three experiments plus
// Unassigned; scoping from the tree, typing a filter, sorting by a metric, an invalid filter's
// inline error, CSV export, tags and notes reaching the store, Compare with three rows, and the
// open/clone requests. Saves screenshots to STUDIO_SCREENSHOT_DIR.
#include "engine/control/studio_home.h"
#include "engine/store/store_reader.h"
#include "models/experiments/experiment_tree_model.h"
#include "models/experiments/leaderboard_model.h"
#include "tests/gui/experiments_fixture.h"
#include "tests/support/screenshot.h"
#include "widgets/common/theme.h"
#include "models/data/data_service.h"
#include "widgets/experiments/experiments_browser.h"
#include "widgets/experiments/leaderboard_widget.h"

#include <QApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeView>
#include <QtTest>

#include <memory>

using namespace studio;
using namespace studio::models;
using namespace studio::widgets;
using studio::testing::JobSeed;

namespace {

JobSeed job(const char* name, const char* experiment, const char* trial, const char* status,
            double lr, int batch, const char* optimizer, double accuracy, double loss) {
    JobSeed j;
    j.name = name;
    j.experiment = experiment;
    j.trial = trial;
    j.status = status;
    j.parameters = {{"lr", QString::number(lr).toStdString()},
                    {"batch_size", std::to_string(batch)},
                    {"optimizer", optimizer},
                    {"epochs", "10"}};
    // Curves that end at the given accuracy and loss.
    std::vector<double> acc, trainLoss, evalLoss;
    for (int s = 0; s < 10; ++s) {
        const double f = (s + 1) / 10.0;
        acc.push_back(accuracy * (0.6 + 0.4 * f));
        trainLoss.push_back(loss * (3.0 - 2.0 * f));
        evalLoss.push_back(loss * (3.2 - 2.0 * f));
    }
    if (std::string(status) != "Failed")
        j.metrics = {{"eval:accuracy", acc}, {"train:loss", trainLoss}, {"eval:loss", evalLoss}};
    else
        j.metrics = {{"train:loss", {loss * 3, loss * 2.8}}};
    j.durationSeconds = 40 + lr * 2000 + batch;
    return j;
}

std::vector<JobSeed> twelveJobs() {
    std::vector<JobSeed> jobs = {
        job("fmnist-cnn-baseline-1", "fashion-mnist", "baseline", "Completed", 0.01, 64, "sgd",
            0.901, 0.28),
        job("fmnist-cnn-baseline-2", "fashion-mnist", "baseline", "Completed", 0.01, 128, "sgd",
            0.894, 0.31),
        job("fmnist-lr-0.001", "fashion-mnist", "lr-sweep", "Completed", 0.001, 64, "adam", 0.912,
            0.25),
        job("fmnist-lr-0.003", "fashion-mnist", "lr-sweep", "Completed", 0.003, 64, "adam", 0.921,
            0.22),
        job("fmnist-lr-0.03", "fashion-mnist", "lr-sweep", "Failed", 0.03, 64, "adam", 0, 2.1),
        job("resnet18-ddp-1x1", "resnet-cifar", "ddp-scaling", "Completed", 0.1, 128, "sgd", 0.861,
            0.41),
        job("resnet18-ddp-1x2", "resnet-cifar", "ddp-scaling", "Completed", 0.1, 128, "sgd", 0.866,
            0.40),
        job("resnet18-ddp-2x2", "resnet-cifar", "ddp-scaling", "Stopped", 0.1, 128, "sgd", 0.702,
            0.77),
        job("resnet18-ddp-2x4", "resnet-cifar", "ddp-scaling", "InProgress", 0.2, 256, "sgd", 0.644,
            0.95),
        job("tiny-lm-pipeline", "transformer-lm", "tiny", "Completed", 0.0005, 32, "adamw", 0.412,
            2.9),
        job("tiny-lm-1f1b", "transformer-lm", "tiny", "Completed", 0.0005, 32, "adamw", 0.415,
            2.85),
        job("scratch-mlp", "", "", "Completed", 0.05, 64, "sgd", 0.853, 0.43),
    };
    jobs[6].processesPerHost = 2;
    jobs[7].instanceCount = 2;
    jobs[7].processesPerHost = 2;
    jobs[8].instanceCount = 2;
    jobs[8].processesPerHost = 4;
    jobs[0].tags = {{"owner", "ana"}};
    jobs[3].tags = {{"owner", "ana"}, {"stage", "candidate"}};
    jobs[5].tags = {{"owner", "bo"}};
    jobs[3].notes = "Best so far: adam with lr 3e-3.";
    return jobs;
}

QStringList shownNames(const LeaderboardModel* m) {
    QStringList out;
    for (int r = 0; r < m->rowCount(); ++r)
        out.push_back(m->index(r, 0).data(LeaderboardModel::JobNameRole).toString());
    return out;
}

} // namespace

class TestExperimentsGui : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    QString m_db;
    std::unique_ptr<store::StoreWriter> m_writer;
    std::vector<store::ComponentId> m_ids;
    std::unique_ptr<DataService> m_service;
    std::unique_ptr<ExperimentsBrowser> m_browser;

    LeaderboardWidget* board() { return m_browser->leaderboard(); }
    LeaderboardModel* model() { return board()->model(); }
    template <typename T>
    T* child(const char* name) {
        T* w = m_browser->findChild<T*>(QString::fromUtf8(name));
        if (!w)
            qFatal("no child named %s", name);
        return w;
    }
    void typeFilter(const QString& text) {
        auto* edit = child<QLineEdit>("filterEdit");
        edit->clear();
        QTest::keyClicks(edit, text);
        QTest::keyClick(edit, Qt::Key_Return);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_home.isValid());
        applyTheme(*qApp, ThemeChoice::Light);
        m_db = QString::fromStdString(control::databasePath(m_home.path().toStdString()));
        m_writer = std::make_unique<store::StoreWriter>(m_db.toStdString());
        // Created two days ago, a second apart, so durations and times look like real ones.
        const double now = static_cast<double>(QDateTime::currentSecsSinceEpoch());
        m_ids = testing::writeJobs(*m_writer, twelveJobs(), now - 2 * 86400);

        m_service = std::make_unique<DataService>(m_db);
        m_browser = std::make_unique<ExperimentsBrowser>(m_service.get(), m_writer.get());
        m_browser->resize(1400, 800);
        m_browser->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_browser.get()));
        QTRY_VERIFY(!board()->loading() && !m_browser->treeModel()->loading());
        QTRY_COMPARE(model()->rowCount(), 12);
    }

    void cleanupTestCase() {
        m_browser.reset();
        m_service.reset();
        m_writer.reset();
    }

    void showsEveryJob() {
        QCOMPARE(child<QLabel>("countsLabel")->text(), QStringLiteral("12 jobs"));
        // Newest first.
        QCOMPARE(shownNames(model()).front(), QStringLiteral("scratch-mlp"));
        auto* tree = m_browser->tree();
        QCOMPARE(tree->model()->rowCount(), 4);
        QCOMPARE(tree->model()->index(3, 0).data(ExperimentTreeModel::NameRole).toString(),
                 QStringLiteral("Unassigned"));
        QVERIFY(!board()->isColumnVisible(QStringLiteral("eval:accuracy - StdDev")));
        QVERIFY(!board()->isColumnVisible(QStringLiteral("Trial")));
        QVERIFY(board()->isColumnVisible(QStringLiteral("eval:accuracy - Max")));
        shoot(m_browser.get(), "experiments-overview.png");
    }

    void treeScopesTheLeaderboard() {
        auto* tree = m_browser->tree();
        const QModelIndex fm = tree->model()->index(0, 0);
        QCOMPARE(fm.data(ExperimentTreeModel::NameRole).toString(),
                 QStringLiteral("fashion-mnist"));
        tree->setCurrentIndex(fm);
        QCOMPARE(model()->rowCount(), 5);
        QVERIFY(child<QLabel>("scopeLabel")->text().contains(QStringLiteral("fashion-mnist")));

        const QModelIndex sweep = tree->model()->index(1, 0, fm);
        QCOMPARE(sweep.data(ExperimentTreeModel::NameRole).toString(), QStringLiteral("lr-sweep"));
        tree->setCurrentIndex(sweep);
        QCOMPARE(model()->rowCount(), 3);
        QCOMPARE(child<QLabel>("countsLabel")->text(), QStringLiteral("3 jobs"));
        shoot(m_browser.get(), "experiments-trial-scope.png");

        // A job in the tree scopes to its trial and selects it; double-click asks to open it.
        tree->expand(sweep);
        const QModelIndex jobIndex = tree->model()->index(1, 0, sweep);
        tree->setCurrentIndex(jobIndex);
        tree->scrollTo(jobIndex);
        QCoreApplication::processEvents(); // the expansion's layout
        QCOMPARE(board()->selectedComponentIds(), QList<qint64>{m_ids[3]});
        QSignalSpy open(m_browser.get(), &ExperimentsBrowser::openJobRequested);
        const QRect rect = tree->visualRect(jobIndex);
        // A widget double-click in QTest is the second click only: the first comes before it.
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, rect.center());
        QTest::mouseDClick(tree->viewport(), Qt::LeftButton, {}, rect.center());
        QCOMPARE(open.size(), 1);
        QCOMPARE(open.front().front().toString(), QStringLiteral("fmnist-lr-0.003"));

        tree->setCurrentIndex({});
        QCOMPARE(model()->rowCount(), 12);
    }

    void filterAndSortByMetric() {
        typeFilter(QStringLiteral("status = Completed and lr >= 0.003 and \"eval:accuracy - Max\" "
                                  ">= 0.85"));
        QVERIFY(!child<QLabel>("filterError")->isVisible());
        const int max = model()->table().columnOf(QStringLiteral("eval:accuracy - Max"));
        board()->view()->sortByColumn(max, Qt::DescendingOrder);
        QCOMPARE(board()->view()->horizontalHeader()->sortIndicatorSection(), max);
        QCOMPARE(shownNames(model()),
                 (QStringList{
                     QStringLiteral("fmnist-lr-0.003"), QStringLiteral("fmnist-cnn-baseline-1"),
                     QStringLiteral("fmnist-cnn-baseline-2"), QStringLiteral("resnet18-ddp-1x2"),
                     QStringLiteral("resnet18-ddp-1x1"), QStringLiteral("scratch-mlp")}));
        QCOMPARE(child<QLabel>("countsLabel")->text(), QStringLiteral("6 of 12 jobs"));
        // What the view shows: compact numbers, right-aligned.
        const QModelIndex top = model()->index(0, max);
        QCOMPARE(top.data().toString(), QStringLiteral("0.921"));
        QCOMPARE(top.data(Qt::TextAlignmentRole).value<Qt::Alignment>(),
                 Qt::AlignRight | Qt::AlignVCenter);
        shoot(m_browser.get(), "experiments-filtered-sorted.png");
    }

    void invalidFilterShowsInlineError() {
        const QStringList before = shownNames(model());
        typeFilter(QStringLiteral("status = Completed and lr >"));
        auto* error = child<QLabel>("filterError");
        QVERIFY(error->isVisible());
        QCOMPARE(error->text(), QStringLiteral("at 28: expected a value after '>'"));
        QCOMPARE(shownNames(model()), before); // the last valid filter stays
        shoot(m_browser.get(), "experiments-filter-error.png");

        typeFilter(QStringLiteral("accuracy > 0.9"));
        QCOMPARE(error->text(),
                 QStringLiteral("at 1: unknown field \"accuracy\" (did you mean \"eval:accuracy - "
                                "Last\"?)"));
        // Typing without Enter applies after a pause.
        auto* edit = child<QLineEdit>("filterEdit");
        edit->clear();
        QTest::keyClicks(edit, QStringLiteral("optimizer = adam"));
        QTRY_VERIFY(!error->isVisible());
        QTRY_COMPARE(model()->rowCount(), 3);
    }

    void exportsWhatIsShown() {
        typeFilter(QStringLiteral("experiment = transformer-lm"));
        board()->view()->sortByColumn(0, Qt::AscendingOrder);
        board()->setColumnVisible(QStringLiteral("Created"), false);
        board()->setColumnVisible(QStringLiteral("Experiment"), true);
        const QString path = m_home.path() + QStringLiteral("/board.csv");
        QString error;
        QVERIFY2(board()->exportCsv(path, &error), qPrintable(error));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QStringList lines =
            QString::fromUtf8(f.readAll()).split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 3);
        const QStringList header = lines[0].split(QLatin1Char(','));
        // Header order: the job, its scores, its parameters, the rest.
        QCOMPARE(header.mid(0, 3), (QStringList{QStringLiteral("Name"), QStringLiteral("Status"),
                                                QStringLiteral("eval:accuracy - Last")}));
        QVERIFY(header.contains(QStringLiteral("Experiment")));
        QVERIFY(!header.contains(QStringLiteral("Created")));
        QVERIFY(!header.contains(QStringLiteral("Trial")));                  // hidden by default
        QVERIFY(!header.contains(QStringLiteral("eval:accuracy - StdDev"))); // hidden by default
        auto field = [&](int line, const char* column) {
            return lines[line].split(QLatin1Char(','))[header.indexOf(QLatin1String(column))];
        };
        QCOMPARE(field(1, "Name"), QStringLiteral("tiny-lm-1f1b"));
        QCOMPARE(field(2, "Name"), QStringLiteral("tiny-lm-pipeline"));
        QCOMPARE(field(1, "Experiment"), QStringLiteral("transformer-lm"));
        QCOMPARE(field(1, "Duration"), QStringLiteral("73")); // seconds
        QCOMPARE(field(1, "lr"), QStringLiteral("5e-04"));    // shortest exact
        QCOMPARE(field(1, "eval:accuracy - Max"), QStringLiteral("0.415"));
        board()->setColumnVisible(QStringLiteral("Created"), true);
        board()->setColumnVisible(QStringLiteral("Experiment"), false);
        QVERIFY(!board()->exportCsv(m_home.path() + QStringLiteral("/no/such/dir/x.csv"), &error));
        QVERIFY(error.contains(QStringLiteral("cannot write")));
    }

    void editsTagsAndNotes() {
        typeFilter(QString());
        board()->selectComponent(m_ids[5]); // resnet18-ddp-1x1, tagged owner=bo
        auto* tags = child<QLineEdit>("tagsEdit");
        auto* notes = child<QPlainTextEdit>("notesEdit");
        auto* save = child<QPushButton>("saveDetailsButton");
        QCOMPARE(tags->text(), QStringLiteral("owner=bo"));
        QVERIFY(!save->isEnabled());

        tags->setText(QStringLiteral("owner=cy, stage=baseline"));
        notes->setPlainText(QStringLiteral("Scaling reference: one process."));
        QVERIFY(save->isEnabled());
        shoot(m_browser.get(), "experiments-details-edit.png");
        QTest::mouseClick(save, Qt::LeftButton);

        m_writer->flush();
        store::StoreReader reader(m_db.toStdString());
        const auto stored = reader.tags(m_ids[5]);
        QCOMPARE(stored.size(), std::size_t(2));
        QCOMPARE(stored.at("owner"), std::string("cy"));
        QCOMPARE(stored.at("stage"), std::string("baseline"));
        QCOMPARE(reader.component("resnet18-ddp-1x1")->notes,
                 std::string("Scaling reference: one process."));

        // The table shows the edit at once, and filters see it.
        QVERIFY(board()->setFilterText(QStringLiteral("tag.stage = baseline")));
        QCOMPARE(shownNames(model()), QStringList{QStringLiteral("resnet18-ddp-1x1")});

        // A tag removed is removed from the store; a bad tag list is refused inline.
        board()->setFilterText(QString());
        board()->selectComponent(m_ids[5]);
        tags->setText(QStringLiteral("stage=baseline, broken"));
        QTest::mouseClick(save, Qt::LeftButton);
        QVERIFY(child<QLabel>("tagsError")->isVisible());
        tags->setText(QStringLiteral("stage=baseline"));
        QTest::mouseClick(save, Qt::LeftButton);
        m_writer->flush();
        QCOMPARE(reader.tags(m_ids[5]).count("owner"), std::size_t(0));
    }

    void compareThreeRows() {
        board()->setFilterText(QString());
        board()->view()->sortByColumn(0, Qt::AscendingOrder);
        auto* compare = child<QPushButton>("compareButton");
        auto* view = board()->view();
        view->clearSelection();
        QVERIFY(!compare->isEnabled());
        view->selectRow(1);
        QVERIFY(!compare->isEnabled());
        QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::ControlModifier,
                          view->visualRect(model()->index(3, 0)).center());
        QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::ControlModifier,
                          view->visualRect(model()->index(5, 0)).center());
        QCOMPARE(view->selectionModel()->selectedRows().size(), 3);
        QVERIFY(compare->isEnabled());
        QCOMPARE(compare->text(), QStringLiteral("Compare 3"));
        shoot(m_browser.get(), "experiments-compare-selection.png");

        QSignalSpy spy(m_browser.get(), &ExperimentsBrowser::compareRequested);
        QTest::mouseClick(compare, Qt::LeftButton);
        QCOMPARE(spy.size(), 1);
        const auto ids = spy.front().front().value<QList<qint64>>();
        QCOMPARE(ids, (QList<qint64>{model()->componentId(1), model()->componentId(3),
                                     model()->componentId(5)}));
        QCOMPARE(ids, board()->selectedComponentIds());
    }

    void doubleClickOpensAndRefreshKeepsState() {
        auto* view = board()->view();
        QSignalSpy open(m_browser.get(), &ExperimentsBrowser::openJobRequested);
        const QModelIndex index = model()->index(2, 0);
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(index).center());
        QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(index).center());
        QCOMPARE(open.size(), 1);
        QCOMPARE(open.front().front().toString(),
                 index.data(LeaderboardModel::JobNameRole).toString());

        // A new job appears on refresh; the filter and the selection stay.
        QVERIFY(board()->setFilterText(QStringLiteral("experiment = resnet-cifar")));
        board()->selectComponent(m_ids[6]);
        JobSeed extra = twelveJobs()[6];
        extra.name = "resnet18-ddp-4x4";
        testing::writeJobs(*m_writer, {extra},
                           static_cast<double>(QDateTime::currentSecsSinceEpoch()));
        QSignalSpy loaded(board(), &LeaderboardWidget::loaded);
        m_browser->refresh();
        QVERIFY(loaded.wait(10000));
        QCOMPARE(model()->rowCount(), 5);
        QCOMPARE(board()->selectedComponentIds(), QList<qint64>{m_ids[6]});
        QTRY_VERIFY(!m_browser->treeModel()->loading());
        QTRY_COMPARE(m_browser->treeModel()
                         ->experimentIndex(QStringLiteral("resnet-cifar"))
                         .data(ExperimentTreeModel::JobCountRole)
                         .toInt(),
                     5);
    }

    void columnChooserTogglesGroups() {
        auto* button = child<QToolButton>("columnsButton");
        QMenu* menu = button->menu();
        menu->popup(button->mapToGlobal(QPoint(0, button->height())));
        QTRY_VERIFY(menu->isVisible());
        shoot(menu, "experiments-columns-menu.png");
        auto action = [&](const QString& prefix) -> QAction* {
            for (QAction* a : menu->actions())
                if (a->text().startsWith(prefix))
                    return a;
            return nullptr;
        };
        QAction* metrics = action(QStringLiteral("Metrics  ("));
        QVERIFY(metrics);
        QVERIFY(!metrics->isChecked()); // partly shown: StdDev, Avg and Count start hidden
        metrics->trigger();             // shows all of them
        QVERIFY(board()->isColumnVisible(QStringLiteral("train:loss - StdDev")));
        QVERIFY(metrics->isChecked());
        metrics->trigger(); // hides all
        QVERIFY(!board()->isColumnVisible(QStringLiteral("eval:accuracy - Last")));
        QAction* last = action(QStringLiteral("Last"));
        QVERIFY(last);
        last->trigger(); // one statistic back, for every metric
        QVERIFY(board()->isColumnVisible(QStringLiteral("eval:accuracy - Last")));
        QVERIFY(board()->isColumnVisible(QStringLiteral("train:loss - Last")));
        QVERIFY(!board()->isColumnVisible(QStringLiteral("train:loss - Max")));
        menu->close();
        // The choice survives a reload.
        QSignalSpy loaded(board(), &LeaderboardWidget::loaded);
        board()->refresh();
        QVERIFY(loaded.wait(10000));
        QVERIFY(!board()->isColumnVisible(QStringLiteral("train:loss - Max")));
        QVERIFY(board()->isColumnVisible(QStringLiteral("train:loss - Last")));
        shoot(m_browser.get(), "experiments-last-only.png");
    }

    void readOnlyWithoutWriter() {
        LeaderboardWidget readOnly(m_service.get(), nullptr);
        readOnly.resize(1000, 600);
        readOnly.show();
        QTRY_VERIFY(!readOnly.loading());
        readOnly.selectComponent(m_ids[0]);
        auto* tags = readOnly.findChild<QLineEdit*>(QStringLiteral("tagsEdit"));
        QVERIFY(tags->isReadOnly());
        QVERIFY(
            !readOnly.findChild<QPushButton*>(QStringLiteral("saveDetailsButton"))->isVisible());
        QSignalSpy clone(&readOnly, &LeaderboardWidget::cloneRequested);
        QPushButton* cloneButton = nullptr;
        for (auto* b : readOnly.findChildren<QPushButton*>())
            if (b->text() == QStringLiteral("Clone and edit"))
                cloneButton = b;
        QVERIFY(cloneButton);
        QTest::mouseClick(cloneButton, Qt::LeftButton);
        QCOMPARE(clone.size(), 1);
        QCOMPARE(clone.front().front().toString(), QStringLiteral("fmnist-cnn-baseline-1"));
    }
};

QTEST_MAIN(TestExperimentsGui)
#include "test_experiments_gui.moc"
