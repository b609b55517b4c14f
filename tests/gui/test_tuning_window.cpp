// The Tuning activity in the studio window: its explorer lists a synthetic tuning job
// (tuning_fixture.h) and opens its tab, whose jobs table opens a training job's tab; the launch
// dialog's Tune switch makes a tuning document that the tuning parser accepts, shows the
// parser's problems on the Tuning page's fields, and submits through a real Tuner: two script
// jobs run and the tuning job's tab ends Completed with both counted.
#include "engine/control/tuner.h"
#include "engine/tune/tuning_parser.h"
#include "models/launch/tuning_range_model.h"
#include "models/tuning/tuning_job_list_model.h"
#include "tests/gui/tuning_fixture.h"
#include "tests/support/screenshot.h"
#include "tests/support/test_controller.h"
#include "widgets/common/field_message.h"
#include "widgets/jobs/job_view.h"
#include "widgets/launch/launch_dialog.h"
#include "widgets/launch/tuning_section.h"
#include "widgets/shell/explorer.h"
#include "widgets/shell/main_window.h"
#include "widgets/shell/tuning_tabs.h"
#include "widgets/tuning/tuning_header.h"
#include "widgets/tuning/tuning_view.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QComboBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

#include <nlohmann/json.hpp>

using namespace studio;
using namespace studio::models;
using namespace studio::widgets;

namespace {

// A script job that reports acc=<x> once: the tuning job's objective is its x.
QString scriptSpec() {
    const nlohmann::json spec = {
        {"name", "tunewin"},
        {"entry_point", {"/bin/sh", "-c", "echo acc=0.5"}},
        {"hyperparameters", {{"x", 0.5}}},
        {"metric_definitions", {{{"Name", "acc"}, {"Regex", "acc=([0-9.]+)"}}}}};
    return QString::fromStdString(spec.dump());
}

} // namespace

class TestTuningWindow : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;

