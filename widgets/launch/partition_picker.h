// The Compute page's "Partition" field for a job on a Slurm cluster: a combo box of the
// cluster's partitions, listed off the GUI thread through the cluster's fetcher ("loading…"
// meanwhile, and an error naming the cluster when its API cannot be reached, the rest of the
// dialog staying usable). Selected: the spec's partition, else the cluster's default partition,
// else Slurm's default one. GUI thread only.
#pragma once

#include "models/common/background_task.h"
#include "widgets/launch/cluster_choice.h"

#include <QHash>
#include <QObject>

#include <optional>
#include <vector>

class QComboBox;
class QLabel;

namespace studio::widgets {

// Owns no layout: the form places combo() and, under it, status() (loading, or the error).
class PartitionPicker : public QObject {
    Q_OBJECT
public:
    explicit PartitionPicker(QObject* parent = nullptr);

    // The cluster whose partitions to offer; nullopt or a cluster that is not a Slurm one
    // empties the list. Another cluster than before forgets the spec's partition.
    void setCluster(const std::optional<ClusterChoice>& cluster);
    // The partition the spec names ("": none). It is selected, and listed even when the
    // cluster does not have it (the validator and the engine name it then).
    void setWanted(const QString& partition);
    // The chosen partition; "" while there is none (loading, or the list failed).
    QString partition() const;
    bool loading() const { return m_loading; }
    QComboBox* combo() const { return m_combo; }
    QLabel* status() const { return m_status; }

Q_SIGNALS:
    // The chosen partition changed without the user (the list arrived, the cluster changed).
    void partitionChanged();

private:
    void fetch();
    // Refills the combo box from the list (or the state of fetching it) and the wanted one.
    void rebuild();

    QComboBox* m_combo;
    QLabel* m_status;
    std::optional<ClusterChoice> m_cluster;
    QString m_wanted;
    bool m_loading = false;
    QString m_error;
    std::vector<PartitionChoice> m_partitions;
    QHash<QString, std::vector<PartitionChoice>> m_listed; // by cluster, for this dialog's life
    models::BackgroundTask<std::vector<PartitionChoice>> m_task{this};
};

} // namespace studio::widgets
