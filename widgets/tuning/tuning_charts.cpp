#include "widgets/tuning/tuning_charts.h"

#include "models/charts/parallel_coordinates_math.h"
#include "widgets/common/theme.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace studio::widgets {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

QString tr(const char* text) {
    return QCoreApplication::translate("TuningCharts", text);
}

QString pointLabel(const models::TuningTrial& t, const QString& objective) {
    QString text = QStringLiteral("#%1 %2").arg(t.ordinal).arg(t.job);
    if (std::isfinite(t.objective))
        text += QStringLiteral("\n%1 = %2").arg(objective).arg(t.objective, 0, 'g', 6);
    if (t.stoppedEarly)
        text += QStringLiteral("\n") + tr("stopped early") +
                (t.stopReason.isEmpty() ? QString() : QStringLiteral(": ") + t.stopReason);
    else if (t.failed())
        text += QStringLiteral("\n") + tr("failed");
    return text;
}

PlotLayer markers(const QString& name, const QColor& color, PlotLayer::Marker marker) {
    PlotLayer l;
    l.kind = PlotLayer::Kind::Markers;
    l.name = name;
    l.color = color;
    l.marker = marker;
    l.size = marker == PlotLayer::Marker::Cross ? 7 : 6.5;
    return l;
}

void addPoint(PlotLayer& layer, QPointF at, const models::TuningTrial& t,
              const QString& objective) {
    layer.points.append(at);
    layer.labels.append(pointLabel(t, objective));
    layer.ids.append(t.ordinal);
}

// Where each objective falls between the worst (0) and the best (1).
std::pair<double, double> objectiveSpan(const models::TuningJobData& data) {
    double lo = kNaN, hi = kNaN;
    for (const models::TuningTrial& t : data.trials)
        if (std::isfinite(t.objective)) {
            lo = std::isnan(lo) ? t.objective : std::min(lo, t.objective);
            hi = std::isnan(hi) ? t.objective : std::max(hi, t.objective);
        }
    return {lo, hi};
}

double goodness(const models::TuningJobData& data, double objective,
                std::pair<double, double> span) {
    if (!std::isfinite(objective) || !(span.second > span.first))
        return 1;
    const double t = (objective - span.first) / (span.second - span.first);
    return data.maximize() ? t : 1 - t;
}

} // namespace

PlotData historyPlot(const models::TuningJobData& data, HistoryAxis axis, bool) {
    PlotData plot;
    const QString objective = QString::fromStdString(data.job.objectiveName);
    plot.emptyText = tr("No training job has ended yet");
    PlotLayer completed =
        markers(tr("completed"), models::seriesColor(0), PlotLayer::Marker::Circle);
    PlotLayer early =
        markers(tr("stopped early"), QColor(0xE6, 0x8A, 0x00), PlotLayer::Marker::Triangle);
    PlotLayer stopped = markers(tr("stopped"), QColor(0x8A, 0x8A, 0x8A), PlotLayer::Marker::Square);
    PlotLayer failed = markers(tr("failed"), models::statusColor(QStringLiteral("Failed")),
                               PlotLayer::Marker::Cross);
    failed.kind = PlotLayer::Kind::Rug;
    // (x, objective) of the jobs that count, in x order, for the best-so-far line.
    std::vector<std::pair<double, double>> ordered;
    const double origin = data.job.created;
    for (const models::TuningTrial& t : data.trials) {
        double x = t.ordinal;
        if (axis == HistoryAxis::EndTime) {
            if (t.ended <= 0)
                continue;
            x = (t.ended - origin) / 60.0;
        }
        if (t.failed() || !std::isfinite(t.objective)) {
            if (t.failed())
                addPoint(failed, QPointF(x, kNaN), t, objective);
            continue;
        }
        PlotLayer& layer = t.stoppedEarly                        ? early
                           : t.state == QLatin1String("Stopped") ? stopped
                                                                 : completed;
        addPoint(layer, QPointF(x, t.objective), t, objective);
        ordered.emplace_back(x, t.objective);
    }
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<double> ys;
    for (const auto& o : ordered)
        ys.push_back(o.second);
    const std::vector<double> best = models::bestSoFar(ys, data.maximize());
    PlotLayer line;
    line.kind = PlotLayer::Kind::Line;
    line.name = tr("best so far");
    line.color = models::statusColor(QStringLiteral("Completed"));
    line.size = 2;
    for (std::size_t i = 0; i < ordered.size(); ++i) {
        if (i > 0)
            line.points.append(QPointF(ordered[i].first, best[i - 1]));
        line.points.append(QPointF(ordered[i].first, best[i]));
    }
    std::vector<double> xs;
    for (const PlotLayer* l : {&completed, &early, &stopped, &failed})
        for (const QPointF& p : l->points)
            xs.push_back(p.x());
    plot.x =
        models::PlotAxis::fit(axis == HistoryAxis::LaunchOrder ? tr("training job (launch order)")
                                                               : tr("minutes since the start"),
                              xs, false);
    plot.y = models::PlotAxis::fit(objective, ys, false);
    plot.layers = {line, stopped, early, completed, failed};
    for (PlotLayer& l : plot.layers)
        if (l.points.isEmpty())
            l.name.clear(); // no legend entry for what is not there
    return plot;
}

