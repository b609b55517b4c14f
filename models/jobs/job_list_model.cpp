#include "models/jobs/job_list_model.h"

#include "engine/store/store_reader.h"
#include "models/common/status_style.h"
#include "models/data/data_service.h"

#include <QDateTime>

namespace studio::models {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

double duration(const store::ComponentRow& r) {
    if (r.started <= 0)
        return -1;
    const double end =
        r.ended > 0 ? r.ended : static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
    return end - r.started;
}

// Why Slurm keeps a job waiting ("Resources", "Priority"); "" for a job it does not hold back.
QString pendingReason(const store::SlurmJobRow& j) {
    if (j.state != "PENDING" || j.reason.empty() || j.reason == "None")
        return {};
    return qs(j.reason);
}

} // namespace

JobListData loadJobList(store::StoreReader& reader) {
    JobListData out;
    out.rows = reader.components();
    std::sort(out.rows.begin(), out.rows.end(),
              [](const auto& a, const auto& b) { return a.created > b.created; });
    out.slurm = reader.newestSlurmJobs();
    return out;
}

JobListModel::JobListModel(DataService* data, QObject* parent)
    : QAbstractTableModel(parent)
    , m_service(data) {
    m_coalesce.setSingleShot(true);
    m_coalesce.setInterval(300);
    connect(&m_coalesce, &QTimer::timeout, this, &JobListModel::load);
    connect(m_service, &DataService::jobsChanged, this, &JobListModel::refresh);
    load();
}

int JobListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int JobListModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant JobListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const store::ComponentRow& r = row(index.row());
    const QString name = qs(r.name);
    const QString status = qs(r.status);
    switch (role) {
    case JobNameRole:
        return name;
    case ComponentIdRole:
        return static_cast<qlonglong>(r.id);
    case StatusRole:
        return status;
    case ClusterRole:
        return qs(r.cluster);
    case ProgressRole: {
        const auto it = m_progress.constFind(name);
        if (it == m_progress.constEnd() || it->second <= 0 || r.status != "InProgress")
            return {};
        return std::min(1.0, static_cast<double>(it->first + 1) / static_cast<double>(it->second));
    }
    case SlurmJobIdRole:
    case SlurmPartitionRole:
    case SlurmNodesRole:
    case SlurmReasonRole:
        return slurmData(r, role);
    case Qt::ToolTipRole: {
        const QString slurm = slurmData(r, Qt::ToolTipRole).toString();
        return QString(
            name + QStringLiteral("\n") + status + QStringLiteral(" · ") + qs(r.secondaryStatus) +
            QStringLiteral("\n") +
            (r.cluster != "local" ? tr("on cluster %1").arg(qs(r.cluster))
                                  : tr("on this machine")) +
            (slurm.isEmpty() ? QString() : QStringLiteral("\n") + slurm) +
            (r.failureReason.empty() ? QString() : QStringLiteral("\n") + qs(r.failureReason)));
    }
    default:
        break;
    }
    switch (index.column()) {
    case NameColumn:
        if (role == Qt::DisplayRole)
            return r.displayName.empty() ? name : qs(r.displayName);
        if (role == Qt::DecorationRole)
            return statusIcon(status);
        break;
    case StatusColumn:
        if (role == Qt::DisplayRole)
            return statusText(r);
        if (role == Qt::ForegroundRole)
            return statusColor(status);
        break;
    case CreatedColumn:
        if (role == Qt::DisplayRole)
            return formatTime(r.created);
        break;
    case DurationColumn:
        if (role == Qt::DisplayRole)
            return formatDuration(duration(r));
        if (role == Qt::TextAlignmentRole)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case ClusterColumn:
        if (role == Qt::DisplayRole)
            return qs(r.cluster);
        break;
    case SlurmColumn:
        if (role == Qt::DisplayRole)
            return slurmData(r, Qt::DisplayRole);
        break;
    default:
        break;
    }
    return {};
}

