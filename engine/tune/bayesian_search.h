// The Bayesian search: a Gaussian process over the scaled configurations with expected
// improvement, behind the Searcher interface of search.h.
#pragma once

#include "engine/tune/search.h"

#include <memory>

namespace studio::tune {

// How many observed trials the Bayesian search draws at random before it fits a model: one more
// than the number of ranges, at least 5 and at most 10.
int bayesianStartupTrials(const std::vector<ParameterRange>& ranges);

std::unique_ptr<Searcher> makeBayesianSearcher(const SearchSettings& settings);

} // namespace studio::tune