private Q_SLOTS:
    void initTestCase() {
        qputenv("STUDIO_NO_DIALOGS", "1");
        store::StoreWriter w(m_home.filePath(QStringLiteral("studio.db")).toStdString());
        tuning_fixture::writeTuningJob(w, "tune-window", 12);
    }

    void activityOpensTab() {
        control::Controller controller(testControllerOptions(m_home.path()));
        MainWindow w(controller);
        w.resize(1400, 900);
        auto* tuning = w.findChild<QAction*>(QStringLiteral("activity3"));
        QVERIFY(tuning);
        QCOMPARE(tuning->text(), QStringLiteral("Tuning"));
        tuning->trigger();
        QCOMPARE(w.explorer()->page(), Explorer::TuningPage);
        QAbstractItemModelTester tester(w.explorer()->tuningView()->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QTreeView* list = w.explorer()->tuningView();
        QTRY_COMPARE(list->model()->rowCount(), 1);
        Q_EMIT list->activated(list->model()->index(0, 0));
        auto* view = qobject_cast<TuningView*>(w.tabs()->currentWidget());
        QVERIFY(view);
        QCOMPARE(view->name(), QStringLiteral("tune-window"));
        QCOMPARE(w.tabs()->currentWidget()->property(MainWindow::kTabKey).toString(),
                 QStringLiteral("tuning:tune-window"));
        QTRY_VERIFY(view->loaded());
        QCOMPARE(view->table()->model()->rowCount(), 12);
        const QModelIndex row = view->table()->model()->index(0, 1);
        Q_EMIT view->table()->activated(row);
        auto* job = qobject_cast<JobView*>(w.tabs()->currentWidget());
        QVERIFY(job);
        QCOMPARE(job->job(), row.data().toString());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.openTuningJob(QStringLiteral("tune-window"));
        shoot(&w, "tuning-window.png");
        w.setCloseConfirmation([](int, int) { return CloseChoice::Stop; });
    }

    void launchDialogMakesTuningDocument() {
        LaunchDialog dialog;
        dialog.setSpec(LaunchDialog::newJobSpec(), m_home.path());
        QVERIFY(!dialog.tuning());
        dialog.findChild<QPushButton*>(QStringLiteral("tuneButton"))->click();
        QVERIFY(dialog.tuning());
        TuningSection* section = dialog.tuningSection();
        QAbstractItemModelTester tester(section->ranges(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(section->ranges()->rowOf(QStringLiteral("lr")) >= 0);
        section->ranges()->setTuned(QStringLiteral("lr"), true);
        QCOMPARE(section->objective()->currentText(), QStringLiteral("eval:accuracy"));
        dialog.validateNow();
        QVERIFY2(dialog.problems().isEmpty(), qPrintable(dialog.problems().join(u'\n')));
        const QString doc = dialog.tuningDocument();
        const auto parsed =
            tune::parseTuningSpecText(doc.toStdString(), m_home.path().toStdString());
        QVERIFY(parsed.ok());
        QCOMPARE(parsed.spec->ranges.size(), std::size_t(1));
        QCOMPARE(parsed.spec->ranges[0].name, std::string("lr"));
        QCOMPARE(parsed.spec->ranges[0].scaling, tune::Scaling::Logarithmic);
        QCOMPARE(parsed.spec->objectiveMetricName, std::string("eval:accuracy"));

        // A metric the job does not report: the problem shows on the objective's field.
        section->objective()->setCurrentText(QStringLiteral("eval:nope"));
        dialog.validateNow();
        QVERIFY(
            dialog.problems().join(u'\n').contains(QStringLiteral("tuning.objective_metric_name")));
        bool shown = false;
        for (FieldMessage* m : section->findChildren<FieldMessage*>())
            shown = shown || (m->isVisibleTo(section) && m->field() == section->objective());
        QVERIFY(shown);
        dialog.resize(1060, 740);
        dialog.showSection(dialog.sectionTitles().indexOf(QStringLiteral("Tuning")));
        dialog.show();
        shoot(&dialog, "tuning-launch-dialog.png");

        // A tuning document loads back into the form.
        LaunchDialog again;
        section->objective()->setCurrentText(QStringLiteral("eval:loss"));
        QVERIFY(again.setSpec(dialog.tuningDocument(), m_home.path()));
        QVERIFY(again.tuning());
        QCOMPARE(again.tuningSection()->objective()->currentText(), QStringLiteral("eval:loss"));
        QVERIFY(
            again.tuningSection()
                ->ranges()
                ->rows()[std::size_t(again.tuningSection()->ranges()->rowOf(QStringLiteral("lr")))]
                .tuned);
    }

    void submitsThroughTheTuner() {
        QTemporaryDir home;
        control::Controller controller(testControllerOptions(home.path()));
        control::Tuner tuner(controller);
        MainWindow w(controller);
        w.setTuner(&tuner);
        LaunchDialog dialog;
        dialog.setSpec(scriptSpec(), home.path());
        dialog.tuningSection()->setTuning(true);
        dialog.tuningSection()->ranges()->setTuned(QStringLiteral("x"), true);
        dialog.findChild<QSpinBox*>(QStringLiteral("maxJobs"))->setValue(2);
        dialog.findChild<QComboBox*>(QStringLiteral("strategy"))
            ->setCurrentText(QStringLiteral("Random"));
        dialog.validateNow();
        QVERIFY2(dialog.problems().isEmpty(), qPrintable(dialog.problems().join(u'\n')));
        QSignalSpy submitted(w.tuning(), &TuningTabs::submitted);
        QSignalSpy failed(w.tuning(), &TuningTabs::submitFailed);
        w.tuning()->submit(dialog.tuningDocument(), home.path());
        QTRY_VERIFY_WITH_TIMEOUT(!submitted.isEmpty() || !failed.isEmpty(), 20000);
        QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(0).toString()));
        const QString name = submitted.at(0).at(0).toString();
        auto* view = qobject_cast<TuningView*>(w.tabs()->currentWidget());
        QVERIFY(view);
        QCOMPARE(view->name(), name);
        QTRY_COMPARE_WITH_TIMEOUT(view->status(), QStringLiteral("Completed"), 60000);
        QTRY_COMPARE_WITH_TIMEOUT(view->header()->text(QStringLiteral("completed")),
                                  QStringLiteral("2"), 10000);
        QVERIFY(!view->header()->stopButton()->isEnabled());
        const int row = w.explorer()->tuningJobs()->rowOf(name);
        QVERIFY(row >= 0);
        QTRY_COMPARE_WITH_TIMEOUT(w.explorer()
                                      ->tuningJobs()
                                      ->index(row, TuningJobListModel::StatusColumn)
                                      .data()
                                      .toString(),
                                  QStringLiteral("Completed"), 10000);
        w.setCloseConfirmation([](int, int) { return CloseChoice::Stop; });
    }
};

QTEST_MAIN(TestTuningWindow)
#include "test_tuning_window.moc"
