// The notebook output of a hyperparameter tuning job: a card with its status, training jobs
// done of max_jobs, the best objective so far with its job, and a bar per training job's
// objective, as display_data (display id "tuning:<name>") with text/html and text/plain twins
// for Jupyter. Plain functions over store rows; any thread.
#pragma once

#include "engine/store/tuning_records.h"

#include <QJsonObject>
#include <QString>

#include <vector>

namespace studio::notebook {

// The MIME type of a tuning job's card: {"tuning", "status", "max_jobs", "done", "best_job",
// "best_objective", "jobs": [{"job", "objective", "status", "stopped_early"}], ...}.
inline constexpr const char* kTuningMimeType = "application/vnd.mlstudio.tuning+json";

QJsonObject tuningCard(const store::TuningJobRow& tuning,
                       const std::vector<store::TuningTrainingJobRow>& jobs);

// The tuning job an output shows (data[kTuningMimeType].tuning); "" when it shows none.
QString tuningOfOutput(const QJsonObject& output);

} // namespace studio::notebook
