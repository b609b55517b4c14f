// The engine bridge: events from many job threads reach the GUI thread complete, in order, as
// batches no more often than every 40 ms; the log backlog is bounded.
#include "engine/control/controller.h"
#include "models/live/engine_bridge.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <thread>

using namespace studio;

class TestEngineBridge : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;

private Q_SLOTS:
    void batchesAreCompleteOrderedAndThrottled() {
        control::ControllerOptions o;
        o.home = m_home.path().toStdString();
        control::Controller controller(o);
        models::EngineBridge bridge(controller);
        QList<double> batchTimes;
        QHash<int, QList<int>> seen; // rank -> line numbers in arrival order
        int metrics = 0;
        QElapsedTimer clock;
        clock.start();
        connect(&bridge, &models::EngineBridge::batchReady, this, [&](const models::LiveBatch& b) {
            QCOMPARE(QThread::currentThread(), thread());
            batchTimes.append(static_cast<double>(clock.elapsed()));
            for (const auto& l : b.logs)
                seen[l.rank].append(l.text.toInt());
            metrics += static_cast<int>(b.metrics.size());
        });
        constexpr int kRanks = 4, kLines = 3000;
        std::vector<std::thread> threads;
        for (int r = 0; r < kRanks; ++r)
            threads.emplace_back([&bridge, r] {
                for (int i = 0; i < kLines; ++i) {
                    wire::Event e{wire::nowSeconds(), 0, r,
                                  wire::LogEvent{wire::Stream::Stdout, std::to_string(i)}};
                    bridge.jobEvent("job", 1, e);
                    if (i % 10 == 0)
                        bridge.jobEvent("job", 1,
                                        wire::Event{wire::nowSeconds(), 0, r,
                                                    wire::MetricEvent{"train:loss", i, 0.5}});
                    if (i % 20 == 0)
                        std::this_thread::sleep_for(std::chrono::milliseconds(5));
                }
            });
        // The GUI thread keeps running while the jobs report. The loop ends when every line has
        // arrived, or fails when none arrived for a long while (stalled, not slow).
        int lastTotal = -1;
        QElapsedTimer sinceProgress;
        sinceProgress.start();
        while (true) {
            bool done = true;
            for (auto& t : threads)
                done = done && !t.joinable();
            QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
            int total = 0;
            for (const auto& list : std::as_const(seen))
                total += static_cast<int>(list.size());
            if (total == kRanks * kLines)
                break;
            if (total != lastTotal) {
                lastTotal = total;
                sinceProgress.restart();
            }
            QVERIFY2(sinceProgress.elapsed() < 60000, "lines stopped arriving");
        }
        for (auto& t : threads)
            t.join();
        QTRY_COMPARE(metrics, kRanks * kLines / 10);
        for (int r = 0; r < kRanks; ++r) {
            const auto& lines = seen[r];
            QCOMPARE(lines.size(), kLines);
            for (int i = 0; i < kLines; ++i)
                QCOMPARE(lines[i], i);
        }
        // At most one batch per 40 ms (timer slack allowed): about 25 Hz.
        QVERIFY(batchTimes.size() >= 2);
        const double span = batchTimes.back() - batchTimes.front();
        const double rate = (batchTimes.size() - 1) / (span / 1000.0);
        qInfo("batches: %d over %.0f ms (%.1f Hz)", static_cast<int>(batchTimes.size()), span,
              rate);
        QVERIFY2(rate <= 27, qPrintable(QStringLiteral("%1 Hz").arg(rate)));
    }

    void backlogIsBoundedAndCounted() {
        control::ControllerOptions o;
        o.home = m_home.path().toStdString();
        control::Controller controller(o);
        models::EngineBridge bridge(controller);
        QSignalSpy spy(&bridge, &models::EngineBridge::batchReady);
        // No event loop runs while the job floods: the bridge keeps the newest lines only.
        const int n = models::EngineBridge::kMaxPendingLogs + 500;
        for (int i = 0; i < n; ++i)
            bridge.jobEvent(
                "job", 1,
                wire::Event{0, 0, 0, wire::LogEvent{wire::Stream::Stderr, std::to_string(i)}});
        QTRY_COMPARE(spy.count(), 1);
        const auto batch = spy.at(0).at(0).value<models::LiveBatch>();
        QCOMPARE(batch.logs.size(), models::EngineBridge::kMaxPendingLogs);
        QCOMPARE(batch.droppedLogs, 500);
        QCOMPARE(batch.logs.back().text, QString::number(n - 1));
        QCOMPARE(batch.logs.front().stream, QStringLiteral("stderr"));
    }
};

QTEST_MAIN(TestEngineBridge)
#include "test_engine_bridge.moc"
