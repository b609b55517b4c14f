// Managed spot training billing: from a job's segments (attempt, start, end, running|waiting)
// and its instance prices to SageMaker's figures (TrainingTimeInSeconds, BillableTimeInSeconds,
// savings) and dollars. Plain math, no I/O.
#pragma once

#include "engine/store/records.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace studio::spot {

struct InstancePrices {
    double onDemandPerHour = 0; // USD per instance-hour
    double spotPerHour = 0;
    std::string source; // where the prices come from ("catalog ...", "local_prices")
};

struct BillingInputs {
    std::vector<store::BillingSegment> segments;
    std::optional<InstancePrices> prices; // nullopt: no dollar figures
    bool spot = true; // false: an on-demand job, billed for all its running time
    int instanceCount = 1;
    std::int64_t lostSteps = 0; // steps computed again after a resume
};

struct BillingSummary {
    double trainingTimeSeconds = 0; // Σ running
    double billableTimeSeconds = 0; // Σ running × spot / on-demand
    double savingsPercent = 0;      // (1 − billable / training) × 100
    std::optional<double> spotCostUsd;
    std::optional<double> onDemandCostUsd;
    int interruptions = 0; // waiting segments before a second or later attempt
    int attempts = 0;
    std::int64_t lostSteps = 0;
    double waitingTimeSeconds = 0; // Σ waiting
};

BillingSummary computeBilling(const BillingInputs& in);

} // namespace studio::spot
