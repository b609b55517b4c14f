#include "models/jobs/findings_model.h"

#include "models/common/status_style.h"

#include <algorithm>

namespace studio::models {

FindingsModel::FindingsModel(Scope scope, QObject* parent)
    : RecordTableModel(parent)
    , m_scope(scope) {
    if (scope == Scope::OneJob)
        m_fields = {TimeField, RuleField, StepField, WhereField, FindingField, AdviceField};
    else
        m_fields = {TimeField, JobField, RuleField, StepField, FindingField, AdviceField};
}

void FindingsModel::setJobFindings(const std::vector<store::FindingRow>& findings) {
    std::vector<FindingItem> items;
    items.reserve(findings.size());
    for (const auto& f : findings)
        items.push_back({{}, {}, f, false});
    setRecords(std::move(items));
}

int FindingsModel::columnOf(Field field) const {
    const auto it = std::find(m_fields.begin(), m_fields.end(), field);
    return it == m_fields.end() ? -1 : static_cast<int>(it - m_fields.begin());
}

QString FindingsModel::whereText(const store::FindingRow& f) {
    QString where = f.node >= 0 ? tr("node %1").arg(f.node) : QString();
    if (!f.device.empty())
        where +=
            (where.isEmpty() ? QString() : QStringLiteral(", ")) + QString::fromStdString(f.device);
    return where;
}

QStringList FindingsModel::headers() const {
    // In Field order.
    static const char* const titles[] = {
        QT_TR_NOOP("Time"),  QT_TR_NOOP("Job"),     QT_TR_NOOP("Rule"),  QT_TR_NOOP("Step"),
        QT_TR_NOOP("Where"), QT_TR_NOOP("Finding"), QT_TR_NOOP("Advice")};
    QStringList names;
    for (Field field : m_fields)
        names << tr(titles[field]);
    return names;
}

QString FindingsModel::text(const FindingItem& item, Field field) const {
    const store::FindingRow& f = item.finding;
    switch (field) {
    case TimeField:
        return formatTime(f.time);
    case JobField:
        return item.job;
    case RuleField:
        return QString::fromStdString(f.rule);
    case StepField:
        return f.step >= 0 ? QString::number(f.step) : QString();
    case WhereField:
        return whereText(f);
    case FindingField:
        return QString::fromStdString(f.message);
    case AdviceField:
        return QString::fromStdString(f.recommendation);
    }
    return {};
}

QVariant FindingsModel::cell(const FindingItem& item, int column, int role) const {
    const Field field = m_fields[static_cast<std::size_t>(column)];
    const bool recent = m_scope == Scope::RecentJobs;
    switch (role) {
    case Qt::DisplayRole:
        return text(item, field);
    case JobRole:
        return item.job;
    case Qt::DecorationRole:
        if (recent && field == RuleField)
            return statusIcon(QStringLiteral("IssuesFound"));
        return {};
    case Qt::ToolTipRole:
        if (recent && (field == FindingField || field == AdviceField))
            return text(item, field);
        return {};
    default:
        return {};
    }
}

} // namespace studio::models
