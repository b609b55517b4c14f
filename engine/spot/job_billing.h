// A recorded job's billing: its segments from the store, its prices from the instance catalog
// (or the spec's local_prices for "local"), and the lost steps its runner recorded.
#pragma once

#include "engine/spot/billing.h"
#include "engine/store/records.h"
#include "engine/store/store_reader.h"

#include <optional>
#include <string>

namespace studio::spot {

// The artifact under which the runner records the steps computed again after resumes.
inline constexpr const char* kLostStepsArtifact = "spot_lost_steps";

// nullopt when neither the catalog nor local_prices price the type.
std::optional<InstancePrices> pricesFor(const std::string& instanceType,
                                        const std::string& specJson);

// An on-demand job without segments is billed from its start to its end (or now).
BillingSummary jobBilling(const store::ComponentDetail& detail,
                          const std::vector<store::BillingSegment>& segments, double now);

// Reads what jobBilling needs; throws std::runtime_error when the job is unknown.
BillingSummary jobBilling(store::StoreReader& reader, const std::string& job);

} // namespace studio::spot
