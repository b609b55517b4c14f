// The statistics the rules compute over samples (percentiles, mean, standard deviation), under
// the names the rules use; the one implementation lives in the plot library (engine/plot).
#pragma once

#include "engine/plot/stats.h"

namespace studio::debugger {

using plot::mean;
using plot::percentile;
using plot::sortedPercentile;
using plot::stddev;

} // namespace studio::debugger
