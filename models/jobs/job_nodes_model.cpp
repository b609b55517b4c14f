#include "models/jobs/job_nodes_model.h"

#include "models/common/status_style.h"

#include <QDateTime>

#include <algorithm>
#include <map>

namespace studio::models {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

QString clockText(double unixSeconds) {
    return QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(unixSeconds * 1000))
        .toString(QStringLiteral("HH:mm:ss"));
}

// The engine's transition message when a studio follows a job again from its journals.
constexpr const char* kTakenOver = "taken over";

} // namespace

JobNodesModel::JobNodesModel(QObject* parent)
    : QAbstractTableModel(parent) {
}

int JobNodesModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int JobNodesModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QString JobNodesModel::connectionText(const store::JournalRow& j) {
    if (j.state == "following")
        return tr("following");
    if (j.state == "reconnecting")
        return j.stateSince > 0 ? tr("reconnecting since %1").arg(clockText(j.stateSince))
                                : tr("reconnecting");
    if (j.state == "ended")
        return tr("ended");
    if (j.state == "lost")
        return tr("lost");
    if (j.state == "starting")
        return tr("starting");
    return qs(j.state);
}

QVariant JobNodesModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Row& r = m_rows[static_cast<std::size_t>(index.row())];
    if (role == StateRole)
        return r.journal ? qs(r.journal->state) : QString();
    if (role == Qt::ToolTipRole && r.journal && !r.journal->message.empty())
        return qs(r.journal->message);
    if (role == Qt::ForegroundRole && index.column() == ConnectionColumn && r.journal) {
        // A link that is down stands out; one that ended normally does not.
        if (r.journal->state == "reconnecting")
            return statusColor(QStringLiteral("Stopping"));
        if (r.journal->state == "lost")
            return statusColor(QStringLiteral("Failed"));
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case NodeColumn:
        return r.node;
    case HostColumn:
        return qs(r.host);
    case LauncherPidColumn:
        return r.launcherPid > 0 ? QVariant(static_cast<qlonglong>(r.launcherPid)) : QVariant();
    case ConnectionColumn:
        return r.journal ? connectionText(*r.journal) : tr("not journaled");
    case FollowedColumn:
        return m_takenOver > 0 ? tr("taken over at %1").arg(clockText(m_takenOver))
                               : tr("since the start");
    case MessageColumn:
        return r.journal ? qs(r.journal->message) : QString();
    default:
        return {};
    }
}

QVariant JobNodesModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NodeColumn:
        return tr("Node");
    case HostColumn:
        return tr("Host");
    case LauncherPidColumn:
        return tr("Launcher PID");
    case ConnectionColumn:
        return tr("Connection");
    case FollowedColumn:
        return tr("Followed");
    case MessageColumn:
        return tr("Message");
    default:
        return {};
    }
}

void JobNodesModel::setDetail(const store::ComponentDetail& d) {
    std::map<int, Row> byNode;
    for (const auto& n : d.nodes) {
        Row& r = byNode[n.node];
        r.node = n.node;
        r.host = n.host;
        r.launcherPid = n.launcherPid;
    }
    for (const auto& j : d.journals) {
        Row& r = byNode[j.node];
        r.node = j.node;
        r.host = j.host; // the cluster's name for the host, as the journal is followed there
        if (j.launcherPid > 0)
            r.launcherPid = j.launcherPid;
        r.journal = j;
    }
    std::vector<Row> rows;
    for (auto& [node, r] : byNode)
        rows.push_back(std::move(r));
    m_takenOver = 0;
    for (const auto& t : d.transitions)
        if (t.message.rfind(kTakenOver, 0) == 0)
            m_takenOver = std::max(m_takenOver, t.startTime);

    if (rows.size() == m_rows.size()) {
        m_rows = std::move(rows);
        if (!m_rows.empty())
            Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
        return;
    }
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

} // namespace studio::models
