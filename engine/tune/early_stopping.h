// Stopping training jobs of a tuning job early: SageMaker's median rule (early_stopping_type
// Auto) and Hyperband's asynchronous successive halving over brackets. Pure: decisions depend
// only on the curves given.
#pragma once

#include <cstdint>
#include <vector>

namespace studio::tune {

// A training job's objective after each epoch (report i is epoch i + 1).
using Curve = std::vector<double>;

struct MedianRuleDecision {
    bool stop = false;
    double runningAverage = 0; // of the job's objective up to this epoch
    double median = 0;         // of the other jobs' running averages up to this epoch
    int compared = 0;          // how many jobs the median was taken over
};

// SageMaker's median rule: after epoch e of `job` (e = job.size()), take every earlier job's
// running average of its objective up to epoch e (jobs that reached e), and stop when the job's
// own running average up to e is worse than their median (the mean of the two middle ones for an
// even count). No decision before minJobs earlier jobs reached e.
MedianRuleDecision medianRule(const Curve& job, const std::vector<Curve>& earlier, bool maximize,
                              int minJobs = 3);

// One bracket of Hyperband: configurations start at resource rungs[0] and are promoted through
// the rungs; n is how many configurations the bracket gets per round.
struct HyperbandBracket {
    int index = 0;
    std::int64_t n = 0;
    std::vector<std::int64_t> rungs; // resources, increasing, the last is maxResource
};

struct HyperbandPlan {
    std::int64_t minResource = 1;
    std::int64_t maxResource = 1;
    int reductionFactor = 3;
    std::vector<HyperbandBracket> brackets; // most exploratory (most rungs) first
    // Which bracket the configuration launched as number `ordinal` (0-based) belongs to: a
    // smooth weighted round robin over the brackets with weights n, so every sum-of-n launches
    // hold n of each bracket, interleaved.
    int bracketOf(int ordinal) const;
};

// s_max = floor(log_eta(max / min)); bracket s (s_max down to 0) gets
// n = ceil((s_max + 1) / (s + 1) * eta^s) configurations and rungs max * eta^-s, ..., max,
// rounded to whole resources of at least minResource. index is the bracket's place in the list.
HyperbandPlan planHyperband(std::int64_t minResource, std::int64_t maxResource,
                            int reductionFactor = 3);

struct HyperbandDecision {
    bool stop = false;
    std::int64_t rung = -1; // the rung resource the decision was taken at; -1: not at a rung
};

// Asynchronous successive halving (ASHA) inside a bracket. One report is one unit of resource,
// so a job reaches rung r when its curve has exactly r reports; the last rung is the job's end
// and takes no decision. At a rung the job goes on only when its objective there ranks within
// the top max(1, floor(k / reductionFactor)) of the k jobs of the bracket that reached the rung
// (itself included; ties rank in its favour). bracketJobs: the bracket's other jobs, without
// `job`. The first jobs at a rung always go on, as in ASHA's promotions.
HyperbandDecision hyperbandDecision(const HyperbandPlan& plan, int bracket, const Curve& job,
                                    const std::vector<Curve>& bracketJobs, bool maximize);

} // namespace studio::tune