PlotData intermediatePlot(const models::TuningJobData& data, bool dark) {
    PlotData plot;
    plot.title = tr("Intermediate values");
    plot.emptyText = tr("No objective values reported yet");
    const auto span = objectiveSpan(data);
    std::vector<double> xs, ys;
    QList<PlotLayer> stoppedLines, lines, running;
    for (const models::TuningTrial& t : data.trials) {
        if (t.intermediate.isEmpty())
            continue;
        PlotLayer l;
        l.kind = PlotLayer::Kind::Line;
        l.points = t.intermediate;
        l.labels = QStringList(pointLabel(t, QString::fromStdString(data.job.objectiveName)));
        l.ids = {t.ordinal};
        l.size = 1.2;
        if (t.stoppedEarly) {
            l.color = QColor(0xE6, 0x8A, 0x00);
            l.opacity = 0.45;
            l.endMarker = true;
        } else if (t.failed()) {
            l.color = models::statusColor(QStringLiteral("Failed"));
            l.opacity = 0.55;
            l.dashed = true;
            l.endMarker = true;
        } else if (t.running()) {
            l.color = models::seriesColor(0);
            l.size = 1.8;
        } else {
            l.color = models::lineColorScale(goodness(data, t.objective, span), dark);
            l.opacity = 0.85;
        }
        for (const QPointF& p : t.intermediate) {
            xs.push_back(p.x());
            ys.push_back(p.y());
        }
        (t.stoppedEarly || t.failed() ? stoppedLines : t.running() ? running : lines).append(l);
    }
    plot.x = models::PlotAxis::fit(tr("epoch"), xs, false);
    plot.y = models::PlotAxis::fit(QString::fromStdString(data.job.objectiveName), ys, false);
    // Legend entries only; the lines themselves carry no name.
    PlotLayer best = markers(tr("completed (colour: objective)"), models::lineColorScale(1, dark),
                             PlotLayer::Marker::Circle);
    best.kind = PlotLayer::Kind::Line;
    best.size = 2;
    PlotLayer stoppedKey =
        markers(tr("stopped ×"), QColor(0xE6, 0x8A, 0x00), PlotLayer::Marker::Cross);
    stoppedKey.kind = PlotLayer::Kind::Line;
    stoppedKey.size = 2;
    plot.layers = lines + stoppedLines + running;
    plot.layers.append(best);
    plot.layers.append(stoppedKey);
    return plot;
}

