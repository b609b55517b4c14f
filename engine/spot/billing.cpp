#include "engine/spot/billing.h"

#include <algorithm>
#include <set>

namespace studio::spot {

BillingSummary computeBilling(const BillingInputs& in) {
    BillingSummary b;
    std::set<int> attempts;
    for (const auto& s : in.segments) {
        const double length = std::max(0.0, s.end - s.start);
        if (s.kind == "running") {
            b.trainingTimeSeconds += length;
            attempts.insert(s.attempt);
        } else if (s.kind == "waiting") {
            b.waitingTimeSeconds += length;
            if (s.attempt >= 2)
                ++b.interruptions;
        }
    }
    b.attempts = static_cast<int>(attempts.size());
    b.lostSteps = in.lostSteps;
    double ratio = 1.0;
    if (in.spot && in.prices && in.prices->onDemandPerHour > 0)
        ratio = in.prices->spotPerHour / in.prices->onDemandPerHour;
    b.billableTimeSeconds = b.trainingTimeSeconds * ratio;
    if (b.trainingTimeSeconds > 0)
        b.savingsPercent = (1.0 - b.billableTimeSeconds / b.trainingTimeSeconds) * 100.0;
    if (in.prices) {
        // SageMaker bills every instance of the job for the billable time.
        const double hours = b.trainingTimeSeconds / 3600.0 * std::max(1, in.instanceCount);
        b.onDemandCostUsd = hours * in.prices->onDemandPerHour;
        b.spotCostUsd = in.spot ? hours * in.prices->spotPerHour : *b.onDemandCostUsd;
    }
    return b;
}

} // namespace studio::spot
