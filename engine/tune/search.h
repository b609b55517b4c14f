// The searches behind tuning jobs: Random, Grid, Bayesian (a Gaussian process with expected
// improvement) and Hyperband's configurations, and the value texts passed to training jobs.
// Stateless between calls: a proposal depends only on the ranges, the seed and the trials so
// far, so a tuning job resumed from the store proposes what it would have proposed.
#pragma once

#include "engine/tune/tuning_spec.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace studio::tune {

// A configuration: one value per range, in the ranges' order. Continuous and Integer ranges
// hold the value itself (an Integer's is whole); Categorical ranges hold the value's index.
using Point = std::vector<double>;

enum class TrialState { Pending, Completed, Stopped, Failed };

// A training job of the tuning job as the search sees it. value: the final objective (for a
// Stopped job, the last one it reported; none for a Failed or Pending job).
struct TrialRecord {
    Point point;
    TrialState state = TrialState::Pending;
    std::optional<double> value;
};

struct SearchSettings {
    std::vector<ParameterRange> ranges;
    SearchStrategy strategy = SearchStrategy::Bayesian;
    bool maximize = true;
    std::uint64_t seed = 0;
};

class Searcher {
public:
    virtual ~Searcher() = default;
    // The next configuration to run; none when the search has nothing left (a Grid done).
    // trials: every training job so far in launch order, Pending ones included (the Bayesian
    // search keeps pending points apart from each other).
    virtual std::optional<Point> propose(const std::vector<TrialRecord>& trials) = 0;
};

// Throws std::invalid_argument when the ranges cannot be searched (none, a Grid over a Continuous
// range, a scaling a range does not allow).
std::unique_ptr<Searcher> makeSearcher(const SearchSettings& settings);

// The Random search's proposal after `trialCount` trials: uniform in the unit cube under each
// range's scaling, from a generator seeded by a mix of seed and trialCount.
Point randomPoint(const std::vector<ParameterRange>& ranges, std::uint64_t seed,
                  std::size_t trialCount);
// The Grid's configuration number `index` (first range varies slowest); the ranges must all be
// grid axes and index below gridSize(ranges).
Point gridPoint(const std::vector<ParameterRange>& ranges, std::int64_t index);

// What Auto becomes for a range: Logarithmic for a positive range spanning more than two orders
// of magnitude, else Linear (Categorical: Linear).
Scaling effectiveScaling(const ParameterRange& range);
// A value to and from the unit interval under the range's (effective) scaling.
double toUnit(const ParameterRange& range, double value);
double fromUnit(const ParameterRange& range, double unit);
// The number of configurations of a Grid search; 0 when a range cannot be a grid axis
// (a Continuous one).
std::int64_t gridSize(const std::vector<ParameterRange>& ranges);
// The text passed to the training job ("0.0031", "64", "adam").
std::string valueText(const ParameterRange& range, double value);
// The inverse of valueText; none when the text is not a value of the range.
std::optional<double> parseValue(const ParameterRange& range, const std::string& text);

} // namespace studio::tune
