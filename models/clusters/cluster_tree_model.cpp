#include "models/clusters/cluster_tree_model.h"

#include "engine/store/store_reader.h"

#include <QDateTime>
#include <QLocale>
#include <QStringList>

namespace studio::models {

namespace {

// Host rows carry their cluster's row + 1 as internal id; cluster rows carry 0.
constexpr quintptr kClusterId = 0;

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

QString timeText(double unixSeconds) {
    return QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(unixSeconds * 1000))
        .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QString bytesText(std::int64_t bytes) {
    return bytes < 0 ? QString() : QLocale().formattedDataSize(bytes);
}

QString gpusText(const remote::HostFacts& f) {
    if (f.gpus.empty())
        return QStringLiteral("0");
    return QStringLiteral("%1 × %2").arg(f.gpus.size()).arg(qs(f.gpus.front().name));
}

QString offsetText(double seconds) {
    return QStringLiteral("%1%2 s")
        .arg(seconds >= 0 ? QStringLiteral("+") : QString())
        .arg(seconds, 0, 'f', 3);
}

QString hostFacts(const remote::HostCheck& h) {
    QStringList lines;
    lines << qs(h.version);
    lines << ClusterTreeModel::tr("%1 cores, %2 memory")
                 .arg(h.facts.cores)
                 .arg(bytesText(h.facts.memoryBytes));
    if (h.facts.diskFreeBytes >= 0)
        lines << ClusterTreeModel::tr("%1 free in %2")
                     .arg(bytesText(h.facts.diskFreeBytes), qs(h.facts.workdir));
    QStringList gpus;
    for (const auto& g : h.facts.gpus)
        gpus << QStringLiteral("%1 (%2)").arg(qs(g.name), bytesText(g.memoryBytes));
    lines << (gpus.isEmpty()
                  ? ClusterTreeModel::tr("No GPUs")
                  : ClusterTreeModel::tr("GPUs: %1").arg(gpus.join(QStringLiteral(", "))));
    lines << ClusterTreeModel::tr("Clock offset %1").arg(offsetText(h.clockOffsetSeconds));
    return lines.join(QLatin1Char('\n'));
}

QString clusterSettings(const remote::ClusterConfig& c) {
    if (c.isLocal())
        return ClusterTreeModel::tr("This machine, reached without SSH.");
    const auto orElse = [](const std::string& v, const QString& fallback) {
        return v.empty() ? fallback : qs(v);
    };
    QStringList hosts;
    for (const auto& h : c.hosts)
        hosts << qs(h.text());
    QStringList lines;
    lines << ClusterTreeModel::tr("Hosts: %1").arg(hosts.join(QStringLiteral(", ")));
    lines << ClusterTreeModel::tr("Identity: %1")
                 .arg(orElse(c.identityFile, ClusterTreeModel::tr("the user's keys and agent")));
    lines << ClusterTreeModel::tr("Known hosts: %1")
                 .arg(orElse(c.knownHostsFile, ClusterTreeModel::tr("the user's known_hosts")));
    lines << ClusterTreeModel::tr("Workdir: %1").arg(qs(c.effectiveWorkdir()));
    lines << ClusterTreeModel::tr("Programs: %1")
                 .arg(orElse(c.installDir, ClusterTreeModel::tr("on the login PATH")));
    lines << ClusterTreeModel::tr("Rendezvous: %1, interface %2")
                 .arg(orElse(c.rendezvousAddress, ClusterTreeModel::tr("node 0's address")),
                      orElse(c.socketIfname, ClusterTreeModel::tr("the one that reaches node 0")));
    lines << ClusterTreeModel::tr("Host timeout: %1 s").arg(c.hostTimeoutSeconds);
    return lines.join(QLatin1Char('\n'));
}

} // namespace

std::vector<ClusterEntry> loadClusterEntries(store::StoreReader& reader) {
    std::vector<ClusterEntry> out;
    out.push_back(ClusterEntry{remote::localCluster(), {}, {}});
    for (const auto& row : reader.clusters()) {
        ClusterEntry e;
        e.config.name = row.name;
        e.config.kind = row.kind;
        try {
            e.config = remote::clusterFromJson(row.name, row.config);
        } catch (const std::exception& ex) {
            e.definitionError = ex.what();
        }
        e.config.created = row.created;
        e.config.updated = row.updated;
        e.lastCheck = remote::clusterCheckFromJson(row.lastCheck);
        out.push_back(std::move(e));
    }
    return out;
}

ClusterTreeModel::HostState ClusterTreeModel::HostRow::state() const {
    if (checking)
        return HostState::Checking;
    if (!check)
        return HostState::NeverChecked;
    return check->ok() ? HostState::Ready : HostState::NotReady;
}

ClusterTreeModel::ClusterTreeModel(QObject* parent)
    : QAbstractItemModel(parent) {
}

std::string ClusterTreeModel::hostLabel(const remote::ClusterConfig& c, std::size_t index) {
    return c.isLocal() ? std::string(remote::kLocalCluster) : c.hosts.at(index).text();
}

QString ClusterTreeModel::stateText(HostState state, const QString& error) {
    switch (state) {
    case HostState::NeverChecked:
        return tr("never checked");
    case HostState::Checking:
        return tr("checking…");
    case HostState::Ready:
        return tr("ready");
    case HostState::NotReady:
        return error;
    }
    return {};
}

std::vector<ClusterTreeModel::HostRow> ClusterTreeModel::hostRows(const ClusterEntry& e) {
    std::vector<HostRow> rows;
    const std::size_t n = e.config.isLocal() ? 1 : e.config.hosts.size();
    for (std::size_t i = 0; i < n; ++i) {
        HostRow h;
        h.label = hostLabel(e.config, i);
        // Matched by name: an edited cluster keeps the results of the hosts it still has.
        for (const auto& c : e.lastCheck.hosts)
            if (c.host == h.label) {
                h.check = c;
                h.checkedAt = e.lastCheck.time;
            }
        rows.push_back(std::move(h));
    }
    return rows;
}

QModelIndex ClusterTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid())
        return row < static_cast<int>(m_rows.size()) ? createIndex(row, column, kClusterId)
                                                     : QModelIndex();
    if (parent.internalId() != kClusterId || parent.column() != 0)
        return {};
    const auto& c = m_rows[static_cast<std::size_t>(parent.row())];
    if (row >= static_cast<int>(c.hosts.size()))
        return {};
    return createIndex(row, column, static_cast<quintptr>(parent.row() + 1));
}