PlotData slicePlot(const models::TuningJobData& data, std::size_t range, bool dark) {
    const models::TuningRange& r = data.ranges[range];
    PlotData plot;
    plot.title = r.name;
    plot.emptyText = tr("No completed training job yet");
    const QString objective = QString::fromStdString(data.job.objectiveName);
    const std::vector<double> objectives = data.finalObjectives();
    const models::ValueGroups groups =
        r.categorical() ? models::groupCategories(data.values(range), r.values)
                        : models::groupNumbers(data.numbers(range),
                                               models::groupCountFor(int(data.trials.size())));
    PlotLayer points = markers({}, models::seriesColor(0), PlotLayer::Marker::Circle);
    points.opacity = 0.85;
    points.size = 6;
    std::vector<double> xs, ys;
    const double n = std::max<double>(double(data.trials.size()) - 1, 1);
    for (std::size_t i = 0; i < data.trials.size(); ++i) {
        const models::TuningTrial& t = data.trials[i];
        if (!std::isfinite(objectives[i]))
            continue;
        double x = r.categorical() ? double(groups.group[i]) : t.numbers[range];
        if (r.categorical()) {
            if (groups.group[i] < 0)
                continue;
            x += (std::fmod(t.ordinal * 0.618034, 1.0) - 0.5) * 0.5; // spread within the slot
        }
        addPoint(points, QPointF(x, t.objective), t, objective);
        points.colors.append(models::lineColorScale(t.ordinal / n, dark));
        xs.push_back(x);
        ys.push_back(t.objective);
    }
    PlotLayer means;
    means.kind = PlotLayer::Kind::Line;
    means.name = tr("mean");
    means.color = models::statusColor(QStringLiteral("Failed")).darker(110);
    means.size = 1.8;
    for (const models::GroupMean& g : models::groupMeans(groups, objectives))
        if (g.count > 0)
            means.points.append(QPointF(g.center, g.mean));
    plot.x = r.categorical()
                 ? models::PlotAxis::category(r.name, groups.labels)
                 : models::PlotAxis::fit(r.name + (r.logScale() ? tr(" (log)") : QString()), xs,
                                         r.logScale());
    plot.y = models::PlotAxis::fit(objective, ys, false);
    plot.layers = {points, means};
    return plot;
}

models::ParallelData tuningParallelData(const models::TuningJobData& data) {
    models::ParallelData out;
    std::vector<std::size_t> kept;
    const std::vector<double> objectives = data.finalObjectives();
    for (std::size_t i = 0; i < data.trials.size(); ++i)
        if (std::isfinite(objectives[i]))
            kept.push_back(i);
    for (std::size_t i : kept) {
        models::ParallelLine line;
        line.job = data.trials[i].job;
        out.lines.append(line);
    }
    for (std::size_t r = 0; r < data.ranges.size(); ++r) {
        const models::TuningRange& range = data.ranges[r];
        std::vector<double> numbers;
        QStringList texts;
        for (std::size_t i : kept) {
            numbers.push_back(data.trials[i].numbers[r]);
            texts.append(data.trials[i].values.value(qsizetype(r)));
        }
        const models::ParallelAxis axis = range.categorical()
                                              ? models::ParallelAxis::categorical(range.name, texts)
                                              : models::ParallelAxis::numeric(range.name, numbers);
        for (std::size_t k = 0; k < kept.size(); ++k) {
            models::ParallelLine& line = out.lines[qsizetype(k)];
            line.positions.append(range.categorical() ? axis.position(texts[qsizetype(k)])
                                                      : axis.position(numbers[k]));
            line.values.append(texts[qsizetype(k)]);
        }
        out.axes.append(axis);
    }
    out.metricTitle = QString::fromStdString(data.job.objectiveName);
    std::vector<double> finals;
    for (std::size_t i : kept)
        finals.push_back(objectives[i]);
    const models::ParallelAxis axis = models::ParallelAxis::numeric(out.metricTitle, finals);
    for (std::size_t k = 0; k < kept.size(); ++k) {
        models::ParallelLine& line = out.lines[qsizetype(k)];
        const double position = axis.position(finals[k]);
        line.positions.append(position);
        line.values.append(QString::number(finals[k], 'g', 6));
        line.colorPosition = position;
    }
    out.axes.append(axis);
    return out;
}

QList<HyperparameterImportance> importances(const models::TuningJobData& data) {
    QList<HyperparameterImportance> out;
    const std::vector<double> objectives = data.finalObjectives();
    int withObjective = 0;
    for (double o : objectives)
        withObjective += std::isfinite(o);
    for (std::size_t r = 0; r < data.ranges.size(); ++r) {
        const models::TuningRange& range = data.ranges[r];
        const models::ValueGroups groups =
            range.categorical()
                ? models::groupCategories(data.values(r), range.values)
                : models::groupNumbers(data.numbers(r), models::groupCountFor(withObjective));
        out.append({range.name, models::importanceOf(groups, objectives)});
    }
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        return a.importance.omegaSquared > b.importance.omegaSquared;
    });
    return out;
}

QString importanceMethod() {
    return tr("One-way ANOVA per hyperparameter: ω², the share of the objective's variance that "
              "the hyperparameter explains alone (its values in up to 8 groups of about equal "
              "size, categories as groups), less what that many groups would explain by "
              "chance. Interactions between hyperparameters are not counted, so the shares need "
              "not add up to 1. Only completed jobs count: a job stopped early or failed has no "
              "final objective.");
}

} // namespace studio::widgets
