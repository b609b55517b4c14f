#include "engine/control/metric_extractor.h"

#include <cmath>
#include <cstdlib>
#include <limits>

namespace studio::control {

MetricExtractor::MetricExtractor(const std::vector<spec::MetricDefinition>& definitions) {
    for (const auto& d : definitions)
        m_defs.push_back({d.name, std::regex(d.regex), 0}); // validated by the spec parser
}

std::optional<double> parseMetricValue(const std::string& text) {
    std::string t = text;
    while (!t.empty() && (t.back() == '%' || t.back() == ' ' || t.back() == ',' || t.back() == ';'))
        t.pop_back();
    while (!t.empty() && t.front() == ' ')
        t.erase(0, 1);
    if (t.empty())
        return std::nullopt;
    char* end = nullptr;
    double v = std::strtod(t.c_str(), &end);
    if (end == t.c_str() || *end != '\0')
        return std::nullopt;
    return v;
}

void MetricExtractor::resumeAfter(const std::map<std::string, std::int64_t>& lastSteps) {
    for (auto& d : m_defs)
        if (auto it = lastSteps.find(d.name); it != lastSteps.end())
            d.nextStep = it->second + 1;
}

std::vector<ExtractedMetric> MetricExtractor::scan(const std::string& line) {
    std::vector<ExtractedMetric> out;
    std::smatch m;
    for (auto& d : m_defs) {
        if (!std::regex_search(line, m, d.re) || m.size() < 2 || !m[1].matched)
            continue;
        if (auto v = parseMetricValue(m[1].str()))
            out.push_back({d.name, d.nextStep++, *v});
    }
    return out;
}

} // namespace studio::control
