#include "engine/store/analytics.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <stdexcept>

namespace studio::store {

int AnalyticsTable::column(const std::string& name) const {
    auto it = std::find(columns.begin(), columns.end(), name);
    return it == columns.end() ? -1 : static_cast<int>(it - columns.begin());
}

namespace {

Cell statistic(const MetricSummary& s, const std::string& stat) {
    if (stat == "Count")
        return static_cast<double>(s.count);
    if (s.count == 0)
        return std::monostate{};
    if (stat == "Last")
        return s.last;
    if (s.count == s.nonFinite)
        return std::monostate{};
    if (stat == "Min")
        return s.min;
    if (stat == "Max")
        return s.max;
    if (stat == "Avg")
        return s.average();
    return s.stddev();
}

bool lessCell(const Cell& a, const Cell& b) {
    // Empty cells sort last whatever the direction; numbers before strings.
    if (a.index() != b.index())
        return a.index() < b.index();
    if (auto* x = std::get_if<double>(&a))
        return *x < std::get<double>(b);
    if (auto* x = std::get_if<std::string>(&a))
        return *x < std::get<std::string>(b);
    return false;
}

std::string csvField(const Cell& c) {
    if (std::holds_alternative<std::monostate>(c))
        return "";
    if (auto* d = std::get_if<double>(&c)) {
        if (std::isnan(*d))
            return "NaN";
        if (std::isinf(*d))
            return *d > 0 ? "Infinity" : "-Infinity";
        char buf[32];
        auto res = std::to_chars(buf, buf + sizeof buf, *d); // shortest text that round-trips
        return std::string(buf, res.ptr);
    }
    const std::string& s = std::get<std::string>(c);
    if (s.find_first_of(",\"\r\n") == std::string::npos)
        return s;
    std::string out = "\"";
    for (char ch : s) {
        if (ch == '"')
            out += '"';
        out += ch;
    }
    return out + "\"";
}

void requireExperiment(StoreReader& reader, const std::string& name) {
    auto exps = reader.experiments();
    if (std::none_of(exps.begin(), exps.end(),
                     [&](const ExperimentRow& e) { return e.name == name; }))
        throw std::runtime_error("no experiment named \"" + name + "\"");
}

// The requested names, or when none are, every name any component has (sorted).
template <class PerComponent, class NameOf>
std::vector<std::string> namesOrPresent(const std::vector<std::string>& requested,
                                        const PerComponent& perComponent, NameOf nameOf) {
    if (!requested.empty())
        return requested;
    std::set<std::string> all;
    for (const auto& [id, items] : perComponent)
        for (const auto& item : items)
            all.insert(nameOf(item));
    return {all.begin(), all.end()};
}

std::vector<std::string> analyticsColumns(const std::vector<std::string>& paramNames,
                                          const std::vector<std::string>& metricNames) {
    std::vector<std::string> columns = {"TrialComponentName", "DisplayName"};
    for (const auto& p : paramNames)
        columns.push_back(p);
    for (const auto& m : metricNames)
        for (const auto& s : summaryStatistics())
            columns.push_back(m + " - " + s);
    columns.push_back("Trials");
    columns.push_back("Experiments");
    return columns;
}

std::vector<Cell> analyticsRow(const ComponentRow& c, const std::vector<ParameterRow>& ps,
                               const std::map<std::string, MetricSummary>& ms,
                               const std::vector<std::string>& paramNames,
                               const std::vector<std::string>& metricNames) {
    std::vector<Cell> row = {c.name, c.displayName};
    for (const auto& name : paramNames) {
        auto it = std::find_if(ps.begin(), ps.end(),
                               [&](const ParameterRow& p) { return p.name == name; });
        if (it == ps.end())
            row.emplace_back(std::monostate{});
        else if (it->number)
            row.emplace_back(*it->number);
        else
            row.emplace_back(it->value);
    }
    for (const auto& m : metricNames) {
        auto it = ms.find(m);
        for (const auto& s : summaryStatistics())
            row.push_back(it == ms.end() ? Cell{} : statistic(it->second, s));
    }
    row.emplace_back(c.trial);
    row.emplace_back(c.experiment);
    return row;
}

// Stable sort by one column; empty cells last in either direction.
void sortRows(AnalyticsTable& t, const std::string& sortBy, bool descending) {
    const int col = t.column(sortBy);
    if (col < 0)
        throw std::runtime_error("sort_by: no column \"" + sortBy + "\"");
    std::stable_sort(t.rows.begin(), t.rows.end(), [&](const auto& a, const auto& b) {
        const Cell& x = a[static_cast<std::size_t>(col)];
        const Cell& y = b[static_cast<std::size_t>(col)];
        const bool xe = std::holds_alternative<std::monostate>(x);
        const bool ye = std::holds_alternative<std::monostate>(y);
        if (xe || ye)
            return !xe && ye;
        return descending ? lessCell(y, x) : lessCell(x, y);
    });
}

} // namespace

AnalyticsTable experimentAnalytics(StoreReader& reader, const AnalyticsOptions& o) {
    if (!o.experiment.empty())
        requireExperiment(reader, o.experiment);
    ComponentFilter filter;
    filter.experiment = o.experiment;
    const std::vector<ComponentRow> comps = reader.components(filter);
    std::vector<ComponentId> ids;
    for (const auto& c : comps)
        ids.push_back(c.id);
    auto params = reader.parameters(ids);
    auto metrics = reader.metricSummaries(ids);
    const std::vector<std::string> paramNames =
        namesOrPresent(o.parameterNames, params,
                       [](const ParameterRow& p) -> const std::string& { return p.name; });
    const std::vector<std::string> metricNames = namesOrPresent(
        o.metricNames, metrics, [](const auto& m) -> const std::string& { return m.first; });

    AnalyticsTable t;
    t.columns = analyticsColumns(paramNames, metricNames);
    for (const auto& c : comps)
        t.rows.push_back(analyticsRow(c, params[c.id], metrics[c.id], paramNames, metricNames));
    if (!o.sortBy.empty())
        sortRows(t, o.sortBy, o.descending);
    return t;
}

std::string toCsv(const AnalyticsTable& t) {
    std::string out;
    for (std::size_t i = 0; i < t.columns.size(); ++i)
        out += (i ? "," : "") + csvField(t.columns[i]);
    out += "\r\n";
    for (const auto& row : t.rows) {
        for (std::size_t i = 0; i < row.size(); ++i)
            out += (i ? "," : "") + csvField(row[i]);
        out += "\r\n";
    }
    return out;
}

} // namespace studio::store
