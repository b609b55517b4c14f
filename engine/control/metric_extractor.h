// metric_definitions: regular expressions applied to a job's log lines, as SageMaker does with
// its CloudWatch logs. The first capture group is the value; each match is the next step.
#pragma once

#include "engine/spec/job_spec.h"

#include <cstdint>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace studio::control {

struct ExtractedMetric {
    std::string name;
    std::int64_t step;
    double value;
};

class MetricExtractor {
public:
    explicit MetricExtractor(const std::vector<spec::MetricDefinition>& definitions);
    bool empty() const { return m_defs.empty(); }
    // Every definition that matches the line yields one metric.
    std::vector<ExtractedMetric> scan(const std::string& line);
    // A job taken over: each metric continues after the last step stored for it.
    void resumeAfter(const std::map<std::string, std::int64_t>& lastSteps);

private:
    struct Def {
        std::string name;
        std::regex re;
        std::int64_t nextStep = 0;
    };
    std::vector<Def> m_defs;
};

// "0.25", "25%", "1e-3", "nan", "inf" -> number; nullopt for anything else.
std::optional<double> parseMetricValue(const std::string& text);

} // namespace studio::control