QModelIndex ClusterTreeModel::parent(const QModelIndex& child) const {
    if (!child.isValid() || child.internalId() == kClusterId)
        return {};
    return createIndex(static_cast<int>(child.internalId() - 1), 0, kClusterId);
}

int ClusterTreeModel::rowCount(const QModelIndex& parent) const {
    if (!parent.isValid())
        return static_cast<int>(m_rows.size());
    if (parent.internalId() != kClusterId || parent.column() != 0)
        return 0;
    return static_cast<int>(m_rows[static_cast<std::size_t>(parent.row())].hosts.size());
}

int ClusterTreeModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

QVariant ClusterTreeModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid())
        return {};
    if (index.internalId() == kClusterId)
        return clusterData(m_rows[static_cast<std::size_t>(index.row())], index.column(), role);
    const auto& c = m_rows[static_cast<std::size_t>(index.internalId() - 1)];
    return hostData(c, c.hosts[static_cast<std::size_t>(index.row())], index.row(), index.column(),
                    role);
}

ClusterTreeModel::HostState ClusterTreeModel::clusterState(const ClusterRow& c) {
    bool never = c.hosts.empty();
    for (const auto& h : c.hosts) {
        const HostState s = h.state();
        if (s == HostState::Checking)
            return s;
        never = never || s == HostState::NeverChecked;
    }
    for (const auto& h : c.hosts)
        if (h.state() == HostState::NotReady)
            return HostState::NotReady;
    return never ? HostState::NeverChecked : HostState::Ready;
}

QVariant ClusterTreeModel::clusterData(const ClusterRow& c, int column, int role) const {
    const remote::ClusterConfig& config = c.entry.config;
    const HostState state = clusterState(c);
    switch (role) {
    case KindRole:
        return static_cast<int>(NodeKind::Cluster);
    case ClusterNameRole:
        return qs(config.name);
    case HostIndexRole:
        return -1;
    case StateRole:
        return static_cast<int>(state);
    case HostCountRole:
        return static_cast<int>(c.hosts.size());
    case ErrorRole:
        return qs(c.entry.definitionError);
    case Qt::ToolTipRole: {
        QString text = qs(config.name) + QStringLiteral(" (") + qs(config.kind) +
                       QStringLiteral(")\n") +
                       (c.entry.definitionError.empty() ? clusterSettings(config)
                                                        : qs(c.entry.definitionError));
        if (c.entry.lastCheck.time > 0)
            text += QLatin1Char('\n') + tr("Last check: %1").arg(timeText(c.entry.lastCheck.time));
        return text;
    }
    case Qt::DisplayRole:
        break;
    default:
        return {};
    }
    if (column == NameColumn)
        return qs(config.name);
    if (column != StateColumn)
        return {};
    if (!c.entry.definitionError.empty())
        return qs(c.entry.definitionError);
    if (state == HostState::NotReady) {
        int failed = 0;
        for (const auto& h : c.hosts)
            failed += h.state() == HostState::NotReady;
        const int n = static_cast<int>(c.hosts.size());
        return n == 1 ? tr("not ready") : tr("%1 of %2 hosts not ready").arg(failed).arg(n);
    }
    if (state == HostState::NeverChecked && config.isLocal())
        return tr("this machine");
    return stateText(state, {});
}

