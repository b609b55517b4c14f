// The money behind a spot job, as plain math for the billing view: cumulative cost over time on
// spot and on demand (cost accrues while running, stays flat while waiting for capacity), and the
// timeline strip's layout of running and waiting segments (placed by strip_layout.h). Pure
// functions.
#pragma once

#include "engine/store/records.h"
#include "models/charts/strip_layout.h"

#include <vector>

namespace studio::models {

struct CostPoint {
    double time = 0;        // unix seconds
    double spotUsd = 0;     // cumulative
    double onDemandUsd = 0; // cumulative, had the same running time been on demand
};

// One point at the start and one at the end of every segment, in time order; segments may come
// in any order. Prices are per instance-hour; `instances` multiplies them.
std::vector<CostPoint> cumulativeCost(std::vector<store::BillingSegment> segments,
                                      double onDemandPerHour, double spotPerHour,
                                      int instances = 1);

struct StripSegment {
    double x = 0; // 0..1 of the strip
    double width = 0;
    bool running = true;
    int attempt = 1;
    bool interruptedBefore = false; // a waiting segment after a running one: an interruption
};

// Segments in time order, each at its time over [first start, last end] (placeOnStrip).
std::vector<StripSegment> layoutStrip(std::vector<store::BillingSegment> segments);

} // namespace studio::models
