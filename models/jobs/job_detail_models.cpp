#include "models/jobs/job_detail_models.h"

#include "models/common/status_style.h"

#include <QLocale>

namespace studio::models {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

} // namespace

void JobTransitionsModel::setTransitions(std::vector<store::StatusTransition> transitions,
                                         bool jobEnded) {
    m_jobEnded = jobEnded;
    setRecords(std::move(transitions));
}

QStringList JobTransitionsModel::headers() const {
    return {tr("Status"), tr("Secondary status"), tr("Start"), tr("Duration"), tr("Message")};
}

QVariant JobTransitionsModel::cell(const store::StatusTransition& t, int column, int role) const {
    if (role == StatusRole)
        return qs(t.status);
    if (role == Qt::DecorationRole && column == StatusColumn && !t.status.empty())
        return statusIcon(qs(t.status));
    if (role != Qt::DisplayRole)
        return {};
    switch (column) {
    case StatusColumn:
        return qs(t.status);
    case SecondaryColumn:
        return qs(t.secondaryStatus);
    case StartColumn:
        return formatTime(t.startTime);
    case DurationColumn:
        if (t.endTime > 0)
            return formatDuration(t.endTime - t.startTime);
        return m_jobEnded ? QStringLiteral("-") : tr("current");
    case MessageColumn:
        return qs(t.message);
    default:
        return {};
    }
}

QStringList JobParametersModel::headers() const {
    return {tr("Parameter"), tr("Value")};
}

QVariant JobParametersModel::cell(const store::ParameterRow& p, int column, int role) const {
    if (role != Qt::DisplayRole)
        return {};
    return column == NameColumn ? qs(p.name) : qs(p.value);
}

QStringList JobCheckpointsModel::headers() const {
    return {tr("Step"), tr("Rank"), tr("Time"), tr("Size"), tr("SHA-256"), tr("Path")};
}

QVariant JobCheckpointsModel::cell(const store::CheckpointRow& c, int column, int role) const {
    if (role != Qt::DisplayRole)
        return {};
    switch (column) {
    case StepColumn:
        return QString::number(c.step);
    case RankColumn:
        return QString::number(c.rank);
    case TimeColumn:
        return formatTime(c.time);
    case SizeColumn:
        return QLocale().formattedDataSize(c.bytes);
    case DigestColumn:
        return qs(c.sha256).left(12);
    case PathColumn:
        return qs(c.path);
    default:
        return {};
    }
}

QStringList JobArtifactsModel::headers() const {
    return {tr("Name"), tr("Kind"), tr("Value")};
}

QVariant JobArtifactsModel::cell(const store::ArtifactRow& a, int column, int role) const {
    if (role != Qt::DisplayRole)
        return {};
    switch (column) {
    case NameColumn:
        return qs(a.name);
    case KindColumn:
        return qs(a.kind);
    case ValueColumn:
        return qs(a.value);
    default:
        return {};
    }
}

} // namespace studio::models
