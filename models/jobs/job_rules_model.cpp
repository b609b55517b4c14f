#include "models/jobs/job_rules_model.h"

#include "models/common/status_style.h"

namespace studio::models {

int JobRulesModel::issueCount() const {
    int issues = 0;
    for (const auto& r : records())
        issues += r.status == "IssuesFound";
    return issues;
}

QStringList JobRulesModel::headers() const {
    return {tr("Rule"),        tr("Kind"),    tr("Status"), tr("Fired"),
            tr("Data points"), tr("Actions"), tr("Note")};
}

QVariant JobRulesModel::cell(const store::RuleStatusRow& r, int column, int role) const {
    const QString status = QString::fromStdString(r.status);
    if (role == StatusRole)
        return status;
    if (role == Qt::DecorationRole && column == RuleColumn && !status.isEmpty())
        return statusIcon(status);
    if (role != Qt::DisplayRole)
        return {};
    switch (column) {
    case RuleColumn:
        return QString::fromStdString(r.rule);
    case KindColumn:
        return QString::fromStdString(r.kind);
    case StatusColumn:
        return status;
    case FiredColumn:
        return QString::number(r.fired);
    case DataPointsColumn:
        return QString::number(r.datapoints);
    case ActionsColumn:
        return QString::fromStdString(r.actions);
    case NoteColumn:
        return QString::fromStdString(r.message);
    default:
        return {};
    }
}

} // namespace studio::models
