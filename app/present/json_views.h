// The JSON the CLI prints: a contract for scripts and notebooks (documented in README.md).
#pragma once

#include "engine/spot/billing.h"
#include "engine/store/records.h"

#include <nlohmann/json.hpp>

namespace studio::present {

nlohmann::ordered_json jobJson(const store::ComponentDetail& d);
nlohmann::ordered_json metricPointsJson(const std::vector<store::MetricPoint>& points);
nlohmann::ordered_json componentRowJson(const store::ComponentRow& r);
nlohmann::ordered_json summaryJson(const store::MetricSummary& s);
// Rule evaluations (with their details parsed) and findings, as `show --json` and
// `findings --json` print them.
nlohmann::ordered_json rulesJson(const std::vector<store::RuleStatusRow>& rules);
nlohmann::ordered_json findingsJson(const std::vector<store::FindingRow>& findings);
// A Slurm job the job submitted; the script (the batch script as submitted) when withScript.
nlohmann::ordered_json slurmJobJson(const store::SlurmJobRow& j, bool withScript);
// Numbers stay numbers; NaN and infinities become "NaN", "Infinity", "-Infinity".
nlohmann::ordered_json numberJson(double v);
// The `billing` object of `show --json` and `billing --json`; costs are null when unpriced.
nlohmann::ordered_json billingJson(const spot::BillingSummary& b);

} // namespace studio::present
