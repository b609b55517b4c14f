// Parsing and validation of tuning specs: {"tuning": {...}, "training": {...a job spec...}}.
// Every error is reported at once, each naming its JSON path ("tuning.max_jobs",
// "tuning.hyperparameter_ranges.lr.min_value", "training.entry_point"); the training spec's
// own errors carry the "training." prefix.
#pragma once

#include "engine/spec/spec_error.h"
#include "engine/spec/spec_parser.h"
#include "engine/tune/tuning_spec.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace studio::tune {

struct TuningParseResult {
    std::optional<TuningSpec> spec; // set only when errors is empty
    std::vector<spec::SpecError> errors;

    bool ok() const { return errors.empty(); }
};

// SageMaker's limits.
inline constexpr int kMaxTrainingJobs = 500;
inline constexpr int kMaxParallelJobs = 100;
inline constexpr int kMaxHyperparameters = 20; // tunable ones, each categorical value counting
inline constexpr int kMaxCategoricalValues = 30;
inline constexpr std::int64_t kMaxHyperbandResource = 20000;
inline constexpr int kMaxWarmStartParents = 5;
inline constexpr int kMaxWarmStartStaticChanges = 10;

// overrides: "key.path=value" assignments as for job specs ("tuning.max_jobs=8",
// "training.hyperparameters.epochs=2").
TuningParseResult parseTuningSpecFile(const std::string& path,
                                      const std::vector<std::string>& overrides = {},
                                      const spec::ParseOptions& options = {});
TuningParseResult parseTuningSpecText(std::string_view text, const std::string& baseDir,
                                      const std::vector<std::string>& overrides = {},
                                      const spec::ParseOptions& options = {});

// The same on a document built in memory (the launch dialog, notebooks).
TuningParseResult parseTuningJson(nlohmann::json doc, const std::string& baseDir,
                                  const spec::ParseOptions& options = {});

// Whether a spec document is a tuning spec (it has a "tuning" object at the top).
bool isTuningDocument(std::string_view text);

} // namespace studio::tune
