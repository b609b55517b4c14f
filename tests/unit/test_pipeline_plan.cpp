// Pipeline plans without LibTorch: every plan runs to the end in simulation, GPipe holds m
// activations and 1F1B at most p, the bubble matches (p-1)/(m+p-1); partitions and topologies.
#include "engine/train/partition.h"
#include "engine/train/pipeline_schedule.h"

#include "tests/support/plain_test.h"

#include <map>

using namespace studio::train;
using studio::testing::nearly;

namespace {

// One plan runs to its end with what each stage needs; kind 0 is GPipe, 1 is 1F1B.
void checkPlanCompletes(int kind, int stages, int microbatches) {
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
            REQUIRE((count[{static_cast<int>(PipeOp::Forward), mb}]) == 1);
            REQUIRE((count[{static_cast<int>(PipeOp::Backward), mb}]) == 1);
            REQUIRE(forwardAt[mb] < backwardAt[mb]);
            REQUIRE((count[{static_cast<int>(PipeOp::RecvActivation), mb}]) == (s > 0 ? 1 : 0));
            REQUIRE((count[{static_cast<int>(PipeOp::SendActivation), mb}]) ==
                    (s + 1 < stages ? 1 : 0));
            REQUIRE((count[{static_cast<int>(PipeOp::RecvGradient), mb}]) ==
                    (s + 1 < stages ? 1 : 0));
            REQUIRE((count[{static_cast<int>(PipeOp::SendGradient), mb}]) == (s > 0 ? 1 : 0));
        }
    }
    SimulationResult r = simulatePipeline(plan);
    REQUIRE_MESSAGE(r.completed, r.blockedAt.c_str());
    for (int s = 0; s < stages; ++s) {
        const int peak = r.peakInFlight[static_cast<std::size_t>(s)];
        if (k == ScheduleKind::Simple)
            REQUIRE(peak == microbatches);
        else
            REQUIRE_MESSAGE(peak <= std::min(stages - s, microbatches),
                            std::to_string(peak).c_str());
    }
}

} // namespace

TEST_CASE("plansComplete") {
    for (int kind : {0, 1})
        for (int p : {1, 2, 3, 4, 8})
            for (int m : {1, 2, 3, 4, 8, 16}) {
                INFO("row: ", kind ? "1F1B" : "GPipe", " p", p, " m", m);
                checkPlanCompletes(kind, p, m);
            }
}

TEST_CASE("bubbleMatchesTheory") {
    const struct {
        const char* row;
        int stages, microbatches;
    } rows[] = {{"p2 m4", 2, 4}, {"p4 m8", 4, 8}, {"p8 m32", 8, 32}};
    for (const auto& r : rows) {
        INFO("row: ", r.row);
        const auto& [row, stages, microbatches] = r;
        for (auto k : {ScheduleKind::Simple, ScheduleKind::Interleaved}) {
            SimulationResult r = simulatePipeline(planPipeline(k, stages, microbatches), 1.0, 2.0);
            REQUIRE(std::abs(r.bubbleFraction() - theoreticalBubble(stages, microbatches)) < 1e-9);
        }
        REQUIRE(theoreticalBubble(8, 32) == nearly(7.0 / 39.0));
    }
}

TEST_CASE("aBrokenPlanIsReported") {
    PipelinePlan plan = planPipeline(ScheduleKind::Simple, 2, 2);
    plan.perStage[0].erase(
        plan.perStage[0].begin()); // stage 0 no longer sends microbatch 0... first
    plan.perStage[0].erase(plan.perStage[0].begin()); // (drop its first forward and send)
    SimulationResult r = simulatePipeline(plan);
    REQUIRE(!r.completed);
    REQUIRE(r.blockedAt.find("stage 1 waits at recv-activation of microbatch 0") !=
            std::string::npos);
}

TEST_CASE("partitions") {
    REQUIRE(balancedPartition({1, 1, 1, 1}, 2) == (std::vector<int>{0, 2, 4}));
    REQUIRE(balancedPartition({5, 1, 1, 1, 1, 1}, 2) == (std::vector<int>{0, 1, 6}));
    REQUIRE(balancedPartition({1, 2, 3, 4, 5, 6, 7, 8, 9}, 3) == (std::vector<int>{0, 5, 7, 9}));
    REQUIRE(balancedPartition({3, 3}, 2) == (std::vector<int>{0, 1, 2}));
    REQUIRE_THROWS_AS(balancedPartition({1}, 2), std::invalid_argument);
    REQUIRE(evenPartition(7, 2, 1) == (std::vector<int>{0, 3, 7}));
    REQUIRE(evenPartition(7, 3, 0) == (std::vector<int>{0, 3, 5, 7}));
    auto c = blendCosts({100, 300}, {3, 1}, 0.5);
    REQUIRE(c[0] == nearly(0.5 * 0.25 + 0.5 * 0.75));
}

TEST_CASE("topologies") {
    const struct {
        const char* row;
        std::string placement;
        int rank, stage, replica;
        std::string pipeline, data;
    } rows[] = {
        {"cluster r0", "cluster", 0, 0, 0, "0,1", "0,2"},
        {"cluster r3", "cluster", 3, 1, 1, "2,3", "1,3"},
        {"spread r1", "spread", 1, 0, 1, "1,3", "0,1"},
        {"spread r2", "spread", 2, 1, 0, "0,2", "2,3"},
        {"PD r3", "PD", 3, 1, 1, "1,3", "2,3"},
    };
    for (const auto& r : rows) {
        INFO("row: ", r.row);
        const auto& [row, placement, rank, stage, replica, pipeline, data] = r;
        Topology t = makeTopology(rank, 4, 2, placement);
        REQUIRE(t.pipelineRank == stage);
        REQUIRE(t.dataRank == replica);
        auto join = [](const std::vector<int>& v) {
            std::string l;
            for (int x : v)
                l += (l.empty() ? "" : ",") + std::to_string(x);
            return l;
        };
        REQUIRE(join(t.pipelineGroup) == pipeline);
        REQUIRE(join(t.dataGroup) == data);
        REQUIRE(t.describe().find("pipeline rank " + std::to_string(stage) + " of 2") !=
                std::string::npos);
        REQUIRE_THROWS_AS(makeTopology(0, 3, 2, "cluster"), std::invalid_argument);
    }
}
