// What the billing views read from the store, as plain values built on a worker thread: a job's
// bill (summary, segments, prices) and the bill of every job of an experiment. Thread-compatible:
// each call uses the caller's reader.
#pragma once

#include "engine/spot/billing.h"
#include "engine/store/records.h"

#include <QString>

#include <optional>
#include <string>
#include <vector>

namespace studio::store {
class StoreReader;
}

namespace studio::models {

class CancelFlag;

struct JobBillingData {
    spot::BillingSummary summary;
    std::vector<store::BillingSegment> segments;
    std::optional<spot::InstancePrices> prices;
    QString instanceType;
    int instanceCount = 1;
    bool spot = false;
    QString status;
};

// `now` (unix seconds) ends a running job's time. Throws std::runtime_error when the store has
// no such job.
JobBillingData loadJobBilling(store::StoreReader& reader, const std::string& job, double now);

// One job of an experiment's bill.
struct JobBillingRow {
    QString job;
    QString status;
    QString instance; // "2 × ml.g5.xlarge"
    bool spot = false;
    spot::BillingSummary summary;
};

// Every job of the experiment, in the store's order; stops early when cancelled.
std::vector<JobBillingRow> loadExperimentBilling(store::StoreReader& reader,
                                                 const std::string& experiment, double now,
                                                 const CancelFlag& cancel);

// Whether a job's spec asks for spot capacity (use_spot_instances).
bool usesSpot(const std::string& specJson);

} // namespace studio::models
