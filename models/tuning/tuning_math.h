// The arithmetic behind a tuning job's tab, kept out of paint code: the hyperparameter ranges of
// a tuning spec, the best objective so far, grouping a hyperparameter's values into bins (slice
// plots) and each hyperparameter's importance as a one-way ANOVA over those groups.
// Plain values and pure functions (QtCore only), thread-safe.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

#include <span>
#include <string>
#include <vector>

namespace studio::models {

// One tuned hyperparameter as the tuning spec's "tuning.hyperparameter_ranges" gives it.
struct TuningRange {
    enum class Type { Continuous, Integer, Categorical };
    QString name;
    Type type = Type::Continuous;
    double min = 0;
    double max = 0;
    QStringList values; // Categorical
    QString scaling;    // Auto, Linear, Logarithmic, ReverseLogarithmic ("" when not given)

    bool categorical() const { return type == Type::Categorical; }
    // Whether plots show it on a log axis: Logarithmic, or Auto over a positive range that
    // spans two decades or more (the choice SageMaker's Auto makes for such ranges).
    bool logScale() const;
};

// The ranges of a tuning document ({"tuning": {"hyperparameter_ranges": {...}}, ...}) in the
// order written; none when the text holds no ranges (unparsable text included).
std::vector<TuningRange> tuningRanges(const std::string& tuningJson);

// The running best of objectives in launch order (max or min as maximize says); NaN entries
// (jobs without an objective) keep the previous best; NaN until a first value.
std::vector<double> bestSoFar(std::span<const double> objectives, bool maximize);

// A hyperparameter's values grouped for slices and importance: categories by value; numbers by
// value when they take at most maxGroups distinct values, else into at most maxGroups groups
// of about equal counts (ties never split). group[i] is -1 for a missing value (NaN or "").
struct ValueGroups {
    std::vector<int> group;
    QStringList labels;         // per group: the category, the value, or "lo – hi"
    std::vector<double> center; // per group: its values' median (numbers); the index (categories)
    int count() const { return int(labels.size()); }
};
ValueGroups groupNumbers(std::span<const double> values, int maxGroups);
ValueGroups groupCategories(const QStringList& values, const QStringList& categories);

// Mean objective per group, for the line through a slice plot: groups without an objective are
// left out (count 0, mean NaN).
struct GroupMean {
    double center = 0;
    double mean = 0;
    int count = 0;
};
std::vector<GroupMean> groupMeans(const ValueGroups& groups, std::span<const double> objectives);

// One-way ANOVA of the objective over a hyperparameter's groups: omega squared, the share of the
// objective's variance the hyperparameter explains alone, corrected for the share that k groups
// would explain by chance: (SSb - (k-1) MSw) / (SSt + MSw), clamped to [0, 1]. Jobs without an
// objective or a value are left out; 0 with fewer than 2 groups or no within-group freedom.
struct Importance {
    double omegaSquared = 0;
    double etaSquared = 0; // SSb / SSt, uncorrected
    int groups = 0;
    int jobs = 0; // jobs counted
};
Importance importanceOf(const ValueGroups& groups, std::span<const double> objectives);

// The number of groups importance and slices use for n jobs: about sqrt(n), 2 to 8.
int groupCountFor(int jobs);

} // namespace studio::models
