#include "widgets/jobs/job_list_model.h"

#include "engine/store/store_reader.h"
#include "widgets/common/theme.h"

#include <QDateTime>

namespace studio::widgets {

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

} // namespace

JobListModel::JobListModel(QString databasePath, QObject* parent)
    : QAbstractTableModel(parent)
    , m_path(std::move(databasePath)) {
    m_coalesce.setSingleShot(true);
    m_coalesce.setInterval(300);
    connect(&m_coalesce, &QTimer::timeout, this, &JobListModel::load);
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
    const bool remote = r.cluster != "local";
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
    case Qt::ToolTipRole:
        return QString(
            name + QStringLiteral("\n") + status + QStringLiteral(" · ") + qs(r.secondaryStatus) +
            QStringLiteral("\n") +
            (remote ? tr("on cluster %1").arg(qs(r.cluster)) : tr("on this machine")) +
            (r.failureReason.empty() ? QString() : QStringLiteral("\n") + qs(r.failureReason)));
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
        if (role == Qt::DisplayRole) {
            // The list is narrow: a remote job names its cluster here, a local one says nothing.
            const QString where = remote ? QStringLiteral(" · ") + qs(r.cluster) : QString();
            const auto it = m_progress.constFind(name);
            if (r.status == "InProgress" && it != m_progress.constEnd() && it->second > 0)
                return QStringLiteral("%1 · step %2/%3%4")
                    .arg(qs(r.secondaryStatus))
                    .arg(it->first)
                    .arg(it->second)
                    .arg(where);
            return QString((r.secondaryStatus.empty() || r.secondaryStatus == r.status
                                ? status
                                : QString(status + QStringLiteral(" · ") + qs(r.secondaryStatus))) +
                           where);
        }
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
    default:
        break;
    }
    return {};
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
    default:
        return {};
    }
}

void JobListModel::refresh() {
    if (!m_coalesce.isActive())
        m_coalesce.start();
}

void JobListModel::load() {
    const std::string path = m_path.toStdString();
    m_task.run(
        [path](const CancelFlag&) {
            store::StoreReader reader(path);
            auto rows = reader.components();
            std::sort(rows.begin(), rows.end(),
                      [](const auto& a, const auto& b) { return a.created > b.created; });
            return rows;
        },
        [this](std::vector<store::ComponentRow> rows) { setRows(std::move(rows)); });
}

void JobListModel::setRows(std::vector<store::ComponentRow> rows) {
    // Same jobs in the same order (the usual case while jobs run): update cells in place so
    // selections and scroll positions stay.
    bool same = rows.size() == m_rows.size();
    for (std::size_t i = 0; same && i < rows.size(); ++i)
        same = rows[i].id == m_rows[i].id;
    if (same) {
        m_rows = std::move(rows);
        if (!m_rows.empty())
            Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    } else {
        beginResetModel();
        m_rows = std::move(rows);
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
    if (!batch.statuses.isEmpty())
        refresh();
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

} // namespace studio::widgets
