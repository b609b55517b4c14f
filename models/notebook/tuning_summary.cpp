#include "models/notebook/tuning_summary.h"

#include "models/tuning/tuning_data.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>

namespace studio::models {

namespace {

bool isLive(const QString& status) {
    return status == QLatin1String("InProgress") || status == QLatin1String("Pending") ||
           status == QLatin1String("Stopping");
}

double numberOr(const QJsonValue& v, double fallback) {
    return v.isDouble() ? v.toDouble() : fallback;
}

} // namespace

bool TuningCardSummary::ended() const {
    return !status.isEmpty() && !isLive(status);
}

QString TuningCardSummary::progressText() const {
    QString text = QStringLiteral("%1/%2 training jobs done").arg(done).arg(maxJobs);
    if (inProgress > 0)
        text += QStringLiteral(" (%1 running)").arg(inProgress);
    if (stoppedEarly > 0)
        text += QStringLiteral(", %1 stopped early").arg(stoppedEarly);
    if (failed > 0)
        text += QStringLiteral(", %1 failed").arg(failed);
    return text;
}

QVector<double> TuningCardSummary::objectives() const {
    QVector<double> out;
    out.reserve(jobs.size());
    for (const TuningCardJob& j : jobs)
        out.append(j.objective);
    return out;
}

TuningCardSummary TuningCardSummary::fromPayload(const QJsonObject& p) {
    TuningCardSummary s;
    s.tuning = p.value(QStringLiteral("tuning")).toString();
    s.status = p.value(QStringLiteral("status")).toString();
    s.statusMessage = p.value(QStringLiteral("status_message")).toString();
    // The objective as {"name", "type"}, or as a name with "objective_type" beside it.
    const QJsonValue objective = p.value(QStringLiteral("objective"));
    QString type = p.value(QStringLiteral("objective_type")).toString();
    if (objective.isObject()) {
        s.objectiveName = objective.toObject().value(QStringLiteral("name")).toString();
        type = objective.toObject().value(QStringLiteral("type")).toString(type);
    } else {
        s.objectiveName = objective.toString();
    }
    s.maximize = type != QLatin1String("Minimize");
    s.maxJobs = p.value(QStringLiteral("max_jobs")).toInt();
    s.bestJob = p.value(QStringLiteral("best_job")).toString();
    if (p.value(QStringLiteral("best_objective")).isDouble())
        s.bestObjective = p.value(QStringLiteral("best_objective")).toDouble();
    int done = 0, running = 0, early = 0, failed = 0;
    for (const QJsonValue& v : p.value(QStringLiteral("jobs")).toArray()) {
        const QJsonObject o = v.toObject();
        TuningCardJob j;
        j.job = o.value(QStringLiteral("job")).toString();
        j.objective = numberOr(o.value(QStringLiteral("objective")), j.objective);
        j.status = o.value(QStringLiteral("status")).toString();
        j.stoppedEarly = o.value(QStringLiteral("stopped_early")).toBool();
        running += isLive(j.status) ? 1 : 0;
        done += !j.status.isEmpty() && !isLive(j.status) ? 1 : 0;
        early += j.stoppedEarly ? 1 : 0;
        failed += j.status == QLatin1String("Failed") ? 1 : 0;
        s.jobs.append(j);
    }
    s.done = p.value(QStringLiteral("done")).toInt(done);
    s.inProgress = p.value(QStringLiteral("in_progress")).toInt(running);
    s.stoppedEarly = p.value(QStringLiteral("stopped_early")).toInt(early);
    s.failed = p.value(QStringLiteral("failed")).toInt(failed);
    s.maxJobs = std::max<int>(s.maxJobs, static_cast<int>(s.jobs.size()));
    return s;
}

TuningCardSummary TuningCardSummary::fromData(const TuningJobData& data) {
    const store::TuningJobRow& t = data.job;
    const store::TuningCounters& c = t.counters;
    TuningCardSummary s;
    s.tuning = QString::fromStdString(t.name);
    s.status = QString::fromStdString(t.status);
    s.statusMessage = QString::fromStdString(t.statusMessage);
    s.objectiveName = QString::fromStdString(t.objectiveName);
    s.maximize = data.maximize();
    s.maxJobs = t.maxJobs;
    s.done = c.completed + c.stopped + c.stoppedEarly + c.failed;
    s.inProgress = c.inProgress;
    s.stoppedEarly = c.stoppedEarly;
    s.failed = c.failed;
    s.bestJob = QString::fromStdString(t.bestJob);
    s.bestObjective = t.bestObjective;
    for (const TuningTrial& trial : data.trials)
        s.jobs.append({trial.job, trial.objective,
                       trial.status.isEmpty() ? trial.state : trial.status, trial.stoppedEarly});
    return s;
}

QVector<QRectF> objectiveBars(const QVector<double>& objectives, const QRectF& area) {
    QVector<QRectF> bars;
    const qsizetype n = objectives.size();
    if (n == 0 || area.isEmpty())
        return bars;
    double lo = 0, hi = 0;
    bool any = false;
    for (double v : objectives) {
        if (!std::isfinite(v))
            continue;
        lo = any ? std::min(lo, v) : v;
        hi = any ? std::max(hi, v) : v;
        any = true;
    }
    const double slot = area.width() / static_cast<double>(n);
    const double gap = slot >= 3 ? std::max(1.0, slot * 0.2) : 0.0;
    bars.reserve(n);
    for (qsizetype i = 0; i < n; ++i) {
        const double x = area.left() + static_cast<double>(i) * slot + gap / 2;
        const double v = objectives.at(i);
        if (!std::isfinite(v)) {
            bars.append(QRectF(x, area.bottom(), slot - gap, 0));
            continue;
        }
        const double f = hi > lo ? 0.15 + 0.85 * (v - lo) / (hi - lo) : 1.0;
        const double h = f * area.height();
        bars.append(QRectF(x, area.bottom() - h, slot - gap, h));
    }
    return bars;
}

} // namespace studio::models
