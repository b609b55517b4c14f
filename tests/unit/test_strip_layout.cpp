// The strip layout (models/charts/strip_layout.h) behind the status timeline and the billing
// strip: segments at their times (over their own time or a shared range) or packed by duration,
// minimum shares, strips with no time, and a job's statuses with the current one lasting until now.
#include "models/charts/strip_layout.h"

#include <QtTest>

#include <cmath>

using namespace studio;
using namespace studio::models;

class TestStripLayout : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void placeOnStrip_data() {
        QTest::addColumn<QList<double>>("bounds"); // start, end, start, end, ...
        QTest::addColumn<double>("minShare");
        QTest::addColumn<bool>("packed");
        QTest::addColumn<QList<double>>("xs");
        QTest::addColumn<QList<double>>("widths");
        QTest::newRow("at their times") << QList<double>{0, 10, 10, 40} << 0.0 << false
                                        << QList<double>{0, 0.25} << QList<double>{0.25, 0.75};
        QTest::newRow("a gap shows") << QList<double>{0, 10, 30, 40} << 0.0 << false
                                     << QList<double>{0, 0.75} << QList<double>{0.25, 0.25};
        QTest::newRow("packed closes the gap") << QList<double>{0, 10, 30, 40} << 0.0 << true
                                               << QList<double>{0, 0.5} << QList<double>{0.5, 0.5};
        QTest::newRow("minimum share")
            << QList<double>{0, 1, 1, 100} << 0.1 << true << QList<double>{0, 0.1 + 0.8 * 0.01}
            << QList<double>{0.1 + 0.8 * 0.01, 0.1 + 0.8 * 0.99};
        QTest::newRow("minimum share at their times")
            << QList<double>{0, 0, 50, 100} << 0.2 << false << QList<double>{0, 0.2 + 0.3}
            << QList<double>{0.2, 0.2 + 0.3};
        QTest::newRow("share capped at one each")
            << QList<double>{0, 1, 1, 3} << 0.9 << true << QList<double>{0, 0.5}
            << QList<double>{0.5, 0.5};
        QTest::newRow("no time yet")
            << QList<double>{5, 5, 5, 5, 5, 5} << 0.06 << true << QList<double>{0, 1.0 / 3, 2.0 / 3}
            << QList<double>{1.0 / 3, 1.0 / 3, 1.0 / 3};
        QTest::newRow("no time at their times") << QList<double>{5, 5, 5, 5} << 0.0 << false
                                                << QList<double>{0, 0.5} << QList<double>{0.5, 0.5};
        QTest::newRow("an end before its start")
            << QList<double>{0, 10, 10, 0, 10, 20} << 0.0 << false << QList<double>{0, 0.5, 0.5}
            << QList<double>{0.5, 0, 0.5};
    }
    void placeOnStrip() {
        QFETCH(QList<double>, bounds);
        QFETCH(double, minShare);
        QFETCH(bool, packed);
        QFETCH(QList<double>, xs);
        QFETCH(QList<double>, widths);
        std::vector<StripSpan> spans;
        for (qsizetype i = 0; i + 1 < bounds.size(); i += 2)
            spans.push_back({bounds[i], bounds[i + 1]});
        const auto places = models::placeOnStrip(spans, {minShare, packed});
        QCOMPARE(qsizetype(places.size()), xs.size());
        for (std::size_t i = 0; i < places.size(); ++i) {
            const auto row = static_cast<qsizetype>(i);
            QVERIFY2(std::abs(places[i].x - xs[row]) < 1e-12, qPrintable(QString::number(i)));
            QVERIFY2(std::abs(places[i].width - widths[row]) < 1e-12,
                     qPrintable(QString::number(places[i].width)));
        }
        QVERIFY(models::placeOnStrip({}).empty());
    }

    void placeOnStripOverARange() {
        // Two strips sharing the axis [0, 40]: each spans only part of it.
        const std::vector<StripSpan> spans = {{10, 20}, {30, 40}};
        StripOptions range;
        range.from = 0;
        range.to = 40;
        const auto places = models::placeOnStrip(spans, range);
        QCOMPARE(places.size(), std::size_t(2));
        QVERIFY(std::abs(places[0].x - 0.25) < 1e-12);
        QVERIFY(std::abs(places[0].width - 0.25) < 1e-12);
        QVERIFY(std::abs(places[1].x - 0.75) < 1e-12);
        QVERIFY(std::abs(places[1].width - 0.25) < 1e-12);
        // Packed strips and empty ranges ignore it.
        range.packed = true;
        QVERIFY(std::abs(models::placeOnStrip(spans, range)[1].x - 0.5) < 1e-12);
        range = {};
        range.from = range.to = 10;
        QVERIFY(std::abs(models::placeOnStrip(spans, range)[1].x - 2.0 / 3) < 1e-12);
    }

    void timelineEnds() {
        // Training still running at 140; a finished job's final status has no length.
        const std::vector<store::StatusTransition> running = {
            {"InProgress", "Starting", 100, 120, ""}, {"InProgress", "Training", 120, 0, ""}};
        const auto live = layoutTimeline(running, 140, 0);
        QCOMPARE(live.size(), std::size_t(2));
        QCOMPARE(live[1].end, 140.0);
        QCOMPARE(live[1].label, QStringLiteral("Training"));
        QVERIFY(std::abs(live[0].width - 0.5) < 1e-12);
        const std::vector<store::StatusTransition> done = {{"InProgress", "Training", 100, 130, ""},
                                                           {"Completed", "", 130, 0, ""}};
        const auto ended = layoutTimeline(done, 999, 0.1);
        QCOMPARE(ended[1].end, 130.0);
        QCOMPARE(ended[1].label, QStringLiteral("Completed"));
        QVERIFY(std::abs(ended[0].width - 0.9) < 1e-12);
        QVERIFY(std::abs(ended[1].x - 0.9) < 1e-12);
        QVERIFY(std::abs(ended[1].width - 0.1) < 1e-12);
    }
};

QTEST_GUILESS_MAIN(TestStripLayout)
#include "test_strip_layout.moc"
