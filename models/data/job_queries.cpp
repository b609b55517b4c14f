#include "models/data/job_queries.h"

#include "engine/store/store_reader.h"
#include "models/common/background_task.h"
#include "models/console/log_model.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <utility>

namespace studio::models {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

} // namespace

std::vector<FindingItem> loadRecentFindings(store::StoreReader& reader, std::size_t jobs,
                                            const CancelFlag& cancel) {
    auto recent = reader.components();
    std::sort(recent.begin(), recent.end(),
              [](const auto& a, const auto& b) { return a.created > b.created; });
    if (recent.size() > jobs)
        recent.resize(jobs);
    std::set<std::pair<std::string, std::string>> notifiedRules;
    for (const auto& n : reader.notifications())
        notifiedRules.insert({n.component, n.rule});
    std::vector<FindingItem> items;
    for (const auto& j : recent) {
        if (cancel.cancelled())
            break;
        for (auto& f : reader.findings(j.id))
            items.push_back(
                {qs(j.name), qs(j.status), f, notifiedRules.count({j.name, f.rule}) > 0});
    }
    std::stable_sort(items.begin(), items.end(),
                     [](const auto& a, const auto& b) { return a.finding.time > b.finding.time; });
    return items;
}

bool isTrainLoss(const QString& metric) {
    return metric == QLatin1String("train:loss");
}

bool looksLikeLoss(const QString& metric) {
    const QString n = metric.toLower();
    return n.contains(QLatin1String("loss")) && !n.contains(QLatin1String("eval")) &&
           !n.contains(QLatin1String("valid")) && !n.contains(QLatin1String("test"));
}

JobData loadJobData(store::StoreReader& reader, const std::string& job, bool withLogs,
                    const CancelFlag& cancel) {
    JobData data;
    auto detail = reader.detail(job);
    if (!detail)
        throw std::runtime_error("no job named " + job + " in the store");
    data.detail = std::move(*detail);
    for (const auto& [name, summary] : data.detail.metrics) {
        if (cancel.cancelled())
            break;
        data.metrics[name] = reader.metricPoints(data.detail.row.id, name);
    }
    if (withLogs)
        for (const auto& f : data.detail.logs)
            data.logs.append(LogModel::readLogFile(qs(f.path), qs(job), f.node, f.rank));
    std::stable_sort(data.logs.begin(), data.logs.end(),
                     [](const auto& a, const auto& b) { return a.time < b.time; });
    return data;
}

JobCardSnapshot loadJobCard(store::StoreReader& reader, const std::string& job) {
    JobCardSnapshot s;
    const auto row = reader.component(job);
    if (!row)
        return s;
    s.found = true;
    s.status = qs(row->status);
    s.secondaryStatus = qs(row->secondaryStatus);
    s.message = qs(row->failureReason);
    std::string metric;
    for (const std::string& name : reader.metricNames(row->id)) {
        if (isTrainLoss(qs(name))) {
            metric = name;
            break;
        }
        if (metric.empty() && looksLikeLoss(qs(name)))
            metric = name;
    }
    if (!metric.empty()) {
        s.lossMetric = qs(metric);
        // One value per step: rank 0 speaks for a distributed job.
        for (const store::MetricPoint& p : reader.metricPoints(row->id, metric))
            if (p.rank == 0 || !s.loss.contains(p.step))
                s.loss.insert(p.step, p.value);
    }
    const auto params = reader.parameters({row->id});
    if (const auto it = params.find(row->id); it != params.end())
        for (const store::ParameterRow& p : it->second)
            if (p.name == "max-steps" && p.number)
                s.total = static_cast<qint64>(*p.number);
    return s;
}

} // namespace studio::models
