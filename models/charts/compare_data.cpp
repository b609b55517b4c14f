#include "models/charts/compare_data.h"

#include "engine/report/what_ran.h"

#include "models/common/background_task.h"
#include "models/common/status_style.h"

#include <QSet>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace studio::models {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

QStringList allParameterNames(const QList<CompareJob>& jobs) {
    QStringList names;
    QSet<QString> seen;
    for (const CompareJob& job : jobs)
        for (auto it = job.parameters.cbegin(); it != job.parameters.cend(); ++it)
            if (!seen.contains(it.key())) {
                seen.insert(it.key());
                names.append(it.key());
            }
    names.sort();
    return names;
}

std::optional<ParameterValue> valueOf(const CompareJob& job, const QString& name) {
    const auto it = job.parameters.constFind(name);
    if (it == job.parameters.cend())
        return std::nullopt;
    return *it;
}

} // namespace

CompareData loadCompareData(store::StoreReader& reader, const QList<qint64>& ids) {
    if (ids.size() < kMinCompareJobs || ids.size() > kMaxCompareJobs)
        throw std::runtime_error("Compare needs " + std::to_string(kMinCompareJobs) + " to " +
                                 std::to_string(kMaxCompareJobs) + " jobs; " +
                                 std::to_string(ids.size()) + " were selected");
    QMap<qint64, store::ComponentRow> rows;
    for (store::ComponentRow& row : reader.components())
        rows.insert(row.id, std::move(row));
    std::string missing;
    for (qint64 id : ids)
        if (!rows.contains(id))
            missing += (missing.empty() ? "" : ", ") + std::to_string(id);
    if (!missing.empty())
        throw std::runtime_error("The database holds no job with id " + missing);

    const std::vector<store::ComponentId> idVector(ids.cbegin(), ids.cend());
    auto parameters = reader.parameters(idVector);
    auto summaries = reader.metricSummaries(idVector);
    CompareData data;
    QSet<QString> metrics;
    for (int i = 0; i < ids.size(); ++i) {
        const store::ComponentRow& row = rows[ids[i]];
        CompareJob job;
        job.id = row.id;
        job.name = qs(row.name);
        job.displayName = qs(row.displayName);
        job.status = qs(row.status);
        job.color = seriesColor(i);
        for (const store::ParameterRow& p : parameters[row.id])
            job.parameters.insert(qs(p.name), ParameterValue{qs(p.value), p.number});
        for (const auto& [name, summary] : summaries[row.id]) {
            job.summaries.insert(qs(name), summary);
            metrics.insert(qs(name));
        }
        // Summaries are kept on write; names come from the series themselves to be sure.
        for (const std::string& name : reader.metricNames(row.id))
            metrics.insert(qs(name));
        data.jobs.append(std::move(job));
    }
    data.metricNames = QStringList(metrics.cbegin(), metrics.cend());
    data.metricNames.sort();
    // What ran: each job against the first (code, runtime, packages, parameters, environment).
    const store::ComponentRow& first = rows[ids[0]];
    const report::WhatRan base = report::loadWhatRan(reader, first, first.jobDir);
    for (int i = 1; i < ids.size(); ++i) {
        const store::ComponentRow& row = rows[ids[i]];
        const report::WhatRanDiff diff =
            report::diffWhatRan(base, report::loadWhatRan(reader, row, row.jobDir));
        data.whatRanDiff += qs(diff.toText(first.name, row.name));
        if (i + 1 < ids.size())
            data.whatRanDiff += QLatin1Char('\n');
    }
    return data;
}

QList<CurveSeries> loadMetricCurves(store::StoreReader& reader, const QList<CompareJob>& jobs,
                                    const QString& metric, const CancelFlag& cancel) {
    QList<CurveSeries> series;
    const std::string name = metric.toStdString();
    for (const CompareJob& job : jobs) {
        if (cancel.cancelled())
            break;
        CurveSeries s;
        s.name = job.name;
        s.color = job.color;
        const auto points = reader.metricPoints(job.id, name);
        s.points.reserve(static_cast<qsizetype>(points.size()));
        for (const store::MetricPoint& p : points)
            s.points.append(CurvePoint{p.step, p.time, p.value});
        series.append(std::move(s));
    }
    return series;
}

QString defaultMetric(const QStringList& metricNames) {
    for (const QString& name : metricNames)
        if (name.contains(QLatin1String("loss"), Qt::CaseInsensitive))
            return name;
    return metricNames.isEmpty() ? QString() : metricNames.front();
}

QStringList metricsByCoverage(const CompareData& data) {
    QStringList names = data.metricNames;
    auto coverage = [&data](const QString& name) {
        int n = 0;
        for (const auto& job : data.jobs)
            n += job.summaries.contains(name) ? 1 : 0;
        return n;
    };
    std::stable_sort(names.begin(), names.end(),
                     [&](const QString& a, const QString& b) { return coverage(a) > coverage(b); });
    return names;
}

