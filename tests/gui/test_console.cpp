// The Console's model and filters: bounded, tagged like mpirun --tag-output, filtered by job,
// node, rank, stream and text; log files read back; the panel under QAbstractItemModelTester.
#include "models/console/log_model.h"
#include "tests/support/screenshot.h"
#include "widgets/console/console_panel.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QLineEdit>
#include <QListView>
#include <QTemporaryDir>
#include <QtTest>

using namespace studio::models;
using namespace studio::widgets;

namespace {

QList<LiveLogLine> lines(const QString& job, int node, int rank, const QString& stream, int n,
                         int from = 0) {
    QList<LiveLogLine> out;
    for (int i = from; i < from + n; ++i)
        out.append({job, node, rank, stream, QStringLiteral("line %1").arg(i), 1.7e9 + i});
    return out;
}

} // namespace

class TestConsole : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void modelIsBoundedAndTagged() {
        LogModel model(100);
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.append(lines(QStringLiteral("a"), 0, 1, QStringLiteral("stdout"), 60));
        model.append(lines(QStringLiteral("a"), 0, -1, QStringLiteral("stderr"), 70, 60));
        QCOMPARE(model.rowCount(), 100);
        // The oldest 30 went.
        QCOMPARE(model.data(model.index(0), LogModel::TextRole).toString(),
                 QStringLiteral("line 30"));
        QCOMPARE(model.data(model.index(0), Qt::DisplayRole).toString(),
                 QStringLiteral("[0,1]<stdout>:line 30"));
        QCOMPARE(model.data(model.index(99), Qt::DisplayRole).toString(),
                 QStringLiteral("[0,-]<stderr>:line 129"));
        // A batch larger than the bound keeps its newest lines.
        model.append(lines(QStringLiteral("b"), 1, 2, QStringLiteral("stdout"), 250));
        QCOMPARE(model.rowCount(), 100);
        QCOMPARE(model.line(0).text, QStringLiteral("line 150"));
        QCOMPARE(model.jobs(), (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
        QCOMPARE(model.ranks(), (QList<int>{-1, 1, 2}));
    }

    void proxyFilters_data() {
        QTest::addColumn<QString>("job");
        QTest::addColumn<int>("node");
        QTest::addColumn<int>("rank");
        QTest::addColumn<QString>("hidden");
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("rows");
        QTest::newRow("all") << QString() << -1 << -2 << QString() << QString() << 40;
        QTest::newRow("job") << QStringLiteral("b") << -1 << -2 << QString() << QString() << 10;
        QTest::newRow("node") << QString() << 1 << -2 << QString() << QString() << 20;
        QTest::newRow("rank") << QString() << -1 << 3 << QString() << QString() << 10;
        QTest::newRow("launcher") << QString() << -1 << -1 << QString() << QString() << 10;
        QTest::newRow("no stderr")
            << QString() << -1 << -2 << QStringLiteral("stderr") << QString() << 30;
        QTest::newRow("text") << QString() << -1 << -2 << QString() << QStringLiteral("LINE 7")
                              << 4;
        QTest::newRow("combined") << QStringLiteral("a") << 0 << 0 << QString()
                                  << QStringLiteral("line 1") << 1;
    }
    void proxyFilters() {
        QFETCH(QString, job);
        QFETCH(int, node);
        QFETCH(int, rank);
        QFETCH(QString, hidden);
        QFETCH(QString, text);
        QFETCH(int, rows);
        LogModel model;
        model.append(lines(QStringLiteral("a"), 0, 0, QStringLiteral("stdout"), 10));
        model.append(lines(QStringLiteral("a"), 0, -1, QStringLiteral("stderr"), 10));
        model.append(lines(QStringLiteral("a"), 1, 3, QStringLiteral("stdout"), 10));
        model.append(lines(QStringLiteral("b"), 1, 2, QStringLiteral("stdout"), 10));
        LogFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setJob(job);
        proxy.setNode(node);
        proxy.setRank(rank);
        if (!hidden.isEmpty())
            proxy.setStreamShown(hidden, false);
        proxy.setText(text);
        QCOMPARE(proxy.rowCount(), rows);
        // Lines appended later are filtered as they come.
        model.append(lines(QStringLiteral("a"), 0, 0, QStringLiteral("stdout"), 1, 1000));
        const bool extra =
            (job.isEmpty() || job == QLatin1String("a")) && node <= 0 &&
            (rank == -2 || rank == 0) && hidden != QLatin1String("stdout") &&
            (text.isEmpty() || QStringLiteral("line 1000").contains(text, Qt::CaseInsensitive));
        QCOMPARE(proxy.rowCount(), rows + (extra ? 1 : 0));
    }

    void readsLogFiles() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("rank-1.log"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("1795300000.25 stdout epoch 1 loss=0.5\n"
                "1795300001.5 stderr warning: slow\n"
                "not a tagged line\n");
        f.close();
        const auto read = LogModel::readLogFile(path, QStringLiteral("j"), 0, 1);
        QCOMPARE(read.size(), 3);
        QCOMPARE(read[0].text, QStringLiteral("epoch 1 loss=0.5"));
        QCOMPARE(read[0].time, 1795300000.25);
        QCOMPARE(read[1].stream, QStringLiteral("stderr"));
        QCOMPARE(read[2].text, QStringLiteral("not a tagged line"));
        QCOMPARE(read[2].stream, QStringLiteral("stdout"));
        QVERIFY(
            LogModel::readLogFile(dir.filePath(QStringLiteral("missing.log")), {}, 0, 0).isEmpty());
    }

    void panelSearchesAndPins() {
        ConsolePanel panel;
        panel.resize(900, 300);
        panel.model()->append(lines(QStringLiteral("a"), 0, 0, QStringLiteral("stdout"), 50));
        panel.model()->append(lines(QStringLiteral("b"), 0, 1, QStringLiteral("stderr"), 50));
        panel.show();
        QCOMPARE(panel.proxy()->rowCount(), 100);
        auto* search = panel.findChild<QLineEdit*>(QStringLiteral("consoleSearch"));
        QTest::keyClicks(search, QStringLiteral("line 4"));
        QTRY_COMPARE(panel.proxy()->rowCount(), 22); // "line 4", "line 40".."49" in each job
        panel.setFixedJob(QStringLiteral("b"));
        QCOMPARE(panel.proxy()->rowCount(), 11);
        shoot(&panel, "console.png");
    }
};

QTEST_MAIN(TestConsole)
#include "test_console.moc"
