#include "models/jobs/job_ranks_model.h"

#include "models/common/status_style.h"

namespace studio::models {

namespace {

QString exitText(const store::RankRow& r) {
    if (r.signal > 0)
        return QStringLiteral("signal %1").arg(r.signal);
    return r.exitCode ? QString::number(*r.exitCode) : QStringLiteral("running");
}

} // namespace

JobRanksModel::JobRanksModel(QObject* parent)
    : QAbstractTableModel(parent) {
}

int JobRanksModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int JobRanksModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QString JobRanksModel::statusOf(const store::RankRow& r) {
    if (!r.exitCode && r.signal == 0)
        return QStringLiteral("InProgress");
    return r.signal == 0 && r.exitCode && *r.exitCode == 0 ? QStringLiteral("Completed")
                                                           : QStringLiteral("Failed");
}

QVariant JobRanksModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const store::RankRow& r = m_rows[static_cast<std::size_t>(index.row())];
    if (role == StatusRole)
        return statusOf(r);
    if (role == Qt::DecorationRole && index.column() == RankColumn)
        return statusIcon(statusOf(r));
    if (role == Qt::ToolTipRole && index.column() == DeviceColumn && !r.device.empty())
        return QString::fromStdString(r.device);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case RankColumn:
        return r.rank;
    case NodeColumn:
        return r.node;
    case LocalRankColumn:
        return r.localRank;
    case PidColumn:
        return r.pid > 0 ? QVariant(static_cast<qlonglong>(r.pid)) : QVariant();
    case DeviceColumn:
        // A user's own script reports none.
        return r.device.empty() ? QStringLiteral("-") : QString::fromStdString(r.device);
    case StartedColumn:
        return formatTime(r.started);
    case ExitColumn:
        return exitText(r);
    default:
        return {};
    }
}

QVariant JobRanksModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case RankColumn:
        return tr("Rank");
    case NodeColumn:
        return tr("Node");
    case LocalRankColumn:
        return tr("Local rank");
    case PidColumn:
        return tr("PID");
    case DeviceColumn:
        return tr("Device");
    case StartedColumn:
        return tr("Started");
    case ExitColumn:
        return tr("Exit");
    default:
        return {};
    }
}

void JobRanksModel::setRanks(const std::vector<store::RankRow>& ranks) {
    // Live reloads keep the rows (and the view's selection) when only their values change.
    if (ranks.size() == m_rows.size()) {
        m_rows = ranks;
        if (!m_rows.empty())
            Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
        return;
    }
    beginResetModel();
    m_rows = ranks;
    endResetModel();
}

} // namespace studio::models
