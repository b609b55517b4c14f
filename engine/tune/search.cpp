// Random, Grid and Hyperband's searches, and makeSearcher over every strategy.
#include "engine/tune/search.h"

#include "engine/digest/mix64.h"
#include "engine/tune/bayesian_search.h"

#include <random>
#include <set>
#include <stdexcept>

namespace studio::tune {

namespace {

class RandomSearcher : public Searcher {
public:
    explicit RandomSearcher(SearchSettings settings)
        : m_settings(std::move(settings)) {}
    std::optional<Point> propose(const std::vector<TrialRecord>& trials) override {
        return randomPoint(m_settings.ranges, m_settings.seed, trials.size());
    }

private:
    SearchSettings m_settings;
};

class GridSearcher : public Searcher {
public:
    explicit GridSearcher(SearchSettings settings)
        : m_settings(std::move(settings))
        , m_size(gridSize(m_settings.ranges)) {}
    // The first grid point, in order, that no trial has run; a failed trial's point counts as
    // run, so a grid never repeats a configuration.
    std::optional<Point> propose(const std::vector<TrialRecord>& trials) override {
        std::set<Point> run;
        for (const auto& t : trials)
            run.insert(t.point);
        for (std::int64_t i = 0; i < m_size; ++i) {
            Point p = gridPoint(m_settings.ranges, i);
            if (!run.count(p))
                return p;
        }
        return std::nullopt;
    }

private:
    SearchSettings m_settings;
    std::int64_t m_size;
};

void requireSearchable(const SearchSettings& settings) {
    if (settings.ranges.empty())
        throw std::invalid_argument("a tuning job needs at least one hyperparameter range");
    for (const auto& r : settings.ranges) {
        if (r.type == ParameterType::Categorical && r.values.empty())
            throw std::invalid_argument("hyperparameter '" + r.name + "': no values");
        if (r.type != ParameterType::Categorical && !(r.minValue <= r.maxValue))
            throw std::invalid_argument("hyperparameter '" + r.name +
                                        "': the minimum is above the maximum");
        // toUnit checks that the scaling suits the range.
        if (r.type != ParameterType::Categorical)
            toUnit(r, r.minValue);
    }
    if (settings.strategy == SearchStrategy::Grid && gridSize(settings.ranges) == 0)
        throw std::invalid_argument(
            "a Grid search needs Categorical or Integer ranges only (a Continuous range has no "
            "grid)");
}

} // namespace

Point randomPoint(const std::vector<ParameterRange>& ranges, std::uint64_t seed,
                  std::size_t trialCount) {
    std::mt19937_64 rng(
        digest::mix64(digest::mix64(seed) ^ static_cast<std::uint64_t>(trialCount)));
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    Point p;
    p.reserve(ranges.size());
    for (const auto& r : ranges)
        p.push_back(fromUnit(r, unit(rng)));
    return p;
}

Point gridPoint(const std::vector<ParameterRange>& ranges, std::int64_t index) {
    Point p(ranges.size());
    for (std::size_t i = ranges.size(); i-- > 0;) {
        const auto& r = ranges[i];
        const bool categorical = r.type == ParameterType::Categorical;
        const std::int64_t axis = categorical
                                      ? static_cast<std::int64_t>(r.values.size())
                                      : static_cast<std::int64_t>(r.maxValue - r.minValue) + 1;
        const std::int64_t k = index % axis;
        index /= axis;
        p[i] = categorical ? static_cast<double>(k) : r.minValue + static_cast<double>(k);
    }
    return p;
}

std::unique_ptr<Searcher> makeSearcher(const SearchSettings& settings) {
    requireSearchable(settings);
    switch (settings.strategy) {
    case SearchStrategy::Bayesian:
        return makeBayesianSearcher(settings);
    case SearchStrategy::Grid:
        return std::make_unique<GridSearcher>(settings);
    case SearchStrategy::Random:
    case SearchStrategy::Hyperband:
        // Hyperband's configurations are random; its brackets stop them (early_stopping.h).
        return std::make_unique<RandomSearcher>(settings);
    }
    throw std::invalid_argument("unknown search strategy");
}

} // namespace studio::tune
