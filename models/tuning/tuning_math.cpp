#include "models/tuning/tuning_math.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace studio::models {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A number given as a JSON number or as a string of one (SageMaker writes ranges as strings).
double numberOf(const nlohmann::ordered_json& v) {
    if (v.is_number())
        return v.get<double>();
    if (v.is_string()) {
        bool ok = false;
        const double d = QString::fromStdString(v.get<std::string>()).toDouble(&ok);
        return ok ? d : kNaN;
    }
    return kNaN;
}

QString textOf(const nlohmann::ordered_json& v) {
    return QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump());
}

TuningRange rangeOf(const QString& name, const nlohmann::ordered_json& r) {
    TuningRange range;
    range.name = name;
    const QString type = r.contains("type") && r["type"].is_string()
                             ? QString::fromStdString(r["type"].get<std::string>()).toLower()
                             : QString();
    if (type == QLatin1String("integer"))
        range.type = TuningRange::Type::Integer;
    else if (type == QLatin1String("categorical") || (type.isEmpty() && r.contains("values")))
        range.type = TuningRange::Type::Categorical;
    range.min = r.contains("min_value") ? numberOf(r["min_value"]) : kNaN;
    range.max = r.contains("max_value") ? numberOf(r["max_value"]) : kNaN;
    if (r.contains("values") && r["values"].is_array())
        for (const auto& v : r["values"])
            range.values.append(textOf(v));
    if (r.contains("scaling_type") && r["scaling_type"].is_string())
        range.scaling = QString::fromStdString(r["scaling_type"].get<std::string>());
    return range;
}

QString numberLabel(double v) {
    return QString::number(v, 'g', 4);
}

} // namespace

bool TuningRange::logScale() const {
    if (categorical())
        return false;
    if (scaling == QLatin1String("Logarithmic"))
        return true;
    const bool automatic = scaling.isEmpty() || scaling == QLatin1String("Auto");
    return automatic && min > 0 && max / min >= 100;
}

std::vector<TuningRange> tuningRanges(const std::string& tuningJson) {
    const auto doc = nlohmann::ordered_json::parse(tuningJson, nullptr, false);
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("tuning") ||
        !doc["tuning"].is_object() || !doc["tuning"].contains("hyperparameter_ranges"))
        return {};
    const auto& ranges = doc["tuning"]["hyperparameter_ranges"];
    std::vector<TuningRange> out;
    if (ranges.is_object()) {
        for (const auto& [name, r] : ranges.items())
            if (r.is_object())
                out.push_back(rangeOf(QString::fromStdString(name), r));
    } else if (ranges.is_array()) {
        for (const auto& r : ranges)
            if (r.is_object() && r.contains("name") && r["name"].is_string())
                out.push_back(rangeOf(QString::fromStdString(r["name"].get<std::string>()), r));
    }
    return out;
}

std::vector<double> bestSoFar(std::span<const double> objectives, bool maximize) {
    std::vector<double> out;
    out.reserve(objectives.size());
    double best = kNaN;
    for (double v : objectives) {
        if (std::isfinite(v) && (!std::isfinite(best) || (maximize ? v > best : v < best)))
            best = v;
        out.push_back(best);
    }
    return out;
}

int groupCountFor(int jobs) {
    return std::clamp(int(std::lround(std::sqrt(double(std::max(jobs, 0))))), 2, 8);
}

