// The Clusters explorer's tree: the built-in "local" first, then the stored clusters by name, each
// with its hosts and what the cluster's last check found on them (ready, the exact error, or never
// checked; launcher version, cores, memory, free disk, GPUs, clock offset). Qt Core only: icons
// and colours are the view's. GUI thread only.
#pragma once

#include "engine/remote/cluster.h"
#include "engine/remote/cluster_check.h"

#include <QAbstractItemModel>
#include <QString>

#include <optional>
#include <string>
#include <vector>

namespace studio::store {
class StoreReader;
}

namespace studio::models {

struct ClusterEntry {
    remote::ClusterConfig config;   // its name is set even when the definition did not parse
    std::string definitionError;    // the stored definition does not parse ("" when it does)
    remote::ClusterCheck lastCheck; // no hosts: never checked
};

// "local", then the store's clusters by name, with their last checks.
std::vector<ClusterEntry> loadClusterEntries(store::StoreReader& reader);

class ClusterTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum class NodeKind { Cluster, Host };
    // What is known of a host; a cluster row has the worst of its hosts'.
    enum class HostState { NeverChecked, Checking, Ready, NotReady };
    enum Role {
        KindRole = Qt::UserRole + 1, // int (NodeKind)
        ClusterNameRole,             // QString
        HostIndexRole,               // int: the host's place in the cluster; -1 on a cluster row
        StateRole,                   // int (HostState)
        ErrorRole,                   // QString: why the host is not ready, host named
        HostCountRole,               // int; cluster rows
    };
    enum Column {
        NameColumn,
        StateColumn,
        VersionColumn,
        CoresColumn,
        MemoryColumn,
        DiskFreeColumn,
        GpusColumn,
        ClockOffsetColumn,
        ColumnCount
    };

    explicit ClusterTreeModel(QObject* parent = nullptr);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // Replaces every cluster (a reset: there are few, and views re-expand them).
    void setClusters(std::vector<ClusterEntry> clusters);
    std::vector<ClusterEntry> clusters() const;
    std::optional<ClusterEntry> cluster(const QString& name) const;
    // The cluster's row (host < 0) or one of its hosts' rows; invalid when there is none.
    QModelIndex indexOf(const QString& cluster, int host = -1) const;

    // A check of the cluster began: its hosts read "checking…" until their results come.
    void setChecking(const QString& cluster);
    // One host's result, as the check reports it (matched by the host's name).
    void setHostCheck(const QString& cluster, const remote::HostCheck& host);
    // The whole check: the cluster's last check from now on.
    void setCheck(const QString& cluster, const remote::ClusterCheck& check);

    // A host as a check names it: "local" for this machine, else [user@]host[:port].
    static std::string hostLabel(const remote::ClusterConfig& c, std::size_t index);
    // The text of a host's state: "ready", its error, "never checked" or "checking…".
    static QString stateText(HostState state, const QString& error);

private:
    struct HostRow {
        std::string label;
        std::optional<remote::HostCheck> check;
        double checkedAt = 0;
        bool checking = false;
        HostState state() const;
    };
    struct ClusterRow {
        ClusterEntry entry;
        std::vector<HostRow> hosts;
    };

    int rowOf(const QString& cluster) const;
    void hostsChanged(int clusterRow);
    QVariant clusterData(const ClusterRow& c, int column, int role) const;
    QVariant hostData(const ClusterRow& c, const HostRow& h, int hostIndex, int column,
                      int role) const;
    static HostState clusterState(const ClusterRow& c);
    static std::vector<HostRow> hostRows(const ClusterEntry& e);

    std::vector<ClusterRow> m_rows;
};

} // namespace studio::models
