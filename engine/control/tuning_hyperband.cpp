// Hyperband's bookkeeping over the tuning job's training jobs: a configuration's whole curve
// across the jobs that continued it from its checkpoint, its bracket's other configurations,
// and the stopped configurations that have become good enough to continue (promotions, as in
// asynchronous successive halving: a configuration paused at a rung goes on once enough worse
// ones have reached that rung).
#include "engine/control/tuning_run.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace studio::control {

namespace {

// Whether the configuration's checkpoint folder holds anything to go on from.
bool hasCheckpoint(const TuningRun& run, int root) {
    std::error_code ec;
    for (const auto& e :
         std::filesystem::recursive_directory_iterator(checkpointFolder(run, root), ec))
        if (e.is_regular_file(ec))
            return true;
    return false;
}

bool hasContinuation(const TuningRun& run, int ordinal) {
    return std::any_of(run.trials.begin(), run.trials.end(),
                       [ordinal](const TuningTrial& t) { return t.row.resumedFrom == ordinal; });
}

} // namespace

std::string checkpointFolder(const TuningRun& run, int rootOrdinal) {
    char dir[32];
    std::snprintf(dir, sizeof dir, "/config-%03d", rootOrdinal + 1);
    return run.checkpointRoot + dir;
}

tune::Curve chainCurve(const TuningRun& run, const TuningTrial& t) {
    tune::Curve c;
    if (t.row.resumedFrom >= 0 && t.row.resumedFrom < static_cast<int>(run.trials.size()) &&
        t.row.resumedFrom != t.row.ordinal)
        c = chainCurve(run, run.trials[static_cast<std::size_t>(t.row.resumedFrom)]);
    c.insert(c.end(), t.curve.begin(), t.curve.end());
    return c;
}

int rootOrdinal(const TuningRun& run, const TuningTrial& t) {
    const TuningTrial* at = &t;
    while (at->row.resumedFrom >= 0 && at->row.resumedFrom < static_cast<int>(run.trials.size()))
        at = &run.trials[static_cast<std::size_t>(at->row.resumedFrom)];
    return at->row.ordinal;
}

std::vector<tune::Curve> bracketCurves(const TuningRun& run, const TuningTrial& t) {
    const int root = rootOrdinal(run, t);
    std::vector<tune::Curve> out;
    for (const auto& o : run.trials) {
        // Each configuration once, by the newest job that continues it.
        if (o.row.bracket != t.row.bracket || hasContinuation(run, o.row.ordinal) ||
            rootOrdinal(run, o) == root)
            continue;
        out.push_back(chainCurve(run, o));
    }
    return out;
}

std::optional<int> promotableTrial(const TuningRun& run) {
    if (!run.hyperband)
        return std::nullopt;
    std::optional<int> best;
    std::int64_t bestRung = -1;
    for (const auto& t : run.trials) {
        if (t.row.state != "Stopped" || !t.row.stoppedEarly ||
            hasContinuation(run, t.row.ordinal) || !hasCheckpoint(run, rootOrdinal(run, t)))
            continue;
        const tune::Curve chain = chainCurve(run, t);
        const auto& rungs = run.hyperband->brackets[static_cast<std::size_t>(t.row.bracket)].rungs;
        // The rung it was stopped at: the highest one it had reached (never the last).
        std::int64_t rung = -1;
        for (std::size_t i = 0; i + 1 < rungs.size(); ++i)
            if (rungs[i] <= static_cast<std::int64_t>(chain.size()))
                rung = rungs[i];
        if (rung <= 0 || rung <= bestRung)
            continue;
        const tune::Curve prefix(chain.begin(), chain.begin() + rung);
        const tune::HyperbandDecision d = tune::hyperbandDecision(
            *run.hyperband, t.row.bracket, prefix, bracketCurves(run, t), run.spec.maximize);
        if (!d.stop && d.rung == rung) {
            best = t.row.ordinal;
            bestRung = rung;
        }
    }
    return best;
}

} // namespace studio::control
