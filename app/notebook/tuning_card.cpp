#include "app/notebook/tuning_card.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>

namespace studio::notebook {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

QString number(double v) {
    return QString::number(v, 'g', 4);
}

// A bar of 1 to kBarWidth blocks: the objective's place between the lowest and highest.
constexpr int kBarWidth = 20;

QString bar(double v, double lo, double hi) {
    const double f = hi > lo ? (v - lo) / (hi - lo) : 1.0;
    const int n = 1 + static_cast<int>(std::lround(f * (kBarWidth - 1)));
    return QString(n, QChar(0x2588));
}

struct Summary {
    QString plain;
    QString html;
};

Summary headline(const store::TuningJobRow& t, int done) {
    const store::TuningCounters& c = t.counters;
    QString progress = QStringLiteral("%1/%2 training jobs done").arg(done).arg(t.maxJobs);
    if (c.inProgress > 0)
        progress += QStringLiteral(" (%1 running)").arg(c.inProgress);
    if (c.stoppedEarly > 0)
        progress += QStringLiteral(", %1 stopped early").arg(c.stoppedEarly);
    if (c.failed > 0)
        progress += QStringLiteral(", %1 failed").arg(c.failed);
    const QString name = qs(t.name), status = qs(t.status), objective = qs(t.objectiveName);
    Summary s;
    s.plain = QStringLiteral("HyperparameterTuningJob %1: %2 · %3 · %4")
                  .arg(name, status, qs(t.strategy), progress);
    s.html = QStringLiteral("<b>HyperparameterTuningJob</b> <code>%1</code>: <b>%2</b> · %3 · %4")
                 .arg(name.toHtmlEscaped(), status.toHtmlEscaped(), qs(t.strategy).toHtmlEscaped(),
                      progress.toHtmlEscaped());
    if (t.bestObjective) {
        const QString best = qs(t.bestJob);
        s.plain +=
            QStringLiteral(" · best %1 %2 (%3)").arg(objective, number(*t.bestObjective), best);
        s.html +=
            QStringLiteral(
                " · best %1 <b>%2</b> by <a href=\"mlstudio://job/%3\"><code>%3</code></a>")
                .arg(objective.toHtmlEscaped(), number(*t.bestObjective), best.toHtmlEscaped());
    }
    if (!t.statusMessage.empty() && !store::isLiveStatus(t.status)) {
        s.plain += QStringLiteral(" · ") + qs(t.statusMessage);
        s.html += QStringLiteral(" · ") + qs(t.statusMessage).toHtmlEscaped();
    }
    return s;
}

} // namespace

QJsonObject tuningCard(const store::TuningJobRow& t,
                       const std::vector<store::TuningTrainingJobRow>& jobs) {
    const store::TuningCounters& c = t.counters;
    const int done = c.completed + c.stopped + c.stoppedEarly + c.failed;
    double lo = 0, hi = 0;
    bool any = false;
    for (const auto& j : jobs)
        if (j.objective && std::isfinite(*j.objective)) {
            lo = any ? std::min(lo, *j.objective) : *j.objective;
            hi = any ? std::max(hi, *j.objective) : *j.objective;
            any = true;
        }
    Summary s = headline(t, done);
    QJsonArray list;
    QString rows;
    for (const auto& j : jobs) {
        const QString status = qs(j.status.empty() ? j.state : j.status);
        const QString job = qs(j.job);
        const bool best = !j.job.empty() && j.job == t.bestJob;
        QJsonObject o{{QStringLiteral("job"), job},
                      {QStringLiteral("status"), status},
                      {QStringLiteral("stopped_early"), j.stoppedEarly}};
        QString value = QStringLiteral("-"), blocks;
        if (j.objective && std::isfinite(*j.objective)) {
            o.insert(QStringLiteral("objective"), *j.objective);
            value = number(*j.objective);
            blocks = bar(*j.objective, lo, hi);
        }
        list.append(o);
        const QString note = (j.stoppedEarly ? QStringLiteral(" (stopped early)") : QString()) +
                             (best ? QStringLiteral(" ★") : QString());
        s.plain += QStringLiteral("\n  %1 %2 %3 %4%5")
                       .arg(j.ordinal + 1, 2)
                       .arg(blocks.leftJustified(kBarWidth), value.leftJustified(8), status, note);
        rows +=
            QStringLiteral("<tr><td>%1</td><td><a href=\"mlstudio://job/%2\"><code>%2</code></a>"
                           "</td><td><span style=\"color:#4878d0\">%3</span></td><td>%4</td>"
                           "<td>%5%6</td></tr>")
                .arg(j.ordinal + 1)
                .arg(job.toHtmlEscaped(), blocks, value, status.toHtmlEscaped(),
                     note.toHtmlEscaped());
    }
    QJsonObject info{{QStringLiteral("tuning"), qs(t.name)},
                     {QStringLiteral("status"), qs(t.status)},
                     {QStringLiteral("status_message"), qs(t.statusMessage)},
                     {QStringLiteral("strategy"), qs(t.strategy)},
                     {QStringLiteral("objective"), qs(t.objectiveName)},
                     {QStringLiteral("objective_type"), qs(t.objectiveType)},
                     {QStringLiteral("max_jobs"), t.maxJobs},
                     {QStringLiteral("done"), done},
                     {QStringLiteral("in_progress"), c.inProgress},
                     {QStringLiteral("stopped_early"), c.stoppedEarly},
                     {QStringLiteral("failed"), c.failed},
                     {QStringLiteral("jobs"), list}};
    if (t.bestObjective) {
        info.insert(QStringLiteral("best_job"), qs(t.bestJob));
        info.insert(QStringLiteral("best_objective"), *t.bestObjective);
    }
    QString html = QStringLiteral("<div class=\"mlstudio-tuning\">") + s.html;
    if (!rows.isEmpty())
        html += QStringLiteral("<table class=\"mlstudio-tuning-jobs\" cellspacing=\"0\" "
                               "cellpadding=\"2\"><tr><th>#</th><th>training job</th><th>%1</th>"
                               "<th></th><th>status</th></tr>")
                    .arg(qs(t.objectiveName).toHtmlEscaped()) +
                rows + QStringLiteral("</table>");
    html += QStringLiteral("</div>");
    return QJsonObject{
        {QStringLiteral("output_type"), QStringLiteral("display_data")},
        {QStringLiteral("data"), QJsonObject{{QString::fromLatin1(kTuningMimeType), info},
                                             {QStringLiteral("text/plain"), s.plain},
                                             {QStringLiteral("text/html"), html}}},
        {QStringLiteral("metadata"),
         QJsonObject{{QStringLiteral("mlstudio"),
                      QJsonObject{{QStringLiteral("display_id"),
                                   QString(QStringLiteral("tuning:") + qs(t.name))}}}}}};
}

QString tuningOfOutput(const QJsonObject& output) {
    return output.value(QStringLiteral("data"))
        .toObject()
        .value(QLatin1String(kTuningMimeType))
        .toObject()
        .value(QStringLiteral("tuning"))
        .toString();
}

} // namespace studio::notebook
