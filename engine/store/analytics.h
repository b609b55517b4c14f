// ExperimentAnalytics: one row per trial component with its parameters and
// "<metric> - Min|Max|Avg|StdDev|Last|Count" columns, as SageMaker's analytics DataFrame.
#pragma once

#include "engine/store/store_reader.h"

#include <string>
#include <variant>
#include <vector>

namespace studio::store {

using Cell = std::variant<std::monostate, double, std::string>;

struct AnalyticsOptions {
    std::string experiment;                  // empty: every component
    std::vector<std::string> metricNames;    // empty: all metrics present
    std::vector<std::string> parameterNames; // empty: all parameters present
    std::string sortBy;                      // a column name; empty: creation order
    bool descending = true;                  // SageMaker's default sort order
};

struct AnalyticsTable {
    std::vector<std::string> columns;
    std::vector<std::vector<Cell>> rows;

    int column(const std::string& name) const; // -1 when absent
};

inline const std::vector<std::string>& summaryStatistics() {
    static const std::vector<std::string> s = {"Min", "Max", "Avg", "StdDev", "Last", "Count"};
    return s;
}

// Throws std::runtime_error when sortBy names no column or the experiment does not exist.
AnalyticsTable experimentAnalytics(StoreReader& reader, const AnalyticsOptions& options);

// RFC 4180 CSV with a header row; numbers with full precision.
std::string toCsv(const AnalyticsTable& table);

} // namespace studio::store
