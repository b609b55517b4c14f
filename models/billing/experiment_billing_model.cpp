#include "models/billing/experiment_billing_model.h"

#include "models/common/status_style.h"

namespace studio::models {

namespace {

QString money(const std::optional<double>& usd) {
    return usd ? QStringLiteral("$%1").arg(*usd, 0, 'f', 2) : QStringLiteral("-");
}

} // namespace

void ExperimentBillingModel::setRows(std::vector<JobBillingRow> rows) {
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int ExperimentBillingModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ExperimentBillingModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ExperimentBillingModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const JobBillingRow& r = m_rows[static_cast<std::size_t>(index.row())];
    const auto& s = r.summary;
    if (role == Qt::TextAlignmentRole)
        return index.column() >= TrainingColumn
                   ? QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
    if (role == Qt::DecorationRole && index.column() == StatusColumn)
        return statusIcon(r.status);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case JobColumn:
        return r.job;
    case StatusColumn:
        return r.status;
    case InstanceColumn:
        return QString(r.instance + (r.spot ? tr(" (spot)") : QString()));
    case TrainingColumn:
        return formatDuration(s.trainingTimeSeconds);
    case BillableColumn:
        return formatDuration(s.billableTimeSeconds);
    case SavingsColumn:
        return QStringLiteral("%1%").arg(s.savingsPercent, 0, 'f', 1);
    case SpotCostColumn:
        return money(s.spotCostUsd);
    case OnDemandCostColumn:
        return money(s.onDemandCostUsd);
    case InterruptionsColumn:
        return s.interruptions;
    case LostStepsColumn:
        return static_cast<qlonglong>(s.lostSteps);
    default:
        return {};
    }
}

QVariant ExperimentBillingModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    const QString titles[] = {
        tr("Job"),     tr("Status"),    tr("Instance"),  tr("Training time"), tr("Billable"),
        tr("Savings"), tr("Spot cost"), tr("On demand"), tr("Interruptions"), tr("Lost steps")};
    return section >= 0 && section < ColumnCount ? titles[section] : QVariant();
}

ExperimentBillingTotals totalsOf(const std::vector<JobBillingRow>& rows) {
    ExperimentBillingTotals t;
    for (const auto& r : rows) {
        t.trainingTimeSeconds += r.summary.trainingTimeSeconds;
        t.billableTimeSeconds += r.summary.billableTimeSeconds;
        t.interruptions += r.summary.interruptions;
        if (r.summary.spotCostUsd && r.summary.onDemandCostUsd) {
            t.spotCostUsd += r.spot ? *r.summary.spotCostUsd : *r.summary.onDemandCostUsd;
            t.onDemandCostUsd += *r.summary.onDemandCostUsd;
            ++t.pricedJobs;
        }
    }
    t.savingsPercent = t.trainingTimeSeconds > 0
                           ? (1.0 - t.billableTimeSeconds / t.trainingTimeSeconds) * 100.0
                           : 0.0;
    return t;
}

} // namespace studio::models
