#include "models/jobs/slurm_jobs_model.h"

#include "models/common/status_style.h"

namespace studio::models {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

QString timeOrDash(double t) {
    return t > 0 ? formatTime(t) : QStringLiteral("-");
}

} // namespace

SlurmJobsModel::SlurmJobsModel(QObject* parent)
    : QAbstractTableModel(parent) {
}

int SlurmJobsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int SlurmJobsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QString SlurmJobsModel::statusOf(const QString& state) {
    static const QStringList running = {QStringLiteral("RUNNING"), QStringLiteral("CONFIGURING"),
                                        QStringLiteral("COMPLETING"), QStringLiteral("SUSPENDED")};
    static const QStringList failed = {QStringLiteral("FAILED"),        QStringLiteral("NODE_FAIL"),
                                       QStringLiteral("TIMEOUT"),       QStringLiteral("BOOT_FAIL"),
                                       QStringLiteral("OUT_OF_MEMORY"), QStringLiteral("DEADLINE"),
                                       QStringLiteral("PREEMPTED")};
    if (running.contains(state))
        return QStringLiteral("InProgress");
    if (state == QLatin1String("COMPLETED"))
        return QStringLiteral("Completed");
    if (state == QLatin1String("CANCELLED"))
        return QStringLiteral("Stopped");
    if (failed.contains(state))
        return QStringLiteral("Failed");
    return QStringLiteral("Pending"); // PENDING, REQUEUED, RESIZING, ...: waiting on Slurm
}

QString SlurmJobsModel::stateText(const store::SlurmJobRow& j) {
    if (j.reason.empty() || j.reason == "None")
        return qs(j.state);
    return qs(j.state) + QStringLiteral(" (") + qs(j.reason) + QLatin1Char(')');
}

QVariant SlurmJobsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const store::SlurmJobRow& j = m_rows[static_cast<std::size_t>(index.row())];
    switch (role) {
    case ScriptRole:
        return qs(j.script);
    case StatusRole:
        return statusOf(qs(j.state));
    case JobIdRole:
        return static_cast<qlonglong>(j.jobId);
    case Qt::DecorationRole:
        return index.column() == StateColumn ? QVariant(statusIcon(statusOf(qs(j.state))))
                                             : QVariant();
    case Qt::DisplayRole:
        break;
    default:
        return {};
    }
    switch (index.column()) {
    case JobIdColumn:
        return static_cast<qlonglong>(j.jobId);
    case AttemptColumn:
        return j.attempt;
    case PartitionColumn:
        return qs(j.partition);
    case StateColumn:
        return stateText(j);
    case NodesColumn:
        return j.nodes.empty() ? QStringLiteral("-") : qs(j.nodes); // none while pending
    case RestartsColumn:
        return j.restarts;
    case ExitColumn:
        return j.exitCode ? QString::number(*j.exitCode) : QStringLiteral("-");
    case SubmittedColumn:
        return timeOrDash(j.submitted);
    case StartedColumn:
        return timeOrDash(j.started);
    case EndedColumn:
        return timeOrDash(j.ended);
    default:
        return {};
    }
}

QVariant SlurmJobsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case JobIdColumn:
        return tr("Slurm job");
    case AttemptColumn:
        return tr("Attempt");
    case PartitionColumn:
        return tr("Partition");
    case StateColumn:
        return tr("State");
    case NodesColumn:
        return tr("Nodes");
    case RestartsColumn:
        return tr("Restarts");
    case ExitColumn:
        return tr("Exit");
    case SubmittedColumn:
        return tr("Submitted");
    case StartedColumn:
        return tr("Started");
    case EndedColumn:
        return tr("Ended");
    default:
        return {};
    }
}

void SlurmJobsModel::setJobs(const std::vector<store::SlurmJobRow>& jobs) {
    // Live reloads keep the rows (and the view's selection) when only their values change.
    if (jobs.size() == m_rows.size()) {
        m_rows = jobs;
        if (!m_rows.empty())
            Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
        return;
    }
    beginResetModel();
    m_rows = jobs;
    endResetModel();
}

} // namespace studio::models
