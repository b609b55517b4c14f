#include "models/tuning/tuning_data.h"

#include "engine/store/store_reader.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace studio::models {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

// Ranges from the hyperparameters themselves, for a tuning job whose spec names none: numbers
// where every value is one, categories otherwise.
std::vector<TuningRange> rangesFromValues(const std::vector<store::TuningTrainingJobRow>& rows) {
    std::vector<TuningRange> out;
    for (const auto& row : rows)
        for (const auto& [name, value] : row.hyperparameters) {
            const QString n = qs(name);
            auto it = std::find_if(out.begin(), out.end(), [&](auto& r) { return r.name == n; });
            if (it == out.end()) {
                out.push_back({n, TuningRange::Type::Continuous, kNaN, kNaN, {}, {}});
                it = out.end() - 1;
            }
            bool ok = false;
            const double v = qs(value).toDouble(&ok);
            if (!ok)
                it->type = TuningRange::Type::Categorical;
            if (!it->values.contains(qs(value)))
                it->values.append(qs(value));
            if (ok && !(v >= it->min))
                it->min = v;
            if (ok && !(v <= it->max))
                it->max = v;
        }
    return out;
}

} // namespace

std::vector<double> TuningJobData::objectives() const {
    std::vector<double> out;
    out.reserve(trials.size());
    for (const TuningTrial& t : trials)
        out.push_back(t.objective);
    return out;
}

std::vector<double> TuningJobData::finalObjectives() const {
    std::vector<double> out;
    out.reserve(trials.size());
    for (const TuningTrial& t : trials)
        out.push_back(t.completed() ? t.objective : kNaN);
    return out;
}

std::vector<double> TuningJobData::numbers(std::size_t range) const {
    std::vector<double> out;
    out.reserve(trials.size());
    for (const TuningTrial& t : trials)
        out.push_back(range < t.numbers.size() ? t.numbers[range] : kNaN);
    return out;
}

QStringList TuningJobData::values(std::size_t range) const {
    QStringList out;
    out.reserve(qsizetype(trials.size()));
    for (const TuningTrial& t : trials)
        out.append(t.values.value(qsizetype(range)));
    return out;
}

TuningJobData
tuningJobData(store::TuningJobRow job, const std::vector<store::TuningTrainingJobRow>& rows,
              const std::map<store::ComponentId, std::vector<store::MetricPoint>>& curves) {
    TuningJobData data;
    data.ranges = tuningRanges(job.specJson);
    if (data.ranges.empty())
        data.ranges = rangesFromValues(rows);
    data.job = std::move(job);
    data.trials.reserve(rows.size());
    for (const auto& row : rows) {
        TuningTrial t;
        t.ordinal = row.ordinal;
        t.component = row.component;
        t.job = qs(row.job);
        for (const TuningRange& r : data.ranges) {
            const auto it = row.hyperparameters.find(r.name.toStdString());
            const QString value = it == row.hyperparameters.end() ? QString() : qs(it->second);
            bool ok = false;
            const double number = value.toDouble(&ok);
            t.values.append(value);
            t.numbers.push_back(!r.categorical() && ok ? number : kNaN);
        }
        t.objective = row.objective.value_or(kNaN);
        t.state = qs(row.state);
        t.status = qs(row.status);
        t.stoppedEarly = row.stoppedEarly;
        t.stopReason = qs(row.stopReason);
        t.created = row.created;
        t.ended = row.ended;
        if (const auto c = curves.find(row.component); c != curves.end()) {
            t.intermediate.reserve(qsizetype(c->second.size()));
            for (std::size_t i = 0; i < c->second.size(); ++i)
                t.intermediate.append(QPointF(double(i + 1), c->second[i].value));
        }
        data.trials.push_back(std::move(t));
    }
    return data;
}

TuningJobData loadTuningJob(const QString& databasePath, const QString& name) {
    store::StoreReader reader(databasePath.toStdString());
    return loadTuningJob(reader, name);
}

TuningJobData loadTuningJob(store::StoreReader& reader, const QString& name) {
    auto job = reader.tuningJob(name.toStdString());
    if (!job || qs(job->name) != name)
        throw std::runtime_error("no tuning job named " + name.toStdString());
    const auto rows = reader.tuningTrainingJobs(job->id);
    const auto curves = reader.tuningCurves(job->id);
    return tuningJobData(std::move(*job), rows, curves);
}

} // namespace studio::models
