// What the Compare view shows about 2 to 50 jobs, as complete values: loaded from the store by a
// worker (each worker with its own StoreReader), then handed to the widgets. Also the plain
// derivations the view makes from it (metric summary statistics, parallel-coordinates axes).
// The load functions run on any thread with a reader owned by that thread.
#pragma once

#include "engine/store/store_reader.h"
#include "models/charts/chart_math.h"
#include "models/charts/parallel_coordinates_math.h"

#include <QColor>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <optional>

namespace studio::models {

class CancelFlag;

struct ParameterValue {
    QString text;
    std::optional<double> number; // set when the value is numeric
};

struct CompareJob {
    qint64 id = 0;
    QString name; // unique job name
    QString displayName;
    QString status;
    QColor color; // seriesColor(position in the selection)
    QMap<QString, ParameterValue> parameters;
    QMap<QString, store::MetricSummary> summaries;
};

struct CompareData {
    QList<CompareJob> jobs;  // in the order asked for
    QStringList metricNames; // every metric any job recorded, sorted
    // What differs in what ran (code with its lines, runtime, packages, hyperparameters,
    // environment names) between the first job and each other one, as `mlstudio diff` prints.
    QString whatRanDiff;
};

inline constexpr int kMinCompareJobs = 2;
inline constexpr int kMaxCompareJobs = 50;

// Jobs, parameters, metric summaries and metric names. Throws std::runtime_error when fewer
// than 2 or more than 50 ids are given, or naming the ids the database does not hold.
CompareData loadCompareData(store::StoreReader& reader, const QList<qint64>& ids);
// One series per job (named after the job, in its colour) of one metric; jobs without the
// metric get an empty series. Stops early (returning what it has) when cancelled.
QList<CurveSeries> loadMetricCurves(store::StoreReader& reader, const QList<CompareJob>& jobs,
                                    const QString& metric, const CancelFlag& cancel);

// The metric that should open first: the first whose name mentions "loss", else the first.
QString defaultMetric(const QStringList& metricNames);
// The metric names, those that more of the jobs recorded first (then by name): what the
// defaults should pick from, so a metric every job has wins over one only some have.
QStringList metricsByCoverage(const CompareData& data);
// The metrics every job recorded; all of them when no metric is shared.
QStringList sharedMetrics(const CompareData& data);

enum class SummaryStatistic { Min, Max, Last, Average };
QString statisticName(SummaryStatistic statistic); // "Min", "Max", "Last", "Average"

// The metric summary the parallel-coordinates plot opens with: an evaluation metric
// ("eval", "val", "test" prefixes) before a training one, accuracy-like at its Max before
// loss-like at its Min; else the first metric at its Last value. Empty metric for no metrics.
struct SummaryChoice {
    QString metric;
    SummaryStatistic statistic = SummaryStatistic::Last;
};
SummaryChoice defaultSummary(const QStringList& metricNames);
// The statistic of a summary; NaN when the summary holds no finite value.
double summaryValue(const store::MetricSummary& summary, SummaryStatistic statistic);

// Two parameter values are the same when their numbers are equal, or, for text, their text.
bool sameParameterValue(const std::optional<ParameterValue>& a,
                        const std::optional<ParameterValue>& b);
// Names of parameters whose values differ between jobs (missing in some counts), sorted.
QStringList differingParameters(const QList<CompareJob>& jobs);

// Axes and one polyline per job for the parallel-coordinates plot: an axis per parameter that
// differs between the jobs (every parameter when none differ; numeric when each job's value is
// numeric, categorical otherwise) and a last axis for the metric summary, which also colours
// the lines.
struct ParallelLine {
    QString job;
    QColor jobColor;
    QList<double> positions;  // per axis in [0, 1]; NaN where the job lacks the value
    QStringList values;       // per axis, as shown in the hover readout ("" where missing)
    double colorPosition = 0; // the metric axis position, NaN when the job lacks it
};
struct ParallelData {
    QList<ParallelAxis> axes;
    QList<ParallelLine> lines;
    QString metricTitle; // "eval:accuracy - Max"
};
ParallelData parallelData(const QList<CompareJob>& jobs, const QString& metric,
                          SummaryStatistic statistic);

} // namespace studio::models
