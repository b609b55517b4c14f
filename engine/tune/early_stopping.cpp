// The median rule and Hyperband's brackets and successive halving.
#include "engine/tune/early_stopping.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace studio::tune {

namespace {

double runningAverage(const Curve& c, std::size_t epochs) {
    return std::accumulate(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(epochs), 0.0) /
           static_cast<double>(epochs);
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

} // namespace

MedianRuleDecision medianRule(const Curve& job, const std::vector<Curve>& earlier, bool maximize,
                              int minJobs) {
    MedianRuleDecision d;
    const std::size_t e = job.size();
    if (e == 0)
        return d;
    d.runningAverage = runningAverage(job, e);
    std::vector<double> averages;
    for (const auto& c : earlier)
        if (c.size() >= e)
            averages.push_back(runningAverage(c, e));
    d.compared = static_cast<int>(averages.size());
    if (averages.empty())
        return d;
    d.median = median(std::move(averages));
    if (d.compared < std::max(minJobs, 1))
        return d;
    d.stop = maximize ? d.runningAverage < d.median : d.runningAverage > d.median;
    return d;
}

HyperbandPlan planHyperband(std::int64_t minResource, std::int64_t maxResource,
                            int reductionFactor) {
    if (minResource < 1 || maxResource < minResource)
        throw std::invalid_argument("Hyperband needs 1 <= min_resource <= max_resource");
    if (reductionFactor < 2)
        throw std::invalid_argument("Hyperband's reduction factor must be at least 2");
    HyperbandPlan plan;
    plan.minResource = minResource;
    plan.maxResource = maxResource;
    plan.reductionFactor = reductionFactor;
    const double eta = reductionFactor;
    // The largest s with min * eta^s <= max, in integers so that 81 / 1 gives exactly 4.
    int sMax = 0;
    for (std::int64_t r = minResource; r <= maxResource / reductionFactor; r *= reductionFactor)
        ++sMax;
    for (int s = sMax; s >= 0; --s) {
        HyperbandBracket b;
        b.index = sMax - s;
        b.n = static_cast<std::int64_t>(
            std::ceil((sMax + 1.0) / (s + 1.0) * std::pow(eta, s) - 1e-9));
        for (int i = s; i >= 0; --i) {
            auto r = static_cast<std::int64_t>(
                std::llround(static_cast<double>(maxResource) * std::pow(eta, -i)));
            r = std::clamp(r, minResource, maxResource);
            if (b.rungs.empty() || r > b.rungs.back())
                b.rungs.push_back(r);
        }
        plan.brackets.push_back(std::move(b));
    }
    return plan;
}

int HyperbandPlan::bracketOf(int ordinal) const {
    if (brackets.empty() || ordinal < 0)
        return 0;
    std::int64_t total = 0;
    for (const auto& b : brackets)
        total += b.n;
    // Smooth weighted round robin: every step each bracket gains its weight, the richest is
    // chosen and pays the total. The pattern repeats every `total` steps.
    const std::int64_t steps = ordinal % total;
    std::vector<std::int64_t> credit(brackets.size(), 0);
    int chosen = 0;
    for (std::int64_t step = 0; step <= steps; ++step) {
        chosen = 0;
        for (std::size_t i = 0; i < brackets.size(); ++i) {
            credit[i] += brackets[i].n;
            if (credit[i] > credit[static_cast<std::size_t>(chosen)])
                chosen = static_cast<int>(i);
        }
        credit[static_cast<std::size_t>(chosen)] -= total;
    }
    return chosen;
}

HyperbandDecision hyperbandDecision(const HyperbandPlan& plan, int bracket, const Curve& job,
                                    const std::vector<Curve>& bracketJobs, bool maximize) {
    HyperbandDecision d;
    if (bracket < 0 || bracket >= static_cast<int>(plan.brackets.size()))
        throw std::out_of_range("Hyperband has no bracket " + std::to_string(bracket));
    const auto& rungs = plan.brackets[static_cast<std::size_t>(bracket)].rungs;
    const auto reached = static_cast<std::int64_t>(job.size());
    const auto at = std::find(rungs.begin(), rungs.end(), reached);
    if (at == rungs.end() || at + 1 == rungs.end())
        return d;
    d.rung = reached;
    const double mine = job.back();
    std::int64_t k = 1;
    std::int64_t better = 0;
    for (const auto& c : bracketJobs) {
        if (static_cast<std::int64_t>(c.size()) < reached)
            continue;
        ++k;
        const double theirs = c[static_cast<std::size_t>(reached - 1)];
        if (maximize ? theirs > mine : theirs < mine)
            ++better;
    }
    const std::int64_t keep = std::max<std::int64_t>(1, k / plan.reductionFactor);
    d.stop = better + 1 > keep;
    return d;
}

} // namespace studio::tune