QStringList sharedMetrics(const CompareData& data) {
    QStringList shared;
    for (const QString& name : data.metricNames) {
        bool everywhere = true;
        for (const auto& job : data.jobs)
            everywhere = everywhere && job.summaries.contains(name);
        if (everywhere)
            shared.append(name);
    }
    return shared.isEmpty() ? data.metricNames : shared;
}

SummaryChoice defaultSummary(const QStringList& metricNames) {
    const auto evaluation = [](const QString& name) {
        for (const char* prefix : {"eval", "val", "test"})
            if (name.startsWith(QLatin1String(prefix), Qt::CaseInsensitive))
                return true;
        return false;
    };
    const auto find = [&](bool wantEvaluation, const char* word) -> QString {
        for (const QString& name : metricNames)
            if (evaluation(name) == wantEvaluation &&
                name.contains(QLatin1String(word), Qt::CaseInsensitive))
                return name;
        return {};
    };
    for (bool wantEvaluation : {true, false}) {
        if (QString m = find(wantEvaluation, "acc"); !m.isEmpty())
            return {m, SummaryStatistic::Max};
        if (QString m = find(wantEvaluation, "loss"); !m.isEmpty())
            return {m, SummaryStatistic::Min};
    }
    if (metricNames.isEmpty())
        return {};
    return {metricNames.front(), SummaryStatistic::Last};
}

QString statisticName(SummaryStatistic statistic) {
    switch (statistic) {
    case SummaryStatistic::Min:
        return QStringLiteral("Min");
    case SummaryStatistic::Max:
        return QStringLiteral("Max");
    case SummaryStatistic::Last:
        return QStringLiteral("Last");
    case SummaryStatistic::Average:
        return QStringLiteral("Average");
    }
    return {};
}

double summaryValue(const store::MetricSummary& summary, SummaryStatistic statistic) {
    if (!summary.hasFinite())
        return statistic == SummaryStatistic::Last ? summary.last : kNaN;
    switch (statistic) {
    case SummaryStatistic::Min:
        return summary.min;
    case SummaryStatistic::Max:
        return summary.max;
    case SummaryStatistic::Last:
        return summary.last;
    case SummaryStatistic::Average:
        return summary.average();
    }
    return kNaN;
}

bool sameParameterValue(const std::optional<ParameterValue>& a,
                        const std::optional<ParameterValue>& b) {
    if (!a || !b)
        return !a && !b;
    if (a->number && b->number)
        return *a->number == *b->number;
    return a->text == b->text;
}

QStringList differingParameters(const QList<CompareJob>& jobs) {
    QStringList out;
    for (const QString& name : allParameterNames(jobs)) {
        for (int i = 1; i < jobs.size(); ++i) {
            if (!sameParameterValue(valueOf(jobs[0], name), valueOf(jobs[i], name))) {
                out.append(name);
                break;
            }
        }
    }
    return out;
}

ParallelData parallelData(const QList<CompareJob>& jobs, const QString& metric,
                          SummaryStatistic statistic) {
    ParallelData data;
    QStringList names = differingParameters(jobs);
    if (names.isEmpty())
        names = allParameterNames(jobs);
    data.lines.resize(jobs.size());
    for (int j = 0; j < jobs.size(); ++j) {
        data.lines[j].job = jobs[j].name;
        data.lines[j].jobColor = jobs[j].color;
    }
    for (const QString& name : names) {
        bool numeric = true;
        std::vector<double> numbers;
        QStringList texts;
        for (const CompareJob& job : jobs) {
            const auto v = valueOf(job, name);
            numeric = numeric && (!v || v->number);
            numbers.push_back(v && v->number ? *v->number : kNaN);
            texts.append(v ? v->text : QString());
        }
        const ParallelAxis axis =
            numeric ? ParallelAxis::numeric(name, numbers) : ParallelAxis::categorical(name, texts);
        for (int j = 0; j < jobs.size(); ++j) {
            data.lines[j].positions.append(numeric ? axis.position(numbers[j])
                                                   : axis.position(texts[j]));
            data.lines[j].values.append(texts[j]);
        }
        data.axes.append(axis);
    }
    if (!metric.isEmpty()) {
        data.metricTitle = metric + QStringLiteral(" - ") + statisticName(statistic);
        std::vector<double> values;
        for (const CompareJob& job : jobs) {
            const auto it = job.summaries.constFind(metric);
            values.push_back(it == job.summaries.cend() ? kNaN : summaryValue(*it, statistic));
        }
        const ParallelAxis axis = ParallelAxis::numeric(data.metricTitle, values);
        for (int j = 0; j < jobs.size(); ++j) {
            const double position = axis.position(values[j]);
            data.lines[j].positions.append(position);
            data.lines[j].values.append(
                std::isfinite(values[j]) ? QString::number(values[j], 'g', 6) : QString());
            data.lines[j].colorPosition = position;
        }
        data.axes.append(axis);
    } else {
        for (ParallelLine& line : data.lines)
            line.colorPosition = kNaN;
    }
    return data;
}

} // namespace studio::models
