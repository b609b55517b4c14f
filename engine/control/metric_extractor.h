// metric_definitions: regular expressions applied to a job's log lines, as SageMaker does with
// its CloudWatch logs. The first capture group is the value; each match is the next step.
// RE2 runs them (linear time, no recursion), over at most kMetricScanBytes of a line.
#pragma once

#include "engine/spec/job_spec.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace studio::control {

inline constexpr std::size_t kMetricScanBytes = 64 * 1024;

struct ExtractedMetric {
    std::string name;
    std::int64_t step;
    double value;
};

class MetricExtractor {
public:
    explicit MetricExtractor(const std::vector<spec::MetricDefinition>& definitions);
    ~MetricExtractor();
    MetricExtractor(MetricExtractor&&) noexcept;
    MetricExtractor& operator=(MetricExtractor&&) noexcept;
    bool empty() const { return m_defs.empty(); }
    // Every definition that matches the line yields one metric.
    std::vector<ExtractedMetric> scan(const std::string& line);
    // A job taken over: each metric continues after the last step stored for it.
    void resumeAfter(const std::map<std::string, std::int64_t>& lastSteps);

private:
    struct Def;
    std::vector<Def> m_defs;
};

// "0.25", "25%", "1e-3", "nan", "inf" -> number; nullopt for anything else.
std::optional<double> parseMetricValue(const std::string& text);

} // namespace studio::control
