#include "engine/control/metric_extractor.h"

#include <re2/re2.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace studio::control {

struct MetricExtractor::Def {
    std::string name;
    std::unique_ptr<re2::RE2> re;
    std::int64_t nextStep = 0;
};

MetricExtractor::MetricExtractor(const std::vector<spec::MetricDefinition>& definitions) {
    re2::RE2::Options o;
    o.set_log_errors(false);
    for (const auto& d : definitions) {
        auto re = std::make_unique<re2::RE2>(d.regex, o);
        if (re->ok() && re->NumberOfCapturingGroups() >= 1) // the spec parser said why not
            m_defs.push_back({d.name, std::move(re), 0});
    }
}

MetricExtractor::~MetricExtractor() = default;
MetricExtractor::MetricExtractor(MetricExtractor&&) noexcept = default;
MetricExtractor& MetricExtractor::operator=(MetricExtractor&&) noexcept = default;

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
    const re2::StringPiece text(line.data(), std::min(line.size(), kMetricScanBytes));
    re2::StringPiece groups[2];
    for (auto& d : m_defs) {
        if (!d.re->Match(text, 0, text.size(), re2::RE2::UNANCHORED, groups, 2) ||
            groups[1].data() == nullptr)
            continue;
        if (auto v = parseMetricValue(std::string(groups[1].data(), groups[1].size())))
            out.push_back({d.name, d.nextStep++, *v});
    }
    return out;
}

} // namespace studio::control
