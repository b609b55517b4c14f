// Jobs imported from TensorBoard (mlstudio import --tensorboard) beside native ones: their status
// has its own colour and mark, ends where it starts on the timeline, Compare overlays them with
// native jobs, and a job view offers no Clone (there is no specification). Screenshot:
// build/screenshots/compare-imported.png.
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"
#include "engine/tboard/event_file.h"
#include "engine/tboard/import.h"
#include "models/charts/strip_layout.h"
#include "models/common/status_style.h"
#include "models/data/data_service.h"
#include "tests/support/screenshot.h"
#include "widgets/charts/compare_view.h"
#include "widgets/charts/curve_chart.h"
#include "widgets/common/theme.h"
#include "widgets/jobs/job_view.h"

#include <QApplication>
#include <QLabel>
#include <QPushButton>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace studio;
using namespace Qt::StringLiterals;

namespace {

constexpr double kStart = 1700000000;
constexpr int kPoints = 200;

double lossAt(int i, double rate, double floor) {
    return 2.3 * std::exp(-rate * i) + floor;
}

} // namespace

class TestImportedGui : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_db;
    QList<qint64> m_ids;

private Q_SLOTS:
    void initTestCase() {
        widgets::applyTheme(*qApp, widgets::ThemeChoice::Light);
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath(u"studio.db"_s);
        {
            store::StoreWriter writer(m_db.toStdString());
            store::NewComponent c;
            c.name = "native-lr0-01";
            c.experiment = "mnist";
            c.created = kStart;
            c.specJson = R"({"name": "native-lr0-01"})";
            c.parameters = {{"lr", "0.01", 0.01}, {"optimizer", "adam", std::nullopt}};
            const store::ComponentId id = writer.createComponent(c);
            m_ids.append(id);
            for (int i = 0; i < kPoints; ++i)
                writer.addMetric(id, "train:loss",
                                 {i * 10, kStart + i, lossAt(i, 0.02, 0.1), 0, 0});
            writer.setStatus(id, "Completed", "Completed", "", kStart + kPoints);
            writer.setEnded(id, kStart + kPoints);
            writer.flush();
        }
        // A run as TensorBoard shows it, written by the studio's own event file writer.
        const std::filesystem::path logs = m_dir.filePath(u"logs"_s).toStdString();
        {
            tboard::EventFileWriter w(logs / "keras-lr0-1", {}, kStart);
            w.addSessionStart({{{"lr", 0.1}, {"optimizer", std::string("sgd")}}, kStart, ""},
                              kStart);
            for (int i = 0; i < kPoints; ++i)
                w.addScalar({"train:loss", i * 10, kStart + 60 + i, lossAt(i, 0.035, 0.2)});
            w.addSessionEnd(1, kStart + 60 + kPoints);
        }
        const tboard::ImportSummary s =
            tboard::importTensorboard({m_db.toStdString(), logs, "mnist", false, {}});
        QCOMPARE(s.jobs, (std::vector<std::string>{"keras-lr0-1"}));
        QCOMPARE(s.points, kPoints);
        store::StoreReader reader(m_db.toStdString());
        const auto row = reader.component("keras-lr0-1");
        QVERIFY(row && row->status == "Imported");
        m_ids.append(row->id);
    }

    void statusHasItsOwnLook() {
        const QColor imported = models::statusColor(u"Imported"_s);
        QVERIFY(imported != models::mutedColor());
        QVERIFY(imported != models::statusColor(u"Completed"_s));
        QVERIFY(imported != models::statusColor(u"InProgress"_s));
        // Its mark (an arrow) reads without colour: the plain disc of an unknown status has none.
        const QImage mark = models::statusIcon(u"Imported"_s).pixmap(32, 32).toImage();
        const QImage plain = models::statusIcon(u"Unknown"_s).pixmap(32, 32).toImage();
        QCOMPARE(mark.pixelColor(16, 12), QColor(Qt::white));
        QVERIFY(plain.pixelColor(16, 12) != QColor(Qt::white));
    }

    void timelineEndsAtImport() {
        const std::vector<store::StatusTransition> t = {{"Imported", "Imported", kStart, 0, ""}};
        const auto segments = models::layoutTimeline(t, kStart + 3600, 0.0);
        QCOMPARE(segments.size(), std::size_t(1));
        QCOMPARE(segments[0].end, kStart); // an ended job, not one running until now
    }

    void compareOverlaysImportedAndNative() {
        models::DataService service(m_db);
        widgets::CompareView view(&service);
        QSignalSpy curves(&view, &widgets::CompareView::curvesLoaded);
        view.resize(1280, 860);
        view.setJobs(m_ids);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(curves.wait(15000));
        widgets::CurveChart* chart = view.curveChart();
        chart->redrawNow();
        QCOMPARE(view.metric(), u"train:loss"_s);
        QCOMPARE(chart->seriesCount(), 2);
        for (const QString& name : chart->seriesNames())
            QCOMPARE(chart->drawnPoints(name, false).size(), kPoints);
        shoot(&view, u"compare-imported.png"_s);
    }

    void jobViewOffersNoClone() {
        models::DataService service(m_db);
        widgets::JobView view(&service, u"keras-lr0-1"_s);
        view.resize(1300, 850);
        view.show();
        QTRY_VERIFY(view.loaded());
        QCOMPARE(view.status(), u"Imported"_s);
        QVERIFY(!view.findChild<QPushButton*>(u"jobClone"_s)->isEnabled());
        widgets::JobView native(&service, u"native-lr0-01"_s);
        QTRY_VERIFY(native.loaded());
        QVERIFY(native.findChild<QPushButton*>(u"jobClone"_s)->isEnabled());
        shoot(&view, u"job-imported.png"_s);
    }
};

QTEST_MAIN(TestImportedGui)
#include "test_imported_gui.moc"