QString JobListModel::statusText(const store::ComponentRow& r) const {
    // The list is narrow: a remote job names its cluster here, a local one says nothing.
    const QString where = r.cluster != "local" ? QStringLiteral(" · ") + qs(r.cluster) : QString();
    const auto it = m_progress.constFind(qs(r.name));
    if (r.status == "InProgress" && it != m_progress.constEnd() && it->second > 0)
        return QStringLiteral("%1 · step %2/%3%4")
            .arg(qs(r.secondaryStatus))
            .arg(it->first)
            .arg(it->second)
            .arg(where);
    // A job Slurm holds back says why in the Slurm column, as squeue does in NODELIST(REASON).
    const QString secondary = qs(r.secondaryStatus);
    const QString status = qs(r.status);
    return QString((secondary.isEmpty() || secondary == status
                        ? status
                        : QString(status + QStringLiteral(" · ") + secondary)) +
                   where);
}

// The newest Slurm job's id, partition, nodes and pending reason, as squeue shows them: the
// reason in parentheses where the nodes will be.
QVariant JobListModel::slurmData(const store::ComponentRow& r, int role) const {
    const auto it = m_slurm.find(r.id);
    if (it == m_slurm.end())
        return role == Qt::DisplayRole || role == Qt::ToolTipRole ? QVariant(QString())
                                                                  : QVariant();
    const store::SlurmJobRow& j = it->second;
    const QString reason = pendingReason(j);
    switch (role) {
    case SlurmJobIdRole:
        return static_cast<qlonglong>(j.jobId);
    case SlurmPartitionRole:
        return qs(j.partition);
    case SlurmNodesRole:
        return qs(j.nodes);
    case SlurmReasonRole:
        return reason;
    case Qt::DisplayRole: {
        QStringList parts{QString::number(j.jobId)};
        if (!j.partition.empty())
            parts << qs(j.partition);
        if (!reason.isEmpty())
            parts << QStringLiteral("(") + reason + QLatin1Char(')');
        else if (!j.nodes.empty())
            parts << qs(j.nodes);
        return parts.join(QStringLiteral(" · "));
    }
    case Qt::ToolTipRole: {
        QString text = tr("Slurm job %1 (%2), partition %3")
                           .arg(j.jobId)
                           .arg(qs(j.state), j.partition.empty() ? tr("default") : qs(j.partition));
        if (!reason.isEmpty())
            text += QStringLiteral("\n") + tr("pending: %1").arg(reason);
        else if (!j.nodes.empty())
            text += QStringLiteral("\n") + tr("nodes %1").arg(qs(j.nodes));
        return text;
    }
    default:
        return {};
    }
}

QVariant JobListModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Job");
    case StatusColumn:
        return tr("Status");
    case CreatedColumn:
        return tr("Created");
    case DurationColumn:
        return tr("Duration");
    case ClusterColumn:
        return tr("Cluster");
    case SlurmColumn:
        return tr("Slurm");
    default:
        return {};
    }
}

void JobListModel::refresh() {
    if (!m_coalesce.isActive())
        m_coalesce.start();
}

void JobListModel::load() {
    m_service->jobList(m_task, [this](JobListData fresh) { setRows(std::move(fresh)); });
}

void JobListModel::setRows(JobListData fresh) {
    std::vector<store::ComponentRow>& rows = fresh.rows;
    // Same jobs in the same order (the usual case while jobs run): update cells in place so
    // selections and scroll positions stay.
    bool same = rows.size() == m_rows.size();
    for (std::size_t i = 0; same && i < rows.size(); ++i)
        same = rows[i].id == m_rows[i].id;
    if (same) {
        m_rows = std::move(rows);
        m_slurm = std::move(fresh.slurm);
        if (!m_rows.empty())
            Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    } else {
        beginResetModel();
        m_rows = std::move(rows);
        m_slurm = std::move(fresh.slurm);
        endResetModel();
    }
    Q_EMIT loaded();
}

void JobListModel::applyBatch(const LiveBatch& batch) {
    for (const auto& s : batch.steps) {
        auto& p = m_progress[s.job];
        p.first = s.step;
        const int r = rowOf(s.job);
        if (r >= 0)
            Q_EMIT dataChanged(index(r, StatusColumn), index(r, StatusColumn));
    }
}

void JobListModel::setTotalSteps(const QString& job, qint64 total) {
    m_progress[job].second = total;
}

int JobListModel::rowOf(const QString& job) const {
    const std::string name = job.toStdString();
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].name == name)
            return static_cast<int>(i);
    return -1;
}

} // namespace studio::models
