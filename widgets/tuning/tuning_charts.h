// What the tuning tab's charts draw, built from a loaded tuning job: the objective of each
// training job over launch order or end time with the best so far, every job's intermediate
// values, one slice per hyperparameter, the parallel-coordinates data and the importance of
// each hyperparameter. Plain values, thread-safe.
#pragma once

#include "models/charts/compare_data.h"
#include "models/tuning/tuning_data.h"
#include "widgets/tuning/tuning_plot.h"

namespace studio::widgets {

enum class HistoryAxis { LaunchOrder, EndTime };

// Completed jobs as circles, stopped-early ones as triangles, other stopped ones as squares,
// failed ones (no objective) as crosses along the bottom, and the best-so-far step line.
// Point ids are launch ordinals.
PlotData historyPlot(const models::TuningJobData& data, HistoryAxis axis, bool darkBackground);
// One line per job over epochs: completed ones coloured by their objective, stopped-early ones
// dimmed with a cross where they stopped, failed ones dashed red, running ones in the accent.
PlotData intermediatePlot(const models::TuningJobData& data, bool darkBackground);
// Objective against one hyperparameter's values (log axis for log-scaled ranges, one slot per
// category), coloured by launch order, with the mean objective of each value group.
PlotData slicePlot(const models::TuningJobData& data, std::size_t range, bool darkBackground);
// One axis per hyperparameter, then the objective (the colour scale); jobs with an objective.
models::ParallelData tuningParallelData(const models::TuningJobData& data);

struct HyperparameterImportance {
    QString name;
    models::Importance importance;
};
// Each range's importance, most important first.
QList<HyperparameterImportance> importances(const models::TuningJobData& data);

// The tooltip that says how importance is computed.
QString importanceMethod();

} // namespace studio::widgets
