// Pipeline plans without LibTorch: every plan runs to the end in simulation, GPipe holds m
// activations and 1F1B at most p, the bubble matches (p-1)/(m+p-1); partitions and topologies.
#include "engine/train/partition.h"
#include "engine/train/pipeline_schedule.h"

#include <QtTest>

#include <map>

using namespace studio::train;

class TestPipelinePlan : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void plansComplete_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("stages");
        QTest::addColumn<int>("microbatches");
        for (int kind : {0, 1})
            for (int p : {1, 2, 3, 4, 8})
                for (int m : {1, 2, 3, 4, 8, 16}) {
                    const std::string tag = std::string(kind ? "1F1B" : "GPipe") + " p" +
                                            std::to_string(p) + " m" + std::to_string(m);
                    QTest::newRow(tag.c_str()) << kind << p << m;
                }
    }
    void plansComplete() {
        QFETCH(int, kind);
        QFETCH(int, stages);
        QFETCH(int, microbatches);
        const auto k = kind ? ScheduleKind::Interleaved : ScheduleKind::Simple;
        PipelinePlan plan = planPipeline(k, stages, microbatches);
        // Every stage runs each microbatch's forward and backward once, forward first, and sends
        // and receives exactly what its neighbours need.
        for (int s = 0; s < stages; ++s) {
            std::map<std::pair<int, int>, int> count;
            std::map<int, int> forwardAt, backwardAt;
            const auto& actions = plan.perStage[static_cast<std::size_t>(s)];
            for (std::size_t i = 0; i < actions.size(); ++i) {
                count[{static_cast<int>(actions[i].op), actions[i].microbatch}]++;
                if (actions[i].op == PipeOp::Forward)
                    forwardAt[actions[i].microbatch] = static_cast<int>(i);
                if (actions[i].op == PipeOp::Backward)
                    backwardAt[actions[i].microbatch] = static_cast<int>(i);
            }
            for (int mb = 0; mb < microbatches; ++mb) {
                QCOMPARE((count[{static_cast<int>(PipeOp::Forward), mb}]), 1);
                QCOMPARE((count[{static_cast<int>(PipeOp::Backward), mb}]), 1);
                QVERIFY(forwardAt[mb] < backwardAt[mb]);
                QCOMPARE((count[{static_cast<int>(PipeOp::RecvActivation), mb}]), s > 0 ? 1 : 0);
                QCOMPARE((count[{static_cast<int>(PipeOp::SendActivation), mb}]),
                         s + 1 < stages ? 1 : 0);
                QCOMPARE((count[{static_cast<int>(PipeOp::RecvGradient), mb}]),
                         s + 1 < stages ? 1 : 0);
                QCOMPARE((count[{static_cast<int>(PipeOp::SendGradient), mb}]), s > 0 ? 1 : 0);
            }
        }
        SimulationResult r = simulatePipeline(plan);
        QVERIFY2(r.completed, r.blockedAt.c_str());
        for (int s = 0; s < stages; ++s) {
            const int peak = r.peakInFlight[static_cast<std::size_t>(s)];
            if (k == ScheduleKind::Simple)
                QCOMPARE(peak, microbatches);
            else
                QVERIFY2(peak <= std::min(stages - s, microbatches), std::to_string(peak).c_str());
        }
    }

    void bubbleMatchesTheory_data() {
        QTest::addColumn<int>("stages");
        QTest::addColumn<int>("microbatches");
        QTest::newRow("p2 m4") << 2 << 4;
        QTest::newRow("p4 m8") << 4 << 8;
        QTest::newRow("p8 m32") << 8 << 32;
    }
    void bubbleMatchesTheory() {
        QFETCH(int, stages);
        QFETCH(int, microbatches);
        for (auto k : {ScheduleKind::Simple, ScheduleKind::Interleaved}) {
            SimulationResult r = simulatePipeline(planPipeline(k, stages, microbatches), 1.0, 2.0);
            QVERIFY(std::abs(r.bubbleFraction() - theoreticalBubble(stages, microbatches)) < 1e-9);
        }
        QCOMPARE(theoreticalBubble(8, 32), 7.0 / 39.0);
    }

    void aBrokenPlanIsReported() {
        PipelinePlan plan = planPipeline(ScheduleKind::Simple, 2, 2);
        plan.perStage[0].erase(
            plan.perStage[0].begin()); // stage 0 no longer sends microbatch 0... first
        plan.perStage[0].erase(plan.perStage[0].begin()); // (drop its first forward and send)
        SimulationResult r = simulatePipeline(plan);
        QVERIFY(!r.completed);
        QVERIFY(r.blockedAt.find("stage 1 waits at recv-activation of microbatch 0") !=
                std::string::npos);
    }

    void partitions() {
        QCOMPARE(balancedPartition({1, 1, 1, 1}, 2), (std::vector<int>{0, 2, 4}));
        QCOMPARE(balancedPartition({5, 1, 1, 1, 1, 1}, 2), (std::vector<int>{0, 1, 6}));
        QCOMPARE(balancedPartition({1, 2, 3, 4, 5, 6, 7, 8, 9}, 3), (std::vector<int>{0, 5, 7, 9}));
        QCOMPARE(balancedPartition({3, 3}, 2), (std::vector<int>{0, 1, 2}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, balancedPartition({1}, 2));
        QCOMPARE(evenPartition(7, 2, 1), (std::vector<int>{0, 3, 7}));
        QCOMPARE(evenPartition(7, 3, 0), (std::vector<int>{0, 3, 5, 7}));
        auto c = blendCosts({100, 300}, {3, 1}, 0.5);
        QCOMPARE(c[0], 0.5 * 0.25 + 0.5 * 0.75);
    }

    void topologies_data() {
        QTest::addColumn<QString>("placement");
        QTest::addColumn<int>("rank");
        QTest::addColumn<int>("stage");
        QTest::addColumn<int>("replica");
        QTest::addColumn<QString>("pipeline");
        QTest::addColumn<QString>("data");
        QTest::newRow("cluster r0") << "cluster" << 0 << 0 << 0 << "0,1"
                                    << "0,2";
        QTest::newRow("cluster r3") << "cluster" << 3 << 1 << 1 << "2,3"
                                    << "1,3";
        QTest::newRow("spread r1") << "spread" << 1 << 0 << 1 << "1,3"
                                   << "0,1";
        QTest::newRow("spread r2") << "spread" << 2 << 1 << 0 << "0,2"
                                   << "2,3";
        QTest::newRow("PD r3") << "PD" << 3 << 1 << 1 << "1,3"
                               << "2,3";
    }
    void topologies() {
        QFETCH(QString, placement);
        QFETCH(int, rank);
        QFETCH(int, stage);
        QFETCH(int, replica);
        QFETCH(QString, pipeline);
        QFETCH(QString, data);
        Topology t = makeTopology(rank, 4, 2, placement.toStdString());
        QCOMPARE(t.pipelineRank, stage);
        QCOMPARE(t.dataRank, replica);
        auto join = [](const std::vector<int>& v) {
            QStringList l;
            for (int x : v)
                l << QString::number(x);
            return l.join(QLatin1Char(','));
        };
        QCOMPARE(join(t.pipelineGroup), pipeline);
        QCOMPARE(join(t.dataGroup), data);
        QVERIFY(t.describe().find("pipeline rank " + std::to_string(stage) + " of 2") !=
                std::string::npos);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeTopology(0, 3, 2, "cluster"));
    }
};

QTEST_GUILESS_MAIN(TestPipelinePlan)
#include "test_pipeline_plan.moc"
