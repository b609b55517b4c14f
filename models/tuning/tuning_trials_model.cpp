#include "models/tuning/tuning_trials_model.h"

#include "models/common/status_style.h"

#include <QFont>

#include <cmath>

namespace studio::models {

namespace {

bool sameRanges(const std::vector<TuningRange>& a, const std::vector<TuningRange>& b) {
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].name != b[i].name || a[i].type != b[i].type)
            return false;
    return true;
}

// What a training job's row says for its status: the job's own status, with the search's
// "Stopped" outcome when it differs.
QString statusOf(const TuningTrial& t) {
    if (t.status.isEmpty())
        return t.state;
    return t.status;
}

} // namespace

TuningTrialsModel::TuningTrialsModel(QObject* parent)
    : QAbstractTableModel(parent) {
}

void TuningTrialsModel::setJobData(const TuningJobData& data) {
    const qint64 best = data.job.bestComponent;
    if (!sameRanges(m_ranges, data.ranges) || data.trials.size() < m_trials.size()) {
        beginResetModel();
        m_ranges = data.ranges;
        m_trials = data.trials;
        m_objective = QString::fromStdString(data.job.objectiveName);
        m_best = best;
        m_maximize = data.maximize();
        endResetModel();
        return;
    }
    const std::size_t old = m_trials.size();
    m_best = best;
    m_maximize = data.maximize();
    m_objective = QString::fromStdString(data.job.objectiveName);
    std::copy(data.trials.begin(), data.trials.begin() + std::ptrdiff_t(old), m_trials.begin());
    if (old > 0)
        Q_EMIT dataChanged(index(0, 0), index(int(old) - 1, columnCount() - 1));
    if (data.trials.size() > old) {
        beginInsertRows({}, int(old), int(data.trials.size()) - 1);
        m_trials.insert(m_trials.end(), data.trials.begin() + std::ptrdiff_t(old),
                        data.trials.end());
        endInsertRows();
    }
}

int TuningTrialsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_trials.size());
}

int TuningTrialsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : reasonColumn() + 1;
}

QVariant TuningTrialsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    const TuningTrial& t = trial(index.row());
    switch (role) {
    case JobNameRole:
        return t.job;
    case OrdinalRole:
        return t.ordinal;
    case Qt::FontRole:
        if (t.component == m_best) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    default:
        return cell(t, index.column(), role);
    }
}

QVariant TuningTrialsModel::cell(const TuningTrial& t, int column, int role) const {
    const bool display = role == Qt::DisplayRole || role == Qt::ToolTipRole;
    const auto right = QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (column == 0) {
        if (display || role == SortRole)
            return t.ordinal;
        return role == Qt::TextAlignmentRole ? right : QVariant();
    }
    if (column == 1) {
        if (display || role == SortRole)
            return t.job;
        return role == Qt::DecorationRole ? QVariant(statusIcon(statusOf(t))) : QVariant();
    }
    if (column < objectiveColumn()) {
        const auto r = std::size_t(column - 2);
        const bool numeric = !m_ranges[r].categorical();
        if (display)
            return t.values.value(qsizetype(r));
        if (role == SortRole)
            return numeric && std::isfinite(t.numbers[r]) ? QVariant(t.numbers[r])
                                                          : QVariant(t.values.value(qsizetype(r)));
        return role == Qt::TextAlignmentRole && numeric ? right : QVariant();
    }
    if (column == objectiveColumn()) {
        const bool has = std::isfinite(t.objective);
        if (display)
            return has ? QString::number(t.objective, 'g', 6) : QStringLiteral("-");
        if (role == SortRole) // a job without one sorts as the worst
            return has ? t.objective : m_maximize ? -HUGE_VAL : HUGE_VAL;
        return role == Qt::TextAlignmentRole ? right : QVariant();
    }
    if (column == statusColumn()) {
        if (display || role == SortRole)
            return statusOf(t);
        return role == Qt::ForegroundRole ? QVariant(statusColor(statusOf(t))) : QVariant();
    }
    if (column == stoppedEarlyColumn()) {
        if (display)
            return t.stoppedEarly ? tr("yes") : QString();
        return role == SortRole ? QVariant(t.stoppedEarly) : QVariant();
    }
    if (display || role == SortRole)
        return t.stopReason;
    return {};
}

QVariant TuningTrialsModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || section < 0 || section >= columnCount())
        return {};
    if (role == Qt::ToolTipRole && section >= 2 && section < objectiveColumn()) {
        const TuningRange& r = m_ranges[std::size_t(section - 2)];
        if (r.categorical())
            return tr("Categorical: %1").arg(r.values.join(QStringLiteral(", ")));
        return tr("%1 from %2 to %3%4")
            .arg(r.type == TuningRange::Type::Integer ? tr("Integer") : tr("Continuous"))
            .arg(r.min)
            .arg(r.max)
            .arg(r.logScale() ? tr(", log scale") : QString());
    }
    if (role != Qt::DisplayRole)
        return {};
    if (section == 0)
        return tr("#");
    if (section == 1)
        return tr("Training job");
    if (section < objectiveColumn())
        return m_ranges[std::size_t(section - 2)].name;
    if (section == objectiveColumn())
        return m_objective.isEmpty() ? tr("Objective") : m_objective;
    if (section == statusColumn())
        return tr("Status");
    if (section == stoppedEarlyColumn())
        return tr("Stopped early");
    return tr("Reason");
}

} // namespace studio::models