QVariant ClusterTreeModel::hostData(const ClusterRow& c, const HostRow& h, int hostIndex,
                                    int column, int role) const {
    const HostState state = h.state();
    const QString error = h.check ? qs(h.check->error) : QString();
    const bool ready = state == HostState::Ready;
    switch (role) {
    case KindRole:
        return static_cast<int>(NodeKind::Host);
    case ClusterNameRole:
        return qs(c.entry.config.name);
    case HostIndexRole:
        return hostIndex;
    case StateRole:
        return static_cast<int>(state);
    case ErrorRole:
        return error;
    case Qt::ToolTipRole: {
        QString text = qs(h.label) + QStringLiteral(": ") + stateText(state, error);
        if (ready)
            text += QLatin1Char('\n') + hostFacts(*h.check);
        if (h.check && !h.checking)
            text +=
                QLatin1Char('\n') +
                tr("Checked %1 (%2 s)").arg(timeText(h.checkedAt)).arg(h.check->seconds, 0, 'f', 1);
        return text;
    }
    case Qt::TextAlignmentRole:
        if (column >= CoresColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::DisplayRole:
        break;
    default:
        return {};
    }
    if (column == NameColumn)
        return c.entry.config.isLocal() ? tr("this machine") : qs(h.label);
    if (column == StateColumn)
        return stateText(state, error);
    if (!ready)
        return {};
    const remote::HostCheck& k = *h.check;
    switch (column) {
    case VersionColumn:
        return qs(k.version);
    case CoresColumn:
        return k.facts.cores;
    case MemoryColumn:
        return bytesText(k.facts.memoryBytes);
    case DiskFreeColumn:
        return bytesText(k.facts.diskFreeBytes);
    case GpusColumn:
        return gpusText(k.facts);
    case ClockOffsetColumn:
        return offsetText(k.clockOffsetSeconds);
    default:
        return {};
    }
}

QVariant ClusterTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Cluster");
    case StateColumn:
        return tr("State");
    case VersionColumn:
        return tr("Launcher");
    case CoresColumn:
        return tr("Cores");
    case MemoryColumn:
        return tr("Memory");
    case DiskFreeColumn:
        return tr("Free disk");
    case GpusColumn:
        return tr("GPUs");
    case ClockOffsetColumn:
        return tr("Clock offset");
    default:
        return {};
    }
}

void ClusterTreeModel::setClusters(std::vector<ClusterEntry> clusters) {
    beginResetModel();
    m_rows.clear();
    for (auto& e : clusters) {
        ClusterRow row;
        row.hosts = hostRows(e);
        row.entry = std::move(e);
        m_rows.push_back(std::move(row));
    }
    endResetModel();
}

std::vector<ClusterEntry> ClusterTreeModel::clusters() const {
    std::vector<ClusterEntry> out;
    for (const auto& r : m_rows)
        out.push_back(r.entry);
    return out;
}

std::optional<ClusterEntry> ClusterTreeModel::cluster(const QString& name) const {
    const int r = rowOf(name);
    if (r < 0)
        return std::nullopt;
    return m_rows[static_cast<std::size_t>(r)].entry;
}

int ClusterTreeModel::rowOf(const QString& cluster) const {
    const std::string name = cluster.toStdString();
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].entry.config.name == name)
            return static_cast<int>(i);
    return -1;
}

QModelIndex ClusterTreeModel::indexOf(const QString& cluster, int host) const {
    const int r = rowOf(cluster);
    if (r < 0)
        return {};
    const QModelIndex c = index(r, 0);
    return host < 0 ? c : index(host, 0, c);
}

void ClusterTreeModel::hostsChanged(int clusterRow) {
    const QModelIndex c = index(clusterRow, 0);
    Q_EMIT dataChanged(c, index(clusterRow, ColumnCount - 1));
    const int n = rowCount(c);
    if (n > 0)
        Q_EMIT dataChanged(index(0, 0, c), index(n - 1, ColumnCount - 1, c));
}

void ClusterTreeModel::setChecking(const QString& cluster) {
    const int r = rowOf(cluster);
    if (r < 0)
        return;
    for (auto& h : m_rows[static_cast<std::size_t>(r)].hosts)
        h.checking = true;
    hostsChanged(r);
}

void ClusterTreeModel::setHostCheck(const QString& cluster, const remote::HostCheck& host) {
    const int r = rowOf(cluster);
    if (r < 0)
        return;
    for (auto& h : m_rows[static_cast<std::size_t>(r)].hosts)
        if (h.label == host.host) {
            h.check = host;
            h.checkedAt = static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
            h.checking = false;
        }
    hostsChanged(r);
}

void ClusterTreeModel::setCheck(const QString& cluster, const remote::ClusterCheck& check) {
    const int r = rowOf(cluster);
    if (r < 0)
        return;
    ClusterRow& row = m_rows[static_cast<std::size_t>(r)];
    row.entry.lastCheck = check;
    row.hosts = hostRows(row.entry);
    hostsChanged(r);
}

} // namespace studio::models
