#include "models/insights/insights_data.h"

#include "engine/debugger/rule_catalog.h"
#include "engine/plot/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <tuple>

namespace studio::models {

namespace {

bool isIndexed(const std::string& device, std::string_view prefix) {
    return device.size() > prefix.size() && device.compare(0, prefix.size(), prefix) == 0 &&
           std::all_of(device.begin() + static_cast<std::ptrdiff_t>(prefix.size()), device.end(),
                       [](char c) { return c >= '0' && c <= '9'; });
}

double stepEnd(const store::StepTiming& t) {
    return t.time;
}

double stepStart(const store::StepTiming& t) {
    return t.time - report::stepDurationMs(t) / 1000.0;
}

} // namespace

std::vector<ResourceStat> resourceSummary(const std::vector<store::SystemSeries>& series) {
    struct Key {
        int node;
        int order;
    };
    static const std::vector<std::string> kNames = {"CPU",        "GPU",      "CPU memory",
                                                    "GPU memory", "I/O wait", "Network"};
    std::map<std::pair<int, int>, std::vector<double>> values;
    for (const auto& s : series) {
        int order = -1;
        if (s.device == "cpu" && s.metric == "util")
            order = 0;
        else if (isIndexed(s.device, "gpu") && s.metric == "util")
            order = 1;
        else if (s.device == "mem" && s.metric == "used")
            order = 2;
        else if (isIndexed(s.device, "gpu") && s.metric == "mem")
            order = 3;
        else if (s.device == "cpu" && s.metric == "iowait")
            order = 4;
        if (order >= 0) {
            auto& v = values[{s.node, order}];
            for (const auto& p : s.samples)
                if (std::isfinite(p.value))
                    v.push_back(p.value);
        }
    }
    // Network: received + sent at each time.
    std::map<int, std::map<double, double>> network;
    for (const auto& s : series)
        if (s.device == "net" && (s.metric == "rx" || s.metric == "tx"))
            for (const auto& p : s.samples)
                if (std::isfinite(p.value))
                    network[s.node][p.time] += p.value;
    for (const auto& [node, byTime] : network) {
        auto& v = values[{node, 5}];
        for (const auto& [t, value] : byTime)
            v.push_back(value);
    }

    std::vector<ResourceStat> rows;
    for (auto& [key, v] : values) {
        if (v.empty())
            continue;
        std::sort(v.begin(), v.end());
        report::ScaledUnit unit{1, "%"};
        if (key.second == 5)
            unit = report::byteRateUnit(v.back());
        const double divisor = unit.divisor;
        ResourceStat r{key.first, kNames[static_cast<std::size_t>(key.second)], unit.unit};
        r.count = v.size();
        r.min = v.front() / divisor;
        r.max = v.back() / divisor;
        r.p99 = plot::sortedPercentile(v, 99) / divisor;
        r.p90 = plot::sortedPercentile(v, 90) / divisor;
        r.p50 = plot::sortedPercentile(v, 50) / divisor;
        rows.push_back(std::move(r));
    }
    return rows;
}

std::vector<store::StepTiming> leadRankSteps(const std::vector<store::StepTiming>& steps) {
    if (steps.empty())
        return {};
    const bool anyTrain = std::any_of(
        steps.begin(), steps.end(), [](const store::StepTiming& t) { return t.phase == "train"; });
    std::pair<int, int> lead{std::numeric_limits<int>::max(), 0};
    for (const auto& t : steps)
        if (!anyTrain || t.phase == "train")
            lead = std::min(lead, std::pair(t.node, t.rank));
    std::vector<store::StepTiming> out;
    for (const auto& t : steps)
        if (std::pair(t.node, t.rank) == lead && (!anyTrain || t.phase == "train"))
            out.push_back(t);
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        return std::tie(a.step, a.time) < std::tie(b.step, b.time);
    });
    return out;
}

std::vector<store::StepTiming> lastSteps(const std::vector<store::StepTiming>& steps, int count) {
    auto lead = leadRankSteps(steps);
    if (count >= 0 && lead.size() > static_cast<std::size_t>(count))
        lead.erase(lead.begin(), lead.end() - count);
    return lead;
}