ValueGroups groupNumbers(std::span<const double> values, int maxGroups) {
    ValueGroups out;
    out.group.assign(values.size(), -1);
    std::vector<double> sorted;
    for (double v : values)
        if (std::isfinite(v))
            sorted.push_back(v);
    if (sorted.empty())
        return out;
    std::sort(sorted.begin(), sorted.end());
    std::vector<double> distinct = sorted;
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    // Each group starts at a threshold; a value belongs to the last threshold at or below it.
    std::vector<double> starts;
    if (int(distinct.size()) <= std::max(maxGroups, 1)) {
        starts = distinct;
    } else {
        // About m/k values a group; a group closes only where the value changes.
        const double target = double(sorted.size()) / std::max(maxGroups, 1);
        starts.push_back(sorted.front());
        int count = 0;
        for (std::size_t i = 0; i < sorted.size(); ++i) {
            if (count >= target && sorted[i] > sorted[i - 1] && int(starts.size()) < maxGroups) {
                starts.push_back(sorted[i]);
                count = 0;
            }
            ++count;
        }
    }
    std::vector<std::vector<double>> members(starts.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (!std::isfinite(values[i]))
            continue;
        const auto at = std::upper_bound(starts.begin(), starts.end(), values[i]) - starts.begin();
        out.group[i] = int(std::max<std::ptrdiff_t>(at - 1, 0));
        members[std::size_t(out.group[i])].push_back(values[i]);
    }
    for (auto& g : members) {
        std::sort(g.begin(), g.end());
        const double lo = g.front(), hi = g.back();
        out.labels.append(lo == hi ? numberLabel(lo)
                                   : numberLabel(lo) + QStringLiteral(" – ") + numberLabel(hi));
        const std::size_t n = g.size();
        out.center.push_back(n % 2 ? g[n / 2] : (g[n / 2 - 1] + g[n / 2]) / 2);
    }
    return out;
}

ValueGroups groupCategories(const QStringList& values, const QStringList& categories) {
    ValueGroups out;
    out.labels = categories;
    for (const QString& v : values) {
        if (v.isEmpty()) {
            out.group.push_back(-1);
            continue;
        }
        qsizetype at = out.labels.indexOf(v);
        if (at < 0) { // a value the range does not list (an edited spec): a group of its own
            out.labels.append(v);
            at = out.labels.size() - 1;
        }
        out.group.push_back(int(at));
    }
    for (qsizetype i = 0; i < out.labels.size(); ++i)
        out.center.push_back(double(i));
    return out;
}

std::vector<GroupMean> groupMeans(const ValueGroups& groups, std::span<const double> objectives) {
    std::vector<GroupMean> out(std::size_t(groups.count()));
    std::vector<double> sums(out.size(), 0);
    for (std::size_t i = 0; i < groups.group.size() && i < objectives.size(); ++i) {
        if (groups.group[i] < 0 || !std::isfinite(objectives[i]))
            continue;
        sums[std::size_t(groups.group[i])] += objectives[i];
        ++out[std::size_t(groups.group[i])].count;
    }
    for (std::size_t g = 0; g < out.size(); ++g) {
        out[g].center = groups.center[g];
        out[g].mean = out[g].count ? sums[g] / out[g].count : kNaN;
    }
    return out;
}

Importance importanceOf(const ValueGroups& groups, std::span<const double> objectives) {
    Importance out;
    const std::vector<GroupMean> means = groupMeans(groups, objectives);
    double total = 0;
    for (const GroupMean& g : means) {
        out.jobs += g.count;
        out.groups += g.count > 0;
        total += g.count ? g.mean * g.count : 0;
    }
    const int k = out.groups, n = out.jobs;
    if (k < 2 || n - k < 1)
        return out;
    const double grand = total / n;
    double between = 0, within = 0;
    for (const GroupMean& g : means)
        if (g.count)
            between += g.count * (g.mean - grand) * (g.mean - grand);
    for (std::size_t i = 0; i < groups.group.size() && i < objectives.size(); ++i)
        if (groups.group[i] >= 0 && std::isfinite(objectives[i])) {
            const double d = objectives[i] - means[std::size_t(groups.group[i])].mean;
            within += d * d;
        }
    const double sst = between + within;
    if (!(sst > 0))
        return out;
    const double msw = within / (n - k);
    out.etaSquared = between / sst;
    out.omegaSquared = std::clamp((between - (k - 1) * msw) / (sst + msw), 0.0, 1.0);
    return out;
}

} // namespace studio::models