std::vector<store::StepTiming> stepsOverlapping(const std::vector<store::StepTiming>& steps,
                                                double from, double to) {
    std::vector<store::StepTiming> out;
    for (const auto& t : steps)
        if (stepEnd(t) >= from && stepStart(t) <= to)
            out.push_back(t);
    return out;
}

std::vector<store::StepTiming> stepsInWindow(const std::vector<store::StepTiming>& steps,
                                             double from, double to) {
    return stepsOverlapping(leadRankSteps(steps), from, to);
}

std::vector<store::SystemSeries> mergeSamples(std::vector<store::SystemSeries>& series,
                                              const std::vector<store::SystemSeries>& fresh) {
    std::map<std::tuple<int, std::string, std::string>, std::size_t> index;
    for (std::size_t i = 0; i < series.size(); ++i)
        index[{series[i].node, series[i].device, series[i].metric}] = i;
    std::vector<store::SystemSeries> added;
    for (const auto& f : fresh) {
        const auto it = index.find({f.node, f.device, f.metric});
        store::SystemSeries news{f.node, f.device, f.metric, {}};
        if (it == index.end()) {
            news.samples = f.samples;
            index[{f.node, f.device, f.metric}] = series.size();
            series.push_back(f);
        } else {
            auto& target = series[it->second];
            const double last = target.samples.empty() ? -std::numeric_limits<double>::infinity()
                                                       : target.samples.back().time;
            for (const auto& p : f.samples)
                if (p.time > last)
                    news.samples.push_back(p);
            target.samples.insert(target.samples.end(), news.samples.begin(), news.samples.end());
        }
        if (!news.samples.empty())
            added.push_back(std::move(news));
    }
    return added;
}

bool InsightsData::running() const {
    return store::isLiveStatus(job.status);
}

std::vector<int> InsightsData::nodes() const {
    std::set<int> ids;
    if (series)
        for (const auto& s : *series)
            ids.insert(s.node);
    return {ids.begin(), ids.end()};
}

QString InsightsData::nodeName(int node) const {
    const auto it = hosts.find(node);
    if (it == hosts.end() || it->second.empty())
        return QStringLiteral("node %1").arg(node);
    return QStringLiteral("node %1 \u00b7 %2").arg(node).arg(QString::fromStdString(it->second));
}

InsightsData loadInsights(store::StoreReader& reader, const std::string& job,
                          const InsightsData* previous) {
    const auto row = reader.component(job);
    if (!row)
        throw std::runtime_error("Insights: no job named '" + job + "' in the studio database");
    InsightsData d;
    d.job = *row;
    auto all = std::make_shared<std::vector<store::SystemSeries>>();
    if (previous && previous->series && previous->job.id == row->id) {
        *all = *previous->series;
        double from = std::numeric_limits<double>::infinity();
        for (const auto& s : *all)
            if (!s.samples.empty())
                from = std::min(from, s.samples.back().time);
        if (!std::isfinite(from))
            from = 0;
        d.added = mergeSamples(*all, reader.systemSeries(row->id, from));
        d.incremental = true;
    } else {
        *all = reader.systemSeries(row->id);
        d.added = *all;
    }
    d.series = all;
    d.steps = reader.stepTimings(row->id);

    double lastData = 0;
    for (const auto& s : *all)
        if (!s.samples.empty())
            lastData = std::max(lastData, s.samples.back().time);
    if (!d.steps.empty())
        lastData = std::max(lastData, d.steps.back().time);
    d.summary = report::summarizeJob(*row, d.steps, lastData);

    d.rules = report::loadRuleViews(reader, row->id);
    d.billing = reader.billingSegments(row->id);
    d.transitions = reader.transitions(row->id);
    d.resources = resourceSummary(*all);
    if (row->cluster != "local")
        for (const auto& n : reader.nodes(row->id))
            d.hosts[n.node] = n.host;
    return d;
}

} // namespace studio::models
